//! Following the argument words of the transaction's own frame symbolically, for the
//! solver-backed step of input prediction (issue 30, after ConFuzzius): each stack value and
//! aligned memory word computed from the call's argument words is a [`Term`] over them,
//! built as the instructions run, and each JUMPI of the frame is recorded with its condition
//! (a term, or concrete) and the direction it went: the path condition ([`PathCondition`]).
//!
//! Followed: the words of the arguments' head read at constant offsets (`CALLDATALOAD` at
//! `4 + 32 i`), constants, the arithmetic, comparison, bitwise and shift instructions, and
//! moves through the stack and aligned memory words. Anything else an argument reaches
//! (hashing, storage keys, calls, copies of calldata into memory, unaligned memory) makes an
//! [`Term::Opaque`] term: a condition on it is not one a solver can be asked about. Values not
//! computed from arguments are concrete and enter terms as constants. Frames the transaction
//! calls are not followed (their results are opaque when an argument went in, concrete
//! otherwise).
//!
//! Off unless asked for ([`Observer::record_path_condition`](super::Observer)): it costs a
//! shadow stack update per instruction, and only the solver's runs need it.

use std::collections::HashMap;

use alloy_primitives::{Address, U256};
use revm::bytecode::opcode::{self, OPCODE_INFO};

/// A term's index in [`PathCondition::terms`]. [`CONCRETE`] stands for "no term": a value
/// not computed from the arguments.
pub(crate) type TermId = u32;

/// The id of values not computed from the arguments.
pub(crate) const CONCRETE: TermId = 0;
/// The id of the one opaque term every [`PathCondition`] holds.
pub(crate) const OPAQUE: TermId = 1;

/// Terms per transaction, at most: beyond, new terms are opaque.
const MAX_TERMS: usize = 1 << 16;
/// Branches per transaction, at most: beyond, the path condition ends.
const MAX_BRANCHES: usize = 1 << 14;
/// Memory words a copy marks one by one, at most: a larger copy of arguments makes all of
/// memory opaque.
const MAX_COPY_WORDS: usize = 1 << 10;

/// A value computed from the arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Term {
    /// The 32-byte word of calldata at byte `4 + 32 * index`: the arguments' head.
    Arg(u32),
    /// A concrete operand of an instruction with a term as its other operand.
    Const(U256),
    /// An instruction on one term.
    Unary(UnaryOp, TermId),
    /// An instruction on two operands (at least one a term): `first` is the top of the
    /// stack, as the EVM orders operands (`SUB`: `first - second`; `SHL`: `second <<
    /// first`; `SIGNEXTEND`: byte index `first`, value `second`).
    Binary(BinaryOp, TermId, TermId),
    /// Computed from the arguments by something not followed.
    Opaque,
}

/// The one-operand instructions followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    IsZero,
    Not,
}

/// The two-operand instructions followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Mul,
    Sub,
    Div,
    SDiv,
    Mod,
    SMod,
    Exp,
    SignExtend,
    Lt,
    Gt,
    SLt,
    SGt,
    Eq,
    And,
    Or,
    Xor,
    Byte,
    Shl,
    Shr,
    Sar,
}

impl BinaryOp {
    fn of(op: u8) -> Option<Self> {
        Some(match op {
            opcode::ADD => Self::Add,
            opcode::MUL => Self::Mul,
            opcode::SUB => Self::Sub,
            opcode::DIV => Self::Div,
            opcode::SDIV => Self::SDiv,
            opcode::MOD => Self::Mod,
            opcode::SMOD => Self::SMod,
            opcode::EXP => Self::Exp,
            opcode::SIGNEXTEND => Self::SignExtend,
            opcode::LT => Self::Lt,
            opcode::GT => Self::Gt,
            opcode::SLT => Self::SLt,
            opcode::SGT => Self::SGt,
            opcode::EQ => Self::Eq,
            opcode::AND => Self::And,
            opcode::OR => Self::Or,
            opcode::XOR => Self::Xor,
            opcode::BYTE => Self::Byte,
            opcode::SHL => Self::Shl,
            opcode::SHR => Self::Shr,
            opcode::SAR => Self::Sar,
            _ => return None,
        })
    }
}

impl BinaryOp {
    /// What the EVM computes (`first` the top of the stack, as in [`Term::Binary`]): the
    /// reference the follower's and the solver's encoding's tests check against, and how
    /// the solver's own roots are checked before they are proposed.
    pub(crate) fn evaluate(self, a: U256, b: U256) -> U256 {
        let bit = |c: bool| U256::from(c as u8);
        let signed = alloy_primitives::I256::from_raw;
        let shift = |a: U256| usize::try_from(a).unwrap_or(256).min(256);
        match self {
            BinaryOp::Add => a.wrapping_add(b),
            BinaryOp::Mul => a.wrapping_mul(b),
            BinaryOp::Sub => a.wrapping_sub(b),
            BinaryOp::Div => a.checked_div(b).unwrap_or_default(),
            BinaryOp::Mod => a.checked_rem(b).unwrap_or_default(),
            BinaryOp::SDiv if b.is_zero() => U256::ZERO,
            BinaryOp::SDiv => signed(a).wrapping_div(signed(b)).into_raw(),
            BinaryOp::SMod if b.is_zero() => U256::ZERO,
            BinaryOp::SMod => signed(a).wrapping_rem(signed(b)).into_raw(),
            BinaryOp::Exp => a.wrapping_pow(b),
            BinaryOp::Byte if a >= U256::from(32) => U256::ZERO,
            BinaryOp::Byte => U256::from(b.byte(31 - a.to::<usize>())),
            BinaryOp::Lt => bit(a < b),
            BinaryOp::Gt => bit(a > b),
            BinaryOp::SLt => bit(signed(a) < signed(b)),
            BinaryOp::SGt => bit(signed(a) > signed(b)),
            BinaryOp::Eq => bit(a == b),
            BinaryOp::And => a & b,
            BinaryOp::Or => a | b,
            BinaryOp::Xor => a ^ b,
            BinaryOp::Shl if shift(a) >= 256 => U256::ZERO,
            BinaryOp::Shl => b << shift(a),
            BinaryOp::Shr if shift(a) >= 256 => U256::ZERO,
            BinaryOp::Shr => b >> shift(a),
            BinaryOp::Sar => signed(b).asr(shift(a).min(255)).into_raw(),
            BinaryOp::SignExtend if a >= U256::from(31) => b,
            BinaryOp::SignExtend => {
                let top = a.to::<usize>() * 8 + 7;
                let mask = (U256::ONE << (top + 1)) - U256::ONE;
                if b.bit(top) { b | !mask } else { b & mask }
            }
        }
    }
}

/// One JUMPI of the transaction's own frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Branch {
    pub code: Address,
    pub pc: u32,
    /// The condition's term, or [`CONCRETE`].
    pub condition: TermId,
    /// Whether it jumped.
    pub taken: bool,
}

/// The terms and branches of one transaction's own frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathCondition {
    /// Indexed by [`TermId`]; the first two are placeholders for [`CONCRETE`] and
    /// [`OPAQUE`].
    pub terms: Vec<Term>,
    /// Every JUMPI of the frame, in order (up to a cap).
    pub branches: Vec<Branch>,
}

impl Default for PathCondition {
    fn default() -> Self {
        Self {
            terms: vec![Term::Opaque, Term::Opaque],
            branches: Vec::new(),
        }
    }
}

impl PathCondition {
    /// The index in [`PathCondition::branches`] of the `nth` JUMPI at `(code, pc)`.
    pub fn branch_index(&self, code: Address, pc: u32, nth: u32) -> Option<usize> {
        self.branches
            .iter()
            .enumerate()
            .filter(|(_, b)| b.code == code && b.pc == pc)
            .nth(nth as usize)
            .map(|(i, _)| i)
    }

    /// The values of terms `0..=last` at argument words `arg(i)` (`None` for a word not
    /// known), as the EVM computes them: `None` for [`CONCRETE`], opaque terms and what uses
    /// an unknown word. Terms are made after their operands, so one pass in order does.
    pub(crate) fn values(&self, last: TermId, arg: impl Fn(u32) -> Option<U256>) -> Vec<Option<U256>> {
        let count = self.terms.len().min(last as usize + 1);
        let mut values: Vec<Option<U256>> = Vec::with_capacity(count);
        for term in &self.terms[..count] {
            let of = |id: TermId| values.get(id as usize).copied().flatten();
            let value = match *term {
                Term::Arg(i) => arg(i),
                Term::Const(c) => Some(c),
                Term::Opaque => None,
                Term::Unary(UnaryOp::IsZero, a) => of(a).map(|a| U256::from(a.is_zero() as u8)),
                Term::Unary(UnaryOp::Not, a) => of(a).map(|a| !a),
                Term::Binary(op, a, b) => of(a).zip(of(b)).map(|(a, b)| op.evaluate(a, b)),
            };
            values.push(value);
        }
        values
    }

    pub(super) fn clear(&mut self) {
        self.terms.truncate(2);
        self.branches.clear();
    }

    fn add(&mut self, term: Term) -> TermId {
        if self.terms.len() >= MAX_TERMS {
            return OPAQUE;
        }
        self.terms.push(term);
        (self.terms.len() - 1) as TermId
    }

    /// The term of an operand: its own, or a constant for a concrete one.
    fn operand(&mut self, id: TermId, value: U256) -> TermId {
        if id == CONCRETE {
            self.add(Term::Const(value))
        } else {
            id
        }
    }
}

/// The follower: shadow stack and memory of the transaction's own frame.
#[derive(Debug, Default)]
pub(super) struct Symbolic {
    on: bool,
    /// The depth of the transaction's own frame: the first instruction's.
    depth: Option<usize>,
    stack: Vec<TermId>,
    /// Aligned memory words (by word index) holding terms; absent words are concrete.
    memory: HashMap<usize, TermId>,
    /// Set when arguments were copied into more memory than is followed word by word: every
    /// load is then opaque.
    memory_opaque: bool,
    /// The term of each argument word read so far (one term per word).
    args: HashMap<u32, TermId>,
    /// JUMPIs of the frame made to go one way whatever their condition (by index in
    /// [`PathCondition::branches`], sorted): the solver's look-ahead runs, which follow the
    /// path past a branch the arguments do not take yet.
    forced: Vec<(usize, bool)>,
}

impl Symbolic {
    pub(super) fn set(&mut self, on: bool) {
        self.on = on;
    }

    #[inline]
    pub(super) fn on(&self) -> bool {
        self.on
    }

    /// Makes the frame's JUMPIs at these indices of [`PathCondition::branches`] go the
    /// given way (jump when true) in the transactions that follow; empty for none.
    #[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
    pub(super) fn force(&mut self, mut forced: Vec<(usize, bool)>) {
        forced.sort_unstable();
        self.forced = forced;
    }

    /// Whether the JUMPI about to run at `depth`, the frame's branch number `index`, is
    /// forced, and which way.
    #[inline]
    pub(super) fn forced(&self, index: usize, depth: usize) -> Option<bool> {
        if self.forced.is_empty() || self.depth != Some(depth) {
            return None;
        }
        self.forced
            .binary_search_by_key(&index, |&(i, _)| i)
            .ok()
            .map(|at| self.forced[at].1)
    }

    pub(super) fn clear(&mut self) {
        self.depth = None;
        self.stack.clear();
        self.memory.clear();
        self.memory_opaque = false;
        self.args.clear();
    }

    /// Follows one instruction about to run (`stack` its inputs) at `depth`, adding to
    /// `path`.
    pub(super) fn step(
        &mut self,
        path: &mut PathCondition,
        op: u8,
        pc: u32,
        stack: &[U256],
        depth: usize,
        code: impl FnOnce() -> Address,
    ) {
        if *self.depth.get_or_insert(depth) != depth {
            return;
        }
        // The shadow mirrors the real stack's height (a failed instruction leaves nothing
        // to follow, but be robust): what it lacks is concrete.
        self.stack.resize(stack.len(), CONCRETE);
        let n = stack.len();
        let top = |k: usize| (self.stack[n - 1 - k], stack[n - 1 - k]);
        match op {
            opcode::PUSH0..=opcode::PUSH32 => self.stack.push(CONCRETE),
            opcode::DUP1..=opcode::DUP16 => {
                let k = usize::from(op - opcode::DUP1 + 1);
                if n >= k {
                    self.stack.push(self.stack[n - k]);
                }
            }
            opcode::SWAP1..=opcode::SWAP16 => {
                let k = usize::from(op - opcode::SWAP1 + 1);
                if n > k {
                    self.stack.swap(n - 1, n - 1 - k);
                }
            }
            opcode::JUMPI if n >= 2 => {
                let (condition, value) = top(1);
                if path.branches.len() < MAX_BRANCHES {
                    path.branches.push(Branch {
                        code: code(),
                        pc,
                        condition,
                        taken: !value.is_zero(),
                    });
                }
                self.stack.truncate(n - 2);
            }
            opcode::CALLDATALOAD if n >= 1 => {
                let (id, offset) = top(0);
                let term = if id != CONCRETE {
                    OPAQUE
                } else {
                    self.arg(path, offset)
                };
                self.stack[n - 1] = term;
            }
            opcode::ISZERO | opcode::NOT if n >= 1 => {
                let (id, _) = top(0);
                if id > OPAQUE {
                    let unary = if op == opcode::ISZERO {
                        UnaryOp::IsZero
                    } else {
                        UnaryOp::Not
                    };
                    self.stack[n - 1] = path.add(Term::Unary(unary, id));
                }
            }
            opcode::MLOAD if n >= 1 => {
                let (id, offset) = top(0);
                self.stack[n - 1] = if id != CONCRETE {
                    OPAQUE
                } else {
                    self.load(offset)
                };
            }
            opcode::MSTORE | opcode::MSTORE8 if n >= 2 => {
                let ((at, offset), (value, _)) = (top(0), top(1));
                self.stack.truncate(n - 2);
                if at != CONCRETE {
                    // A store at an offset computed from arguments: where it went is unknown.
                    self.memory_opaque = true;
                } else {
                    self.store(offset, value, op == opcode::MSTORE);
                }
            }
            opcode::KECCAK256 if n >= 2 => {
                let ((at, offset), (length, size)) = (top(0), top(1));
                self.stack.truncate(n - 2);
                let hashed = at != CONCRETE || length != CONCRETE || self.holds_terms(offset, size);
                self.stack.push(if hashed { OPAQUE } else { CONCRETE });
            }
            opcode::CALLDATACOPY | opcode::CODECOPY | opcode::RETURNDATACOPY | opcode::MCOPY
                if n >= 3 =>
            {
                let ((to, offset), (from, _), (length, size)) = (top(0), top(1), top(2));
                self.stack.truncate(n - 3);
                // Calldata copied is the arguments (not followed word by word), as are
                // terms moved within memory; code and return data are concrete.
                let opaque = op == opcode::CALLDATACOPY
                    || (op == opcode::MCOPY && (!self.memory.is_empty() || from != CONCRETE));
                self.mark(offset, size, opaque || to != CONCRETE || length != CONCRETE);
            }
            _ => match BinaryOp::of(op) {
                Some(binary) if n >= 2 => {
                    let ((a, x), (b, y)) = (top(0), top(1));
                    self.stack.truncate(n - 2);
                    let term = if a == CONCRETE && b == CONCRETE {
                        CONCRETE
                    } else if a == OPAQUE || b == OPAQUE {
                        OPAQUE
                    } else {
                        let first = path.operand(a, x);
                        let second = path.operand(b, y);
                        path.add(Term::Binary(binary, first, second))
                    };
                    self.stack.push(term);
                }
                _ => self.other(op, n),
            },
        }
    }

    /// Any other instruction: its results are opaque when an argument went in.
    fn other(&mut self, op: u8, n: usize) {
        let Some(info) = OPCODE_INFO[usize::from(op)] else {
            return;
        };
        let inputs = usize::from(info.inputs()).min(n);
        let tainted = self.stack[n - inputs..].iter().any(|&id| id != CONCRETE);
        self.stack.truncate(n - inputs);
        let result = if tainted { OPAQUE } else { CONCRETE };
        for _ in 0..info.outputs() {
            self.stack.push(result);
        }
    }

    /// The term of the calldata word at `offset`: an argument word of the head, or concrete
    /// (the selector, dynamic data: not followed).
    fn arg(&mut self, path: &mut PathCondition, offset: U256) -> TermId {
        let Ok(offset) = u32::try_from(offset) else {
            return CONCRETE;
        };
        if offset < 4 || (offset - 4) % 32 != 0 {
            return CONCRETE;
        }
        let index = (offset - 4) / 32;
        if let Some(&id) = self.args.get(&index) {
            return id;
        }
        let id = path.add(Term::Arg(index));
        self.args.insert(index, id);
        id
    }

    fn load(&self, offset: U256) -> TermId {
        if self.memory_opaque {
            return OPAQUE;
        }
        let Ok(offset) = usize::try_from(offset) else {
            return CONCRETE;
        };
        if offset % 32 == 0 {
            return self.memory.get(&(offset / 32)).copied().unwrap_or(CONCRETE);
        }
        // Unaligned: a mix of two words.
        let (first, second) = (offset / 32, offset / 32 + 1);
        if self.memory.contains_key(&first) || self.memory.contains_key(&second) {
            OPAQUE
        } else {
            CONCRETE
        }
    }

    /// Whether the `size` bytes from `offset` hold anything computed from the arguments.
    fn holds_terms(&self, offset: U256, size: U256) -> bool {
        if size.is_zero() {
            return false;
        }
        if self.memory_opaque {
            return true;
        }
        let (Ok(offset), Ok(size)) = (usize::try_from(offset), usize::try_from(size)) else {
            return !self.memory.is_empty();
        };
        let (first, last) = (offset / 32, offset.saturating_add(size - 1) / 32);
        self.memory.keys().any(|&w| first <= w && w <= last)
    }

    fn store(&mut self, offset: U256, value: TermId, word: bool) {
        let Ok(offset) = usize::try_from(offset) else {
            return;
        };
        if word && offset % 32 == 0 {
            if value == CONCRETE {
                self.memory.remove(&(offset / 32));
            } else {
                self.memory.insert(offset / 32, value);
            }
            return;
        }
        let size = if word { 32 } else { 1 };
        self.mark(U256::from(offset), U256::from(size), value != CONCRETE);
    }

    /// The words `size` bytes from `offset` touch were overwritten: with something opaque,
    /// or partly with concrete bytes (a word that held a term becomes opaque).
    fn mark(&mut self, offset: U256, size: U256, opaque: bool) {
        let (Ok(offset), Ok(size)) = (usize::try_from(offset), usize::try_from(size)) else {
            self.memory_opaque |= opaque;
            return;
        };
        if size == 0 {
            return;
        }
        let (first, last) = (offset / 32, offset.saturating_add(size - 1) / 32);
        if last - first >= MAX_COPY_WORDS {
            self.memory_opaque |= opaque;
            if !opaque {
                self.memory.retain(|&w, _| w < first || w > last);
            }
            return;
        }
        let whole = |w: usize| w * 32 >= offset && (w + 1) * 32 <= offset + size;
        for w in first..=last {
            if opaque {
                self.memory.insert(w, OPAQUE);
            } else if whole(w) {
                self.memory.remove(&w);
            } else if self.memory.contains_key(&w) {
                self.memory.insert(w, OPAQUE);
            }
        }
    }
}

#[cfg(test)]
mod tests;
