//! What invariant probes read, recorded on request ([`Chain::record_reads`]): enough for the
//! engine to skip an invariant that no storage a transaction wrote could change. An
//! invariant function's answer is a function of the storage slots its code loads and
//! stores and of what `volatile` stands for; everything else a probe depends on (its
//! sender, target, calldata, the code it calls) is the same from one check to the next
//! unless a transaction creates or destroys code or uses a cheatcode that writes state,
//! which the engine sees for itself.

use alloy_primitives::{Address, U256};
use revm::bytecode::opcode;

use crate::observe::opcode_table;

/// What the probes run while recording read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Reads {
    /// Every storage slot their code loaded or stored, as (account, slot), in order (with
    /// repeats).
    pub(crate) slots: Vec<(Address, U256)>,
    /// Whether they read something a transaction can change without a storage write: a
    /// balance or an account's existence (`EXTCODEHASH`), the block or the transaction's
    /// environment; or created or destroyed code, sent ether, called a cheatcode beyond
    /// the pure ones, or ran with cheatcode state in force (a prank, an expectation) that a
    /// later probe might not share. Then only checking again tells.
    pub(crate) volatile: bool,
}

/// The opcodes [`Reads::step`] notes: a table, so that the hook costs one load per other
/// instruction (a probe runs hundreds of thousands).
const NOTED: [bool; 256] = opcode_table(&[
    opcode::SLOAD,
    opcode::SSTORE,
    opcode::CALL,
    opcode::CALLCODE,
    opcode::BALANCE,
    opcode::SELFBALANCE,
    opcode::EXTCODEHASH,
    opcode::CREATE,
    opcode::CREATE2,
    opcode::SELFDESTRUCT,
    opcode::BLOCKHASH,
    opcode::COINBASE,
    opcode::TIMESTAMP,
    opcode::NUMBER,
    opcode::DIFFICULTY,
    opcode::GASLIMIT,
    opcode::CHAINID,
    opcode::BASEFEE,
    opcode::BLOBHASH,
    opcode::BLOBBASEFEE,
    opcode::GASPRICE,
    opcode::ORIGIN,
]);

/// Whether [`Reads::step`] notes anything of opcode `op`.
#[inline]
pub(super) fn noted(op: u8) -> bool {
    NOTED[op as usize]
}

impl Reads {
    /// Notes what the instruction `op` about to run reads: `stack` is the stack before it,
    /// `storage` the account whose storage its frame uses.
    pub(super) fn step(&mut self, op: u8, stack: &[U256], storage: Address) {
        match op {
            opcode::SLOAD | opcode::SSTORE => {
                if let Some(&slot) = stack.last() {
                    self.slots.push((storage, slot));
                }
            }
            // The value is the third item of CALL and CALLCODE.
            opcode::CALL | opcode::CALLCODE => {
                let value = stack.len().checked_sub(3).map(|i| stack[i]);
                self.volatile |= value.is_some_and(|v| !v.is_zero());
            }
            // Code (`EXTCODESIZE`, `EXTCODECOPY`, what calls run) changes only by creation,
            // self-destruct or a cheatcode, which the engine sees for itself; the gas left
            // follows from the path (every access starts cold in each transaction). A code
            // hash also tells an account that exists from one that does not, which ether
            // changes.
            opcode::BALANCE
            | opcode::SELFBALANCE
            | opcode::EXTCODEHASH
            | opcode::CREATE
            | opcode::CREATE2
            | opcode::SELFDESTRUCT
            | opcode::BLOCKHASH
            | opcode::COINBASE
            | opcode::TIMESTAMP
            | opcode::NUMBER
            | opcode::DIFFICULTY
            | opcode::GASLIMIT
            | opcode::CHAINID
            | opcode::BASEFEE
            | opcode::BLOBHASH
            | opcode::BLOBBASEFEE
            | opcode::GASPRICE
            | opcode::ORIGIN => self.volatile = true,
            _ => {}
        }
    }

    /// Whether the recorded probes read a slot among `written` (sorted).
    pub(crate) fn meets(&self, written: &[(Address, U256)]) -> bool {
        self.slots
            .iter()
            .any(|slot| written.binary_search(slot).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::address;

    const VAULT: Address = address!("0x00000000000000000000000000000000000000aa");

    #[test]
    fn storage_accesses_are_slots_of_the_frame_s_account_and_outside_reads_are_volatile() {
        let mut reads = Reads::default();
        reads.step(opcode::SLOAD, &[U256::from(9), U256::from(3)], VAULT);
        reads.step(opcode::SSTORE, &[U256::from(1), U256::from(4)], VAULT);
        // Code, gas and calls without value follow from the path.
        for op in [
            opcode::EXTCODESIZE,
            opcode::GAS,
            opcode::STATICCALL,
            opcode::ADD,
        ] {
            reads.step(op, &[U256::ZERO; 7], VAULT);
        }
        reads.step(opcode::CALL, &[U256::ZERO; 7], VAULT);
        assert_eq!(
            reads.slots,
            [(VAULT, U256::from(3)), (VAULT, U256::from(4))]
        );
        assert!(!reads.volatile);
        assert!(reads.meets(&[(VAULT, U256::from(2)), (VAULT, U256::from(4))]));
        assert!(!reads.meets(&[(VAULT, U256::from(5))]));
        // A call sending ether (its value third from the top), a balance, the clock.
        let mut call = [U256::ZERO; 7];
        call[4] = U256::from(1);
        for (op, stack) in [
            (opcode::CALL, &call[..]),
            (opcode::BALANCE, &[][..]),
            (opcode::TIMESTAMP, &[][..]),
            (opcode::EXTCODEHASH, &[][..]),
        ] {
            let mut reads = Reads::default();
            reads.step(op, stack, VAULT);
            assert!(reads.volatile, "{op:#x}");
        }
    }
}
