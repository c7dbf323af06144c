//! The revm [`Inspector`] that watches every transaction the fuzzer runs and fills a
//! [`Trace`]: JUMPI edges, the comparison operands that decided each JUMPI, storage reads
//! and writes, calls, creations and selfdestructs.
//!
//! This module (with `chain`) is the only place that names revm types. The hot path
//! (`step`) is a single `match` on the opcode; records go into `Vec`s that are cleared, never
//! freed, between transactions, so a warmed-up observer allocates nothing per opcode. Most
//! instructions need no `step` at all: [`Observer::attention`] and [`Observer::recorded`] name
//! those that do, and `chain` runs the rest without calling the observer.
//!
//! # Linking comparisons to branches
//!
//! `step` runs *before* an opcode, with its inputs on the stack. When an `EQ`/`LT`/`GT`/
//! `SLT`/`SGT` runs, the observer notes its operands, the stack index (from the bottom)
//! its result will occupy and the result itself (computed here from the operands, so no
//! `step_end` is needed). Opcodes that only move values around keep that note alive, and
//! update the tracked index: `PUSHn`/`JUMPDEST` (nothing below moves), `DUPn` (a copy of
//! the tracked slot becomes the tracked one: the top copy is the one solc consumes),
//! `SWAPn` (the slot moves) and `ISZERO` on the tracked slot (one more negation; the
//! result flips). Any other opcode drops the note. At a `JUMPI`, the note becomes a
//! [`Comparison`] when the condition sits at the tracked index *and* has the tracked truth
//! value. An `ISZERO` on an untracked value starts a note of its own ([`CmpOp::IsZero`]),
//! which covers `if (x != 0)` and boolean flags. A `SUB` is followed like an `EQ` negated
//! once: its result is non-zero exactly when the operands differ, and solc compiles
//! `if (a == b)` to `SUB JUMPI` (so `cmp_pc` may point at a `SUB`).
//!
//! A comparison opcode's note dropped by any other opcode is a *data decision*: its result
//! went into data (`checked = sum == a + b;`, a returned boolean), where no JUMPI shows
//! it. It is recorded as an [`Edge`] at the comparison's pc and as a [`Comparison`] with
//! `jumpi_pc == cmp_pc`, so that its outcome counts as coverage and its operands give a
//! cost metric, as if a branch tested it there. Notes that a `SUB` or a lone `ISZERO`
//! started are not: those opcodes are mostly arithmetic and boolean clean-up.

mod status;
// Only the solver-backed step of prediction (cargo feature `solver`) reads what the
// follower records.
#[cfg_attr(not(feature = "solver"), allow(dead_code))]
pub(crate) mod symbolic;
mod taint;
mod trace;
mod wanted;

use status::{StatusWatch, Verdict};
use symbolic::Symbolic;
use taint::{At, Taint};
pub(crate) use wanted::opcode_table;
use wanted::Wanted;
pub use wanted::{Attention, wanted_by_a_note};

pub use trace::{
    CallKind, CallRecord, CmpOp, Comparison, Edge, Flow, FlowKind, FlowSet, LogSite,
    MAX_LOG_SITES, MAX_PATH, RecentTransfers, RevertSite, Transfer, SelfDestruct, Sink, StorageAccess,
    StorageOp, Trace,
};

use alloy_primitives::{Address, Bytes, Log, U256};
use revm::Inspector;
use revm::bytecode::opcode;
use revm::context::{ContextTr, JournalTr};
use revm::context_interface::CreateScheme;
use revm::interpreter::interpreter::EthInterpreter;
use revm::interpreter::interpreter_types::{InputsTr, Jumps, LegacyBytecode, LoopControl, MemoryTr};
use revm::interpreter::{
    CallInputs, CallOutcome, CallScheme, CreateInputs, CreateOutcome, Interpreter,
};

/// Records what transactions do into a reusable [`Trace`].
///
/// [`Chain`](crate::chain::Chain) runs one observer under every transaction it executes;
/// read the result with [`Chain::last_trace`](crate::chain::Chain::last_trace).
#[derive(Debug, Default)]
pub struct Observer {
    trace: Trace,
    /// The comparison whose result is on the stack and may still reach a JUMPI.
    pending: Option<PendingCmp>,
    /// Set by `step` on SLOAD/SSTORE so that `step_end` completes (or drops) the record.
    storage_in_flight: bool,
    /// Whether `step` records the pcs of the transaction's own frame ([`Trace::path`]).
    record_path: bool,
    /// Whether data decisions go unrecorded (they are recorded by default).
    without_data_decisions: bool,
    /// Whether every block entered at a JUMPDEST or at pc 0 is recorded ([`Trace::blocks`]).
    record_blocks: bool,
    /// The call depth of that frame: the depth of the first instruction after `clear`.
    path_depth: Option<usize>,
    /// Per code address: which pcs are watched target block starts ([`Trace::target_hits`]).
    watched: Vec<(Address, Vec<bool>)>,
    /// The running frame's last control transfers, for [`RevertSite::transfers`].
    jumps: RecentTransfers,
    /// The rings of the frames below the running one: saved when a frame calls, restored
    /// when the call ends.
    outer_jumps: Vec<RecentTransfers>,
    /// The call, create or `SELFDESTRUCT` instruction that ran last (code address, pc):
    /// the site of the frame or destruction the next hook records.
    call_site: Option<(Address, u32)>,
    /// The frames running (calls and creations), innermost last: their indices in
    /// `trace.calls`.
    frames: Vec<u32>,
    /// The status of the last call that failed, followed in its caller (`status`).
    status: Option<StatusWatch>,
    /// The data flows followed (`taint`).
    taint: Taint,
    /// The argument words followed symbolically (`symbolic`), when asked for.
    symbolic: Symbolic,
    /// Whether the last LOG instruction was recorded and waits for its data (`log`).
    log_pending: bool,
    /// The instructions `step` records while nothing is followed ([`Observer::recorded`]):
    /// kept current by the settings that change it.
    wanted: Wanted,
}

/// A comparison result being followed towards a JUMPI.
#[derive(Debug, Clone, Copy)]
struct PendingCmp {
    pc: u32,
    op: CmpOp,
    lhs: U256,
    rhs: U256,
    negations: u8,
    /// Stack index, counted from the bottom, of the (possibly negated) result.
    slot: usize,
    /// The truth value now in `slot`.
    value: bool,
    /// Whether a comparison opcode (not a `SUB` or a lone `ISZERO`) started it: only
    /// those are recorded as data decisions when dropped.
    comparison: bool,
}

impl Observer {
    /// What the transactions since the last [`Observer::clear`] did.
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// Forgets everything recorded, keeping the buffers: call before each transaction.
    pub fn clear(&mut self) {
        self.trace.clear();
        self.start_transaction();
    }

    /// Forgets what followed the last transaction's frames, keeping its trace: call before a
    /// transaction whose record adds to the one before (the calls of one Rust property
    /// case are observed as one run).
    pub fn start_transaction(&mut self) {
        self.pending = None;
        self.storage_in_flight = false;
        self.path_depth = None;
        self.jumps = RecentTransfers::default();
        self.outer_jumps.clear();
        self.call_site = None;
        self.frames.clear();
        self.status = None;
        self.taint.clear();
        self.symbolic.clear();
        self.log_pending = false;
    }

    /// Follows the data flows of `flows` ([`Trace::flows`]); none by default, since a
    /// followed flow costs a shadow stack update per instruction in every transaction that
    /// runs its source.
    pub fn follow_flows(&mut self, flows: FlowSet) {
        self.taint.follow(flows);
        self.update_wanted();
    }

    /// Which of the next instructions `step` has work for ([`Attention`]): every one while
    /// a failed call's status, a data flow, the path or the path condition is followed
    /// (they look at every instruction), every one but a push while a comparison's note
    /// waits, and otherwise the ones it records ([`Observer::recorded`]). It changes only
    /// while the observer runs: in `step` and `step_end` within a frame, and in the frame
    /// hooks between one frame's instructions and the next (a failed call's status is set
    /// when the call ends).
    #[inline]
    pub fn attention(&self) -> Attention {
        if self.status.is_some() || self.taint.active() || self.record_path || self.symbolic.on()
        {
            Attention::All
        } else if self.pending.is_some() {
            Attention::AllButPushes
        } else {
            Attention::Recorded
        }
    }

    /// Per opcode, whether `step` records the instruction (always wanted, whatever the
    /// [`Attention`]).
    pub fn recorded(&self) -> &[bool; 256] {
        self.wanted.table()
    }

    /// Counts `n` instructions that ran without `step` ([`Trace::steps`]).
    #[inline]
    pub fn count_steps(&mut self, n: u64) {
        self.trace.steps += n;
    }

    /// Whether, at [`Attention::Recorded`], all `step` does at a JUMP is what
    /// [`Observer::jumped`] does: so unless a data flow followed starts at a JUMP (none
    /// does today; the check keeps it so if one ever does).
    pub fn jump_alone(&self) -> bool {
        !self.taint.is_source(opcode::JUMP)
    }

    /// Whether, at [`Attention::Recorded`], `step` has work at `op` only when the
    /// instruction starts a data flow followed ([`Observer::starts_flow`]): an addition
    /// or a multiplication while wrapping arithmetic is followed, on the operands that
    /// wrap. Most additions do not: they need not call `step`.
    pub fn only_if_flow_starts(&self, op: u8) -> bool {
        !wanted::records(op) && taint::conditional_source(op) && self.taint.is_source(op)
    }

    /// Whether the instruction about to run in `interp` starts a data flow followed. Asked
    /// by a loop in place of `step` where [`Observer::only_if_flow_starts`] allows: when it
    /// does, the loop calls `step`.
    #[inline]
    pub fn starts_flow(&self, interp: &Interpreter<EthInterpreter>) -> bool {
        self.taint.starts_at(
            interp.bytecode.opcode(),
            interp.stack.data(),
            || interp.bytecode.bytecode_slice(),
            interp.bytecode.pc(),
        )
    }

    /// Whether, at [`Attention::AllButPushes`], all `step` does at `op` is what
    /// [`Observer::note_moved`] does: so for a DUP or a SWAP, which only move the waiting
    /// note's slot, unless a data flow followed starts there.
    pub fn moves_note_alone(&self, op: u8) -> bool {
        (opcode::DUP1..=opcode::SWAP16).contains(&op)
            && !wanted::records(op)
            && !self.taint.is_source(op)
    }

    /// The DUP or SWAP `op` about to run on a stack of `len` items while a comparison's
    /// note waits: the note follows its slot. Called by `step`, or in its place (where
    /// [`Observer::moves_note_alone`] allows) by a loop that counts the step itself.
    #[inline]
    pub fn note_moved(&mut self, op: u8, len: usize) {
        match op {
            opcode::DUP1..=opcode::DUP16 => self.on_dup(usize::from(op - opcode::DUP1 + 1), len),
            opcode::SWAP1..=opcode::SWAP16 => {
                self.on_swap(usize::from(op - opcode::SWAP1 + 1), len)
            }
            _ => {}
        }
    }

    /// The JUMP at `pc` of the running frame, to `to`: one of the frame's recent transfers
    /// ([`RevertSite::transfers`]). Called by `step`, or in its place (where
    /// [`Observer::jump_alone`] allows) by a loop that counts the step itself.
    #[inline]
    pub fn jumped(&mut self, pc: u32, to: U256) {
        self.jumps.push(pc, u32::try_from(to).unwrap_or(u32::MAX));
    }

    /// Makes [`Observer::recorded`] match the settings (the flows followed, blocks recorded).
    fn update_wanted(&mut self) {
        let blocks = self.record_blocks || !self.watched.is_empty();
        self.wanted = Wanted::of(|op| self.taint.is_source(op), blocks);
    }

    /// Turns recording of [`Trace::path`] on or off (off by default: it costs a push per
    /// instruction, and only the lookahead analysis of targeted fuzzing needs it).
    pub fn record_path(&mut self, on: bool) {
        self.record_path = on;
    }

    /// Turns recording of [`Trace::path_condition`] on or off (off by default: it costs a
    /// shadow stack update per instruction, and only the solver-backed step needs it).
    #[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
    pub fn record_path_condition(&mut self, on: bool) {
        self.symbolic.set(on);
    }

    /// Makes the JUMPIs of the followed frame at these indices of
    /// [`PathCondition::branches`] go the given way (jump when true), whatever their
    /// condition, while the path condition is recorded; empty for none. The solver's
    /// look-ahead runs are such runs: their paths are no transaction's, and nothing but
    /// their path condition is to be learned from them.
    #[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
    pub fn force_branches(&mut self, forced: Vec<(usize, bool)>) {
        self.symbolic.force(forced);
    }

    /// Turns recording of data decisions (comparisons whose result goes into data, see the
    /// module docs) on (the default) or off.
    pub fn record_data_decisions(&mut self, on: bool) {
        self.without_data_decisions = !on;
    }

    /// Turns recording of [`Trace::blocks`] on or off (off by default: a push per JUMPDEST,
    /// for line coverage).
    pub fn record_blocks(&mut self, on: bool) {
        self.record_blocks = on;
        self.update_wanted();
    }

    /// Watches these block starts (pcs of the runtime code at each address): entering one
    /// is recorded in [`Trace::target_hits`]. Replaces what was watched before.
    pub fn watch_targets(&mut self, targets: impl IntoIterator<Item = (Address, Vec<usize>)>) {
        self.watched = targets
            .into_iter()
            .map(|(address, pcs)| {
                let mut bits = vec![false; pcs.iter().max().map_or(0, |&m| m + 1)];
                for pc in pcs {
                    bits[pc] = true;
                }
                (address, bits)
            })
            .collect();
        self.update_wanted();
    }

    /// A frame starts (a call or creation): its jumps are its own.
    fn enter_frame(&mut self) {
        self.outer_jumps.push(std::mem::take(&mut self.jumps));
    }

    /// The innermost running frame ended, `succeeded` or not: its caller runs again. Returns
    /// the frame's index in `trace.calls`.
    fn end_frame(&mut self, succeeded: bool) -> Option<u32> {
        let index = self.frames.pop()?;
        if let Some(record) = self.trace.calls.get_mut(index as usize) {
            record.succeeded = succeeded;
        }
        Some(index)
    }

    /// Follows the failed call's status one instruction further (see `status`).
    #[inline]
    fn watch_status(&mut self, op: u8, len: usize, depth: usize) {
        let Some(watch) = &mut self.status else {
            return;
        };
        match watch.step(op, len, depth) {
            Verdict::Pending => {}
            Verdict::Checked => self.status = None,
            Verdict::Unchecked => {
                self.trace.unchecked_calls.push(watch.record);
                self.status = None;
            }
        }
    }

    /// A frame ended: the caller's jumps are the running ones again.
    fn leave_frame(&mut self) {
        if let Some(outer) = self.outer_jumps.pop() {
            self.jumps = outer;
        }
    }

    /// Records entering the block at `pc` of the code `interp` runs, if it is watched.
    /// Called where blocks start: the first instruction, a `JUMPDEST`, a `JUMPI` falling
    /// through.
    #[inline]
    fn on_block(&mut self, pc: u32, interp: &Interpreter<EthInterpreter>) {
        if self.record_blocks {
            self.trace.blocks.push((code_address(interp), pc));
        }
        if self.watched.is_empty() {
            return;
        }
        let code = code_address(interp);
        let watched = self.watched.iter().any(|(address, bits)| {
            *address == code && bits.get(pc as usize).copied().unwrap_or(false)
        });
        if watched && !self.trace.target_hits.contains(&(code, pc)) {
            self.trace.target_hits.push((code, pc));
        }
    }

    /// Records `pc` if it runs in the transaction's own frame (depth `depth`).
    #[inline]
    fn on_path(&mut self, pc: u32, depth: usize) {
        if *self.path_depth.get_or_insert(depth) == depth && self.trace.path.len() < MAX_PATH {
            self.trace.path.push(pc);
        }
    }

    #[inline]
    fn on_compare(&mut self, op: CmpOp, pc: u32, stack: &[U256]) {
        let n = stack.len();
        if n < 2 {
            self.pending = None;
            return;
        }
        let (lhs, rhs) = (stack[n - 1], stack[n - 2]);
        self.pending = Some(PendingCmp {
            pc,
            op,
            lhs,
            rhs,
            negations: 0,
            slot: n - 2,
            value: op.eval(lhs, rhs),
            comparison: true,
        });
    }

    /// Drops the pending note because an opcode that is not a JUMPI consumes or buries
    /// it; a comparison's becomes a data decision (see the module docs).
    #[inline]
    fn settle(&mut self, interp: &Interpreter<EthInterpreter>) {
        let Some(p) = self
            .pending
            .take()
            .filter(|p| p.comparison && !self.without_data_decisions)
        else {
            return;
        };
        self.push_decision(Comparison {
            code: code_address(interp),
            cmp_pc: p.pc,
            jumpi_pc: p.pc,
            op: p.op,
            lhs: p.lhs,
            rhs: p.rhs,
            negations: p.negations,
            taken: p.value,
        });
    }

    /// Records a data decision (`cmp_pc == jumpi_pc`): an edge at its pc, so that its
    /// outcome counts as coverage, and the comparison, for its cost metric.
    #[inline]
    fn push_decision(&mut self, decision: Comparison) {
        self.trace.edges.push(Edge {
            code: decision.code,
            pc: decision.cmp_pc,
            dest: decision.cmp_pc + 1,
            taken: decision.taken,
        });
        self.trace.comparisons.push(decision);
    }

    /// Records a decision that code made without a comparison opcode: a forge assertion
    /// cheatcode compared `op(lhs, rhs)` (with `negations`, true when the assertion holds)
    /// for the CALL that ran last. It is recorded there as a data decision (see the module
    /// docs), so that its outcome counts as coverage and its operands give a cost metric,
    /// as `require(lhs <= rhs)` in the contract would.
    pub(crate) fn record_decision(&mut self, op: CmpOp, lhs: U256, rhs: U256, negations: u8) {
        let Some((code, pc)) = self.call_site.filter(|_| !self.without_data_decisions) else {
            return;
        };
        self.push_decision(Comparison {
            code,
            cmp_pc: pc,
            jumpi_pc: pc,
            op,
            lhs,
            rhs,
            negations,
            taken: op.eval(lhs, rhs) != (negations % 2 == 1),
        });
    }

    /// `a - b` is non-zero exactly when `a != b`: solc's peephole optimizer (on even with
    /// the optimizer off) compiles `if (a == b)` to `SUB` + `JUMPI`. So a `SUB` that
    /// reaches a JUMPI is an equality test, negated once.
    #[inline]
    fn on_sub(&mut self, pc: u32, stack: &[U256]) {
        self.on_compare(CmpOp::Eq, pc, stack);
        if let Some(p) = &mut self.pending {
            p.negations = 1;
            p.value = !p.value;
            p.comparison = false;
        }
    }

    #[inline]
    fn on_iszero(&mut self, pc: u32, stack: &[U256]) {
        let Some(&top) = stack.last() else {
            self.pending = None;
            return;
        };
        let top_index = stack.len() - 1;
        match &mut self.pending {
            Some(p) if p.slot == top_index => {
                p.negations = p.negations.saturating_add(1);
                p.value = !p.value;
            }
            _ => {
                self.pending = Some(PendingCmp {
                    pc,
                    op: CmpOp::IsZero,
                    lhs: top,
                    rhs: U256::ZERO,
                    negations: 0,
                    slot: top_index,
                    value: top.is_zero(),
                    comparison: false,
                })
            }
        }
    }

    #[inline]
    fn on_dup(&mut self, n: usize, len: usize) {
        if let Some(p) = &mut self.pending {
            if len >= n && p.slot == len - n {
                p.slot = len;
            }
        }
    }

    #[inline]
    fn on_swap(&mut self, n: usize, len: usize) {
        if let Some(p) = &mut self.pending {
            if len > n {
                let (top, other) = (len - 1, len - 1 - n);
                if p.slot == top {
                    p.slot = other;
                } else if p.slot == other {
                    p.slot = top;
                }
            }
        }
    }

    #[inline]
    fn on_jumpi(&mut self, pc: u32, interp: &Interpreter<EthInterpreter>) {
        let pending = self.pending.take();
        let stack = interp.stack.data();
        let n = stack.len();
        if n < 2 {
            return;
        }
        let (dest, cond) = (stack[n - 1], stack[n - 2]);
        let taken = !cond.is_zero();
        let to = u32::try_from(dest).unwrap_or(u32::MAX);
        if taken {
            self.jumps.push(pc, to);
        } else {
            self.on_block(pc + 1, interp);
        }
        let code = code_address(interp);
        self.trace.edges.push(Edge {
            code,
            pc,
            dest: to,
            taken,
        });
        if let Some(p) = pending.filter(|p| p.slot == n - 2 && p.value == taken) {
            self.trace.comparisons.push(Comparison {
                code,
                cmp_pc: p.pc,
                jumpi_pc: pc,
                op: p.op,
                lhs: p.lhs,
                rhs: p.rhs,
                negations: p.negations,
                taken,
            });
        }
    }

    #[inline]
    fn on_storage(&mut self, op: StorageOp, pc: u32, interp: &Interpreter<EthInterpreter>) {
        let stack = interp.stack.data();
        let n = stack.len();
        let Some(&slot) = stack.last() else { return };
        let value = match op {
            StorageOp::Store if n >= 2 => stack[n - 2],
            StorageOp::Store => return,
            // Known only once the SLOAD has run: `step_end` fills it in.
            StorageOp::Load => U256::ZERO,
        };
        self.trace.storage.push(StorageAccess {
            op,
            address: interp.input.target_address(),
            code: code_address(interp),
            pc,
            slot,
            value,
            frame: self.frames.last().copied().unwrap_or(u32::MAX),
        });
        self.storage_in_flight = true;
    }

    /// Records a REVERT with its frame's recent jumps and, when its data is
    /// `Panic(uint256)`, the code. Reverts are rare: reading 36 bytes of memory is cheap.
    fn on_revert(&mut self, pc: u32, interp: &Interpreter<EthInterpreter>, depth: usize) {
        let stack = interp.stack.data();
        let n = stack.len();
        if n < 2 {
            return;
        }
        let (offset, size) = (stack[n - 1], stack[n - 2]);
        let panic = (size == U256::from(PANIC_DATA_LEN))
            .then(|| revert_data::<PANIC_DATA_LEN>(interp, offset))
            .flatten()
            .filter(|data| data[..4] == PANIC_SELECTOR)
            .map(|data| U256::from_be_slice(&data[4..]));
        self.trace.reverts.push(RevertSite {
            code: code_address(interp),
            pc,
            depth: u32::try_from(depth).unwrap_or(u32::MAX),
            panic,
            transfers: self.jumps,
        });
    }

    /// Records a LOG with a first topic (at most [`MAX_LOG_SITES`] per transaction).
    fn on_log(&mut self, pc: u32, interp: &Interpreter<EthInterpreter>) {
        // A LOG that failed (in a static call) never delivered its data.
        self.log_pending = false;
        let stack = interp.stack.data();
        let n = stack.len();
        if n < 3 || self.trace.logs.len() >= MAX_LOG_SITES {
            return;
        }
        self.trace.logs.push(LogSite {
            code: code_address(interp),
            pc,
            emitter: interp.input.target_address(),
            transfers: self.jumps,
            topic0: stack[n - 3],
            data: Bytes::new(),
        });
        self.log_pending = true;
    }
}

/// `Panic(uint256)`'s selector.
const PANIC_SELECTOR: [u8; 4] = [0x4e, 0x48, 0x7b, 0x71];
/// The length of a Panic's revert data: the selector and one word.
const PANIC_DATA_LEN: usize = 36;

/// The `N` bytes of memory from `offset` that a REVERT is about to return: memory the frame
/// never touched reads as zeros, as the REVERT's own memory expansion makes it. `None` for an
/// offset no memory can reach.
fn revert_data<const N: usize>(interp: &Interpreter<EthInterpreter>, offset: U256) -> Option<[u8; N]> {
    let offset = usize::try_from(offset).ok()?;
    let mut data = [0u8; N];
    let size = interp.memory.size();
    if offset < size {
        let end = size.min(offset.checked_add(N)?);
        data[..end - offset].copy_from_slice(&interp.memory.slice(offset..end));
    }
    Some(data)
}

/// The address whose code `interp` runs: the code address under DELEGATECALL, the new
/// contract's address for constructor code (which has no code address).
#[inline]
fn code_address(interp: &Interpreter<EthInterpreter>) -> Address {
    interp
        .input
        .bytecode_address()
        .copied()
        .unwrap_or_else(|| interp.input.target_address())
}

impl<CTX: ContextTr> Inspector<CTX, EthInterpreter> for Observer {
    #[inline]
    fn step(&mut self, interp: &mut Interpreter<EthInterpreter>, context: &mut CTX) {
        self.trace.steps += 1;
        let op = interp.bytecode.opcode();
        // pcs fit in u32: code is at most 24 KiB (48 KiB initcode).
        let pc = interp.bytecode.pc() as u32;
        if op == opcode::JUMPI && self.symbolic.on() {
            let index = self.trace.path_condition.branches.len();
            if let Some(jump) = self.symbolic.forced(index, context.journal_ref().depth()) {
                // Forced before anything reads the condition: the run is the forced path's.
                let _ = interp.stack.set(1, U256::from(u8::from(jump)));
            }
        }
        if self.status.is_some() {
            self.watch_status(op, interp.stack.len(), context.journal_ref().depth());
        }
        let code = || interp.bytecode.bytecode_slice();
        if self.taint.wants(op, interp.stack.data(), code, pc as usize) {
            let at = At {
                code: code_address(interp),
                pc,
                depth: context.journal_ref().depth(),
                frame: self.frames.last().copied().unwrap_or(u32::MAX),
                caller: interp.input.caller_address(),
                callee: None,
            };
            self.taint
                .step(op, interp.stack.data(), at, &mut self.trace.flows);
        }
        if self.record_path {
            self.on_path(pc, context.journal_ref().depth());
        }
        if self.symbolic.on() {
            self.symbolic.step(
                &mut self.trace.path_condition,
                op,
                pc,
                interp.stack.data(),
                context.journal_ref().depth(),
                || code_address(interp),
            );
        }
        if pc == 0 {
            self.on_block(pc, interp);
        }
        match op {
            opcode::JUMPI => self.on_jumpi(pc, interp),
            opcode::EQ => self.on_compare(CmpOp::Eq, pc, interp.stack.data()),
            opcode::SUB => self.on_sub(pc, interp.stack.data()),
            opcode::LT => self.on_compare(CmpOp::Lt, pc, interp.stack.data()),
            opcode::GT => self.on_compare(CmpOp::Gt, pc, interp.stack.data()),
            opcode::SLT => self.on_compare(CmpOp::Slt, pc, interp.stack.data()),
            opcode::SGT => self.on_compare(CmpOp::Sgt, pc, interp.stack.data()),
            opcode::ISZERO => self.on_iszero(pc, interp.stack.data()),
            opcode::PUSH0..=opcode::PUSH32 => {}
            opcode::JUMPDEST => self.on_block(pc, interp),
            opcode::DUP1..=opcode::SWAP16 => self.note_moved(op, interp.stack.len()),
            opcode::SLOAD => {
                self.settle(interp);
                self.on_storage(StorageOp::Load, pc, interp);
            }
            opcode::SSTORE => {
                self.settle(interp);
                self.on_storage(StorageOp::Store, pc, interp);
            }
            opcode::JUMP => {
                self.settle(interp);
                if let Some(&to) = interp.stack.data().last() {
                    self.jumped(pc, to);
                }
            }
            opcode::REVERT => {
                self.settle(interp);
                self.on_revert(pc, interp, context.journal_ref().depth());
            }
            opcode::LOG1..=opcode::LOG4 => {
                self.settle(interp);
                self.on_log(pc, interp);
            }
            opcode::CALL
            | opcode::CALLCODE
            | opcode::DELEGATECALL
            | opcode::STATICCALL
            | opcode::CREATE
            | opcode::CREATE2
            | opcode::SELFDESTRUCT => {
                self.settle(interp);
                self.call_site = Some((code_address(interp), pc));
            }
            _ => self.settle(interp),
        }
    }

    #[inline]
    fn step_end(&mut self, interp: &mut Interpreter<EthInterpreter>, _context: &mut CTX) {
        if !self.storage_in_flight {
            return;
        }
        self.storage_in_flight = false;
        if interp.bytecode.is_end() {
            // The SLOAD/SSTORE failed (out of gas, write in a static call): it did not happen.
            self.trace.storage.pop();
        } else if let Some(last) = self.trace.storage.last_mut() {
            if last.op == StorageOp::Load {
                last.value = interp.stack.peek(0).unwrap_or_default();
            }
        }
    }

    fn call(&mut self, context: &mut CTX, inputs: &mut CallInputs) -> Option<CallOutcome> {
        self.pending = None;
        self.enter_frame();
        let kind = match inputs.scheme {
            CallScheme::Call => CallKind::Call,
            CallScheme::CallCode => CallKind::CallCode,
            CallScheme::DelegateCall => CallKind::DelegateCall,
            CallScheme::StaticCall => CallKind::StaticCall,
        };
        let index = self.trace.calls.len() as u32;
        self.trace.calls.push(CallRecord {
            kind,
            caller: inputs.caller,
            target: inputs.target_address,
            code: inputs.bytecode_address,
            value: inputs.call_value(),
            gas: inputs.gas_limit,
            depth: frame_depth(context),
            site: self.call_site.take(),
            parent: self.frames.last().copied(),
            succeeded: false,
        });
        self.frames.push(index);
        None
    }

    fn call_end(&mut self, context: &mut CTX, _inputs: &CallInputs, outcome: &mut CallOutcome) {
        // A note left by the callee must not be linked to the caller's stack.
        self.pending = None;
        self.taint.call_ended(context.journal_ref().depth());
        self.leave_frame();
        let succeeded = outcome.result.result.is_ok();
        let ended = self.end_frame(succeeded);
        // An inner call that failed: follow its status in the caller. (A status still
        // followed from an earlier call is given up on, counted as checked.)
        if let Some(index) = ended.filter(|_| !succeeded && !self.frames.is_empty()) {
            self.status = Some(StatusWatch::new(index));
        }
    }

    fn create(&mut self, context: &mut CTX, inputs: &mut CreateInputs) -> Option<CreateOutcome> {
        self.pending = None;
        self.enter_frame();
        let kind = match inputs.scheme() {
            CreateScheme::Create2 { .. } => CallKind::Create2,
            CreateScheme::Create | CreateScheme::Custom { .. } => CallKind::Create,
        };
        let index = self.trace.calls.len() as u32;
        self.trace.calls.push(CallRecord {
            kind,
            caller: inputs.caller(),
            target: Address::ZERO,
            code: Address::ZERO,
            value: inputs.value(),
            gas: inputs.gas_limit(),
            depth: frame_depth(context),
            site: self.call_site.take(),
            parent: self.frames.last().copied(),
            succeeded: false,
        });
        self.frames.push(index);
        None
    }

    fn create_end(
        &mut self,
        context: &mut CTX,
        _inputs: &CreateInputs,
        outcome: &mut CreateOutcome,
    ) {
        self.pending = None;
        self.taint.call_ended(context.journal_ref().depth());
        self.leave_frame();
        // A creation's address is only known now that it ended.
        if let Some(index) = self.end_frame(outcome.result.result.is_ok()) {
            if let (Some(record), Some(address)) =
                (self.trace.calls.get_mut(index as usize), outcome.address)
            {
                record.target = address;
            }
        }
    }

    /// The data of the LOG whose site `step` just recorded (revm hands the log over while
    /// the instruction runs): the log itself is revm's, so keeping its data costs no copy.
    fn log(&mut self, _context: &mut CTX, log: Log) {
        let pending = std::mem::take(&mut self.log_pending);
        if let Some(site) = self.trace.logs.last_mut().filter(|_| pending) {
            site.data = log.data.data;
        }
    }

    fn selfdestruct(&mut self, contract: Address, target: Address, value: U256) {
        self.trace.selfdestructs.push(SelfDestruct {
            contract,
            beneficiary: target,
            value,
            site: self.call_site.take(),
        });
    }
}

/// The depth the frame about to start will have (the journal counts the frames entered).
fn frame_depth<CTX: ContextTr>(context: &CTX) -> u32 {
    u32::try_from(context.journal_ref().depth()).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests;
