//! The statement that raised a revert or emitted a log, from the instruction that did it
//! and the last control transfers of its frame.
//!
//! The instruction's own source location is the statement's only without the optimizer.
//! solc's helpers (the Panic helper, checked arithmetic) map to generated code: the call
//! into them names the statement. The legacy optimizer's block deduplicator keeps one copy
//! of identical code (the tail of every `revert` with data, of every `emit` of one event,
//! the continuation after a checked operation) with the location of one of the statements
//! that had it; the others jump into that copy. Through the IR, that shared code maps to
//! the enclosing contract or function. So the walk below:
//!
//! 1. steps back along the executed path (the code since the last transfer, then the code
//!    before each transfer, skipping whole calls that returned) to the last instruction
//!    whose location is a statement or part of one, not a contract's or function's
//!    definition and not generated code;
//! 2. follows that instruction's code back through the transfers that entered it
//!    without a branch in between: when a jump (or the return to an address its caller
//!    pushed) lands on code whose location is disjoint from the statement that jumped,
//!    that code is shared and the jumping statement is the one running it.

use revm::bytecode::opcode::{JUMP, JUMPDEST, JUMPI, PUSH0, PUSH32};

use crate::bytecode::instructions;
use crate::observe::Transfer;
use crate::project::{ContractArtifact, JumpKind, SourceLocation};

/// The pc of the instruction whose source location is the statement that ran the
/// instruction at `pc`, given the frame's last `transfers` (oldest first; `whole_frame`
/// when they are every transfer since the frame began). `None` when nothing on the path
/// the transfers show has a statement's location.
pub(super) fn statement_pc(
    artifact: &ContractArtifact,
    pc: u32,
    transfers: &[Transfer],
    whole_frame: bool,
) -> Option<u32> {
    let walk = Walk {
        artifact,
        transfers,
        whole_frame,
    };
    let (found, after) = walk.located(pc, transfers.len())?;
    Some(walk.unshared(found, after))
}

/// A position on the executed path: a pc that ran after the first `after` transfers.
type Position = (u32, usize);

/// One frame's executed path, as far as its transfers show it.
struct Walk<'a> {
    artifact: &'a ContractArtifact,
    transfers: &'a [Transfer],
    whole_frame: bool,
}

impl Walk<'_> {
    /// Where the code that ran after the first `after` transfers began: the last one's
    /// target, or the frame's first instruction. `None` when the transfers before it are
    /// not known.
    fn region_start(&self, after: usize) -> Option<u32> {
        match after.checked_sub(1) {
            Some(last) => Some(self.transfers[last].to),
            None => self.whole_frame.then_some(0),
        }
    }

    /// The location of the instruction at `pc`, if it is a statement's (or an expression's
    /// in one): not generated code, not a whole definition.
    fn statement_location(&self, pc: u32) -> Option<SourceLocation<'_>> {
        self.artifact
            .source_location(pc as usize)
            .filter(|location| !is_definition(location.text()))
    }

    /// The last instruction at or before `pc` in the code that ran after `after`
    /// transfers whose location is a statement's. Pushes of jump targets do not count:
    /// through the IR they carry the location of whichever statement the target first
    /// served (a function's exit pushed with an enclosing `if`'s location). Nor do the
    /// constants of code that a jump entered at a JUMPDEST with no statement's location
    /// when nothing else in it has one: that is code the IR optimizer shares, whose
    /// constants keep the location of one statement that had them (the Panic code `0x12`
    /// located at some `site < 18`).
    fn statement_before(&self, pc: u32, after: usize) -> Option<u32> {
        let start = self.region_start(after)?;
        let statements: Vec<u32> = self
            .artifact
            .located_pcs_down_from(pc)
            .take_while(|&p| p >= start)
            .filter(|&p| {
                self.statement_location(p).is_some()
                    && !self.push_value(p).is_some_and(|v| self.is_jumpdest(v))
            })
            .collect();
        let jumped_into_shared = after.checked_sub(1).is_some_and(|last| {
            self.artifact.jump_kind(self.transfers[last].from) == JumpKind::Regular
                && self.statement_location(start).is_none()
        });
        if jumped_into_shared && statements.iter().all(|&p| self.push_value(p).is_some()) {
            return None;
        }
        statements.first().copied()
    }

    /// The value the instruction at `pc` pushes, if it is a PUSH of at most 4 bytes (a
    /// longer immediate is data, never a jump target); `Some(u32::MAX)` for a longer one.
    fn push_value(&self, pc: u32) -> Option<u32> {
        let code = self.artifact.runtime_code.get(pc as usize..)?;
        let push = instructions(code).next()?;
        if !(PUSH0..=PUSH32).contains(&push.opcode) || push.is_truncated() {
            return None;
        }
        Some(
            push.immediate
                .iter()
                .try_fold(0u32, |value, &byte| {
                    value.checked_mul(256).map(|v| v + u32::from(byte))
                })
                .unwrap_or(u32::MAX),
        )
    }

    /// Whether `pc` holds a JUMPDEST.
    fn is_jumpdest(&self, pc: u32) -> bool {
        self.artifact.runtime_code.get(pc as usize) == Some(&JUMPDEST)
    }

    /// The index of the call (a jump into a function) that the return `ret` ends.
    fn call_of(&self, ret: usize) -> Option<usize> {
        let mut depth = 0usize;
        for index in (0..ret).rev() {
            match self.artifact.jump_kind(self.transfers[index].from) {
                JumpKind::Out => depth += 1,
                JumpKind::Into if depth == 0 => return Some(index),
                JumpKind::Into => depth -= 1,
                JumpKind::Regular => {}
            }
        }
        None
    }

    /// The position of the code that made transfer `index`: its jump, or for a return the
    /// call it ends (the code before the callee, not the callee that returned).
    fn made_by(&self, index: usize) -> Option<Position> {
        let transfer = self.transfers[index];
        match self.artifact.jump_kind(transfer.from) {
            JumpKind::Out => {
                let call = self.call_of(index)?;
                Some((self.transfers[call].from, call))
            }
            JumpKind::Into | JumpKind::Regular => Some((transfer.from, index)),
        }
    }

    /// Step 1: the last instruction at or before `pc` on the executed path with a
    /// statement's location, with its position.
    fn located(&self, pc: u32, after: usize) -> Option<Position> {
        let (mut pc, mut after) = (pc, after);
        // Each round steps back over at least one transfer.
        for _ in 0..=self.transfers.len() {
            if let Some(found) = self.statement_before(pc, after) {
                return Some((found, after));
            }
            (pc, after) = self.made_by(after.checked_sub(1)?)?;
        }
        None
    }

    /// Step 2: the statement that ran the code at `found`: itself, or the statement that
    /// jumped into it when that code is shared.
    fn unshared(&self, found: u32, after: usize) -> u32 {
        let mut place = found;
        let mut cursor: Position = (found, after);
        for _ in 0..self.transfers.len() {
            let Some(step) = self.entered_by(cursor) else {
                break;
            };
            let (Some(target), Some(by), Some(here)) = (
                self.statement_location(step.target),
                self.statement_location(step.by.0),
                self.statement_location(place),
            ) else {
                break;
            };
            if target.is_disjoint_from(&by) {
                // Code located elsewhere, entered from this statement: shared code.
                place = step.by.0;
            } else if here.is_disjoint_from(&by) {
                // Entered from another statement, as code naturally flows.
                break;
            }
            cursor = step.by;
        }
        place
    }

    /// How the code at `cursor` was entered, if a transfer led straight to it (no JUMP or
    /// JUMPI in between) from a jump or a return: the transfer's target and the position
    /// of the statement that made it (the jump's, or the call's for a return).
    fn entered_by(&self, (pc, after): Position) -> Option<Entry> {
        let last = after.checked_sub(1)?;
        let transfer = self.transfers[last];
        if !self.straight(transfer.to, pc) {
            return None;
        }
        if self.artifact.jump_kind(transfer.from) == JumpKind::Into {
            return None;
        }
        let (from, before) = self.made_by(last)?;
        Some(Entry {
            target: transfer.to,
            by: (self.statement_before(from, before)?, before),
        })
    }

    /// Whether the code from `from` runs to `to` without a JUMP or JUMPI in between.
    fn straight(&self, from: u32, to: u32) -> bool {
        let code = &self.artifact.runtime_code;
        let Some(tail) = code.get(from as usize..) else {
            return false;
        };
        for instruction in instructions(tail) {
            let at = from as usize + instruction.pc;
            if at >= to as usize {
                return at == to as usize;
            }
            if matches!(instruction.opcode, JUMP | JUMPI) {
                return false;
            }
        }
        false
    }
}

/// How code was entered ([`Walk::entered_by`]).
struct Entry {
    /// Where the transfer went.
    target: u32,
    /// The statement that made it.
    by: Position,
}

/// Whether a source range is a whole definition (a contract's, a function's, ...), which
/// solc gives to code it generates for the definition and, through the IR, to code shared
/// between its statements: no statement's place.
fn is_definition(text: &str) -> bool {
    const KEYWORDS: [&str; 10] = [
        "contract",
        "abstract",
        "library",
        "interface",
        "function",
        "modifier",
        "constructor",
        "fallback",
        "receive",
        "event",
    ];
    let text = text.trim_start();
    KEYWORDS.iter().any(|keyword| {
        text.strip_prefix(keyword)
            .is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_told_from_statements_by_their_keyword() {
        for definition in [
            "contract S { }",
            "abstract contract A {}",
            "function run(uint256 a) external {}",
            "  modifier only() { _; }",
            "receive() external payable {}",
            "fallback() external {}",
            "constructor() {}",
            "library L {}",
        ] {
            assert!(is_definition(definition), "{definition}");
        }
        for statement in [
            "require(noise <= 10, \"site 0\")",
            "receiver.call(data)",
            "functionCount += 1",
            "emit AssertionFailed(\"bound\", noise)",
            "revert Failed(2)",
            "10",
        ] {
            assert!(!is_definition(statement), "{statement}");
        }
    }
}
