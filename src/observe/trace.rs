//! The per-transaction record the observer fills: branch edges, branch-feeding comparisons,
//! storage accesses, calls and selfdestructs, in execution order. Harvey's own types only.

use alloy_primitives::{Address, Bytes, U256};

use super::symbolic::PathCondition;

/// One branch decision: an executed JUMPI and the way it went, or a comparison whose result
/// went into data instead (a *data decision*, see [`Observer`](super::Observer): `pc` is
/// the comparison's, `dest` the pc after it, `taken` its truth value).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Edge {
    /// The address whose code holds the JUMPI (the code address, not the storage context
    /// under DELEGATECALL; the new contract's address for constructor code).
    pub code: Address,
    /// The JUMPI's program counter.
    pub pc: u32,
    /// The jump destination (saturated to `u32::MAX` when it does not fit: an invalid jump).
    pub dest: u32,
    /// Whether the jump was taken (condition non-zero).
    pub taken: bool,
}

impl Edge {
    /// The pc execution continued at: `dest` when taken, `pc + 1` otherwise.
    #[cfg(any(test, feature = "internals"))] // only harvey's own tests read it
    pub fn next_pc(&self) -> u32 {
        if self.taken { self.dest } else { self.pc + 1 }
    }
}

/// The comparison opcode that produced a branch condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `EQ`: `lhs == rhs`; also a `SUB` whose result decided a JUMPI (non-zero exactly
    /// when `lhs != rhs`), recorded with one negation.
    Eq,
    /// `LT`: `lhs < rhs`, unsigned.
    Lt,
    /// `GT`: `lhs > rhs`, unsigned.
    Gt,
    /// `SLT`: `lhs < rhs`, two's-complement signed.
    Slt,
    /// `SGT`: `lhs > rhs`, two's-complement signed.
    Sgt,
    /// `ISZERO` applied to a value that no comparison produced: `lhs == 0` (`rhs` is 0).
    IsZero,
}

impl CmpOp {
    /// Whether the operands are compared as signed integers.
    #[cfg(any(test, feature = "internals"))] // only harvey's own tests read it
    pub fn is_signed(self) -> bool {
        matches!(self, CmpOp::Slt | CmpOp::Sgt)
    }

    /// The opcode's result for `lhs`, `rhs` (EVM semantics; `rhs` is ignored for `IsZero`).
    pub fn eval(self, lhs: U256, rhs: U256) -> bool {
        use alloy_primitives::I256;
        match self {
            CmpOp::Eq => lhs == rhs,
            CmpOp::Lt => lhs < rhs,
            CmpOp::Gt => lhs > rhs,
            CmpOp::Slt => I256::from_raw(lhs) < I256::from_raw(rhs),
            CmpOp::Sgt => I256::from_raw(lhs) > I256::from_raw(rhs),
            CmpOp::IsZero => lhs.is_zero(),
        }
    }
}

/// A comparison whose result decided a JUMPI (or, with `jumpi_pc == cmp_pc`, went into
/// data: a data decision), with its operands: the raw material of the fuzzer's cost
/// metrics ("how far was this branch from flipping").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Comparison {
    /// The address whose code holds both opcodes.
    pub code: Address,
    /// The comparison opcode's pc.
    pub cmp_pc: u32,
    /// The pc of the JUMPI its result decided.
    pub jumpi_pc: u32,
    /// The comparison.
    pub op: CmpOp,
    /// The first operand (stack top when the opcode ran: `LT` computes `lhs < rhs`).
    pub lhs: U256,
    /// The second operand (0 for [`CmpOp::IsZero`]).
    pub rhs: U256,
    /// How many `ISZERO`s were applied to the result before the JUMPI (0 for `if (a < b)`
    /// compiled to `LT PUSH JUMPI`; solc usually negates once or twice).
    pub negations: u8,
    /// Whether the JUMPI jumped.
    pub taken: bool,
}

impl Comparison {
    /// Whether the comparison itself held (before the `negations`).
    #[cfg(any(test, feature = "internals"))] // only harvey's own tests read it
    pub fn holds(&self) -> bool {
        self.op.eval(self.lhs, self.rhs)
    }
}

/// Whether a storage access read or wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StorageOp {
    /// `SLOAD`.
    Load,
    /// `SSTORE`.
    Store,
}

/// One successful `SLOAD` or `SSTORE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StorageAccess {
    /// Read or write.
    pub op: StorageOp,
    /// The account whose storage was accessed (the caller's under DELEGATECALL).
    pub address: Address,
    /// The code that ran the opcode (the library's under DELEGATECALL).
    pub code: Address,
    /// The opcode's pc.
    pub pc: u32,
    /// The slot.
    pub slot: U256,
    /// The value read (`Load`) or the new value written (`Store`).
    pub value: U256,
    /// The frame that ran it: its index in [`Trace::calls`] (`u32::MAX` outside any).
    pub frame: u32,
}

/// How a frame was entered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallKind {
    /// `CALL` (and the transaction's own top-level call).
    Call,
    /// `STATICCALL`.
    StaticCall,
    /// `DELEGATECALL`.
    DelegateCall,
    /// `CALLCODE`.
    CallCode,
    /// `CREATE` (and a contract-creating transaction).
    Create,
    /// `CREATE2`.
    Create2,
}

/// One call or contract creation, recorded when it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CallRecord {
    /// How the frame was entered.
    pub kind: CallKind,
    /// `msg.sender` of the new frame.
    pub caller: Address,
    /// The called account (storage context); `Address::ZERO` for creations, whose address is
    /// not known when they start.
    pub target: Address,
    /// The account whose code runs: `target`'s, but the library's under DELEGATECALL and
    /// CALLCODE; `Address::ZERO` for creations.
    pub code: Address,
    /// The value sent (the apparent value for DELEGATECALL).
    pub value: U256,
    /// The gas limit given to the frame.
    pub gas: u64,
    /// Call depth of the new frame: 0 for the transaction's own call.
    pub depth: u32,
    /// The instruction that made the call: the code that ran it and its pc; `None` for
    /// the transaction's own call.
    pub site: Option<(Address, u32)>,
    /// The frame that made the call: its index in [`Trace::calls`]; `None` for the
    /// transaction's own call.
    pub parent: Option<u32>,
    /// Whether the frame ended without reverting (set when it ends; a frame still running
    /// when the trace was read, or halted, counts as not).
    pub succeeded: bool,
}

/// One `SELFDESTRUCT` that ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SelfDestruct {
    /// The destructed contract.
    pub contract: Address,
    /// Where its balance went.
    pub beneficiary: Address,
    /// The balance moved.
    pub value: U256,
    /// The `SELFDESTRUCT` instruction: the code that ran it (the library's under
    /// DELEGATECALL) and its pc.
    pub site: Option<(Address, u32)>,
}

/// Which data flows the observer follows (see `observe::taint`): each costs a shadow
/// stack update per instruction, but only in transactions where its source ran.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FlowSet {
    /// Wrapped `ADD`/`SUB`/`MUL` results into storage or a payment.
    pub wraps: bool,
    /// Block data (`block.timestamp`, `block.number`, ...) into a call, a payment or a
    /// selfdestruct.
    pub block: bool,
    /// A balance into an equality that decides a branch.
    pub balance: bool,
    /// `tx.origin` compared with something other than `msg.sender`, deciding a branch.
    pub origin: bool,
}

/// An arithmetic instruction whose result wrapped around 2^256.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Wrap {
    /// The code that ran it.
    pub code: Address,
    /// The instruction's pc.
    pub pc: u32,
    /// `"+"`, `"-"` or `"*"`.
    pub op: &'static str,
    /// The left operand, as the instruction took it (`lhs op rhs`).
    pub lhs: U256,
    /// The right operand.
    pub rhs: U256,
}

impl Wrap {
    /// The wrapped result.
    pub fn result(&self) -> U256 {
        match self.op {
            "+" => self.lhs.wrapping_add(self.rhs),
            "-" => self.lhs.wrapping_sub(self.rhs),
            _ => self.lhs.wrapping_mul(self.rhs),
        }
    }
}

/// Where a followed value ended up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sink {
    /// The value an `SSTORE` wrote.
    Store,
    /// A `CALL`/`CALLCODE`/`CREATE` that sent ether: its amount, recipient or (for
    /// control flow) the decision to make it.
    Payment,
    /// A call that sent no ether: its target or its calldata.
    Call,
    /// A `SELFDESTRUCT`: its beneficiary, or the decision to run it.
    Selfdestruct,
}

/// A data flow the detectors report, found by the observer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FlowKind {
    /// A wrapped result (or a value computed from it) reached `into`.
    Wrapped { wrap: Wrap, into: Sink },
    /// Block data reached `into`: as data, or (`control`) through a branch an earlier
    /// instruction of the frame (or of a frame that called it) decided on block data.
    Block {
        /// The Solidity name of the first block datum read: `block.timestamp`, ...
        source: &'static str,
        into: Sink,
        control: bool,
    },
    /// A branch decided on an equality with an account's ether balance.
    BalanceEquality,
    /// A branch decided on `tx.origin` compared with something other than `msg.sender`,
    /// after which the frame reverted or changed state: an authorisation by `tx.origin`.
    OriginCheck,
}

/// One flow found: what, and the instruction where it ended (the sink, or the JUMPI).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Flow {
    /// What flowed where.
    pub kind: FlowKind,
    /// The code that ran the instruction.
    pub code: Address,
    /// The instruction's pc.
    pub pc: u32,
    /// The frame that ran it: its index in [`Trace::calls`] (`u32::MAX` outside any).
    pub frame: u32,
    /// The account called, when the instruction is a call.
    pub callee: Option<Address>,
}

/// Flows recorded per transaction, at most.
pub(super) const MAX_FLOWS: usize = 16;

/// Instructions [`Trace::path`] records at most: enough for the lookahead analysis, which
/// looks for split points in the first 8,192.
pub const MAX_PATH: usize = 65_536;

/// How many recent control transfers a [`RevertSite`] or [`LogSite`] keeps: enough to step
/// back out of solc's helpers (a checked addition's helper calls the Panic helper) and out
/// of the code the optimizer shares between statements, to the statement that raised it.
pub(super) const RECENT_TRANSFERS: usize = 16;

/// A control transfer of one frame: a JUMP, or a JUMPI that jumped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transfer {
    /// The JUMP or JUMPI.
    pub from: u32,
    /// Where it went (`u32::MAX` beyond any code).
    pub to: u32,
}

/// The last [`RECENT_TRANSFERS`] control transfers of one frame, in a ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecentTransfers {
    ring: [Transfer; RECENT_TRANSFERS],
    /// How many transfers the frame made (the ring holds the last of them).
    made: u32,
}

impl Default for RecentTransfers {
    fn default() -> Self {
        RecentTransfers {
            ring: [Transfer { from: 0, to: 0 }; RECENT_TRANSFERS],
            made: 0,
        }
    }
}

impl RecentTransfers {
    /// Records a transfer.
    #[inline]
    pub(super) fn push(&mut self, from: u32, to: u32) {
        self.ring[self.made as usize % RECENT_TRANSFERS] = Transfer { from, to };
        self.made = self.made.wrapping_add(1);
    }

    /// The transfers kept, oldest first.
    pub fn oldest_first(&self) -> Vec<Transfer> {
        let kept = (self.made as usize).min(RECENT_TRANSFERS);
        let first = self.made as usize - kept;
        (first..first + kept)
            .map(|i| self.ring[i % RECENT_TRANSFERS])
            .collect()
    }

    /// Whether the ring holds every transfer since the frame began (so the oldest one's
    /// code ran from the frame's first instruction).
    pub fn since_frame_start(&self) -> bool {
        (self.made as usize) <= RECENT_TRANSFERS
    }
}

/// A REVERT instruction that ran: where, in which frame, whether its data was a Panic, and
/// the transfers its frame made last (solc raises Panics in shared helper functions, so the
/// REVERT's own pc names the helper; the jump into it names the statement).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RevertSite {
    /// The code that ran it (the code address under DELEGATECALL).
    pub code: Address,
    pub pc: u32,
    /// The frame's call depth (the transaction's own frame is 1).
    pub depth: u32,
    /// The Panic code, when the revert data is `Panic(uint256)`.
    pub panic: Option<U256>,
    /// The frame's last control transfers.
    pub transfers: RecentTransfers,
}

/// A LOG1..LOG4 instruction that ran (a log with a first topic: an event's selector).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogSite {
    /// The code that ran it.
    pub code: Address,
    pub pc: u32,
    /// The account the log is emitted from.
    pub emitter: Address,
    /// The frame's last control transfers (the optimizer shares one LOG between `emit`s).
    pub transfers: RecentTransfers,
    /// The first topic.
    pub topic0: U256,
    /// The log's data (its non-indexed arguments), kept even when a frame later reverts
    /// and drops the log from the receipt: property libraries emit their failure messages
    /// just before a failing `assert`. Empty until the LOG has run.
    pub data: Bytes,
}

/// Log sites recorded per transaction, at most: a loop emitting events must not grow the
/// trace without bound.
pub const MAX_LOG_SITES: usize = 256;

/// Everything the observer recorded during one transaction, in execution order.
///
/// The buffers are reused from one transaction to the next (cleared, capacity kept), so
/// reading a `Trace` is free and keeping one means cloning it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    pub(super) edges: Vec<Edge>,
    pub(super) comparisons: Vec<Comparison>,
    pub(super) storage: Vec<StorageAccess>,
    pub(super) calls: Vec<CallRecord>,
    pub(super) selfdestructs: Vec<SelfDestruct>,
    pub(super) steps: u64,
    pub(super) path: Vec<u32>,
    pub(super) target_hits: Vec<(Address, u32)>,
    pub(super) blocks: Vec<(Address, u32)>,
    pub(super) reverts: Vec<RevertSite>,
    pub(super) logs: Vec<LogSite>,
    pub(super) unchecked_calls: Vec<u32>,
    pub(super) flows: Vec<Flow>,
    pub(super) path_condition: PathCondition,
}

impl Trace {
    /// The blocks entered at a JUMPDEST or at pc 0 (code address, pc), in order, repeats
    /// included; recorded only when the observer records blocks (line coverage).
    pub fn blocks(&self) -> &[(Address, u32)] {
        &self.blocks
    }

    /// Every executed JUMPI, in order.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// Every comparison that decided a JUMPI, in order.
    pub fn comparisons(&self) -> &[Comparison] {
        &self.comparisons
    }

    /// Every successful SLOAD and SSTORE, in order.
    pub fn storage(&self) -> &[StorageAccess] {
        &self.storage
    }

    /// The SLOADs, in order.
    pub fn loads(&self) -> impl Iterator<Item = &StorageAccess> {
        self.storage.iter().filter(|a| a.op == StorageOp::Load)
    }

    /// The SSTOREs, in order.
    pub fn stores(&self) -> impl Iterator<Item = &StorageAccess> {
        self.storage.iter().filter(|a| a.op == StorageOp::Store)
    }

    /// Every call and creation, in the order they started (the transaction's own first).
    pub fn calls(&self) -> &[CallRecord] {
        &self.calls
    }

    /// The inner calls that failed and whose status the caller never branched on, stored
    /// or returned (their indices in [`Trace::calls`]): unhandled exceptions.
    pub fn unchecked_calls(&self) -> &[u32] {
        &self.unchecked_calls
    }

    /// The data flows found (see [`FlowSet`]), in order, each sink once, at most 16.
    pub fn flows(&self) -> &[Flow] {
        &self.flows
    }

    /// Every selfdestruct, in order.
    pub fn selfdestructs(&self) -> &[SelfDestruct] {
        &self.selfdestructs
    }

    /// How many opcodes ran.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The watched target blocks entered, each once, in the order first entered: (code
    /// address, block start pc). See [`Observer::watch_targets`](super::Observer::watch_targets).
    pub fn target_hits(&self) -> &[(Address, u32)] {
        &self.target_hits
    }

    /// The pcs the transaction's own frame executed, in order (calls it made are not in
    /// it), at most [`MAX_PATH`] of them; empty unless the observer records paths
    /// ([`Observer::record_path`](super::Observer::record_path)).
    pub fn path(&self) -> &[u32] {
        &self.path
    }

    /// The transaction's own frame followed symbolically: its branches with their
    /// conditions as terms over the argument words; empty unless the observer records it
    /// ([`Observer::record_path_condition`](super::Observer::record_path_condition)).
    pub fn path_condition(&self) -> &PathCondition {
        &self.path_condition
    }

    /// Every REVERT that ran, in order (an inner frame's before the frames that bubble it
    /// up).
    pub fn reverts(&self) -> &[RevertSite] {
        &self.reverts
    }

    /// Every LOG1..LOG4 that ran, in order, reverted frames' included, at most
    /// [`MAX_LOG_SITES`].
    pub fn logs(&self) -> &[LogSite] {
        &self.logs
    }

    /// Empties every record, keeping the allocations.
    pub(super) fn clear(&mut self) {
        self.edges.clear();
        self.comparisons.clear();
        self.storage.clear();
        self.calls.clear();
        self.selfdestructs.clear();
        self.steps = 0;
        self.path.clear();
        self.target_hits.clear();
        self.blocks.clear();
        self.reverts.clear();
        self.logs.clear();
        self.unchecked_calls.clear();
        self.flows.clear();
        self.path_condition.clear();
    }

    /// Appends a storage access, for tests of trace consumers elsewhere in the crate.
    #[cfg(test)]
    pub(crate) fn push_storage(&mut self, access: StorageAccess) {
        self.storage.push(access);
    }

    /// Appends a call record, for tests of trace consumers elsewhere in the crate.
    #[cfg(test)]
    pub(crate) fn push_call(&mut self, call: CallRecord) {
        self.calls.push(call);
    }

    /// Appends a comparison, for tests of trace consumers elsewhere in the crate.
    #[cfg(test)]
    pub(crate) fn push_revert(&mut self, revert: RevertSite) {
        self.reverts.push(revert);
    }

    #[cfg(test)]
    pub(crate) fn push_comparison(&mut self, comparison: Comparison) {
        self.comparisons.push(comparison);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmp_eval_follows_evm_semantics() {
        let minus_one = U256::MAX;
        assert!(CmpOp::Lt.eval(U256::from(1), U256::from(2)));
        assert!(!CmpOp::Lt.eval(minus_one, U256::from(2)));
        assert!(CmpOp::Slt.eval(minus_one, U256::from(2)));
        assert!(CmpOp::Sgt.eval(U256::from(2), minus_one));
        assert!(!CmpOp::Gt.eval(U256::from(2), minus_one));
        assert!(CmpOp::Eq.eval(U256::from(7), U256::from(7)));
        assert!(CmpOp::IsZero.eval(U256::ZERO, U256::from(9)));
        assert!(CmpOp::Slt.is_signed() && !CmpOp::Lt.is_signed());
    }

    #[test]
    fn edge_next_pc() {
        let e = Edge {
            code: Address::ZERO,
            pc: 10,
            dest: 40,
            taken: false,
        };
        assert_eq!(e.next_pc(), 11);
        assert_eq!(Edge { taken: true, ..e }.next_pc(), 40);
    }
}
