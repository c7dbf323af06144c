//! Following data from a few sources to the instructions the flow detectors care about: a
//! shadow stack, memory and storage of labels beside the real ones (ConFuzzius's taint
//! analysis, over-tainting: a result carries the labels of all its operands).
//!
//! The sources are block data (`TIMESTAMP`, `NUMBER`, `BLOCKHASH`, `COINBASE`,
//! `PREVRANDAO`, `GASLIMIT`), balances (`BALANCE`, `SELFBALANCE`), `ORIGIN`, and `ADD`,
//! `SUB`, `MUL` results that wrapped around 2^256. The follower costs nothing until a
//! source it follows runs in a transaction: only then does it build its shadow state
//! (everything computed before was clean) and update it at every instruction. Labels live
//! for one transaction; what a transaction stored is not followed into the next.
//!
//! What counts as a flow:
//! - a wrap reaching the value an `SSTORE` writes or the ether a `CALL`/`CREATE` sends,
//!   unless the program compared a value computed from the wrap first (SafeMath's
//!   `c >= a`, solc 0.8's signed checks, a 512-bit product's carry and range tests: it saw
//!   the wrap; `x >= 0`, compiled to `x < 0`, sees nothing). An `AND` with all ones carries only its other operand (solc's `sub(0, 1)`
//!   masks). Signed arithmetic whose result is stored without such a comparison (pre-0.8
//!   `int`s, `unchecked` blocks) is reported like unsigned: the bytecode does not say which
//!   it is;
//! - block data *drawn on as randomness* reaching a call's target, calldata or ether, or
//!   a selfdestruct's beneficiary; or, for calls that send ether and selfdestructs, a
//!   branch decided on such data earlier in the frame or in a frame that called it. Block
//!   data is drawn on when it is `blockhash` or `block.prevrandao` (randomness is all they
//!   are for), or went through hashing, `%`, `addmod`, `mulmod` or `xor`. A timestamp or
//!   block number compared as it is (a deadline, a time lock, a once-per-block guard), or
//!   moved by an offset, or scaled (a vesting schedule's `total * elapsed / duration`), is
//!   not: the block's producer moves it by seconds, which such uses tolerate, and the same
//!   comparison is how every correct deadline works;
//! - an equality (`EQ`, or `SUB` straight into a branch) with a balance deciding a branch;
//! - an equality of `tx.origin` with a value other than the frame's `msg.sender` deciding
//!   a branch, after which the frame reverts or changes state (stores, sends ether,
//!   self-destructs).

use alloy_primitives::{Address, B256, U256};
use revm::bytecode::opcode::{self, OPCODE_INFO};

use super::trace::{Flow, FlowKind, FlowSet, MAX_FLOWS, Sink, Wrap};

/// The labels of one value: which sources it was computed from.
type Label = u16;

const ORIGIN: Label = 1;
const BLOCK: Label = 1 << 1;
const BALANCE: Label = 1 << 2;
/// The result of comparing `tx.origin` for equality with something other than
/// `msg.sender` (kept only through negations and moves).
const ORIGIN_TEST: Label = 1 << 3;
/// The result of an equality with a balance (kept only through negations and moves).
const BALANCE_TEST: Label = 1 << 4;
/// Block data drawn on as randomness (see the module's comment): what the block
/// dependency flow reports. Always set together with [`BLOCK`].
const DRAWN: Label = 1 << 5;
const TESTS: Label = ORIGIN_TEST | BALANCE_TEST;
/// Bits 8..16: which of the transaction's first [`MAX_WRAPS`] wraps the value came from.
const WRAP_SHIFT: u32 = 8;
const MAX_WRAPS: usize = 8;

/// Memory words followed per frame, at most (1 MiB); words beyond count as clean.
const MAX_WORDS: usize = 1 << 15;

/// Where an instruction runs: what the flows it finds record.
#[derive(Debug, Clone, Copy)]
pub(super) struct At {
    pub(super) code: Address,
    pub(super) pc: u32,
    /// The call depth (the transaction's own frame is 1).
    pub(super) depth: usize,
    /// The frame's index in the trace's calls.
    pub(super) frame: u32,
    /// The frame's `msg.sender`.
    pub(super) caller: Address,
    /// The account a call the instruction makes calls (set by the follower for calls).
    pub(super) callee: Option<Address>,
}

/// One frame's shadow state.
#[derive(Debug, Default)]
struct Frame {
    stack: Vec<Label>,
    /// Per 32-byte word of memory.
    memory: Vec<Label>,
    /// Labels of the branch conditions decided so far in this frame and its callers.
    control: Label,
    /// The labels of the last call's return data.
    returndata: Label,
    /// Where the call this frame is making wants its output: (offset, size).
    out: (usize, usize),
    /// The `tx.origin` test that decided the frame's last branch on one: its site.
    origin_guard: Option<(Address, u32)>,
    /// The labels of the frame's calldata.
    input: Label,
    /// The labels of the data this frame returns.
    output: Label,
    /// The labels of the input of the call the frame is making.
    callee_input: Label,
}

impl Frame {
    fn pop(&mut self, n: usize) -> Label {
        let keep = self.stack.len().saturating_sub(n);
        let label = self.stack[keep..].iter().fold(0, |all, l| all | l);
        self.stack.truncate(keep);
        label
    }

    /// The label `n` items below the top (0: the top).
    fn peek(&self, n: usize) -> Label {
        self.stack
            .len()
            .checked_sub(n + 1)
            .map_or(0, |i| self.stack[i])
    }

    fn memory(&self, offset: usize, size: usize) -> Label {
        if size == 0 {
            return 0;
        }
        let (first, last) = words(offset, size);
        self.memory
            .get(first..=last.min(self.memory.len().saturating_sub(1)))
            .unwrap_or_default()
            .iter()
            .fold(0, |all, l| all | l)
    }

    /// Writes `label` over `size` bytes from `offset`: words wholly covered take it, the
    /// words at the ends add it.
    fn set_memory(&mut self, offset: usize, size: usize, label: Label) {
        if size == 0 {
            return;
        }
        let (first, last) = words(offset, size);
        if first >= MAX_WORDS {
            return;
        }
        let last = last.min(MAX_WORDS - 1);
        if self.memory.len() <= last {
            if label == 0 {
                // Clean data over memory never labelled: nothing to record.
                return;
            }
            self.memory.resize(last + 1, 0);
        }
        let end = offset.saturating_add(size);
        for (word, slot) in self.memory[first..=last].iter_mut().enumerate() {
            let start = (first + word) * 32;
            if start >= offset && start + 32 <= end {
                *slot = label;
            } else {
                *slot |= label;
            }
        }
    }
}

/// The first and last memory word `size` bytes from `offset` touch (`size` > 0).
fn words(offset: usize, size: usize) -> (usize, usize) {
    (offset / 32, offset.saturating_add(size - 1) / 32)
}

/// A stack word as a memory offset or size (huge ones fail the instruction anyway).
fn small(value: U256) -> usize {
    usize::try_from(value)
        .unwrap_or(usize::MAX)
        .min(usize::MAX / 2)
}

/// Per opcode, whether it may start a flow of a [`FlowSet`].
#[derive(Debug, Clone, Copy)]
struct SourceTable([bool; 256]);

impl Default for SourceTable {
    /// No flow followed, no source.
    fn default() -> Self {
        SourceTable([false; 256])
    }
}

impl SourceTable {
    /// The opcodes that [`starts`] accepts on some stack when following `follow`: it is
    /// asked on stacks on which each arithmetic opcode wraps (`ADD`, `MUL`: two maximal
    /// words; `SUB`: 0 − 1), in code that branches on nothing.
    fn of(follow: FlowSet) -> Self {
        let wrapping = [[U256::MAX, U256::MAX], [U256::ONE, U256::ZERO]];
        let mut table = SourceTable::default();
        for op in 0..=u8::MAX {
            table.0[usize::from(op)] = wrapping
                .iter()
                .any(|stack| starts(follow, op, stack, &[], 0));
        }
        table
    }
}

/// Whether `op` at `pc` of `code` on `stack` is a source of a flow of `follow`.
#[inline]
fn starts(follow: FlowSet, op: u8, stack: &[U256], code: &[u8], pc: usize) -> bool {
    match op {
        opcode::TIMESTAMP
        | opcode::NUMBER
        | opcode::BLOCKHASH
        | opcode::COINBASE
        | opcode::DIFFICULTY
        | opcode::GASLIMIT => follow.block,
        opcode::BALANCE | opcode::SELFBALANCE => follow.balance,
        opcode::ORIGIN => follow.origin,
        opcode::ADD | opcode::SUB | opcode::MUL => {
            follow.wraps && wraps(op, stack) && !branched_on_at_once(code, pc)
        }
        _ => false,
    }
}

/// Whether `op` is a source only on some operands: arithmetic, when it wraps.
pub(super) fn conditional_source(op: u8) -> bool {
    matches!(op, opcode::ADD | opcode::SUB | opcode::MUL)
}

/// Whether the result of the instruction at `pc` of `code` is at once the condition of a
/// JUMPI (`PUSHn dest, JUMPI` follow it): solc's optimizer compiles `x != c` to
/// `sub(c, x)` on a JUMPI, which wraps whenever `x > c`. A wrap is reported only when it
/// reaches a store or a payment as data ([`Taint::reach_sink`]), and a condition only goes
/// into its frame's control label; so before any source ran (every label clean), following
/// such a wrap could report nothing, and would make every instruction after it wanted.
fn branched_on_at_once(code: &[u8], pc: usize) -> bool {
    let Some(&push) = code.get(pc + 1) else {
        return false;
    };
    if !(opcode::PUSH1..=opcode::PUSH32).contains(&push) {
        return false;
    }
    let jumpi = pc + 2 + usize::from(push - opcode::PUSH1 + 1);
    code.get(jumpi) == Some(&opcode::JUMPI)
}

/// The follower's state for the running transaction.
#[derive(Debug, Default)]
pub(super) struct Taint {
    follow: FlowSet,
    /// Per opcode, whether it is the source of a flow followed (`follow`'s sources, as
    /// `starts` tests them): one load on every instruction instead of a `match`.
    sources: SourceTable,
    /// Whether a source ran in this transaction: the shadow state is being kept.
    active: bool,
    frames: Vec<Frame>,
    storage: Vec<((Address, U256), Label)>,
    wraps: Vec<Wrap>,
    /// Wraps (bits as in a label, shifted down) the program compared with something.
    seen_wraps: u8,
    /// Wraps already reported.
    reported_wraps: u8,
    /// The Solidity name of the first block datum the transaction read.
    block_source: Option<&'static str>,
}

impl Taint {
    /// Follows the flows of `follow` from the next transaction on.
    pub(super) fn follow(&mut self, follow: FlowSet) {
        self.follow = follow;
        self.sources = SourceTable::of(follow);
    }

    /// Forgets the transaction's labels.
    pub(super) fn clear(&mut self) {
        self.active = false;
        self.frames.clear();
        self.storage.clear();
        self.wraps.clear();
        self.seen_wraps = 0;
        self.reported_wraps = 0;
        self.block_source = None;
    }

    /// Whether `op` may start a flow followed: the instructions [`Taint::wants`] may want
    /// before a source has run.
    #[inline]
    pub(super) fn is_source(&self, op: u8) -> bool {
        self.sources.0[usize::from(op)]
    }

    /// Whether `op`, about to run at `pc` of `code` on `stack`, starts a flow followed
    /// ([`Taint::wants`] before any source ran). `code` is read only for a source.
    #[inline]
    pub(super) fn starts_at<'c>(
        &self,
        op: u8,
        stack: &[U256],
        code: impl FnOnce() -> &'c [u8],
        pc: usize,
    ) -> bool {
        self.sources.0[usize::from(op)] && starts(self.follow, op, stack, code(), pc)
    }

    /// Whether a source ran in this transaction: from then on every instruction is wanted.
    #[inline]
    pub(super) fn active(&self) -> bool {
        self.active
    }

    /// Whether [`Taint::step`] has work before `op` runs at `pc` of `code` (asked only of
    /// a source) on `stack`: the transaction ran a source followed, or `op` is one.
    #[inline]
    pub(super) fn wants<'c>(
        &self,
        op: u8,
        stack: &[U256],
        code: impl FnOnce() -> &'c [u8],
        pc: usize,
    ) -> bool {
        self.active || self.starts_at(op, stack, code, pc)
    }

    /// Before instruction `op` runs at `at` with `stack` (and [`Taint::wants`] it): updates
    /// the shadow state and records the flows it completes in `flows`.
    pub(super) fn step(&mut self, op: u8, stack: &[U256], at: At, flows: &mut Vec<Flow>) {
        self.active = true;
        self.sync(at.depth, stack.len());
        self.apply(op, stack, at, flows);
    }

    /// Makes the shadow frames match the call depth and the running frame's stack its
    /// length: frames and items the follower has not seen made were made clean.
    fn sync(&mut self, depth: usize, len: usize) {
        let depth = depth.max(1);
        self.frames.truncate(depth);
        while self.frames.len() < depth {
            let (control, input) = self
                .frames
                .last()
                .map_or((0, 0), |f| (f.control, f.callee_input));
            self.frames.push(Frame {
                control,
                input,
                ..Frame::default()
            });
        }
        let frame = self.frames.last_mut().expect("one frame at least");
        frame.stack.resize(len, 0);
    }

    /// A call made by the frame at `depth` (the caller's) ended: its output goes where the
    /// caller asked for it, and is the caller's return data.
    pub(super) fn call_ended(&mut self, depth: usize) {
        if !self.active {
            return;
        }
        let depth = depth.max(1);
        // A callee that ran no instruction (a precompile, an account without code) returns
        // what it was given, as far as the follower can tell.
        let output = if self.frames.len() > depth {
            let callee = self.frames.pop().map_or(0, |f| f.output);
            self.frames.truncate(depth);
            callee
        } else {
            self.frames.get(depth - 1).map_or(0, |f| f.callee_input)
        };
        if let Some(caller) = self.frames.get_mut(depth - 1) {
            caller.returndata = output;
            let (offset, size) = caller.out;
            caller.set_memory(offset, size, output);
        }
    }

    fn apply(&mut self, op: u8, stack: &[U256], at: At, flows: &mut Vec<Flow>) {
        let n = stack.len();
        let word = |i: usize| n.checked_sub(i + 1).map_or(U256::ZERO, |j| stack[j]);
        // Every call takes its target second from the top: what call flows record.
        let at = match op {
            opcode::CALL | opcode::CALLCODE | opcode::DELEGATECALL | opcode::STATICCALL => At {
                callee: Some(Address::from_word(B256::from(word(1)))),
                ..at
            },
            _ => at,
        };
        let frame = self.frames.last_mut().expect("synced");
        match op {
            opcode::DUP1..=opcode::DUP16 => {
                let label = frame.peek(usize::from(op - opcode::DUP1));
                frame.stack.push(label);
            }
            opcode::SWAP1..=opcode::SWAP16 => {
                let len = frame.stack.len();
                let other = usize::from(op - opcode::SWAP1 + 1);
                if len > other {
                    frame.stack.swap(len - 1, len - 1 - other);
                }
            }
            opcode::ORIGIN => frame.stack.push(ORIGIN),
            opcode::TIMESTAMP
            | opcode::NUMBER
            | opcode::BLOCKHASH
            | opcode::COINBASE
            | opcode::DIFFICULTY
            | opcode::GASLIMIT => {
                let inputs = frame.pop(usize::from(op == opcode::BLOCKHASH));
                let random = matches!(op, opcode::BLOCKHASH | opcode::DIFFICULTY);
                frame
                    .stack
                    .push(inputs | BLOCK | if random { DRAWN } else { 0 });
                self.block_source.get_or_insert(block_datum(op));
            }
            opcode::BALANCE | opcode::SELFBALANCE => {
                let inputs = frame.pop(usize::from(op == opcode::BALANCE));
                frame.stack.push(inputs | BALANCE);
            }
            opcode::ADD | opcode::SUB | opcode::MUL | opcode::EQ => {
                let (a, b) = (frame.peek(0), frame.peek(1));
                let mut label = frame.pop(2) & !TESTS;
                if op == opcode::EQ || op == opcode::SUB {
                    label |= self.equality(a, b, word(0), word(1), at.caller);
                }
                if op == opcode::EQ {
                    self.compared(op, a, b, word(0), word(1));
                }
                if let Some(wrap) = wrapped(op, stack).filter(|_| self.follow.wraps) {
                    let wrap = Wrap {
                        code: at.code,
                        pc: at.pc,
                        ..wrap
                    };
                    label |= self.wrap(wrap, a | b);
                }
                self.frames.last_mut().expect("synced").stack.push(label);
            }
            opcode::LT | opcode::GT | opcode::SLT | opcode::SGT => {
                let (a, b) = (frame.peek(0), frame.peek(1));
                let label = frame.pop(2) & !TESTS;
                frame.stack.push(label);
                self.compared(op, a, b, word(0), word(1));
            }
            // Negations keep what a test is; `ISZERO` also tests a number for zero.
            opcode::ISZERO => {
                let label = frame.peek(0);
                self.seen_wraps |= (label >> WRAP_SHIFT) as u8;
            }
            opcode::NOT => {}
            opcode::AND => {
                let (a, b) = (frame.pop(1), frame.pop(1));
                // An AND with all ones is its other operand.
                let label = if word(0) == U256::MAX {
                    b
                } else if word(1) == U256::MAX {
                    a
                } else {
                    a | b
                };
                frame.stack.push(label);
            }
            // An instruction reading at an address carries the address's labels too.
            opcode::MLOAD => {
                let at_label = frame.pop(1) & !TESTS;
                let label = frame.memory(small(word(0)), 32);
                frame.stack.push(at_label | label);
            }
            opcode::MSTORE | opcode::MSTORE8 => {
                frame.pop(1);
                let value = frame.pop(1);
                let size = if op == opcode::MSTORE { 32 } else { 1 };
                frame.set_memory(small(word(0)), size, value);
            }
            opcode::KECCAK256 => {
                frame.pop(2);
                let label = frame.memory(small(word(0)), small(word(1)));
                frame.stack.push(drawn(label));
            }
            opcode::CALLDATALOAD => {
                frame.pop(1);
                frame.stack.push(frame.input);
            }
            opcode::CALLDATACOPY | opcode::CODECOPY | opcode::RETURNDATACOPY => {
                frame.pop(3);
                let label = match op {
                    opcode::CALLDATACOPY => frame.input,
                    opcode::RETURNDATACOPY => frame.returndata,
                    _ => 0,
                };
                frame.set_memory(small(word(0)), small(word(2)), label);
            }
            opcode::EXTCODECOPY => {
                frame.pop(4);
                frame.set_memory(small(word(1)), small(word(3)), 0);
            }
            opcode::MCOPY => {
                frame.pop(3);
                let label = frame.memory(small(word(1)), small(word(2)));
                frame.set_memory(small(word(0)), small(word(2)), label);
            }
            opcode::SLOAD => {
                let at_label = frame.pop(1) & !TESTS;
                let key = (at.code, word(0));
                let label = self
                    .storage
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map_or(0, |&(_, l)| l);
                self.frames
                    .last_mut()
                    .expect("synced")
                    .stack
                    .push(at_label | label);
            }
            opcode::SSTORE => {
                frame.pop(1);
                let value = frame.pop(1);
                self.confirm_origin_guard(at, flows);
                self.reach_sink(value, Sink::Store, at, flows);
                let key = (at.code, word(0));
                self.storage.retain(|(k, _)| *k != key);
                if value != 0 {
                    self.storage.push((key, value));
                }
            }
            opcode::CALL | opcode::CALLCODE => {
                let target = frame.peek(1);
                let value = frame.peek(2);
                let args = frame.memory(small(word(3)), small(word(4)));
                let control = frame.control;
                frame.pop(7);
                frame.out = (small(word(5)), small(word(6)));
                let (sent, into) = if word(2).is_zero() {
                    (0, Sink::Call)
                } else {
                    (value, Sink::Payment)
                };
                if into == Sink::Payment {
                    self.confirm_origin_guard(at, flows);
                }
                self.reach_sink(sent, into, at, flows);
                self.block_into(target | value | args, control, into, at, flows);
                self.next_frame_input(args);
            }
            opcode::DELEGATECALL | opcode::STATICCALL => {
                let target = frame.peek(1);
                let args = frame.memory(small(word(2)), small(word(3)));
                frame.pop(6);
                frame.out = (small(word(4)), small(word(5)));
                if op == opcode::DELEGATECALL {
                    self.block_into(target | args, 0, Sink::Call, at, flows);
                }
                self.next_frame_input(args);
            }
            opcode::CREATE | opcode::CREATE2 => {
                let value = frame.peek(0);
                let control = frame.control;
                frame.pop(if op == opcode::CREATE { 3 } else { 4 });
                frame.out = (0, 0);
                if !word(0).is_zero() {
                    self.confirm_origin_guard(at, flows);
                    self.reach_sink(value, Sink::Payment, at, flows);
                    self.block_into(value, control, Sink::Payment, at, flows);
                }
                self.next_frame_input(0);
            }
            opcode::SELFDESTRUCT => {
                let beneficiary = frame.pop(1);
                let control = frame.control;
                self.confirm_origin_guard(at, flows);
                self.block_into(beneficiary, control, Sink::Selfdestruct, at, flows);
            }
            opcode::JUMPI => {
                frame.pop(1);
                let condition = frame.pop(1);
                frame.control |= condition & !TESTS;
                if condition & ORIGIN_TEST != 0 {
                    frame.origin_guard = Some((at.code, at.pc));
                }
                if condition & BALANCE_TEST != 0 && self.follow.balance {
                    record(flows, FlowKind::BalanceEquality, at);
                }
            }
            opcode::RETURN | opcode::REVERT => {
                frame.pop(2);
                frame.output = frame.memory(small(word(0)), small(word(1)));
                if op == opcode::REVERT {
                    self.confirm_origin_guard(at, flows);
                }
            }
            opcode::INVALID => self.confirm_origin_guard(at, flows),
            _ => {
                let Some(info) = OPCODE_INFO[usize::from(op)] else {
                    return;
                };
                let mut label = frame.pop(usize::from(info.inputs())) & !TESTS;
                if matches!(
                    op,
                    opcode::MOD | opcode::SMOD | opcode::ADDMOD | opcode::MULMOD | opcode::XOR
                ) {
                    label = drawn(label);
                }
                for _ in 0..info.outputs() {
                    frame.stack.push(label);
                }
            }
        }
    }

    /// The test labels an equality (or a `SUB`) of `a` and `b` (labels), values `x` and
    /// `y`, carries.
    fn equality(&self, a: Label, b: Label, x: U256, y: U256, caller: Address) -> Label {
        let mut label = 0;
        if (a | b) & BALANCE != 0 {
            label |= BALANCE_TEST;
        }
        // `tx.origin == msg.sender` asks whether the sender is an account, not who it is.
        let other = if a & ORIGIN != 0 {
            Some(y)
        } else if b & ORIGIN != 0 {
            Some(x)
        } else {
            None
        };
        if other.is_some_and(|v| v != U256::from_be_slice(caller.as_slice())) {
            label |= ORIGIN_TEST;
        }
        label
    }

    /// The comparison `op` of `x` (labelled `a`, the top) with `y` (labelled `b`): the
    /// wraps of an operand were seen by the program, unless the comparison fails whatever
    /// that operand's value (`x < 0`, `0 > y`: how solc compiles `x >= 0`).
    fn compared(&mut self, op: u8, a: Label, b: Label, x: U256, y: U256) {
        if !(op == opcode::LT && y.is_zero()) {
            self.seen_wraps |= (a >> WRAP_SHIFT) as u8;
        }
        if !(op == opcode::GT && x.is_zero()) {
            self.seen_wraps |= (b >> WRAP_SHIFT) as u8;
        }
    }

    /// Registers a wrap of operands labelled `operands` and returns its label. A wrap
    /// computed from a wrap the program saw is seen too: multi-word arithmetic (a 512-bit
    /// product's high word is `mm - low - (mm < low)`).
    fn wrap(&mut self, wrap: Wrap, operands: Label) -> Label {
        let index = match self
            .wraps
            .iter()
            .position(|w| w.code == wrap.code && w.pc == wrap.pc)
        {
            Some(index) => index,
            None if self.wraps.len() < MAX_WRAPS => {
                self.wraps.push(wrap);
                self.wraps.len() - 1
            }
            None => MAX_WRAPS - 1,
        };
        if (operands >> WRAP_SHIFT) as u8 & self.seen_wraps != 0 {
            self.seen_wraps |= 1 << index;
        }
        1 << (WRAP_SHIFT + index as u32)
    }

    /// A value labelled `label` reached `into`: the wraps it came from that the program
    /// did not see are flows.
    fn reach_sink(&mut self, label: Label, into: Sink, at: At, flows: &mut Vec<Flow>) {
        let fresh = (label >> WRAP_SHIFT) as u8 & !self.seen_wraps & !self.reported_wraps;
        if fresh == 0 {
            return;
        }
        let index = fresh.trailing_zeros() as usize;
        if let Some(&wrap) = self.wraps.get(index) {
            self.reported_wraps |= 1 << index;
            record(flows, FlowKind::Wrapped { wrap, into }, at);
        }
    }

    /// Block data drawn on in `data` (or, for payments and selfdestructs, in `control`)
    /// reached `into`.
    fn block_into(&self, data: Label, control: Label, into: Sink, at: At, flows: &mut Vec<Flow>) {
        if !self.follow.block {
            return;
        }
        let by_control = into != Sink::Call && control & DRAWN != 0;
        if data & DRAWN == 0 && !by_control {
            return;
        }
        let source = self.block_source.unwrap_or("block data");
        let kind = FlowKind::Block {
            source,
            into,
            control: data & DRAWN == 0,
        };
        record(flows, kind, at);
    }

    /// The running frame reverts or changes state: a `tx.origin` test that decided its
    /// last branch guarded it.
    fn confirm_origin_guard(&mut self, at: At, flows: &mut Vec<Flow>) {
        let Some(frame) = self.frames.last_mut() else {
            return;
        };
        if let Some((code, pc)) = frame.origin_guard.take() {
            // Recorded at the guard's JUMPI, which calls nobody.
            let guard = At {
                code,
                pc,
                callee: None,
                ..at
            };
            record(flows, FlowKind::OriginCheck, guard);
        }
    }

    /// The call the running frame is making passes data labelled `input`.
    fn next_frame_input(&mut self, input: Label) {
        if let Some(frame) = self.frames.last_mut() {
            frame.callee_input = input;
        }
    }
}

/// Records a flow, once per kind and instruction, at most [`MAX_FLOWS`].
fn record(flows: &mut Vec<Flow>, kind: FlowKind, at: At) {
    let flow = Flow {
        kind,
        code: at.code,
        pc: at.pc,
        frame: at.frame,
        callee: at.callee,
    };
    let same = |f: &Flow| {
        std::mem::discriminant(&f.kind) == std::mem::discriminant(&kind)
            && f.code == flow.code
            && f.pc == flow.pc
    };
    if flows.len() < MAX_FLOWS && !flows.iter().any(same) {
        flows.push(flow);
    }
}

/// `label`, drawn on as randomness when it carries block data.
fn drawn(label: Label) -> Label {
    if label & BLOCK != 0 {
        label | DRAWN
    } else {
        label
    }
}

/// The Solidity name of a block datum's opcode.
fn block_datum(op: u8) -> &'static str {
    match op {
        opcode::TIMESTAMP => "block.timestamp",
        opcode::NUMBER => "block.number",
        opcode::BLOCKHASH => "blockhash",
        opcode::COINBASE => "block.coinbase",
        opcode::DIFFICULTY => "block.prevrandao",
        _ => "block.gaslimit",
    }
}

/// The wrap `ADD`, `SUB` or `MUL` on `stack` makes, if it wraps (code and pc left for the
/// caller to fill).
#[inline]
fn wrapped(op: u8, stack: &[U256]) -> Option<Wrap> {
    if !wraps(op, stack) {
        return None;
    }
    let n = stack.len();
    let (lhs, rhs) = (stack[n - 1], stack[n - 2]);
    let sign = match op {
        opcode::ADD => "+",
        opcode::SUB => "-",
        _ => "*",
    };
    Some(Wrap {
        code: Address::ZERO,
        pc: 0,
        op: sign,
        lhs,
        rhs,
    })
}

/// Whether `op` (`ADD`, `SUB` or `MUL`; any other never wraps) on `stack` wraps: what
/// [`wrapped`] records, without building the record (asked of most additions).
#[inline]
fn wraps(op: u8, stack: &[U256]) -> bool {
    let n = stack.len();
    if n < 2 {
        return false;
    }
    let (lhs, rhs) = (stack[n - 1], stack[n - 2]);
    match op {
        opcode::ADD => lhs.overflowing_add(rhs).1,
        opcode::SUB => rhs > lhs,
        // Most products are far too small to wrap: no multiplication needed.
        opcode::MUL => lhs.bit_len() + rhs.bit_len() > 256 && lhs.overflowing_mul(rhs).1,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn wraps(op: u8, lhs: U256, rhs: U256) -> bool {
        wrapped(op, &[rhs, lhs]).is_some()
    }

    #[test]
    fn results_past_2_to_the_256_or_below_zero_wrap() {
        let one = U256::from(1);
        assert!(wraps(opcode::SUB, U256::ZERO, one));
        assert!(wraps(opcode::SUB, U256::from(5), U256::from(7)));
        assert!(!wraps(opcode::SUB, U256::from(7), U256::from(7)));
        assert!(wraps(opcode::ADD, U256::MAX, one));
        assert!(!wraps(opcode::ADD, U256::MAX - one, one));
        assert!(wraps(opcode::MUL, one << 200, one << 100));
        assert!(wraps(opcode::MUL, U256::MAX, U256::from(2)));
        assert!(!wraps(opcode::MUL, one << 100, one << 100));
        // A product whose bit lengths add past 256 that still fits.
        assert!(!wraps(opcode::MUL, (one << 128) + one, (one << 127) + one));
        assert!(!wraps(opcode::ADD, one, one));
    }

    /// A word biased towards the edges of 256-bit arithmetic: 0, 1, MAX, powers of two
    /// and their neighbours, runs of ones, small numbers; else anything.
    fn edgy_word() -> impl Strategy<Value = U256> {
        let one = U256::from(1);
        prop_oneof![
            2 => prop::sample::select(vec![U256::ZERO, one, U256::MAX]),
            4 => (0usize..256, 0usize..3).prop_map(move |(k, d)| (one << k) + U256::from(d) - one),
            2 => (0usize..256).prop_map(|k| U256::MAX >> k),
            2 => any::<u64>().prop_map(U256::from),
            3 => any::<[u64; 4]>().prop_map(U256::from_limbs),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 2_000,
            failure_persistence: None,
            rng_seed: proptest::test_runner::RngSeed::Fixed(256),
            ..ProptestConfig::default()
        })]

        /// The source table, worked out on two stacks, marks every opcode that starts a
        /// followed flow on any stack: skipping the others loses no flow.
        #[test]
        fn the_source_table_marks_every_opcode_that_starts_a_flow_on_any_stack(
            follow in (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
            stack in prop::collection::vec(edgy_word(), 0..4),
            code in prop::collection::vec(any::<u8>(), 0..8),
            pc in 0usize..8,
        ) {
            let (wraps, block, balance, origin) = follow;
            let follow = FlowSet { wraps, block, balance, origin };
            let table = SourceTable::of(follow);
            for op in 0..=u8::MAX {
                if starts(follow, op, &stack, &code, pc) {
                    prop_assert!(table.0[usize::from(op)], "opcode {:#04x}", op);
                }
            }
        }

        /// `wrapped` against alloy's arithmetic, with the top of the stack (last) as the
        /// left operand and words below the operands ignored.
        #[test]
        fn wraps_are_exactly_the_overflows_of_concrete_arithmetic(
            lhs in edgy_word(),
            rhs in edgy_word(),
            op in prop::sample::select(vec![opcode::ADD, opcode::SUB, opcode::MUL]),
            below in prop::collection::vec(edgy_word(), 0..3),
        ) {
            let ((result, overflowed), wrapping, sign) = match op {
                opcode::ADD => (lhs.overflowing_add(rhs), lhs.wrapping_add(rhs), "+"),
                opcode::SUB => (lhs.overflowing_sub(rhs), lhs.wrapping_sub(rhs), "-"),
                _ => (lhs.overflowing_mul(rhs), lhs.wrapping_mul(rhs), "*"),
            };
            prop_assert_eq!(result, wrapping);
            let mut stack = below;
            stack.extend([rhs, lhs]);
            let wrap = wrapped(op, &stack);
            prop_assert_eq!(wrap.is_some(), overflowed);
            if let Some(wrap) = wrap {
                prop_assert_eq!((wrap.op, wrap.lhs, wrap.rhs), (sign, lhs, rhs));
                prop_assert_eq!(wrap.result(), wrapping);
            }
        }
    }

    #[test]
    fn memory_words_take_whole_stores_and_add_partial_ones() {
        let mut frame = Frame::default();
        frame.set_memory(0, 64, BLOCK);
        assert_eq!(frame.memory(0, 32), BLOCK);
        frame.set_memory(0, 32, 0);
        assert_eq!(frame.memory(0, 32), 0);
        assert_eq!(frame.memory(16, 32), BLOCK);
        // An unaligned store adds to both words it touches.
        frame.set_memory(40, 32, ORIGIN);
        assert_eq!(frame.memory(32, 32), BLOCK | ORIGIN);
        assert_eq!(frame.memory(64, 32), ORIGIN);
        assert_eq!(frame.memory(1 << 40, 32), 0);
        assert_eq!(frame.memory(0, 0), 0);
    }
}
