//! The runtime source map decoded into a pc-indexed table.
//!
//! solc's source map has one entry per *instruction*, while everything at run time speaks in
//! *program counters*; this module walks the bytecode (skipping PUSH data) to pair them up.

use foundry_compilers::artifacts::sourcemap;

use crate::bytecode::instructions;
use crate::error::{Error, Result};

/// Where in which source file an instruction came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) file: u32,
    pub(crate) offset: u32,
    pub(crate) length: u32,
}

/// What a JUMP does, as the source map says: solc marks the jumps into and out of its
/// functions (internal functions and its own helpers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JumpKind {
    /// A call: the jump into a function.
    Into,
    /// A return: the jump out of a function to the address its caller pushed.
    Out,
    /// Any other jump (a branch, a loop, a jump to code shared between statements).
    Regular,
}

/// pc → source span for one contract's runtime code. Instructions that the source map
/// attributes to no file (compiler-generated code) are absent.
#[derive(Debug, Clone, Default)]
pub(crate) struct PcIndex {
    /// Sorted by pc.
    entries: Vec<(u32, Span)>,
    /// The calls and returns (every other jump is regular), sorted by pc.
    jumps: Vec<(u32, JumpKind)>,
}

impl PcIndex {
    /// Pairs the instructions of `runtime_code` with the entries of the compressed source map.
    pub(crate) fn build(runtime_code: &[u8], source_map: &str) -> Result<Self> {
        let elements = sourcemap::parse(source_map)
            .map_err(|e| Error::Solc(format!("unreadable source map from solc: {e}")))?;
        let jumps = instructions(runtime_code)
            .map(|i| i.pc)
            .zip(elements.iter())
            .filter_map(|(pc, element)| {
                let kind = match element.jump() {
                    sourcemap::Jump::In => JumpKind::Into,
                    sourcemap::Jump::Out => JumpKind::Out,
                    sourcemap::Jump::Regular => return None,
                };
                Some((pc as u32, kind))
            })
            .collect();
        let entries = instructions(runtime_code)
            .map(|i| i.pc)
            .zip(elements.iter())
            .filter_map(|(pc, element)| {
                Some((
                    pc as u32,
                    Span {
                        file: element.index()?,
                        offset: element.offset(),
                        length: element.length(),
                    },
                ))
            })
            .collect();
        Ok(PcIndex { entries, jumps })
    }

    /// The span of the instruction at `pc`.
    pub(crate) fn get(&self, pc: usize) -> Option<Span> {
        let pc = u32::try_from(pc).ok()?;
        self.entries
            .binary_search_by_key(&pc, |&(p, _)| p)
            .ok()
            .map(|i| self.entries[i].1)
    }

    /// Every pc that has a span, ascending.
    pub(crate) fn pcs(&self) -> impl Iterator<Item = usize> + '_ {
        self.entries.iter().map(|&(pc, _)| pc as usize)
    }

    /// The pcs that have a span, from `pc` (included) down.
    pub(crate) fn pcs_down_from(&self, pc: u32) -> impl Iterator<Item = u32> + '_ {
        let end = self.entries.partition_point(|&(p, _)| p <= pc);
        self.entries[..end].iter().rev().map(|&(p, _)| p)
    }

    /// What the jump at `pc` does (regular for any other instruction).
    pub(crate) fn jump_kind(&self, pc: u32) -> JumpKind {
        self.jumps
            .binary_search_by_key(&pc, |&(p, _)| p)
            .map_or(JumpKind::Regular, |i| self.jumps[i].1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_follow_instructions_and_inherit_fields() {
        // Three instructions at pcs 0, 2, 3; the second map entry inherits offset and file,
        // the third belongs to no file (-1).
        let code = [0x60, 0x01, 0x50, 0x00];
        let index = PcIndex::build(&code, "10:5:0:-;;20:3:-1").unwrap();
        assert_eq!(
            index.get(0),
            Some(Span {
                file: 0,
                offset: 10,
                length: 5
            })
        );
        assert_eq!(
            index.get(2),
            Some(Span {
                file: 0,
                offset: 10,
                length: 5
            })
        );
        assert_eq!(index.get(3), None, "compiler-generated code has no file");
        assert_eq!(index.get(1), None, "pc 1 is PUSH data, not an instruction");
        assert_eq!(index.pcs().collect::<Vec<_>>(), vec![0, 2]);
        assert_eq!(index.pcs_down_from(2).collect::<Vec<_>>(), vec![2, 0]);
        assert_eq!(index.pcs_down_from(1).collect::<Vec<_>>(), vec![0]);
    }

    #[test]
    fn calls_and_returns_are_read_from_the_jump_field() {
        // JUMPDEST, JUMP (into), JUMPDEST, JUMP (out), JUMP (regular, from a generated file)
        let code = [0x5b, 0x56, 0x5b, 0x56, 0x56];
        let index = PcIndex::build(&code, "1:2:0:-;:::i;:::-;:::o;::-1:-").unwrap();
        let kinds: Vec<_> = (0..5).map(|pc| index.jump_kind(pc)).collect();
        use JumpKind::*;
        assert_eq!(kinds, [Regular, Into, Regular, Out, Regular]);
    }
}
