//! The chain's KECCAK256 instruction: revm's, with a memo of short inputs.
//!
//! A fuzzing campaign hashes the same few words over and over: every mapping access hashes
//! its key with the mapping's slot (64 bytes), every dynamic array its slot (32), and the
//! keys are the campaign's handful of senders and contracts. Hashing is the largest single
//! cost of a `Bank` campaign's EVM (18.6% of its host instructions at 94429b4), and a memo
//! lookup costs a few dozen instructions where Keccak-f costs over a thousand.
//!
//! The memo is direct-mapped and per thread (a worker's chain runs on one thread; a hash is
//! the same whichever thread computed it): [`MEMO_ENTRIES`] entries indexed by a hash of
//! the input, each holding its full input, so that a hit is exact and a collision only
//! replaces the entry. Inputs longer than [`MEMO_INPUT`] bytes, or not yet in memory (their
//! hashing grows memory, which revm charges for), go to revm's instruction unchanged.

use std::cell::RefCell;
use std::hash::Hasher;

use alloy_primitives::{B256, U256, keccak256};
use revm::interpreter::instructions::system;
use revm::interpreter::interpreter::EthInterpreter;
use revm::interpreter::interpreter_types::MemoryTr;
use revm::interpreter::{InstructionContext, InstructionExecResult, InstructionResult};

use revm::bytecode::opcode;
use revm::context_interface::Host;
use revm::handler::MainnetContext;
use revm::handler::instructions::EthInstructions;
use revm::interpreter::Instruction;

use super::db::Db;
use crate::hash::KeyHasher;

/// The longest input the memo keeps: a mapping slot's key and slot (two words).
const MEMO_INPUT: usize = 64;

/// Entries in each thread's memo (a power of two). 1,024 entries of about 100 bytes stay in
/// a core's L2 cache next to the EVM's own data; a campaign's distinct short inputs are
/// its senders and contracts times its mappings, far fewer.
const MEMO_ENTRIES: usize = 1 << 10;

/// One remembered hash: `input[..len]` hashes to `hash`; `len == 0` is an empty entry
/// (the empty input is never remembered: revm answers it with a constant).
#[derive(Clone, Copy)]
struct Entry {
    len: u8,
    input: [u8; MEMO_INPUT],
    hash: B256,
}

/// A direct-mapped memo of Keccak-256 over inputs of at most [`MEMO_INPUT`] bytes.
struct Memo {
    entries: Box<[Entry]>,
}

impl Memo {
    /// An empty memo.
    fn new() -> Memo {
        let empty = Entry {
            len: 0,
            input: [0; MEMO_INPUT],
            hash: B256::ZERO,
        };
        Memo {
            entries: vec![empty; MEMO_ENTRIES].into_boxed_slice(),
        }
    }

    /// Keccak-256 of `input` (1 to [`MEMO_INPUT`] bytes), remembered.
    fn hash(&mut self, input: &[u8]) -> B256 {
        debug_assert!((1..=MEMO_INPUT).contains(&input.len()));
        let mut hasher = KeyHasher::default();
        hasher.write(input);
        // The high bits: the multiply in `KeyHasher` mixes upwards.
        let index = (hasher.finish() >> (64 - MEMO_ENTRIES.trailing_zeros())) as usize;
        let entry = &mut self.entries[index];
        let len = input.len();
        if usize::from(entry.len) == len && entry.input[..len] == *input {
            return entry.hash;
        }
        let hash = keccak256(input);
        entry.len = len as u8;
        entry.input[..len].copy_from_slice(input);
        entry.hash = hash;
        hash
    }
}

/// Puts [`keccak256_memoized`] in `instructions` in place of revm's KECCAK256 (its gas
/// table entry, the static cost, stays).
pub(super) fn install(instructions: &mut EthInstructions<EthInterpreter, MainnetContext<Db>>) {
    instructions.instruction_table_mut()[usize::from(opcode::KECCAK256)] =
        Instruction::new(keccak256_memoized);
}

thread_local! {
    /// This thread's memo.
    static MEMO: RefCell<Memo> = RefCell::new(Memo::new());
}

/// KECCAK256 as revm runs it (same result, gas and failures), answering short inputs
/// already in memory from the thread's memo.
fn keccak256_memoized(
    context: InstructionContext<'_, MainnetContext<Db>, EthInterpreter>,
) -> InstructionExecResult {
    let interp = &mut *context.interpreter;
    let stack = interp.stack.data();
    let [.., len, offset] = stack[..] else {
        return system::keccak256(context);
    };
    let (Ok(offset), Ok(len)) = (usize::try_from(offset), usize::try_from(len)) else {
        return system::keccak256(context);
    };
    let in_memory = offset
        .checked_add(len)
        .is_some_and(|end| end <= interp.memory.size());
    if !(1..=MEMO_INPUT).contains(&len) || !in_memory {
        return system::keccak256(context);
    }
    // What revm charges when memory need not grow: the per-word cost (the static part is
    // the gas table's, charged before any instruction runs).
    let cost = context.host.gas_params().keccak256_cost(len);
    if !interp.gas.record_regular_cost(cost) {
        return Err(InstructionResult::OutOfGas);
    }
    let mut input = [0u8; MEMO_INPUT];
    input[..len].copy_from_slice(&interp.memory.slice_len(offset, len));
    let hash = MEMO.with(|memo| memo.borrow_mut().hash(&input[..len]));
    let stack = interp.stack.data_mut();
    stack.pop();
    if let Some(top) = stack.last_mut() {
        *top = U256::from_be_bytes(hash.0);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The memo answers every input with its Keccak-256, whether it remembered it,
        /// remembered another input at the same index, or never saw it; inputs drawn from
        /// a small pool so that hits, misses and replacements all happen.
        #[test]
        fn the_memo_answers_with_the_hash(
            pool in prop::collection::vec(prop::collection::vec(any::<u8>(), 1..=MEMO_INPUT), 1..40),
            picks in prop::collection::vec(any::<prop::sample::Index>(), 1..200),
        ) {
            let mut memo = Memo::new();
            for pick in picks {
                let input = &pool[pick.index(pool.len())];
                prop_assert_eq!(memo.hash(input), keccak256(input));
            }
        }
    }

    /// One call to `code` with `gas_limit`, on an EVM with revm's KECCAK256 or
    /// (`memoized`) this module's: its whole result (success or halt, gas, output) as text,
    /// and the gas it used.
    fn run(code: &[u8], gas_limit: u64, memoized: bool) -> (String, u64) {
        use revm::bytecode::Bytecode;
        use revm::context::{Context, TxEnv};
        use revm::primitives::{Address, TxKind};
        use revm::state::AccountInfo;
        use revm::{ExecuteEvm, MainBuilder, MainContext};

        let at = Address::with_last_byte(0xc0);
        let mut db = Db::default();
        db.insert_account_info(
            at,
            AccountInfo::from_bytecode(Bytecode::new_raw(code.to_vec().into())),
        );
        let mut evm = Context::mainnet().with_db(db).build_mainnet();
        if memoized {
            install(&mut evm.instruction);
        }
        let tx = TxEnv::builder()
            .caller(Address::with_last_byte(0xca))
            .kind(TxKind::Call(at))
            .gas_limit(gas_limit)
            .build()
            .expect("valid tx");
        let result = evm.transact_one(tx).expect("the call runs");
        (format!("{result:?}"), result.tx_gas_used())
    }

    /// Stores two words at 0 and 32, hashes `len` bytes from `offset` twice (the second
    /// time from the memo when the first remembered it), and returns both hashes.
    fn program(words: [[u8; 32]; 2], offset: u8, len: u8) -> Vec<u8> {
        let mut code = Vec::new();
        for (word, at) in words.iter().zip([0u8, 32]) {
            code.push(opcode::PUSH32);
            code.extend_from_slice(word);
            code.extend_from_slice(&[opcode::PUSH1, at, opcode::MSTORE]);
        }
        for out in [0u8, 32] {
            code.extend_from_slice(&[opcode::PUSH1, len, opcode::PUSH1, offset, opcode::KECCAK256]);
            code.extend_from_slice(&[opcode::PUSH1, 0x80 + out, opcode::MSTORE]);
        }
        code.extend_from_slice(&[opcode::PUSH1, 64, opcode::PUSH1, 0x80, opcode::RETURN]);
        code
    }

    proptest! {
        /// On any slice of memory, in memory already or growing it, and with any gas, the
        /// memoized instruction ends a call exactly as revm's does: same result, gas and
        /// output (near the gas that runs out inside the hashing, too).
        #[test]
        fn the_instruction_runs_as_revms(
            words in any::<[[u8; 32]; 2]>(),
            offset in 0u8..80,
            len in 0u8..=80,
            gas_short in 0u64..400,
        ) {
            let code = program(words, offset, len);
            let plain = run(&code, 1_000_000, false);
            prop_assert_eq!(&run(&code, 1_000_000, true), &plain);
            // The plain run's gas, less a little: it runs out somewhere near the end.
            let limit = plain.1.saturating_sub(gas_short).max(21_000);
            prop_assert_eq!(run(&code, limit, true), run(&code, limit, false));
        }
    }

    #[test]
    fn inputs_that_differ_only_in_length_are_told_apart() {
        let mut memo = Memo::new();
        let long = [0u8; 64];
        assert_eq!(memo.hash(&long), keccak256(long));
        assert_eq!(memo.hash(&long[..32]), keccak256(&long[..32]));
        assert_eq!(memo.hash(&long), keccak256(long));
    }
}
