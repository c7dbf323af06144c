//! Which instructions the observer's `step` has work for: what lets an inspected
//! transaction run the others without calling the observer at all (`chain`'s sparse loop).
//!
//! `step` records jumps, comparisons, storage, reverts, logs, calls, creations and
//! selfdestructs, and the sources of the data flows followed. Everything else but a push
//! only moves a comparison's note towards its JUMPI or drops it, or feeds the
//! per-instruction followers (a failed call's status, a data flow after its source, paths,
//! path conditions): while any of those runs, every instruction is wanted; while only a
//! note waits, every one but a push ([`Attention`], read after each call of `step`).

use revm::bytecode::opcode;

/// Per opcode, whether `step` records something for it while nothing is followed.
#[derive(Debug, Clone, Copy)]
pub(super) struct Wanted([bool; 256]);

impl Default for Wanted {
    /// What every observer records: no data flow followed, no block recorded.
    fn default() -> Self {
        Wanted::of(|_| false, false)
    }
}

/// The table of `ops`: per opcode, whether it is one of them. A `const fn`, so that fixed
/// sets (the observer's, the cheatcodes', the probe reads') are built at compile time.
pub(crate) const fn opcode_table(ops: &[u8]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut i = 0;
    while i < ops.len() {
        table[ops[i] as usize] = true;
        i += 1;
    }
    table
}

/// The instructions `step` always records (see `Observer::step`'s `match`).
const RECORDED: [bool; 256] = opcode_table(&[
    opcode::JUMPI,
    opcode::JUMP,
    opcode::EQ,
    opcode::SUB,
    opcode::LT,
    opcode::GT,
    opcode::SLT,
    opcode::SGT,
    opcode::ISZERO,
    opcode::SLOAD,
    opcode::SSTORE,
    opcode::REVERT,
    opcode::LOG1,
    opcode::LOG2,
    opcode::LOG3,
    opcode::LOG4,
    opcode::CALL,
    opcode::CALLCODE,
    opcode::DELEGATECALL,
    opcode::STATICCALL,
    // Recorded as call sites too; SELFDESTRUCT's journal entry is read after it runs.
    opcode::CREATE,
    opcode::CREATE2,
    opcode::SELFDESTRUCT,
]);

/// Whether `step` records instruction `op` whatever the settings.
pub(super) fn records(op: u8) -> bool {
    RECORDED[usize::from(op)]
}

impl Wanted {
    /// The recorded instructions, the data-flow `sources`, and `JUMPDEST` when `blocks`
    /// entered are recorded (block starts: `Trace::blocks`, watched targets).
    pub(super) fn of(sources: impl Fn(u8) -> bool, blocks: bool) -> Wanted {
        let mut table = RECORDED;
        table[usize::from(opcode::JUMPDEST)] = blocks;
        for op in 0..=u8::MAX {
            table[usize::from(op)] |= sources(op);
        }
        Wanted(table)
    }

    /// Per opcode, whether it is wanted.
    pub(super) fn table(&self) -> &[bool; 256] {
        &self.0
    }
}

/// Which of the next instructions `step` has work for, until it is called again: the ones
/// it records ([`Wanted`]), all but pushes (a comparison's note waits for its JUMPI), or
/// all (a per-instruction follower runs). An instruction it does not want may run without
/// `step` and `step_end`; it is then only counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attention {
    /// The recorded instructions.
    Recorded = 0,
    /// Every instruction but a push.
    AllButPushes = 1,
    /// Every instruction.
    All = 2,
}

/// Whether `op` is wanted while a comparison's note waits for its JUMPI: every instruction
/// moves or drops the note but a push, which leaves the items below it where they are.
#[inline]
pub fn wanted_by_a_note(op: u8) -> bool {
    !(opcode::PUSH0..=opcode::PUSH32).contains(&op)
}
