//! The abstract semantics of one EVM instruction over [`AbsState`]: constants are folded
//! where the result is certain, everything the analysis cannot know (calldata, environment,
//! call results, hashes) is ⊤, and control flow says where execution may continue.
//!
//! Soundness rests on this file: a folded constant must be exactly what the EVM computes,
//! and every successor the EVM could take must be among those returned. When in doubt an
//! operation yields ⊤ and a jump [`Flow::Lost`].

use alloy_primitives::{I256, U256};

use crate::bytecode::{Instruction, block_starts, is_defined};
use crate::lookahead::state::{AbsState, Value};

/// The EVM's stack limit; exceeding it halts exceptionally.
const STACK_LIMIT: usize = 1024;

/// Runtime bytecode with its valid jump destinations and basic-block leaders.
#[derive(Debug, Clone)]
pub(crate) struct Code {
    bytes: Vec<u8>,
    /// Per byte: a `JUMPDEST` instruction (not PUSH data).
    jumpdest: Vec<bool>,
    /// Per byte: the first instruction of a basic block.
    leader: Vec<bool>,
}

/// Where execution goes after one instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Execution stops here (normally or exceptionally).
    Halt,
    /// Continues at this pc.
    Goto(usize),
    /// A `JUMPI` whose condition is unknown: continues at either pc (`None`: the jump
    /// destination is invalid, so that direction halts).
    Branch { jump: Option<usize>, fall: usize },
    /// A jump to an unknown destination: the analysis cannot follow it.
    Lost,
}

impl Code {
    /// Indexes `bytes`: jump destinations and block leaders (pc 0, every `JUMPDEST`, and
    /// the instruction after a jump or a halting instruction).
    pub(crate) fn new(bytes: &[u8]) -> Code {
        let mut jumpdest = vec![false; bytes.len()];
        let mut leader = vec![false; bytes.len()];
        // Every JUMPDEST instruction starts a block: the starts hold all of them.
        for start in block_starts(bytes) {
            if let Some(slot) = leader.get_mut(start) {
                *slot = true;
                jumpdest[start] = bytes[start] == JUMPDEST;
            }
        }
        Code {
            bytes: bytes.to_vec(),
            jumpdest,
            leader,
        }
    }

    /// The opcode at `pc` (`STOP` past the end, as the EVM reads it).
    pub(crate) fn op(&self, pc: usize) -> u8 {
        self.bytes.get(pc).copied().unwrap_or(STOP)
    }

    /// Whether `pc` starts a basic block.
    pub(crate) fn is_leader(&self, pc: usize) -> bool {
        self.leader.get(pc).copied().unwrap_or(false)
    }

    /// Whether `pc` is a valid jump destination.
    pub(crate) fn is_jumpdest(&self, pc: usize) -> bool {
        self.jumpdest.get(pc).copied().unwrap_or(false)
    }

    /// The code's length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.bytes.len()
    }

    /// The immediate of the PUSH at `pc`, zero-padded when the code ends inside it.
    fn push_value(&self, pc: usize, len: usize) -> U256 {
        let mut word = [0u8; 32];
        for i in 0..len {
            word[32 - len + i] = self.bytes.get(pc + 1 + i).copied().unwrap_or(0);
        }
        U256::from_be_bytes(word)
    }

    /// A jump to `dest`: its pc if it is a valid destination (else the jump halts).
    fn jump_target(&self, dest: U256) -> Option<usize> {
        usize::try_from(dest).ok().filter(|&d| self.is_jumpdest(d))
    }
}

const STOP: u8 = 0x00;
const JUMP: u8 = 0x56;
const JUMPI: u8 = 0x57;
const JUMPDEST: u8 = 0x5b;

/// Whether `op` is a call or creation: another contract runs, and may call back into
/// this one and reach anything.
pub(crate) fn is_call(op: u8) -> bool {
    matches!(op, 0xf0 | 0xf1 | 0xf2 | 0xf4 | 0xf5 | 0xfa)
}

/// Stack items `op` pops and pushes, for the instructions without special handling.
fn arity(op: u8) -> (usize, usize) {
    match op {
        0x08 | 0x09 => (3, 1),
        0x01..=0x07 | 0x0a | 0x0b | 0x10..=0x14 | 0x16..=0x18 | 0x1a..=0x1d | 0x20 => (2, 1),
        0x15 | 0x19 => (1, 1),
        0x31 | 0x35 | 0x3b | 0x3f | 0x40 | 0x49 | 0x51 | 0x54 | 0x5c => (1, 1),
        0x30
        | 0x32..=0x34
        | 0x36
        | 0x38
        | 0x3a
        | 0x3d
        | 0x41..=0x48
        | 0x4a
        | 0x58..=0x5a
        | 0x5f => (0, 1),
        0x37 | 0x39 | 0x3e | 0x5e => (3, 0),
        0x3c => (4, 0),
        0x50 | 0x56 | 0xff => (1, 0),
        0x52 | 0x53 | 0x55 | 0x57 | 0x5d | 0xf3 | 0xfd => (2, 0),
        0x60..=0x7f => (0, 1),
        0xa0..=0xa4 => (2 + (op - 0xa0) as usize, 0),
        0xf0 => (3, 1),
        0xf1 | 0xf2 => (7, 1),
        0xf4 | 0xfa => (6, 1),
        0xf5 => (4, 1),
        _ => (0, 0),
    }
}

/// Executes the instruction at `pc` on `state` in place and says where execution goes.
/// `next` is the pc a concrete run took next, if known: a jump to an unknown destination
/// then follows it instead of getting [`Flow::Lost`] (prefix inference is path-sensitive).
pub(crate) fn step(code: &Code, pc: usize, state: &mut AbsState, next: Option<usize>) -> Flow {
    let op = code.op(pc);
    if !is_defined(op) {
        // Undefined today, but a later fork may define it (Osaka's CLZ is 0x1e): claim
        // nothing about what follows.
        return Flow::Lost;
    }
    let fall = pc + 1 + Instruction::immediate_size(op);
    // DUPn and SWAPn reach deeper than they pop.
    let (pops, pushes) = match op {
        0x80..=0x8f => ((op - 0x7f) as usize, 0),
        0x90..=0x9f => ((op - 0x8e) as usize, 0),
        _ => arity(op),
    };
    let height = state.stack.len();
    if height < pops || height - pops + pushes > STACK_LIMIT {
        return Flow::Halt;
    }
    if (0x80..=0x8f).contains(&op) {
        if height + 1 > STACK_LIMIT {
            return Flow::Halt;
        }
        let value = state.stack[height - pops];
        state.stack.push(value);
        return Flow::Goto(fall);
    }
    if (0x90..=0x9f).contains(&op) {
        state.stack.swap(height - 1, height - pops);
        return Flow::Goto(fall);
    }
    // Operands in EVM order: the top of the stack first (at most 7, CALL's).
    let mut args: [Value; 7] = [None; 7];
    for slot in args.iter_mut().take(pops) {
        *slot = state.stack.pop().flatten();
    }
    let arg = |i: usize| args[i];
    match op {
        STOP | 0xf3 | 0xfd | 0xfe | 0xff => return Flow::Halt,
        JUMP => {
            return match arg(0) {
                Some(dest) => code.jump_target(dest).map_or(Flow::Halt, Flow::Goto),
                None => follow(code, next),
            };
        }
        JUMPI => {
            let jump = match arg(0) {
                Some(dest) => code.jump_target(dest),
                None if arg(1) == Some(U256::ZERO) => None,
                None => match follow(code, next) {
                    Flow::Goto(to) if to != fall => Some(to),
                    Flow::Goto(_) => return Flow::Goto(fall),
                    _ => return Flow::Lost,
                },
            };
            return match arg(1) {
                Some(cond) if cond.is_zero() => Flow::Goto(fall),
                Some(_) => jump.map_or(Flow::Halt, Flow::Goto),
                None => Flow::Branch { jump, fall },
            };
        }
        0x51 => state.stack.push(state.mload(arg(0))),
        0x52 => state.mstore(arg(0), arg(1)),
        0x53 => state.forget_memory(arg(0), Some(U256::from(1))),
        // CALLDATACOPY, CODECOPY, RETURNDATACOPY, MCOPY: (dest, source, length).
        0x37 | 0x39 | 0x3e | 0x5e => state.forget_memory(arg(0), arg(2)),
        // EXTCODECOPY: (address, dest, source, length).
        0x3c => state.forget_memory(arg(1), arg(3)),
        0x54 => state.stack.push(state.sload(arg(0))),
        0x55 => state.sstore(arg(0), arg(1)),
        0x38 => state.stack.push(Some(U256::from(code.len()))),
        0x58 => state.stack.push(Some(U256::from(pc))),
        0x5f => state.stack.push(Some(U256::ZERO)),
        0x60..=0x7f => state
            .stack
            .push(Some(code.push_value(pc, Instruction::immediate_size(op)))),
        // CALL, CALLCODE: (gas, address, value, in offset, in size, out offset, out size).
        0xf1 | 0xf2 => call_effects(state, arg(5), arg(6), true),
        // DELEGATECALL: (gas, address, in offset, in size, out offset, out size).
        0xf4 => call_effects(state, arg(4), arg(5), true),
        // STATICCALL cannot change state, only write its output into memory.
        0xfa => call_effects(state, arg(4), arg(5), false),
        0xf0 | 0xf5 => {
            // A constructor may call back and change this contract's storage.
            state.forget_storage();
            state.stack.push(None);
        }
        _ => {
            for _ in 0..pushes {
                state.stack.push(fold(op, &args[..pops]));
            }
        }
    }
    Flow::Goto(fall)
}

/// A jump to an unknown destination: the concrete run's next pc when known and valid.
fn follow(code: &Code, next: Option<usize>) -> Flow {
    match next {
        Some(to) if code.is_jumpdest(to) => Flow::Goto(to),
        _ => Flow::Lost,
    }
}

/// What a call does to the caller's state: unknown output in memory, storage possibly
/// written by a re-entrant call, an unknown success flag.
fn call_effects(state: &mut AbsState, out_offset: Value, out_size: Value, writes: bool) {
    state.forget_memory(out_offset, out_size);
    if writes {
        state.forget_storage();
    }
    state.stack.push(None);
}

/// The result of a pure stack operation on constant operands, or ⊤. Only operations whose
/// EVM semantics are reproduced exactly are folded; the rest (signed division, sign
/// extension, hashing, environment reads) are ⊤.
fn fold(op: u8, args: &[Value]) -> Value {
    let a = args.first().copied().flatten();
    let b = args.get(1).copied().flatten();
    let bool_word = |v: bool| Some(U256::from(v));
    match op {
        0x15 => return bool_word(a?.is_zero()),
        0x19 => return Some(!a?),
        _ => {}
    }
    let (a, b) = (a?, b?);
    match op {
        0x01 => Some(a.wrapping_add(b)),
        0x02 => Some(a.wrapping_mul(b)),
        0x03 => Some(a.wrapping_sub(b)),
        0x04 => Some(a.checked_div(b).unwrap_or(U256::ZERO)),
        0x06 => Some(a.checked_rem(b).unwrap_or(U256::ZERO)),
        0x08 => Some(a.add_mod(b, args[2]?)),
        0x09 => Some(a.mul_mod(b, args[2]?)),
        0x0a => Some(a.wrapping_pow(b)),
        0x10 => bool_word(a < b),
        0x11 => bool_word(a > b),
        0x12 => bool_word(I256::from_raw(a) < I256::from_raw(b)),
        0x13 => bool_word(I256::from_raw(a) > I256::from_raw(b)),
        0x14 => bool_word(a == b),
        0x16 => Some(a & b),
        0x17 => Some(a | b),
        0x18 => Some(a ^ b),
        0x1a => Some(match usize::try_from(a) {
            Ok(i) if i < 32 => U256::from(b.to_be_bytes::<32>()[i]),
            _ => U256::ZERO,
        }),
        0x1b => Some(shift(a).map_or(U256::ZERO, |s| b << s)),
        0x1c => Some(shift(a).map_or(U256::ZERO, |s| b >> s)),
        _ => None,
    }
}

/// A shift amount below 256, or `None` when the shift clears the word.
fn shift(amount: U256) -> Option<usize> {
    usize::try_from(amount).ok().filter(|&s| s < 256)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(v: u64) -> Value {
        Some(U256::from(v))
    }

    fn run(code: &[u8], stack: Vec<Value>) -> (Flow, Vec<Value>) {
        let code = Code::new(code);
        let mut state = AbsState::with_stack(stack);
        let flow = step(&code, 0, &mut state, None);
        (flow, state.stack)
    }

    #[test]
    fn leaders_and_jumpdests_skip_push_data() {
        // PUSH1 0x5b; JUMPDEST; PUSH1 3; JUMP; STOP
        let code = Code::new(&[0x60, 0x5b, 0x5b, 0x60, 0x03, 0x56, 0x00]);
        assert!(!code.is_jumpdest(1), "PUSH data");
        assert!(code.is_jumpdest(2));
        assert_eq!(
            (0..7).filter(|&pc| code.is_leader(pc)).collect::<Vec<_>>(),
            [0, 2, 6]
        );
        assert_eq!(code.op(100), STOP);
    }

    #[test]
    fn arithmetic_folds_with_evm_operand_order() {
        // SUB: top - second.
        assert_eq!(run(&[0x03], vec![c(3), c(10)]).1, vec![c(7)]);
        // LT: top < second.
        assert_eq!(run(&[0x10], vec![c(9), c(1)]).1, vec![c(1)]);
        // SHL: shift = top, value = second.
        assert_eq!(run(&[0x1b], vec![c(1), c(4)]).1, vec![c(16)]);
        assert_eq!(run(&[0x1c], vec![c(1), c(300)]).1, vec![c(0)]);
        // DIV by zero is zero; unknown operands give ⊤.
        assert_eq!(run(&[0x04], vec![c(0), c(5)]).1, vec![c(0)]);
        assert_eq!(run(&[0x01], vec![None, c(5)]).1, vec![None]);
        // SLT on -1 < 1.
        assert_eq!(run(&[0x12], vec![c(1), Some(U256::MAX)]).1, vec![c(1)]);
        // BYTE 31 of 0x1234 is 0x34.
        assert_eq!(run(&[0x1a], vec![c(0x1234), c(31)]).1, vec![c(0x34)]);
    }

    #[test]
    fn dup_swap_and_push() {
        assert_eq!(run(&[0x81], vec![c(1), c(2)]).1, vec![c(1), c(2), c(1)]);
        assert_eq!(
            run(&[0x91], vec![c(1), c(2), c(3)]).1,
            vec![c(3), c(2), c(1)]
        );
        assert_eq!(run(&[0x61, 0x01, 0x02], vec![]).1, vec![c(0x0102)]);
        assert_eq!(
            run(&[0x61, 0x01], vec![]).1,
            vec![c(0x0100)],
            "truncated PUSH"
        );
        assert_eq!(run(&[0x50], vec![]).0, Flow::Halt, "underflow halts");
    }

    #[test]
    fn jumps() {
        // JUMPI with dest 3 (a JUMPDEST) and an unknown condition: both ways.
        let code = [0x57, 0x00, 0x00, 0x5b];
        assert_eq!(
            run(&code, vec![None, c(3)]).0,
            Flow::Branch {
                jump: Some(3),
                fall: 1
            }
        );
        assert_eq!(run(&code, vec![c(0), c(3)]).0, Flow::Goto(1));
        assert_eq!(run(&code, vec![c(1), c(3)]).0, Flow::Goto(3));
        assert_eq!(run(&code, vec![c(1), c(2)]).0, Flow::Halt, "not a JUMPDEST");
        assert_eq!(run(&code, vec![None, None]).0, Flow::Lost);
        assert_eq!(run(&code, vec![c(0), None]).0, Flow::Goto(1), "never jumps");
        assert_eq!(run(&[0x56], vec![None]).0, Flow::Lost);
        let code = Code::new(&[0x56, 0x00, 0x5b]);
        let mut state = AbsState::with_stack(vec![None]);
        assert_eq!(
            step(&code, 0, &mut state, Some(2)),
            Flow::Goto(2),
            "follows the run"
        );
    }

    #[test]
    fn calls_forget_storage_and_their_output() {
        let mut state = AbsState::default();
        state.sstore(c(0), c(1));
        state.mstore(c(0), c(2));
        state.mstore(c(0x40), c(3));
        // CALL with output at [0, 32).
        state.stack = vec![c(32), c(0), c(0), c(0), c(0), None, None];
        let code = Code::new(&[0xf1]);
        assert_eq!(step(&code, 0, &mut state, None), Flow::Goto(1));
        assert_eq!(state.stack, vec![None]);
        assert_eq!(state.sload(c(0)), None);
        assert_eq!(state.mload(c(0)), None);
        assert_eq!(state.mload(c(0x40)), c(3));
        assert!(is_call(0xf1) && is_call(0xfa) && !is_call(0x54));
    }
}
