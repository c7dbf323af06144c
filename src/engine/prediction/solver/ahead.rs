//! The solver's look-ahead: which branches after the wanted one a question also asks for.
//!
//! A conjunction `c1 && c2 && … && c9` opens one conjunct at a time: with `c3` wanted, the
//! path shows nothing of `c4`–`c9`, since solc's short-circuit jumps over them. The question
//! on `c3` alone (with `c1`, `c2`) is then often harder than the whole conjunction: two
//! products equal to constants leave a Diophantine equation with one free word, whose few
//! solutions inside `uint64` z3 does not find, where the linear conjuncts further on fix
//! every word. So the worker runs the call again with `c3`'s JUMPI forced the wanted way
//! (`Observer::force_branches`), sees `c4` fail, forces it too, and so on ([`next_forced`])
//! up to the conjunction's `if` ([`conjunction_end`]); the question then asks for the
//! wanted branch and every branch up to the last forced one as the forced run went ([`Question::Ahead`](super::Question::Ahead), [`asserted`]).

use super::{run_past, tested};
use crate::observe::symbolic::{CONCRETE, OPAQUE, PathCondition};

/// Where a conjunction ends: its `if`'s JUMPI, and the way that JUMPI goes when the
/// conjunction fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct End {
    pc: u32,
    failed: bool,
}

/// Where the conjunction of branch `target` of `path` ends, when `target` is a conjunct
/// that failed. solc tests a failing conjunct at its short-circuit JUMPI and again at
/// every later one of the conjunction up to the `if`'s, so it shows as a run of two or
/// more consecutive JUMPIs (of one code, at distinct pcs) testing one value computed from
/// the arguments; the run that starts at `target` ends at the `if`, going the way a failed
/// conjunction goes. `None` when `target` starts no such run (the conjunction's last
/// conjunct, a lone condition): then nothing after it belongs to its conjunction.
pub(crate) fn conjunction_end(path: &PathCondition, target: usize) -> Option<End> {
    let end = path.branches[run_end(path, target)?];
    Some(End {
        pc: end.pc,
        failed: end.taken,
    })
}

/// The branch after branch `after` of `path` that a look-ahead forces next, in the
/// conjunction that ends at `end` (see [`conjunction_end`]): the conjunct that failed.
/// One that fails before the last shows as a run that ends at the `if`'s JUMPI, and its
/// first test is forced; the last conjunct is tested at the `if`'s JUMPI alone, which is
/// then forced itself. `None` when no conjunct after `after` failed, or `after` is the
/// `if`'s.
pub(crate) fn next_forced(path: &PathCondition, after: usize, end: End) -> Option<usize> {
    let code = path.branches.get(after)?.code;
    let at_end = |i: usize| path.branches[i].code == code && path.branches[i].pc == end.pc;
    if at_end(after) {
        return None;
    }
    for i in after + 1..path.branches.len() {
        if at_end(i) {
            let branch = path.branches[i];
            let open = branch.condition != CONCRETE && tested(path, branch.condition) != OPAQUE;
            return (open && branch.taken == end.failed).then_some(i);
        }
        let ends_there = run_end(path, i).is_some_and(&at_end);
        if ends_there {
            return Some(i);
        }
    }
    None
}

/// The index of the last branch of the run of tests of one value that starts at branch
/// `start` of `path` (see [`run_past`]), when the value is computed from the arguments and
/// the run holds two or more.
fn run_end(path: &PathCondition, start: usize) -> Option<usize> {
    let first = path.branches.get(start)?;
    if first.condition == CONCRETE || tested(path, first.condition) == OPAQUE {
        return None;
    }
    let past = run_past(path, start);
    (past - start >= 2).then(|| past - 1)
}

/// The branches in `(target, through]` of `path` that a look-ahead question asserts as they
/// went: those with a condition computed from the arguments, but a value's later tests (the
/// rest of a failing conjunct's run, after its first test was forced the other way, and
/// tests of the wanted value) whose first test in `[target, through]` already says it.
pub(super) fn asserted(path: &PathCondition, target: usize, through: usize) -> Vec<usize> {
    let mut seen = vec![tested(path, path.branches[target].condition)];
    let mut asserted = Vec::new();
    for (i, branch) in path
        .branches
        .iter()
        .enumerate()
        .take(through + 1)
        .skip(target + 1)
    {
        if branch.condition == CONCRETE {
            continue;
        }
        let value = tested(path, branch.condition);
        if !seen.contains(&value) {
            seen.push(value);
            asserted.push(i);
        }
    }
    asserted
}

#[cfg(test)]
mod tests;
