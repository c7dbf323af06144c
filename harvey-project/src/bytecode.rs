//! EVM bytecode as instructions: each opcode with its program counter and its PUSH
//! immediate, and the basic blocks they form. The one place the library decodes code: the
//! source map, the lookahead analysis, the target map, the detectors, the dictionary of
//! constants, proxies and the senders a forge suite's state holds all read it through here.

/// `PUSH1`; `PUSH1..=PUSH32` are `0x60..=0x7f`.
const PUSH1: u8 = 0x60;
/// `PUSH32`.
const PUSH32: u8 = 0x7f;

/// One instruction of legacy EVM code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Instruction<'a> {
    /// Its offset in the code.
    pub pc: usize,
    /// The opcode byte.
    pub opcode: u8,
    /// The bytes a `PUSHn` pushes, as many as the code still holds (a push cut off by the
    /// end of the code, as in a metadata tail, has fewer than `n`); empty for other opcodes.
    pub immediate: &'a [u8],
}

impl Instruction<'_> {
    /// The number of immediate bytes the opcode takes: `n` for `PUSHn`, else 0.
    pub fn immediate_size(opcode: u8) -> usize {
        if (PUSH1..=PUSH32).contains(&opcode) {
            usize::from(opcode - PUSH1) + 1
        } else {
            0
        }
    }

    /// Whether this is a `PUSHn` whose `n` bytes the code does not all hold.
    pub fn is_truncated(&self) -> bool {
        self.immediate.len() < Self::immediate_size(self.opcode)
    }
}

/// The instructions of `code`, in order: immediates are skipped, never read as opcodes.
pub fn instructions(code: &[u8]) -> impl Iterator<Item = Instruction<'_>> {
    let mut pc = 0;
    std::iter::from_fn(move || {
        let opcode = *code.get(pc)?;
        let size = Instruction::immediate_size(opcode);
        let start = (pc + 1).min(code.len());
        let end = (pc + 1 + size).min(code.len());
        let instruction = Instruction {
            pc,
            opcode,
            immediate: &code[start..end],
        };
        pc += 1 + size;
        Some(instruction)
    })
}

/// Whether the instruction after `opcode` starts a new basic block: a jump, an instruction
/// that halts, or an opcode the legacy EVM does not define (it halts too).
pub fn ends_block(opcode: u8) -> bool {
    // STOP, JUMP, JUMPI, RETURN, REVERT, INVALID, SELFDESTRUCT.
    matches!(opcode, 0x00 | 0x56 | 0x57 | 0xf3 | 0xfd | 0xfe | 0xff) || !is_defined(opcode)
}

/// Whether `opcode` is an instruction of the legacy EVM (Cancun/Prague).
pub fn is_defined(opcode: u8) -> bool {
    matches!(opcode,
        0x00..=0x0b | 0x10..=0x1d | 0x20 | 0x30..=0x4a | 0x50..=0x5f | 0x60..=0x7f
        | 0x80..=0x9f | 0xa0..=0xa4 | 0xf0..=0xf5 | 0xfa | 0xfd..=0xff)
}

/// The start pc of every basic block of `code`, ascending: pc 0, every JUMPDEST, and every
/// instruction after one that [`ends_block`].
pub fn block_starts(code: &[u8]) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut after_end = true;
    for instruction in instructions(code) {
        if after_end || instruction.opcode == JUMPDEST {
            starts.push(instruction.pc);
        }
        after_end = ends_block(instruction.opcode);
    }
    if starts.is_empty() {
        starts.push(0);
    }
    starts
}

/// `JUMPDEST`.
const JUMPDEST: u8 = 0x5b;

/// The instructions that may change what a later transaction sees: SSTORE, CREATE, CALL,
/// CALLCODE, DELEGATECALL, CREATE2, SELFDESTRUCT (a call other than STATICCALL may reach
/// code that writes).
pub const STATE_WRITES: [u8; 7] = [0x55, 0xf0, 0xf1, 0xf2, 0xf4, 0xf5, 0xff];

/// The instructions that read the block's clock: BLOCKHASH, TIMESTAMP, NUMBER.
pub const CLOCK_READS: [u8; 3] = [0x40, 0x42, 0x43];

/// The instructions that read a balance: BALANCE, SELFBALANCE.
pub const BALANCE_READS: [u8; 2] = [0x31, 0x47];

/// Whether the code part of `runtime` (solc's metadata tail left out: its bytes are data)
/// has an instruction among `opcodes`.
pub fn has_any(runtime: &[u8], opcodes: &[u8]) -> bool {
    instructions(without_metadata(runtime)).any(|i| opcodes.contains(&i.opcode))
}

/// `runtime` without the CBOR metadata solc appends (a map, then its length in two
/// big-endian bytes); all of it when it ends in none.
fn without_metadata(runtime: &[u8]) -> &[u8] {
    let Some(&[high, low]) = runtime.last_chunk::<2>() else {
        return runtime;
    };
    let length = usize::from(u16::from_be_bytes([high, low]));
    let Some(start) = runtime.len().checked_sub(length + 2) else {
        return runtime;
    };
    // A CBOR map of 1 to 5 entries: solc writes `ipfs`/`bzzr*`, `solc`, `experimental`.
    match runtime.get(start) {
        Some(0xa1..=0xa5) if length > 0 => &runtime[..start],
        _ => runtime,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use revm::bytecode::Bytecode;
    use revm::primitives::Bytes;

    #[test]
    fn opcodes_are_found_in_code_not_in_immediates_or_metadata() {
        // PUSH1 0x55 (an SSTORE byte as data), STOP, INVALID, then a metadata map whose
        // bytes hold 0x55 and 0xf1, and its length.
        let metadata = [0xa1, 0x64, 0x55, 0xf1, 0x55, 0xf1, 0x00];
        let mut code = vec![0x60, 0x55, 0x00, 0xfe];
        code.extend(metadata);
        code.extend(u16::try_from(metadata.len()).unwrap().to_be_bytes());
        assert!(!has_any(&code, &STATE_WRITES));
        assert!(has_any(&code, &[0xfe]));
        // The same code storing (SSTORE before STOP) is found.
        code.insert(2, 0x55);
        assert!(has_any(&code, &STATE_WRITES));
        // Code with no metadata tail is read to its end.
        assert!(has_any(&[0x00, 0x42], &CLOCK_READS));
        assert!(!has_any(&[], &CLOCK_READS));
        // A length that does not fit, or that points at no map, is no metadata.
        assert!(has_any(&[0x47, 0xff, 0xff], &BALANCE_READS));
        assert!(has_any(&[0x60, 0x01, 0x55, 0x00, 0x03], &STATE_WRITES));
    }

    #[test]
    fn pushes_carry_their_immediates_and_hide_them_from_decoding() {
        // PUSH2 0x5b5b (JUMPDEST bytes inside an immediate), JUMPDEST, PUSH1 (cut off).
        let code = [0x61, 0x5b, 0x5b, 0x5b, 0x60];
        let decoded: Vec<(usize, u8, &[u8])> = instructions(&code)
            .map(|i| (i.pc, i.opcode, i.immediate))
            .collect();
        assert_eq!(
            decoded,
            vec![
                (0, 0x61, &[0x5b, 0x5b][..]),
                (3, 0x5b, &[][..]),
                (4, 0x60, &[][..])
            ]
        );
        let last = instructions(&code).last().unwrap();
        assert!(last.is_truncated());
        assert!(!instructions(&code).next().unwrap().is_truncated());
        assert_eq!(instructions(&[]).count(), 0);
    }

    #[test]
    fn blocks_start_at_jumpdests_and_after_jumps_and_halts() {
        // PUSH1 0x5b (data, no JUMPDEST); JUMPI; ADD; STOP; JUMPDEST; 0x0c (undefined:
        // halts); ADD.
        let code = [0x60, 0x5b, 0x57, 0x01, 0x00, 0x5b, 0x0c, 0x01];
        assert_eq!(block_starts(&code), vec![0, 3, 5, 7]);
        assert_eq!(block_starts(&[]), vec![0]);
        assert!(ends_block(0xfd) && ends_block(0x0c) && !ends_block(0x01));
    }

    #[test]
    fn blocks_start_at_zero_jumpdests_and_after_block_ends() {
        let code = [
            0x60, 0x04, // 0: PUSH1 4
            0x57, // 2: JUMPI
            0x00, // 3: STOP
            0x5b, // 4: JUMPDEST
            0x60, 0x5b, // 5: PUSH1 0x5b (an immediate, not a JUMPDEST)
            0x01, // 7: ADD
            0x56, // 8: JUMP
            0x5b, // 9: JUMPDEST (right after a JUMP: one start, not two)
            0xfd, // 10: REVERT
            0x01, // 11: ADD
            0xfe, // 12: INVALID
            0xff, // 13: SELFDESTRUCT
            0xf3, // 14: RETURN
            0x01, // 15: ADD
        ];
        let starts = block_starts(&code);
        assert_eq!(starts, vec![0, 3, 4, 9, 11, 13, 14, 15]);
    }

    #[test]
    fn straight_line_code_is_one_block() {
        assert_eq!(block_starts(&[0x60, 0x00, 0x60, 0x5b, 0x01]), vec![0]);
        assert_eq!(block_starts(&[0x5b, 0x00]), vec![0]);
        assert_eq!(block_starts(&[]), vec![0]);
    }

    proptest! {
        /// revm's own legacy analysis (its jump table) marks as jump destinations exactly
        /// the JUMPDEST bytes this decoding reads as instructions; the instructions tile the
        /// code. (revm's opcode iterator is no reference: it gives EOF opcodes such as 0xe6
        /// immediates, which legacy code does not have.)
        #[test]
        fn decoding_agrees_with_revm(code in proptest::collection::vec(
            prop_oneof![any::<u8>(), 0x5bu8..=0x7f], 0..200)) {
            let ours: Vec<Instruction<'_>> = instructions(&code).collect();
            let bytecode = Bytecode::new_raw(Bytes::from(code.clone()));
            let jumps = bytecode.legacy_jump_table().unwrap();
            for pc in 0..code.len() {
                let dest = ours.iter().any(|i| i.pc == pc && i.opcode == 0x5b);
                prop_assert_eq!(jumps.is_valid(pc), dest, "pc {}", pc);
            }
            let mut next = 0;
            for i in &ours {
                prop_assert_eq!(i.pc, next);
                prop_assert_eq!(i.opcode, code[i.pc]);
                let end = (i.pc + 1 + Instruction::immediate_size(i.opcode)).min(code.len());
                prop_assert_eq!(i.immediate, &code[(i.pc + 1).min(code.len())..end]);
                next = i.pc + 1 + Instruction::immediate_size(i.opcode);
            }
            prop_assert!(next >= code.len());
        }
    }
}
