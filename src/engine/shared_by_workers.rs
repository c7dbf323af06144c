//! What the workers of one campaign share: the budget, the stop flag, the distinct
//! violations found, new corpus entries to exchange, the first reach of each target, and the
//! counters progress reports show.

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::engine::executor::Found;
use crate::engine::input::Sequence;
use crate::engine::plan::Fuzz;
use crate::engine::targeting::reach::Reach;
use crate::engine::timeline::Timeline;
use crate::outcome::{Progress, Violation};

/// How often progress is reported.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// Entries the exchange between workers holds at most: every new corpus entry of every
/// worker passes through it, for as long as the campaign runs.
const EXCHANGE_KEPT: usize = 40_000;

/// The entries workers published, from the `dropped`-th on (the older ones were dropped).
#[derive(Default)]
struct Exchange {
    entries: Vec<(usize, Sequence)>,
    dropped: usize,
}

/// The budget is spent, or a worker found a violation in a campaign that fails fast (or
/// reached every target, when the campaign stops there): every worker's loop unwinds with
/// this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stop;

/// A violation with the sequence that showed it (truncated after the violating
/// transaction) and when it was seen.
#[derive(Debug, Clone)]
pub(crate) struct Sighting {
    pub(crate) sequence: Sequence,
    pub(crate) found: Found,
    pub(crate) after: Duration,
    pub(crate) after_sequences: u64,
}

/// What the workers of one campaign share: the budget, the stop flag, the violations found,
/// new corpus entries, and counters for progress reports.
pub(crate) struct Shared<'a> {
    start: Instant,
    /// Worker threads; one worker has nobody to exchange entries with.
    pub(crate) workers: usize,
    max_sequences: Option<u64>,
    /// The `calls` budget: transactions, over all workers.
    max_transactions: Option<u64>,
    deadline: Option<Instant>,
    /// Sequences started, over all workers (the budget counter).
    sequences: AtomicU64,
    transactions: AtomicU64,
    /// Calls `vm.assume` rejected, over all workers, and how many may be (`None`: any).
    rejected: AtomicU64,
    max_rejects: Option<u32>,
    /// Set when more calls than `max_rejects` were rejected: the campaign stopped on it.
    rejected_too_many: AtomicBool,
    /// Largest edge count and corpus size of any worker.
    edges: AtomicUsize,
    corpus: AtomicUsize,
    stop: AtomicBool,
    /// Stop at the first violation, or go on to the budget.
    fail_fast: bool,
    /// The distinct violations, in the order found, and the identities of every violation
    /// already known (those found, and those the campaign reported before fuzzing).
    sightings: Mutex<(Vec<Sighting>, HashSet<String>)>,
    /// Called by worker 0 about once per [`PROGRESS_EVERY`].
    progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
    last_progress: Mutex<Instant>,
    /// Progress sampled for the report's plots, by worker 0.
    timeline: Mutex<Timeline>,
    /// Every worker's new corpus entries, tagged with the worker's id.
    pool: Mutex<Exchange>,
    /// Per target: the first run of any worker that reached it.
    reaches: Mutex<Vec<Option<Reach>>>,
    /// Stop once every target was reached.
    stop_at_targets: bool,
}

impl<'a> Shared<'a> {
    /// Shared state for the fuzzing run `plan` (whose already reported violations are known
    /// and never sightings).
    pub(crate) fn new(plan: &Fuzz<'a>) -> Self {
        let known: HashSet<String> = plan.reported.iter().map(Violation::identity).collect();
        let start = plan.start;
        let workers = plan.config.workers.max(1) as usize;
        let max_sequences = plan.config.run_bound();
        Shared {
            start,
            workers,
            max_sequences,
            max_transactions: plan.config.calls,
            deadline: plan.config.time.map(|t| start + t),
            sequences: AtomicU64::new(0),
            transactions: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
            max_rejects: (plan.config.max_rejects > 0).then_some(plan.config.max_rejects),
            rejected_too_many: AtomicBool::new(false),
            edges: AtomicUsize::new(0),
            corpus: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            fail_fast: plan.config.fail_fast,
            sightings: Mutex::new((Vec::new(), known)),
            progress: plan.progress,
            last_progress: Mutex::new(start),
            timeline: Mutex::new(Timeline::new()),
            pool: Mutex::new(Exchange::default()),
            reaches: Mutex::new(vec![None; plan.targets.len()]),
            stop_at_targets: plan.stop_at_targets,
        }
    }

    /// Records that `sequence` reached `target`, unless a run reached it before; stops
    /// the campaign when that was the last one and it should.
    pub(crate) fn reach(&self, target: usize, sequence: Sequence) {
        let mut reaches = self.reaches.lock().unwrap_or_else(|e| e.into_inner());
        if reaches[target].is_none() {
            reaches[target] = Some(Reach {
                sequence,
                after: self.start.elapsed(),
                after_sequences: self.sequences.load(Ordering::Relaxed),
            });
            if self.stop_at_targets && reaches.iter().all(Option::is_some) {
                self.stop.store(true, Ordering::Relaxed);
            }
        }
    }

    /// When the time budget ends, if there is one.
    #[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Whether the time budget is spent.
    pub(crate) fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The first reach of every target.
    pub(crate) fn take_reaches(&self) -> Vec<Option<Reach>> {
        std::mem::take(&mut *self.reaches.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Claims the budget for one more sequence, for worker `worker` (worker 0 also reports
    /// progress when due); [`Stop`] when it is spent or a worker found a violation.
    pub(crate) fn claim(&self, worker: usize) -> Result<(), Stop> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(Stop);
        }
        if self.past_deadline() {
            return Err(Stop);
        }
        // A sequence that started below the calls budget runs to its end: the budget is
        // overshot by less than one sequence, as forge's last run completes too.
        if self
            .max_transactions
            .is_some_and(|max| self.transactions.load(Ordering::Relaxed) >= max)
        {
            return Err(Stop);
        }
        let started = self.sequences.fetch_add(1, Ordering::Relaxed);
        if self.max_sequences.is_some_and(|max| started >= max) {
            return Err(Stop);
        }
        if worker == 0 {
            self.tick();
        }
        Ok(())
    }

    /// Records a violation unless one with the same identity (`found.violation`'s) is
    /// known, and stops every worker when the campaign fails fast. `sequence` ends with the
    /// violating transaction.
    pub(crate) fn report(&self, identity: String, sequence: Sequence, found: Found) {
        let mut sightings = self.sightings.lock().unwrap_or_else(|e| e.into_inner());
        let (list, known) = &mut *sightings;
        // Failing fast, the first sighting is the campaign's, even when another worker
        // finds another bug before it sees the stop.
        let wanted = !self.fail_fast || list.is_empty();
        if wanted && known.insert(identity) {
            list.push(Sighting {
                sequence,
                found,
                after: self.start.elapsed(),
                after_sequences: self.sequences.load(Ordering::Relaxed),
            });
        }
        if self.fail_fast {
            self.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Whether a violation stops the campaign.
    pub(crate) fn fail_fast(&self) -> bool {
        self.fail_fast
    }

    /// Samples the timeline and calls the progress callback, each if due.
    fn tick(&self) {
        let now = Instant::now();
        let elapsed = now.duration_since(self.start);
        let mut timeline = self.timeline.lock().unwrap_or_else(|e| e.into_inner());
        let sample = timeline.due(elapsed);
        let report = self.progress.is_some() && {
            let mut last = self.last_progress.lock().unwrap_or_else(|e| e.into_inner());
            let due = now.duration_since(*last) >= PROGRESS_EVERY;
            if due {
                *last = now;
            }
            due
        };
        if !sample && !report {
            return;
        }
        let point = self.progress_at(elapsed);
        if sample {
            timeline.record(point);
        }
        if let Some(progress) = self.progress.filter(|_| report) {
            progress(&point);
        }
    }

    /// The progress so far, `elapsed` into the campaign.
    fn progress_at(&self, elapsed: Duration) -> Progress {
        Progress {
            elapsed,
            sequences: self.sequences_run(),
            transactions: self.transactions.load(Ordering::Relaxed),
            edges: self.edges.load(Ordering::Relaxed),
            corpus: self.corpus.load(Ordering::Relaxed),
            // Every violation known, those reported before fuzzing included.
            violations: self
                .sightings
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .1
                .len(),
        }
    }

    /// The timeline's samples, ending with the progress now (the end of fuzzing).
    pub(crate) fn take_timeline(&self) -> Vec<Progress> {
        let last = self.progress_at(self.start.elapsed());
        let timeline = std::mem::replace(
            &mut *self.timeline.lock().unwrap_or_else(|e| e.into_inner()),
            Timeline::new(),
        );
        timeline.finish(last)
    }

    /// Counts `transactions` more executed transactions.
    pub(crate) fn count_transactions(&self, transactions: usize) {
        self.transactions
            .fetch_add(transactions as u64, Ordering::Relaxed);
    }

    /// Counts `rejected` more calls `vm.assume` rejected; past the `max_rejects` setting
    /// the campaign stops, as forge stops a test whose inputs it keeps rejecting.
    pub(crate) fn count_rejected(&self, rejected: usize) {
        if rejected == 0 {
            return;
        }
        let total = self.rejected.fetch_add(rejected as u64, Ordering::Relaxed) + rejected as u64;
        if self.max_rejects.is_some_and(|max| total > u64::from(max)) {
            self.rejected_too_many.store(true, Ordering::Relaxed);
            self.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Calls `vm.assume` rejected, and the rejections allowed when more were.
    pub(crate) fn rejected(&self) -> (u64, Option<u32>) {
        let too_many = self.rejected_too_many.load(Ordering::Relaxed);
        (
            self.rejected.load(Ordering::Relaxed),
            self.max_rejects.filter(|_| too_many),
        )
    }

    /// A worker's corpus has `entries` entries now.
    pub(crate) fn count_corpus(&self, entries: usize) {
        self.corpus.fetch_max(entries, Ordering::Relaxed);
    }

    /// A worker has covered `edges` edges now.
    pub(crate) fn count_edges(&self, edges: usize) {
        self.edges.fetch_max(edges, Ordering::Relaxed);
    }

    /// Transactions executed, over all workers.
    pub(crate) fn transactions(&self) -> u64 {
        self.transactions.load(Ordering::Relaxed)
    }

    /// Publishes worker `worker`'s `fresh` corpus entries and returns the other workers'
    /// entries published since its last exchange (`imported` counts how far it has read).
    pub(crate) fn exchange(
        &self,
        worker: usize,
        fresh: &mut Vec<Sequence>,
        imported: &mut usize,
    ) -> Vec<Sequence> {
        let mut pool = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        pool.entries.extend(fresh.drain(..).map(|s| (worker, s)));
        let start = imported.saturating_sub(pool.dropped);
        let incoming = pool.entries[start..]
            .iter()
            .filter(|(from, _)| *from != worker)
            .map(|(_, s)| s.clone())
            .collect();
        *imported = pool.dropped + pool.entries.len();
        if pool.entries.len() > EXCHANGE_KEPT {
            // The oldest half goes: every worker exchanges every few hundred sequences, so
            // all have long imported it.
            let old = pool.entries.len() - EXCHANGE_KEPT / 2;
            pool.entries.drain(..old);
            pool.dropped += old;
        }
        incoming
    }

    /// Old entries the exchange dropped.
    pub(crate) fn exchange_dropped(&self) -> u64 {
        self.pool.lock().unwrap_or_else(|e| e.into_inner()).dropped as u64
    }

    /// The violations the workers found, in the order found.
    pub(crate) fn take_sightings(&self) -> Vec<Sighting> {
        std::mem::take(&mut self.sightings.lock().unwrap_or_else(|e| e.into_inner()).0)
    }

    /// Sequences actually run (claims past the budget are not runs).
    pub(crate) fn sequences_run(&self) -> u64 {
        let started = self.sequences.load(Ordering::Relaxed);
        self.max_sequences.map_or(started, |max| started.min(max))
    }
}
