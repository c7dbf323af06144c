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

mod state;
mod transfer;

use std::collections::hash_map::Entry;
use std::hash::{Hash, Hasher};

use state::{AbsState, Value};
use transfer::{Code, Flow};

use crate::hash::{FastMap, FastSet, KeyHasher};

/// Split points are looked for among the first this many instructions of a path (the
/// paper's bound: the analysis' cost grows with the prefix).
pub const MAX_PREFIX: usize = 8_192;

/// Abstract instruction steps one suffix check may take before it gives up (and assumes a
/// target is reachable).
const SUFFIX_BUDGET: usize = 200_000;

/// Distinct abstract states kept per pc (by stack height and return addresses on the
/// stack) before the suffix check gives up: unbounded growth means recursion or a loop
/// that pushes.
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
        let verdict = reachable(&self.code, &self.targets, starts.clone());
        if self.verdicts.len() >= VERDICTS_REMEMBERED {
            self.verdicts.clear();
            self.forgotten += 1;
        }
        self.verdicts.insert(starts, verdict);
        verdict
    }
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

/// The forward fixpoint from `starts`: whether any target pc, external call, or anything
/// the analysis cannot follow is reachable.
fn reachable(code: &Code, targets: &FastSet<usize>, starts: Vec<(usize, AbsState)>) -> bool {
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
            return true;
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
            if steps > SUFFIX_BUDGET || targets.contains(&pc) || transfer::is_call(code.op(pc)) {
                return true;
            }
            match transfer::step(code, pc, &mut state, None) {
                Flow::Goto(to) if !code.is_leader(to) => pc = to,
                flow => break flow,
            }
        };
        let (first, second) = match flow {
            Flow::Halt => continue,
            Flow::Lost => return true,
            Flow::Goto(to) => ((to, state), None),
            Flow::Branch { jump, fall } => {
                let jumped = jump.map(|to| (to, state.clone()));
                ((fall, state), jumped)
            }
        };
        for (to, state) in std::iter::once(first).chain(second) {
            if !add(to, state, &mut states, &mut work, &mut queued) {
                return true;
            }
        }
    }
    false
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
