//! The online static lookahead analysis of targeted greybox fuzzing (Wüstholz & Christakis,
//! ICSE'20, Alg. 2): given the path a concrete run took through one contract's runtime code,
//! the shortest prefix after which no target location is reachable, identified by a hash
//! (the lookahead id), with the split points along it.
//!
//! - `state`: the constant-propagation domain (stack, memory and storage words: a constant
//!   or ⊤);
//! - `transfer`: one instruction's abstract semantics and control flow.
//!
//! Split points are the first entries into basic blocks along the path (the paper's
//! choice), within its first [`MAX_PREFIX`] instructions. At each, *prefix inference* runs
//! the path so far abstractly — following the concrete run's branch directions — and
//! *suffix checking* computes a forward fixpoint from there, both ways at every branch whose
//! condition is unknown. There is no prebuilt control-flow graph: jump destinations come
//! from constant stack values. Anything the analysis cannot follow (a jump to an unknown
//! destination, an external call, an unresolvable state explosion) counts as reaching a
//! target, so "no target ahead" is only ever claimed when it holds.
//!
//! The same fixpoint run once from the contract's entry, past calls instead of stopping at
//! them, gives the blocks the analysis may reach at all ([`reachable_blocks`]), for reports
//! that mark code no transaction can run.

mod state;
mod transfer;

use std::collections::hash_map::Entry;
use std::hash::{Hash, Hasher};
use std::ops::ControlFlow;

use state::{AbsState, Value};
use transfer::{Code, Flow};

use crate::hash::{FastMap, FastSet, KeyHasher};

/// Split points are looked for among the first this many instructions of a path (the
/// paper's bound: the analysis' cost grows with the prefix).
pub const MAX_PREFIX: usize = 8_192;

/// Abstract instruction steps one suffix check may take before it gives up (and assumes a
/// target is reachable).
const SUFFIX_BUDGET: usize = 200_000;

/// Abstract instruction steps [`reachable_blocks`] may take before it gives up (and claims
/// nothing). Ten times [`SUFFIX_BUDGET`]: it runs once per contract rather than at every
/// split point of every input, and walks the whole contract where a suffix check usually
/// stops at its first target. Still bounded, so that no code keeps it busy for more than a
/// fraction of a second: the largest fixture in `contracts/` (`CheatUser`, 16 kB) takes
/// about 20,000 steps, in 3 ms.
const WHOLE_CODE_BUDGET: usize = 2_000_000;

/// Distinct abstract states kept per pc (by stack height and return addresses on the
/// stack) before a fixpoint walk (a suffix check, [`reachable_blocks`]) gives up: unbounded
/// growth means recursion or a loop that pushes.
const CONTEXTS_PER_PC: usize = 64;

/// What the analysis says about one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// The lookahead id: a hash of the no-target-ahead prefix (the whole path when no split
    /// point qualified).
    pub lid: u64,
    /// The split points (block-entry pcs) along that prefix, in order.
    pub split_points: Vec<u32>,
    /// How many instructions the prefix has; the path's length when no split point
    /// qualified.
    pub prefix_len: usize,
    /// Whether some split point had no target ahead.
    pub bounded: bool,
}

/// The lookahead analysis of one contract's runtime code towards its target pcs.
#[derive(Debug, Clone)]
pub struct Lookahead {
    code: Code,
    targets: FastSet<usize>,
    /// Suffix-check verdicts by their starting states: many prefixes reach the same split
    /// point in the same abstract state (past the dispatcher, say). Keyed by the states
    /// themselves, not a hash of them: a collision would be an unsound verdict.
    verdicts: FastMap<Vec<(usize, AbsState)>, bool>,
    /// How often `verdicts` was full and forgotten.
    forgotten: u64,
}

/// Verdicts remembered at most: abstract states carry constants, so their number grows with
/// the values a long campaign tries. When full they are forgotten and recomputed on demand.
const VERDICTS_REMEMBERED: usize = 1 << 15;

impl Lookahead {
    /// The analysis of `code` towards `targets` (pcs in it, usually basic-block starts).
    pub fn new(code: &[u8], targets: impl IntoIterator<Item = usize>) -> Lookahead {
        Lookahead {
            code: Code::new(code),
            targets: targets.into_iter().collect(),
            verdicts: FastMap::default(),
            forgotten: 0,
        }
    }

    /// How often the remembered verdicts were full and forgotten.
    pub fn forgotten(&self) -> u64 {
        self.forgotten
    }

    /// Alg. 2 on `path`, the pcs one concrete run executed in this code (one call frame,
    /// as [`Trace::path`](crate::observe::Trace::path) records it), in order.
    pub fn analyze(&mut self, path: &[u32]) -> Analysis {
        let mut state = AbsState::default();
        let mut first_entries = FirstEntries::new(&self.code);
        let mut split_points = Vec::new();
        for (i, &pc) in path.iter().enumerate() {
            let pc = pc as usize;
            let next = path.get(i + 1).map(|&n| n as usize);
            if first_entries.is_split_point(&self.code, i, pc) {
                split_points.push(pc as u32);
                if !self.targets_ahead(pc, &state) {
                    return Analysis {
                        lid: lid(&path[..=i]),
                        split_points,
                        prefix_len: i + 1,
                        bounded: true,
                    };
                }
            }
            // Prefix inference: one more instruction, the way the concrete run went.
            let Some(next) = next else { break };
            let followed = match transfer::step(&self.code, pc, &mut state, Some(next)) {
                Flow::Goto(to) => to == next,
                Flow::Branch { jump, fall } => jump == Some(next) || fall == next,
                Flow::Halt | Flow::Lost => false,
            };
            if !followed {
                // The abstract run cannot follow the concrete one (it only does after a
                // call returned into code we model as halting, or a path that is not
                // this frame's): no further split point is trustworthy.
                break;
            }
        }
        Analysis {
            lid: lid(path),
            split_points,
            prefix_len: path.len(),
            bounded: false,
        }
    }

    /// The maximally imprecise analysis of ICSE'20's configuration C, which takes every
    /// target as reachable: the whole path is the prefix (its id is the path's hash) and
    /// every block entry within [`MAX_PREFIX`] is a split point. It costs one pass over the
    /// path, with no abstract execution.
    pub fn assume_reachable(&self, path: &[u32]) -> Analysis {
        let mut first_entries = FirstEntries::new(&self.code);
        let split_points = path
            .iter()
            .take(MAX_PREFIX)
            .enumerate()
            .filter(|&(i, &pc)| first_entries.is_split_point(&self.code, i, pc as usize))
            .map(|(_, &pc)| pc)
            .collect();
        Analysis {
            lid: lid(path),
            split_points,
            prefix_len: path.len(),
            bounded: false,
        }
    }

    /// Suffix checking: whether a target may be reached after executing the instruction at
    /// `pc` in `state` (the prefix ends with it).
    fn targets_ahead(&mut self, pc: usize, state: &AbsState) -> bool {
        // Even without targets of its own, code that calls out may reach another
        // contract's: the fixpoint decides.
        let mut after = state.clone();
        let starts = match transfer::step(&self.code, pc, &mut after, None) {
            Flow::Halt => return false,
            Flow::Lost => return true,
            Flow::Goto(to) => vec![(to, after)],
            Flow::Branch { jump, fall } => {
                let mut starts = vec![(fall, after.clone())];
                starts.extend(jump.map(|to| (to, after)));
                starts
            }
        };
        if let Some(&verdict) = self.verdicts.get(&starts) {
            return verdict;
        }
        // A target, an external call (the callee may call back into a target) or anything
        // the analysis cannot follow counts as reaching a target.
        let (code, targets) = (&self.code, &self.targets);
        let walk = fixpoint(code, starts.clone(), SUFFIX_BUDGET, |pc| {
            if targets.contains(&pc) || transfer::is_call(code.op(pc)) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        let verdict = walk == Walk::Cut;
        if self.verdicts.len() >= VERDICTS_REMEMBERED {
            self.verdicts.clear();
            self.forgotten += 1;
        }
        self.verdicts.insert(starts, verdict);
        verdict
    }
}

/// The basic blocks of `code`, by their start pcs in ascending order, that the analysis may
/// reach from the contract's entry: pc 0 with an empty stack and nothing known about memory,
/// storage (what earlier transactions left), calldata or the environment. The walk follows
/// both ways of every branch whose condition is unknown, and goes on past calls and
/// creations with unknown results and storage (a callee that calls back into this contract
/// enters at pc 0 again, which the walk starts from). Block starts are the analysis' own:
/// pc 0, every `JUMPDEST`, and the instruction after one that ends a block (a jump or a
/// halt); only those the walk entered are listed.
///
/// `code` is the runtime code as deployed, immutables filled in: an artifact's runtime code
/// holds zeros in their place, which the analysis would take for their values.
///
/// `None` when the analysis could not follow the code (a jump to an unknown destination,
/// its step budget or its bound on states per pc spent): then any block may be reachable.
/// A block left out of `Some` never executes, in any transaction or call frame.
pub fn reachable_blocks(code: &[u8]) -> Option<Vec<usize>> {
    let code = Code::new(code);
    let mut entered = vec![false; code.len()];
    let entry = vec![(0, AbsState::default())];
    let walk = fixpoint(&code, entry, WHOLE_CODE_BUDGET, |pc| {
        // The walk enters blocks only at their leaders; past the code's end it meets the
        // implicit STOP, which starts no block.
        if code.is_leader(pc) {
            entered[pc] = true;
        }
        ControlFlow::Continue(())
    });
    (walk == Walk::Complete).then(|| (0..code.len()).filter(|&pc| entered[pc]).collect())
}

/// Recognises the split points along one path: the first entry into each basic block
/// within its first [`MAX_PREFIX`] instructions.
struct FirstEntries {
    /// Per pc: whether the path entered it before.
    entered: Vec<bool>,
}

impl FirstEntries {
    fn new(code: &Code) -> FirstEntries {
        FirstEntries {
            entered: vec![false; code.len()],
        }
    }

    /// Whether instruction `i` of the path, at `pc`, is a split point (and marks it
    /// entered).
    fn is_split_point(&mut self, code: &Code, i: usize, pc: usize) -> bool {
        // Leaders lie inside the code, so the index is in bounds.
        i < MAX_PREFIX && code.is_leader(pc) && !std::mem::replace(&mut self.entered[pc], true)
    }
}

/// How a [`fixpoint`] walk ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Walk {
    /// Every state reachable from the starts was visited.
    Complete,
    /// The walk stopped early: its visitor asked to, or the analysis could not follow the
    /// code (a jump to an unknown destination, its step budget or [`CONTEXTS_PER_PC`]
    /// spent). What it did not visit may be reachable.
    Cut,
}

/// The forward fixpoint from `starts`, taking at most `budget` abstract instruction steps:
/// `visit` sees the pc of every instruction the walk is about to execute (again whenever a
/// state reaching it changed) and may stop the walk there with [`ControlFlow::Break`].
/// Both directions of every branch whose condition is unknown are followed; calls return
/// unknown values ([`transfer::step`] models their stack effect) and the walk goes on past
/// them, so a visitor that needs them to count as reaching anything stops at them itself.
fn fixpoint(
    code: &Code,
    starts: Vec<(usize, AbsState)>,
    budget: usize,
    mut visit: impl FnMut(usize) -> ControlFlow<()>,
) -> Walk {
    let mut states: FastMap<(usize, usize, u64), AbsState> = FastMap::default();
    let mut contexts: FastMap<usize, usize> = FastMap::default();
    let mut work: Vec<(usize, usize, u64)> = Vec::new();
    let mut queued: FastSet<(usize, usize, u64)> = FastSet::default();
    // Adds a state at `pc`; false when the analysis has to give up.
    let mut add = |pc: usize,
                   state: AbsState,
                   states: &mut FastMap<(usize, usize, u64), AbsState>,
                   work: &mut Vec<(usize, usize, u64)>,
                   queued: &mut FastSet<(usize, usize, u64)>| {
        let key = (pc, state.stack.len(), return_context(code, &state.stack));
        let changed = match states.entry(key) {
            Entry::Occupied(mut known) => known.get_mut().join(&state),
            Entry::Vacant(slot) => {
                let count = contexts.entry(pc).or_insert(0);
                *count += 1;
                if *count > CONTEXTS_PER_PC {
                    return false;
                }
                slot.insert(state);
                true
            }
        };
        if changed && queued.insert(key) {
            work.push(key);
        }
        true
    };
    for (pc, state) in starts {
        if !add(pc, state, &mut states, &mut work, &mut queued) {
            return Walk::Cut;
        }
    }
    let mut steps = 0;
    while let Some(key) = work.pop() {
        queued.remove(&key);
        let mut state = states[&key].clone();
        // States only join at block leaders (jumps land on JUMPDESTs), so the rest of a
        // block runs straight on from this one state.
        let mut pc = key.0;
        let flow = loop {
            steps += 1;
            if steps > budget || visit(pc).is_break() {
                return Walk::Cut;
            }
            match transfer::step(code, pc, &mut state, None) {
                Flow::Goto(to) if !code.is_leader(to) => pc = to,
                flow => break flow,
            }
        };
        let (first, second) = match flow {
            Flow::Halt => continue,
            Flow::Lost => return Walk::Cut,
            Flow::Goto(to) => ((to, state), None),
            Flow::Branch { jump, fall } => {
                let jumped = jump.map(|to| (to, state.clone()));
                ((fall, state), jumped)
            }
        };
        for (to, state) in std::iter::once(first).chain(second) {
            if !add(to, state, &mut states, &mut work, &mut queued) {
                return Walk::Cut;
            }
        }
    }
    Walk::Complete
}

/// A hash of the constants on `stack` that are valid jump destinations: the return
/// addresses of the internal calls in progress. States are only joined within one such
/// context, so that a helper called from two places returns to each of them rather than to
/// an unknown destination.
fn return_context(code: &Code, stack: &[Value]) -> u64 {
    let mut hasher = KeyHasher::default();
    for (depth, value) in stack.iter().enumerate() {
        if let Some(dest) = value.and_then(|v| usize::try_from(v).ok()) {
            if code.is_jumpdest(dest) {
                (depth, dest).hash(&mut hasher);
            }
        }
    }
    hasher.finish()
}

/// The lookahead id of a prefix: a hash of its pcs.
fn lid(prefix: &[u32]) -> u64 {
    let mut hasher = KeyHasher::default();
    prefix.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests;
