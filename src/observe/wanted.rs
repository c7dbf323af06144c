//! Which instructions the observer's `step` has work for: what lets an inspected
//! transaction run the others without calling the observer at all (`chain`'s sparse loop).
//!
//! `step` records jumps, comparisons, storage, reverts, logs, calls, creations and
//! selfdestructs, and the sources of the data flows followed. Everything else only moves a
//! comparison's note towards its JUMPI or drops it, or feeds the per-instruction followers
//! (a failed call's status, a data flow after its source, paths, path conditions): while
//! any of those runs, every instruction is wanted ([`Observer::wants`](super::Observer::wants)).

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

/// The instructions `step` always records (see `Observer::step`'s `match`).
const RECORDED: [u8; 21] = [
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
    // LOG0 records no site, but its log reaches the hooks only when its instruction is
    // inspected (the cheatcodes' recorded logs).
    opcode::LOG0,
    opcode::LOG1,
    opcode::LOG2,
    opcode::LOG3,
    opcode::LOG4,
    opcode::CALL,
    opcode::CALLCODE,
    opcode::DELEGATECALL,
    opcode::STATICCALL,
];

/// Recorded as call sites too, and SELFDESTRUCT's journal entry is read after it runs.
const CREATING: [u8; 3] = [opcode::CREATE, opcode::CREATE2, opcode::SELFDESTRUCT];

impl Wanted {
    /// The recorded instructions, the data-flow `sources`, and `JUMPDEST` when `blocks`
    /// entered are recorded (block starts: `Trace::blocks`, watched targets).
    pub(super) fn of(sources: impl Fn(u8) -> bool, blocks: bool) -> Wanted {
        let mut table = [false; 256];
        for op in RECORDED.into_iter().chain(CREATING) {
            table[usize::from(op)] = true;
        }
        table[usize::from(opcode::JUMPDEST)] = blocks;
        for op in 0..=u8::MAX {
            table[usize::from(op)] |= sources(op);
        }
        Wanted(table)
    }

    /// Whether `op` is wanted.
    #[inline]
    pub(super) fn contains(&self, op: u8) -> bool {
        self.0[usize::from(op)]
    }
}
