//! The dictionary: values worth trying because the program mentions them. Constants pushed by
//! the fuzzed contracts' bytecode, operands of comparisons seen at runtime, and the addresses
//! of senders and deployed contracts, or only the addresses a setup allowed. Insertion-ordered,
//! so generation is deterministic.

use std::collections::HashSet;

use alloy_primitives::{Address, U256};

use crate::bytecode::instructions;

const JUMP: u8 = 0x56;
const JUMPI: u8 = 0x57;

/// Words kept at most; runtime values beyond it replace the oldest runtime values.
const CAPACITY: usize = 4096;

/// Interesting words and addresses, deduplicated, in insertion order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Dictionary {
    addresses: Vec<Address>,
    words: Vec<U256>,
    known: HashSet<U256>,
    /// Words before this index came from bytecode and are never evicted.
    constants: usize,
    /// Next runtime slot to overwrite once the dictionary is full.
    next_evict: usize,
    /// Address leaves come only from `addresses` (the setup restricted them).
    closed: bool,
}

impl Dictionary {
    /// A dictionary holding `addresses` (senders and deployed contracts), deduplicated.
    pub(crate) fn new(addresses: Vec<Address>) -> Self {
        let mut unique: Vec<Address> = Vec::with_capacity(addresses.len());
        for address in addresses {
            if !unique.contains(&address) {
                unique.push(address);
            }
        }
        Dictionary {
            addresses: unique,
            ..Dictionary::default()
        }
    }

    /// A dictionary whose `addresses` are the only ones address leaves may take (no zero
    /// address, no words read as addresses); `addresses` must not be empty.
    pub(crate) fn closed(addresses: Vec<Address>) -> Self {
        Dictionary {
            closed: true,
            ..Dictionary::new(addresses)
        }
    }

    /// Whether address leaves come only from [`Dictionary::addresses`].
    pub(crate) fn addresses_closed(&self) -> bool {
        self.closed
    }

    /// Adds every PUSH1..PUSH32 immediate of EVM `code`, except jump targets (pushes right
    /// before JUMP/JUMPI) and 0 and 1 (boundaries anyway).
    pub(crate) fn add_code_constants(&mut self, code: &[u8]) {
        let mut pushes = instructions(code).peekable();
        while let Some(push) = pushes.next() {
            if push.immediate.is_empty() {
                continue;
            }
            if push.is_truncated() {
                break; // a push cut off by the end of the code (metadata)
            }
            // A push consumed by JUMP/JUMPI is a code address, not a value the program
            // compares inputs with; solc emits dozens of them.
            if pushes
                .peek()
                .is_some_and(|next| matches!(next.opcode, JUMP | JUMPI))
            {
                continue;
            }
            let word = U256::from_be_slice(push.immediate);
            if word > U256::ONE && self.words.len() < CAPACITY && self.known.insert(word) {
                self.words.push(word);
                self.constants = self.words.len();
            }
        }
    }

    /// Adds a value seen at runtime; when full, it replaces the oldest runtime value.
    pub(crate) fn observe(&mut self, value: U256) {
        if self.known.contains(&value) {
            return;
        }
        if self.words.len() < CAPACITY {
            self.known.insert(value);
            self.words.push(value);
            return;
        }
        let runtime = CAPACITY - self.constants;
        if runtime == 0 {
            return;
        }
        let slot = self.constants + self.next_evict % runtime;
        self.next_evict = self.next_evict.wrapping_add(1);
        self.known.remove(&self.words[slot]);
        self.known.insert(value);
        self.words[slot] = value;
    }

    /// Addresses of senders and deployed contracts, or the setup's allowed addresses.
    pub(crate) fn addresses(&self) -> &[Address] {
        &self.addresses
    }

    /// Bytecode constants, then runtime values.
    pub(crate) fn words(&self) -> &[U256] {
        &self.words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_push_immediates_and_skips_push_data() {
        let mut dict = Dictionary::default();
        // PUSH1 0x2a; PUSH2 0x0123 JUMP; PUSH2 0x6001 (data that looks like PUSH1 01); PUSH1 1; PUSH32 ..; PUSH3 (truncated)
        // PUSH2 0x0123; JUMP is a jump target and skipped.
        let mut code = vec![
            0x60, 0x2a, 0x61, 0x01, 0x23, 0x56, 0x61, 0x60, 0x01, 0x60, 0x01, 0x7f,
        ];
        code.extend([0xab; 32]);
        code.extend([0x62, 0x01]);
        dict.add_code_constants(&code);
        assert_eq!(
            dict.words(),
            &[
                U256::from(0x2a),
                U256::from(0x6001),
                U256::from_be_bytes([0xab; 32])
            ]
        );
    }

    #[test]
    fn runtime_values_are_deduplicated_and_bounded() {
        let mut dict = Dictionary::new(vec![Address::ZERO, Address::ZERO]);
        assert_eq!(dict.addresses().len(), 1);
        dict.add_code_constants(&[0x60, 0x07]);
        for i in 0..(CAPACITY as u64 + 10) {
            dict.observe(U256::from(1000 + i));
            dict.observe(U256::from(1000 + i));
        }
        assert_eq!(dict.words().len(), CAPACITY);
        assert_eq!(
            dict.words()[0],
            U256::from(7),
            "constants are never evicted"
        );
        assert!(
            dict.words()
                .contains(&U256::from(1000 + CAPACITY as u64 + 9))
        );
        assert!(
            !dict.words().contains(&U256::from(1000)),
            "the oldest runtime value went"
        );
    }
}
