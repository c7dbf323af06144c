//! Following the status of a call that failed: the 0 the CALL pushed onto its caller's
//! stack, through the instructions that copy, move or combine it, until a JUMPI branches on
//! it (the failure was handled), it is stored or returned (passed on, for someone else to
//! handle), or it is dropped and the frame goes on as if the call had worked (the failure
//! went unnoticed: an unhandled exception, SWC-104).

use revm::bytecode::opcode;

/// Stack slots followed at most: copies beyond these are not followed.
const MAX_SLOTS: usize = 8;

/// What became of a failed call's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Still on the stack, not yet used.
    Pending,
    /// A branch decided on it, or it was stored or returned.
    Checked,
    /// Dropped, or the frame ended, without either.
    Unchecked,
}

/// The status of one failed call, followed in its caller's frame.
#[derive(Debug, Clone)]
pub(super) struct StatusWatch {
    /// The failed call's index in the trace's calls.
    pub(super) record: u32,
    /// The caller's depth, known from its first instruction after the call.
    depth: Option<usize>,
    /// The stack slots (counted from the bottom) holding the status or a value derived
    /// from it.
    slots: Vec<usize>,
}

impl StatusWatch {
    /// The status of the failed call `record`, about to be pushed onto its caller's stack.
    pub(super) fn new(record: u32) -> StatusWatch {
        StatusWatch {
            record,
            depth: None,
            slots: Vec::new(),
        }
    }

    /// Before instruction `op` runs at call depth `depth` with `len` stack items.
    pub(super) fn step(&mut self, op: u8, len: usize, depth: usize) -> Verdict {
        let Some(own) = self.depth else {
            // The caller's first instruction after the call: the status is on top.
            self.depth = Some(depth);
            self.slots.push(len.saturating_sub(1));
            return self.on(op, len);
        };
        if depth > own {
            return Verdict::Pending;
        }
        if depth < own {
            return Verdict::Unchecked;
        }
        // Whatever the last instruction consumed is gone.
        self.slots.retain(|&slot| slot < len);
        if self.slots.is_empty() {
            return Verdict::Unchecked;
        }
        self.on(op, len)
    }

    fn holds(&self, slot: usize) -> bool {
        self.slots.contains(&slot)
    }

    fn add(&mut self, slot: usize) {
        if !self.holds(slot) && self.slots.len() < MAX_SLOTS {
            self.slots.push(slot);
        }
    }

    /// What `op` does with the followed slots, `len` items on the stack before it.
    fn on(&mut self, op: u8, len: usize) -> Verdict {
        let top = len.wrapping_sub(1);
        let second = len.wrapping_sub(2);
        match op {
            opcode::JUMPI if self.holds(second) => Verdict::Checked,
            opcode::MSTORE | opcode::MSTORE8 | opcode::SSTORE if self.holds(second) => {
                Verdict::Checked
            }
            opcode::RETURN | opcode::STOP => Verdict::Unchecked,
            // A frame that reverts undoes what the call was for.
            opcode::REVERT | opcode::INVALID => Verdict::Checked,
            // One operand in, one result out, in the same slot.
            opcode::ISZERO | opcode::NOT => Verdict::Pending,
            // Two operands in, the result where the second was (ISZERO and NOT, in the
            // range, took the arm above).
            opcode::ADD..=opcode::EXP | opcode::SIGNEXTEND | opcode::LT..=opcode::SAR => {
                if self.holds(top) || self.holds(second) {
                    self.slots.retain(|&slot| slot != top);
                    self.add(second);
                }
                Verdict::Pending
            }
            opcode::DUP1..=opcode::DUP16 => {
                let n = usize::from(op - opcode::DUP1 + 1);
                if len >= n && self.holds(len - n) {
                    self.add(len);
                }
                Verdict::Pending
            }
            opcode::SWAP1..=opcode::SWAP16 => {
                let n = usize::from(op - opcode::SWAP1 + 1);
                if len > n {
                    let other = top - n;
                    let (a, b) = (self.holds(top), self.holds(other));
                    self.slots.retain(|&slot| slot != top && slot != other);
                    if a {
                        self.add(other);
                    }
                    if b {
                        self.add(top);
                    }
                }
                Verdict::Pending
            }
            _ => Verdict::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `ops` (each with the stack length before it) at depth 1.
    fn verdicts(ops: &[(u8, usize)]) -> Vec<Verdict> {
        let mut watch = StatusWatch::new(0);
        ops.iter().map(|&(op, len)| watch.step(op, len, 1)).collect()
    }

    #[test]
    fn a_status_negated_into_a_branch_is_checked() {
        // status on top of 3 items: ISZERO, PUSH dest, JUMPI.
        let v = verdicts(&[(opcode::ISZERO, 3), (opcode::PUSH2, 3), (opcode::JUMPI, 4)]);
        assert_eq!(v.last(), Some(&Verdict::Checked));
    }

    #[test]
    fn a_status_popped_and_a_frame_that_stops_are_unchecked() {
        let v = verdicts(&[(opcode::POP, 3), (opcode::PUSH1, 2)]);
        assert_eq!(v, [Verdict::Pending, Verdict::Unchecked]);
        let v = verdicts(&[(opcode::PUSH1, 3), (opcode::STOP, 4)]);
        assert_eq!(v.last(), Some(&Verdict::Unchecked));
    }

    #[test]
    fn a_status_copied_and_moved_is_still_followed_and_stored_counts_as_passed_on() {
        // DUP1 copies it; SWAP2 moves the copy down; POP drops the original... then the
        // copy, brought back up, is stored.
        let v = verdicts(&[
            (opcode::DUP1, 3),    // slots 2, 3
            (opcode::SWAP2, 4),   // 3 <-> 1: slots 2, 1
            (opcode::POP, 4),     // drops slot 3 (nothing followed there)
            (opcode::PUSH1, 3),   // slots 1, 2 still there
            (opcode::MSTORE, 4),  // value is slot 2: followed
        ]);
        assert_eq!(v.last(), Some(&Verdict::Checked));
    }

    #[test]
    fn a_nested_frame_does_not_disturb_it_and_an_ended_frame_decides() {
        let mut watch = StatusWatch::new(0);
        assert_eq!(watch.step(opcode::DUP1, 3, 1), Verdict::Pending);
        assert_eq!(watch.step(opcode::POP, 1, 2), Verdict::Pending);
        assert_eq!(watch.step(opcode::PUSH1, 2, 0), Verdict::Unchecked);
    }
}
