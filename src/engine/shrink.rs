//! Shrinking a failing sequence while the same violation still shows: first remove
//! transactions (runs of them, halving, then one at a time; carrying their time warps
//! forward, and renumbering later calls of created contracts where a removed creation
//! shifted them) or merge two calls of one function (their amounts summed), then rename
//! senders to earlier ones throughout (first all of them in order of appearance), then
//! simplify each transaction's sender, created contract, value, warp and arguments
//! (structure first, then every number by a search toward the smallest failing one: 0,
//! powers of two, bisection), and repeat until nothing changes or the budget is spent.
//! Candidates run with only the checks that can show the violation
//! ([`Executor::focus`]); the result is confirmed with every check.
//!
//! Shrinking has its own budget, a share of the campaign's ([`ShrinkBudget::for_campaign`]),
//! and its own statistics: its runs are not the campaign's sequences.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use alloy_dyn_abi::DynSolValue;
use alloy_primitives::U256;

use crate::abi::{self, Bisection, LeafPath};
use crate::chain::{Delays, Warp};
use crate::engine::executor::{Executor, Found};
use crate::engine::input::{Sequence, TxInput};
use crate::engine::mutate::add_warps;
use crate::outcome::ShrinkStats;

/// The share of the campaign's budget shrinking may spend: a tenth, so the search for bugs
/// stays what a campaign's time goes to.
const SHARE: u32 = 10;
/// Runs shrinking may always spend: enough to remove each transaction of a sequence of the
/// default depth a few times over and to bisect a few 256-bit arguments (at most 258 runs
/// each), even in a campaign of a few hundred runs.
const MIN_RUNS: u64 = 1_000;
/// Runs shrinking never exceeds, however large the campaign; also the budget of campaigns
/// bounded by time alone.
const MAX_RUNS: u64 = 10_000;
/// Time shrinking may always spend in a campaign bounded by time.
const MIN_TIME: Duration = Duration::from_secs(1);
/// Time shrinking never exceeds: a safety net for slow transactions. Campaigns bounded by
/// runs get all of it, so their shrinking is bounded by runs and stays reproducible.
const MAX_TIME: Duration = Duration::from_secs(10);

/// The time a phase after fuzzing (shrinking, corpus minimisation) may spend in a campaign
/// bounded by `time`: a tenth of it, between [`MIN_TIME`] and [`MAX_TIME`] ([`MAX_TIME`]
/// without a time budget).
pub(crate) fn phase_time(time: Option<Duration>) -> Duration {
    time.map_or(MAX_TIME, |time| (time / SHARE).clamp(MIN_TIME, MAX_TIME))
}

/// What shrinking may spend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ShrinkBudget {
    /// Sequences run at most.
    pub(crate) runs: u64,
    /// Wall-clock time at most.
    pub(crate) time: Duration,
}

/// Runs each of several violations' shrinking may always spend.
const MIN_SHARED_RUNS: u64 = 250;
/// Time each of several violations' shrinking may always spend.
const MIN_SHARED_TIME: Duration = Duration::from_millis(250);

impl ShrinkBudget {
    /// A tenth of the budget of a campaign allowed `runs` and `time`: of its runs, between
    /// [`MIN_RUNS`] and [`MAX_RUNS`] ([`MAX_RUNS`] without a runs budget), and of its time,
    /// between [`MIN_TIME`] and [`MAX_TIME`] ([`MAX_TIME`] without a time budget).
    pub(crate) fn for_campaign(runs: Option<u64>, time: Option<Duration>) -> ShrinkBudget {
        ShrinkBudget {
            runs: runs.map_or(MAX_RUNS, |runs| {
                (runs / u64::from(SHARE)).clamp(MIN_RUNS, MAX_RUNS)
            }),
            time: phase_time(time),
        }
    }

    /// Each one's share when `violations` violations are shrunk: an equal part, but at
    /// least [`MIN_SHARED_RUNS`] and [`MIN_SHARED_TIME`] (a short sequence shrinks within
    /// that), so that a campaign with many violations spends about the budget of one.
    pub(crate) fn each_of(self, violations: usize) -> ShrinkBudget {
        let n = violations.max(1) as u64;
        ShrinkBudget {
            runs: (self.runs / n).max(MIN_SHARED_RUNS.min(self.runs)),
            time: (self.time / u32::try_from(n).unwrap_or(u32::MAX))
                .max(MIN_SHARED_TIME.min(self.time)),
        }
    }
}

/// A number in a failing sequence: of transaction `.0`, which one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Number {
    Value,
    WarpSeconds,
    WarpBlocks,
    Leaf(LeafPath),
}

/// A shrinking session: the best failing sequence so far and what was spent.
struct Shrinker<'e, 'a> {
    executor: &'e mut Executor<'a>,
    best: Sequence,
    found: Found,
    budget: ShrinkBudget,
    runs: u64,
    deadline: Instant,
    exhausted: bool,
    /// Candidates kept so far: while it stays the same, so does the best sequence.
    kept: u64,
    /// Per number, `kept` when its search last ended: a later pass skips it while nothing
    /// changed since (the search would only confirm its result, at up to 512 runs).
    settled: HashMap<(usize, Number), u64>,
}

/// The smallest sequence found within `budget` that still shows `found`'s violation (the
/// same bug: [`Violation::same_bug`](crate::outcome::Violation::same_bug)), with the
/// violation as it shows there, and what shrinking spent. `sequence` ends with the
/// violating transaction.
pub(crate) fn shrink(
    executor: &mut Executor<'_>,
    sequence: Sequence,
    found: Found,
    budget: ShrinkBudget,
) -> (Sequence, Found, ShrinkStats) {
    let start = Instant::now();
    let transactions = executor.transactions();
    let from = sequence.txs.len();
    let (original, original_found) = (sequence.clone(), found.clone());
    let mut shrinker = Shrinker {
        executor,
        best: sequence,
        found,
        budget,
        runs: 0,
        deadline: start + budget.time,
        exhausted: false,
        kept: 0,
        settled: HashMap::new(),
    };
    // Candidates are run with only the checks that can show the violation; the result is
    // then run with every check, which must show it too (another invariant failing first
    // would stop a replay there). When it does not, shrinking starts over with every check.
    shrinker.executor.focus(Some(&original_found.violation));
    shrinker.shrink_all();
    shrinker.executor.focus(None);
    if shrinker.kept > 0 && !shrinker.confirm() {
        shrinker.best = original;
        shrinker.found = original_found;
        shrinker.settled.clear();
        shrinker.shrink_all();
    }
    let stats = ShrinkStats {
        from,
        to: shrinker.best.txs.len(),
        runs: shrinker.runs,
        transactions: shrinker.executor.transactions() - transactions,
        time: start.elapsed(),
        budget_runs: budget.runs,
        budget_time: budget.time,
        exhausted: shrinker.exhausted,
    };
    (shrinker.best, shrinker.found, stats)
}

impl Shrinker<'_, '_> {
    /// Every simplification in turn, until none changes the sequence or the budget is spent.
    fn shrink_all(&mut self) {
        loop {
            let removed = self.remove_transactions() | self.merge_repeated_calls();
            let renamed = self.rename_senders();
            let simplified = self.simplify_transactions();
            if !(removed || renamed || simplified) || self.exhausted {
                break;
            }
        }
    }

    /// Whether the best sequence shows the violation with every check made (a run beyond
    /// the budget: without it, what shrinking found could not be trusted); takes that
    /// run's sighting of it.
    fn confirm(&mut self) -> bool {
        self.runs += 1;
        let run = self.executor.run(&self.best, &mut ());
        let same = (run.violations.into_iter())
            .find(|found| found.violation.same_bug(&self.found.violation));
        match same {
            Some(found) => {
                self.best.txs.truncate(found.tx + 1);
                self.found = found;
                true
            }
            None => false,
        }
    }

    /// Whether the budget is spent (remembered, for the summary).
    fn spent(&mut self) -> bool {
        self.exhausted |= self.runs >= self.budget.runs || Instant::now() >= self.deadline;
        self.exhausted
    }

    /// Runs `candidate`; keeps it (cut after its violating transaction) when it shows the
    /// same violation.
    fn attempt(&mut self, mut candidate: Sequence) -> bool {
        if self.spent() {
            return false;
        }
        self.runs += 1;
        let run = self.executor.run(&candidate, &mut ());
        let same = run
            .violations
            .into_iter()
            .find(|found| found.violation.same_bug(&self.found.violation));
        match same {
            Some(found) => {
                candidate.txs.truncate(found.tx + 1);
                self.best = candidate;
                self.found = found;
                self.kept += 1;
                true
            }
            _ => false,
        }
    }

    /// Removes transactions: first runs of them, halving the run's length down to two
    /// (a violation a long random walk found rests on a few of its calls, and removing
    /// 500 calls one at a time would cost hundreds of runs of hundreds of calls), then one
    /// at a time, front to back. True when any went.
    fn remove_transactions(&mut self) -> bool {
        let mut any = false;
        let mut chunk = self.best.txs.len() / 2;
        while chunk >= 2 && !self.spent() {
            let mut start = 0;
            while start < self.best.txs.len() && !self.spent() {
                let end = (start + chunk).min(self.best.txs.len());
                if self.attempt(without(
                    &self.best,
                    start,
                    end,
                    self.executor.surface().delays,
                )) {
                    any = true;
                } else {
                    start = end;
                }
            }
            chunk /= 2;
        }
        let mut index = 0;
        while index < self.best.txs.len() && !self.spent() {
            let candidate = without(&self.best, index, index + 1, self.executor.surface().delays);
            // A removed creation shifts which contract a later call names, counted back
            // from the newest of its kind: try it with those counts one lower too.
            let shifted = instances_shifted(&candidate, index);
            if self.attempt(candidate) || shifted.is_some_and(|s| self.attempt(s)) {
                any = true;
            } else {
                index += 1;
            }
        }
        any
    }

    /// Merges two calls of one function by one sender into the first, its unsigned
    /// arguments summed, where the violation allows: `credit(a), credit(b), spend(a + b)`
    /// becomes `credit(a + b), spend(a + b)`, which removing either credit alone cannot
    /// reach. True when any merged.
    fn merge_repeated_calls(&mut self) -> bool {
        let mut any = false;
        let mut first = 0;
        while first < self.best.txs.len() && !self.spent() {
            let any_merged = (first + 1..self.best.txs.len()).any(|second| {
                // A sum may leave a bound setup declared for the argument.
                merged(&self.best, first, second, self.executor.surface().delays).is_some_and(
                    |candidate| {
                        self.executor
                            .surface()
                            .admits(&candidate.txs[first])
                            .is_ok()
                            && self.attempt(candidate)
                    },
                )
            });
            if any_merged {
                any = true;
            } else {
                first += 1;
            }
        }
        any
    }

    /// Replaces one sender by an earlier one in every transaction it sends, where the
    /// violation allows: a sequence whose second sender matters only by differing from the
    /// first is shown from the first two senders. (Per transaction, changing one call of
    /// several by the same sender would break the sequence.) True when any was replaced.
    fn rename_senders(&mut self) -> bool {
        // First the senders in order of appearance (`B, A, A` shown as `A, B, B`), as a
        // reader expects of a sequence where only which calls share a sender matters.
        let mut any = !self.spent() && {
            let ordered = senders_in_order(&self.best);
            ordered != self.best && self.attempt(ordered)
        };
        let mut used: Vec<usize> = self.best.txs.iter().map(|tx| tx.sender).collect();
        used.sort_unstable();
        used.dedup();
        for sender in used {
            for earlier in 0..sender {
                if self.spent() {
                    return any;
                }
                let mut candidate = self.best.clone();
                for tx in candidate.txs.iter_mut().filter(|tx| tx.sender == sender) {
                    tx.sender = earlier;
                }
                if candidate != self.best && self.attempt(candidate) {
                    any = true;
                    break;
                }
            }
        }
        any
    }

    /// Simplifies each transaction's sender, value, warp and arguments. True when anything
    /// changed.
    fn simplify_transactions(&mut self) -> bool {
        let mut any = false;
        let mut index = 0;
        // A simpler input may violate earlier and cut the sequence: re-check the length.
        while index < self.best.txs.len() && !self.spent() {
            any |= self.simplify_cheaply(index);
            any |= self.search_numbers(index);
            index += 1;
        }
        any
    }

    /// The first sender, the newest created contract of its kind, no warp, and each
    /// argument's structural simplifications while one still fails: a few runs each, done
    /// before the number searches so that those search in the final context and a later
    /// pass can skip them.
    fn simplify_cheaply(&mut self, index: usize) -> bool {
        let mut any = false;
        let sender = self.best.txs[index].sender;
        for simpler in 0..sender {
            if self.with_tx(index, |tx| tx.sender = simpler) {
                any = true;
                break;
            }
        }
        if self.best.txs.get(index).is_some_and(|tx| tx.instance != 0) {
            any |= self.with_tx(index, |tx| tx.instance = 0);
        }
        let warped = self
            .best
            .txs
            .get(index)
            .is_some_and(|tx| tx.warp != Warp::default());
        if warped {
            any |= self.with_tx(index, |tx| tx.warp = Warp::default());
        }
        let args = self.best.txs.get(index).map_or(0, |tx| tx.args.len());
        for arg in 0..args {
            while let Some((f, current)) = self
                .best
                .txs
                .get(index)
                .and_then(|tx| Some((tx.function, tx.args.get(arg)?)))
            {
                // Toward the parameter's bound; fallback calldata stays fallback's.
                let candidates = self.executor.surface().simplifications(f, arg, current);
                let improved = candidates
                    .into_iter()
                    .any(|simpler| self.with_tx(index, |tx| tx.args[arg] = simpler));
                if !improved {
                    break;
                }
                any = true;
            }
        }
        any
    }

    /// The smallest value, warp and argument numbers the violation allows.
    fn search_numbers(&mut self, index: usize) -> bool {
        let mut any = self.bisect(
            index,
            Number::Value,
            |tx| Some(tx.value),
            |tx, v| tx.value = v,
        );
        // Magnitudes tried lie below the current one, so they fit in a u64.
        any |= self.bisect(
            index,
            Number::WarpSeconds,
            |tx| Some(U256::from(tx.warp.seconds)),
            |tx, s| tx.warp.seconds = s.saturating_to(),
        );
        any |= self.bisect(
            index,
            Number::WarpBlocks,
            |tx| Some(U256::from(tx.warp.blocks)),
            |tx, b| tx.warp.blocks = b.saturating_to(),
        );
        let leaves = self
            .best
            .txs
            .get(index)
            .map_or_else(Vec::new, |tx| abi::numeric_leaves(&tx.args));
        for path in leaves {
            any |= self.bisect_leaf(index, &path);
        }
        any
    }

    /// Bisects the integer at `path` in transaction `index`'s arguments.
    fn bisect_leaf(&mut self, index: usize, path: &LeafPath) -> bool {
        let leaf = |tx: &TxInput| abi::leaf_at(&tx.args, path).cloned();
        self.bisect(
            index,
            Number::Leaf(path.clone()),
            |tx| leaf(tx).as_ref().and_then(abi::magnitude),
            |tx, magnitude| {
                if let Some(simpler) = leaf(tx).and_then(|v| abi::with_magnitude(&v, magnitude)) {
                    abi::set_leaf(&mut tx.args, path, simpler);
                }
            },
        )
    }

    /// Shrinks one number of transaction `index` (read by `get`, written by `set`) to the
    /// smallest that still fails, by [`Bisection`]. True when it shrank.
    fn bisect(
        &mut self,
        index: usize,
        number: Number,
        get: impl Fn(&TxInput) -> Option<U256>,
        set: impl Fn(&mut TxInput, U256),
    ) -> bool {
        let Some(start) = self.best.txs.get(index).and_then(&get) else {
            return false;
        };
        let key = (index, number);
        if self.settled.get(&key) == Some(&self.kept) {
            return false;
        }
        let mut bisection = Bisection::new(start);
        while let Some(magnitude) = bisection.next() {
            if self.spent() {
                return bisection.smallest() < start;
            }
            let failed = self.with_tx(index, |tx| set(tx, magnitude));
            bisection.record(magnitude, failed);
            if failed && index >= self.best.txs.len() {
                break; // cut before this transaction: nothing left to shrink here
            }
        }
        self.settled.insert(key, self.kept);
        bisection.smallest() < start
    }

    /// Tries the best sequence with transaction `index` changed by `change`.
    fn with_tx(&mut self, index: usize, change: impl FnOnce(&mut TxInput)) -> bool {
        if index >= self.best.txs.len() {
            return false;
        }
        let mut candidate = self.best.clone();
        change(&mut candidate.txs[index]);
        if candidate == self.best {
            return false; // nothing to simplify (a value the type cannot take)
        }
        if self
            .executor
            .surface()
            .admits(&candidate.txs[index])
            .is_err()
        {
            return false; // outside what setup declared (a bound, the allowed addresses)
        }
        self.attempt(candidate)
    }
}

/// `seq` without transactions `start..end`, their warps carried to the transaction after
/// them (within `delays`). Calls of created contracts are left as they are: removing one
/// transaction at a time tries the shifted counts.
fn without(seq: &Sequence, start: usize, end: usize, delays: Delays) -> Sequence {
    let mut rest = seq.clone();
    let removed: Vec<TxInput> = rest.txs.drain(start..end).collect();
    if let Some(next) = rest.txs.get_mut(start) {
        let carried = (removed.iter()).fold(Warp::default(), |w, tx| add_warps(w, tx.warp, delays));
        next.warp = add_warps(carried, next.warp, delays);
    }
    rest
}

/// `seq` with every call from transaction `from` on that names an older created contract
/// (instance above 0) naming the next newer one; `None` when no call does.
fn instances_shifted(seq: &Sequence, from: usize) -> Option<Sequence> {
    let mut shifted = seq.clone();
    let mut any = false;
    for tx in shifted
        .txs
        .iter_mut()
        .skip(from)
        .filter(|tx| tx.instance > 0)
    {
        tx.instance -= 1;
        any = true;
    }
    any.then_some(shifted)
}

/// `seq` with transaction `second` merged into `first`: both call the same function from
/// the same sender with the same value, their arguments differ only in top-level unsigned
/// integers, and those are summed (without overflow) into `first`; `second`'s warp goes to
/// the transaction after it (within `delays`). `None` when the two cannot merge.
fn merged(seq: &Sequence, first: usize, second: usize, delays: Delays) -> Option<Sequence> {
    let (a, b) = (&seq.txs[first], &seq.txs[second]);
    if a.function != b.function || a.sender != b.sender || a.value != b.value {
        return None;
    }
    if a.instance != b.instance || a.args.len() != b.args.len() {
        return None;
    }
    let mut sum = a.clone();
    let mut summed = false;
    for (arg, other) in sum.args.iter_mut().zip(&b.args) {
        match (arg, other) {
            (DynSolValue::Uint(x, bits), DynSolValue::Uint(y, _)) => {
                let total = x.checked_add(*y)?;
                if *bits < 256 && total.bit_len() > *bits {
                    return None;
                }
                summed |= !y.is_zero();
                *x = total;
            }
            (arg, other) if arg == other => {}
            _ => return None,
        }
    }
    if !summed {
        return None; // removing `second` alone is what remove_transactions tries
    }
    let mut candidate = seq.clone();
    candidate.txs[first] = sum;
    let removed = candidate.txs.remove(second);
    if let Some(next) = candidate.txs.get_mut(second) {
        next.warp = add_warps(removed.warp, next.warp, delays);
    }
    Some(candidate)
}

/// `seq` with its senders renamed in order of first appearance: the first transaction's
/// sender becomes sender 0, the next different one sender 1, and so on.
fn senders_in_order(seq: &Sequence) -> Sequence {
    let mut order: Vec<usize> = Vec::new();
    let mut renamed = seq.clone();
    for tx in &mut renamed.txs {
        tx.sender = match order.iter().position(|&s| s == tx.sender) {
            Some(index) => index,
            None => {
                order.push(tx.sender);
                order.len() - 1
            }
        };
    }
    renamed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_calls_merge_into_one_with_their_amounts_summed() {
        let uint = |v: u64| DynSolValue::Uint(U256::from(v), 256);
        let small = |v: u64| DynSolValue::Uint(U256::from(v), 8);
        let tx = |function, sender, args: Vec<DynSolValue>| TxInput {
            sender,
            ..TxInput::of(function, args)
        };
        let seq = |txs| Sequence { txs };
        let credits = seq(vec![
            tx(0, 0, vec![uint(5)]),
            tx(0, 0, vec![uint(7)]),
            tx(1, 0, vec![uint(12)]),
        ]);
        let once = merged(&credits, 0, 1, Delays::default()).unwrap();
        assert_eq!(
            once.txs,
            [tx(0, 0, vec![uint(12)]), tx(1, 0, vec![uint(12)])]
        );
        // Another function, another sender, other non-numeric arguments: no merge.
        assert_eq!(merged(&credits, 0, 2, Delays::default()), None);
        let senders = seq(vec![tx(0, 0, vec![uint(5)]), tx(0, 1, vec![uint(7)])]);
        assert_eq!(merged(&senders, 0, 1, Delays::default()), None);
        let flags = seq(vec![
            tx(0, 0, vec![uint(5), DynSolValue::Bool(true)]),
            tx(0, 0, vec![uint(7), DynSolValue::Bool(false)]),
        ]);
        assert_eq!(merged(&flags, 0, 1, Delays::default()), None);
        // A sum past the type's width, or nothing to add: no merge.
        let wide = seq(vec![tx(0, 0, vec![small(200)]), tx(0, 0, vec![small(100)])]);
        assert_eq!(merged(&wide, 0, 1, Delays::default()), None);
        let zero = seq(vec![tx(0, 0, vec![uint(5)]), tx(0, 0, vec![uint(0)])]);
        assert_eq!(merged(&zero, 0, 1, Delays::default()), None);
    }

    #[test]
    fn a_removed_run_of_calls_hands_its_waits_to_the_call_after_it() {
        let wait = |seconds| Warp { seconds, blocks: 0 };
        let seq = Sequence {
            txs: (0..5)
                .map(|function| TxInput {
                    warp: wait(10 * function as u64),
                    ..TxInput::of(function, Vec::new())
                })
                .collect(),
        };
        let rest = without(&seq, 1, 3, Delays::default());
        let kept: Vec<(usize, u64)> = (rest.txs.iter())
            .map(|tx| (tx.function, tx.warp.seconds))
            .collect();
        // Calls 1 and 2 waited 10 s and 20 s before them: call 3 now waits 60 s.
        assert_eq!(kept, [(0, 0), (3, 60), (4, 40)]);
        // A run at the end leaves nothing to carry its waits.
        assert_eq!(without(&seq, 3, 5, Delays::default()).txs, seq.txs[..3]);
    }

    #[test]
    fn calls_after_a_removed_creation_name_the_next_newer_contract() {
        let seq = Sequence {
            txs: [0, 2, 0, 3]
                .iter()
                .map(|&instance| TxInput {
                    instance,
                    ..TxInput::of(0, Vec::new())
                })
                .collect(),
        };
        let shifted = instances_shifted(&seq, 1).unwrap();
        let instances: Vec<u8> = shifted.txs.iter().map(|tx| tx.instance).collect();
        assert_eq!(instances, [0, 1, 0, 2]);
        assert_eq!(instances_shifted(&seq, 4), None);
    }

    #[test]
    fn senders_are_put_in_order_of_appearance() {
        let of = |senders: &[usize]| Sequence {
            txs: senders
                .iter()
                .map(|&sender| TxInput {
                    sender,
                    ..TxInput::of(0, Vec::new())
                })
                .collect(),
        };
        let senders = |seq: Sequence| seq.txs.iter().map(|tx| tx.sender).collect::<Vec<_>>();
        assert_eq!(senders(senders_in_order(&of(&[1, 0, 0]))), [0, 1, 1]);
        assert_eq!(senders(senders_in_order(&of(&[2, 2, 0, 1]))), [0, 0, 1, 2]);
        assert_eq!(senders(senders_in_order(&of(&[0, 1]))), [0, 1]);
    }

    #[test]
    fn the_budget_is_a_tenth_of_the_campaigns_between_a_floor_and_a_cap() {
        let secs = Duration::from_secs;
        let budget = |runs, time| {
            let b = ShrinkBudget::for_campaign(runs, time);
            (b.runs, b.time)
        };
        assert_eq!(budget(Some(50_000), None), (5_000, MAX_TIME));
        assert_eq!(budget(Some(2_000), None), (MIN_RUNS, MAX_TIME));
        assert_eq!(budget(Some(10_000_000), None), (MAX_RUNS, MAX_TIME));
        assert_eq!(budget(None, Some(secs(60))), (MAX_RUNS, secs(6)));
        assert_eq!(budget(None, Some(secs(3))), (MAX_RUNS, MIN_TIME));
        assert_eq!(budget(Some(20_000), Some(secs(3_600))), (2_000, MAX_TIME));
    }

    #[test]
    fn several_violations_share_the_budget_above_a_floor() {
        let whole = ShrinkBudget {
            runs: 5_000,
            time: Duration::from_secs(6),
        };
        assert_eq!(whole.each_of(1), whole);
        assert_eq!(whole.each_of(0), whole);
        let fifth = whole.each_of(5);
        assert_eq!(
            (fifth.runs, fifth.time),
            (1_000, Duration::from_millis(1_200))
        );
        let many = whole.each_of(100);
        assert_eq!((many.runs, many.time), (MIN_SHARED_RUNS, MIN_SHARED_TIME));
        // A floor above the whole budget is no floor.
        let tiny = ShrinkBudget {
            runs: 100,
            time: Duration::from_millis(100),
        };
        assert_eq!(tiny.each_of(4).runs, 100);
        assert_eq!(tiny.each_of(4).time, Duration::from_millis(100));
    }
}
