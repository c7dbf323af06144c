//! Running one sequence: restore the post-setup state, execute each transaction under the
//! observer, check the oracles after each one, and compute the feedback every technique
//! shares (path id of the last transaction, or of all of them without demand-driven
//! sequences; new edges). What else learns from a run (the dictionary's operands, cost
//! metrics, dataflow, write patterns, target hits) is a [`Sink`] the run feeds each
//! transaction to; the stage that learns owns it. An aggressive run fuzzes storage before its
//! last transaction and only reports that transaction's path.

use alloy_dyn_abi::{DynSolValue, JsonAbiExt};
use alloy_primitives::{Address, Bytes, U256};

use crate::chain::{ATTACKER_CONTRACT, Chain, RecordedCall};
use crate::chain::{Tx, is_assume_rejection};
use crate::detect::Detectors;
use crate::engine::held::HeldInvariants;
use crate::engine::input::{Sequence, TxInput};
use crate::engine::surface::{At, Entry, Surface};
use crate::hash::FastSet;
use crate::observe::symbolic::PathCondition;
use crate::observe::{Edge, FlowSet, Trace};
use crate::oracle::{CaseEnd, Invariant, Oracles};
use crate::outcome::{Call, CaseCall, FunctionStats, RevertCauses, TimeSplit, Violation};
use crate::targets::line_coverage::BlockCounts;
use std::time::{Duration, Instant};

/// Path id of a transaction the EVM refused (value above the sender's balance).
const REFUSED_PATH: u64 = 0x5eed_0f7e_f05e;

/// A position in deployed code: the code's address and a pc in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct CodePc {
    /// The code's address.
    pub(crate) code: Address,
    pub(crate) pc: u32,
}

/// A branch direction in some code: the coverage unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct EdgeKey {
    /// The code's address.
    pub(crate) code: Address,
    /// The JUMPI's pc.
    pub(crate) pc: u32,
    /// Whether it jumped.
    pub(crate) taken: bool,
}

/// A violation found by a run.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    /// Index of the transaction after which the violation showed.
    pub(crate) tx: usize,
    pub(crate) violation: Violation,
    /// How that transaction ended, rendered.
    pub(crate) status: String,
    /// What property-library helpers logged in it (`oracle::messages`).
    pub(crate) messages: Vec<String>,
}

/// The feedback of one run.
#[derive(Debug, Clone)]
pub(crate) struct Run {
    /// Path id of the last executed transaction: a hash of its branch decisions in order.
    pub(crate) path: u64,
    /// Edges no earlier run of this executor covered.
    pub(crate) new_edges: usize,
    /// The distinct violations the run showed, in order: at most one when the executor
    /// stops at the first (the run ends after its transaction).
    pub(crate) violations: Vec<Found>,
    /// Transactions a `vm.assume` rejected: not calls, as forge discards them (they are
    /// neither counted against the `calls` budget nor in the functions' calls and reverts).
    pub(crate) rejected: usize,
}

/// How a regular run starts, as a [`Sink`] sees it: which run of the executor it is, and
/// how many of its first transactions run exactly as in the run before it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct RunStart {
    /// The executor's count of regular runs, this one included (from 1).
    pub(crate) run: u64,
    /// The first transactions that equal the previous run's, under the same observation:
    /// from the same post-setup state they make the same calls and leave the same traces,
    /// so a sink that saw that run may keep what it learnt of them instead of learning it
    /// again (prediction's steps and mutants of a sequence's last calls repeat the rest).
    pub(crate) unchanged: usize,
}

impl RunStart {
    /// Whether this run comes right after the run numbered `seen`: only then do the
    /// [`RunStart::unchanged`] transactions repeat what the sink saw.
    pub(crate) fn follows(&self, seen: u64) -> bool {
        self.run == seen + 1
    }
}

/// One transaction a regular run executed, as a [`Sink`] sees it.
pub(crate) struct Seen<'t> {
    /// Its index in the sequence.
    pub(crate) index: usize,
    /// Whether it is the sequence's last transaction.
    pub(crate) last: bool,
    /// The fuzzed function it called (surface order).
    pub(crate) function: usize,
    /// Calls of that function so far, this one included.
    pub(crate) calls: u64,
    /// What it did.
    pub(crate) trace: &'t Trace,
    /// Its own path id (of its branch decisions alone, whatever the sequence's path ids
    /// cover).
    pub(crate) path: u64,
    pub(crate) reverted: bool,
    /// Whether it covered an edge no earlier run had.
    pub(crate) new_edges: bool,
    /// The contracts it created (empty for almost every transaction).
    pub(crate) created: &'t [Address],
    /// The functions of created kinds it made callable: the functions of each fuzzed kind
    /// it created a contract of.
    pub(crate) enabled: &'t [usize],
}

#[cfg(test)]
impl<'t> Seen<'t> {
    /// Transaction `index`, the last of its run, that left `trace`: the first call of
    /// function 0, on path 1, successful, with no new edges and nothing created. What the
    /// sinks' unit tests feed, changed where a test needs.
    pub(crate) fn of(index: usize, trace: &'t Trace) -> Seen<'t> {
        Seen {
            index,
            last: true,
            function: 0,
            calls: 1,
            trace,
            path: 1,
            reverted: false,
            new_edges: false,
            created: &[],
            enabled: &[],
        }
    }
}

/// Feeds `sink` one run of transactions that left `traces`, each seen as [`Seen::of`]
/// sees it but on `path` and, for every one, `reverted`: how the sinks' unit tests run a
/// sequence.
#[cfg(test)]
pub(crate) fn feed_run(sink: &mut dyn Sink, traces: &[Trace], path: u64, reverted: bool) {
    sink.start(&Sequence::default(), RunStart::default());
    for (index, trace) in traces.iter().enumerate() {
        sink.transaction(&Seen {
            last: index + 1 == traces.len(),
            path,
            reverted,
            ..Seen::of(index, trace)
        });
    }
}

/// Something that learns from regular runs, fed every transaction before the oracles check
/// it. Aggressive runs, replays and shrinking feed no sink.
pub(crate) trait Sink {
    /// A run of `sequence` starts, as `start` says.
    fn start(&mut self, _sequence: &Sequence, _start: RunStart) {}
    /// A transaction ran.
    fn transaction(&mut self, _seen: &Seen<'_>) {}
    /// Transaction `index` could not run (the EVM refused it: value above the balance; or
    /// it calls a created kind of which the run created no contract yet): nothing ran.
    fn refused(&mut self, _index: usize) {}
    /// The invariants were checked after transaction `index` (those that could have changed
    /// their answer), and `trace` is what their calls did: fed only while checks are
    /// observed (the `invariant_guidance` setting).
    fn checked(&mut self, _index: usize, _trace: &Trace) {}
}

/// No learning: the runs of replays and shrinking.
impl Sink for () {}

/// Runs sequences on one chain; owns the coverage and per-function counts of one worker.
pub(crate) struct Executor<'a> {
    chain: Chain,
    surface: Surface,
    oracles: &'a Oracles<'a>,
    coverage: FastSet<EdgeKey>,
    /// The transaction path ids ([`path_id`]) whose edges `coverage` holds: a path seen
    /// before adds no edge, and most transactions take one (a lookup instead of an insert
    /// per branch). Path ids are 64-bit hashes, trusted as the corpus already trusts them:
    /// a collision would hide a new path's edges here as it hides the path from the
    /// corpus. Only a cache: forgotten at [`COVERED_PATHS`].
    covered_paths: FastSet<u64>,
    /// Per function (surface order): calls and reverts.
    counts: Vec<FunctionCounts>,
    transactions: u64,
    sequences: u64,
    /// Path ids over the last transaction only (HARVEY §5), or over the whole sequence.
    demand_driven: bool,
    /// Whether a run ends at its first violation (else it runs every transaction and
    /// collects every distinct violation).
    fail_fast: bool,
    /// What the last transaction created, for its [`Seen`] (reused buffers).
    created: Vec<Address>,
    enabled: Vec<usize>,
    /// Time in transactions and in checks, from a sample of the transactions.
    time: TimeSplit,
    /// The blocks regular runs entered, counted per artifact, when recorded (line
    /// coverage).
    blocks: Option<BlockCounts>,
    /// Per function (surface order), why its calls reverted, when counted (each revert costs
    /// a string); apart from `counts`, which every transaction touches.
    revert_causes: Option<Vec<RevertCauses>>,
    /// The vulnerability detectors, with what the running sequence showed them.
    detectors: Detectors,
    /// What each invariant read when it last held, to skip it while none of that changes.
    held: HeldInvariants,
    /// The last regular run's transactions, and the calls made of as many of them in a row
    /// as resolved: the next run's transactions that equal them ([`RunStart::unchanged`])
    /// make the same calls, and are not encoded again. Forgotten when what runs observe
    /// changes.
    previous: Vec<TxInput>,
    made: Vec<Tx>,
    /// The last run's first transactions after each of which the invariants held
    /// (checked, or unchanged since they were), as many as ran in a row.
    held_through: usize,
    /// While shrinking a violation, the checks that can show it (see [`Executor::focus`]).
    focus: Option<Focus>,
}

/// The checks a focused run makes beside the Panic and assertion oracles.
#[derive(Debug, Clone, Copy)]
struct Focus {
    /// The one invariant checked (its index), if the violation is an invariant's.
    invariant: Option<usize>,
    /// Whether the detectors run (the violation is a detector's).
    detectors: bool,
}

/// Calls of one function and how many reverted.
#[derive(Debug, Clone, Copy, Default)]
struct FunctionCounts {
    calls: u64,
    reverts: u64,
}

/// Path ids [`Executor`] remembers as covered, at most (about 1 MiB a worker); past it
/// they are all forgotten, and the edges of a path seen again are looked up again once.
const COVERED_PATHS: usize = 1 << 16;

/// The cause of a transaction the EVM refused to run.
const NOT_SENT: &str = "not sent: value above the sender's balance";

impl<'a> Executor<'a> {
    /// An executor on `chain`, whose committed state is the post-setup snapshot;
    /// `demand_driven` chooses path ids over the last transaction (else the whole sequence),
    /// `fail_fast` ends each run at its first violation.
    pub(crate) fn new(
        mut chain: Chain,
        surface: Surface,
        oracles: &'a Oracles<'a>,
        demand_driven: bool,
        fail_fast: bool,
    ) -> Self {
        let counts = vec![FunctionCounts::default(); surface.functions.len()];
        let detectors = Detectors::new(oracles.detectors(), &chain);
        chain.follow_flows(detectors.flows());
        Executor {
            detectors,
            chain,
            surface,
            oracles,
            coverage: FastSet::default(),
            covered_paths: FastSet::default(),
            counts,
            transactions: 0,
            sequences: 0,
            demand_driven,
            fail_fast,
            created: Vec::new(),
            enabled: Vec::new(),
            time: TimeSplit::default(),
            blocks: None,
            revert_causes: None,
            held: HeldInvariants::new(oracles.invariants.len(), true),
            focus: None,
            previous: Vec::new(),
            made: Vec::new(),
            held_through: 0,
        }
    }

    /// Whether invariants that nothing a transaction wrote can have changed are skipped
    /// (on unless the `skip_unchanged_invariants` setting turns it off).
    pub(crate) fn skip_unchanged_invariants(&mut self, on: bool) {
        self.forget_previous_run();
        self.held = HeldInvariants::new(self.oracles.invariants.len(), on);
    }

    /// Runs check only what can show `violation` (its invariant, or the detectors, and the
    /// data flows they follow, for a detector's finding; the Panic and assertion oracles and
    /// `afterInvariant` always):
    /// shrinking a sequence a long walk found in a suite of a dozen invariants otherwise
    /// spends nearly all its time on the other eleven. `None` checks everything again.
    pub(crate) fn focus(&mut self, violation: Option<&Violation>) {
        self.forget_previous_run();
        self.focus = violation.map(|violation| Focus {
            invariant: match violation {
                Violation::Invariant { name, .. } => {
                    (self.oracles.invariants.iter()).position(|i| &i.name == name)
                }
                _ => None,
            },
            detectors: matches!(violation, Violation::Vulnerability { .. }),
        });
        self.held.track(self.checked_invariants().len());
        // Only the detectors read the data flows the observer follows, at a shadow-stack
        // update per instruction.
        let flows = if self.focus.is_none_or(|focus| focus.detectors) {
            self.detectors.flows()
        } else {
            FlowSet::default()
        };
        self.chain.follow_flows(flows);
    }

    /// The invariants runs check: all of them, or the focused one.
    fn checked_invariants(&self) -> &'a [Invariant<'a>] {
        let all = &self.oracles.invariants[..];
        match self.focus {
            None => all,
            Some(Focus {
                invariant: Some(index),
                ..
            }) => &all[index..=index],
            Some(_) => &[],
        }
    }

    /// Whether regular runs observe the invariant checks after each transaction and feed
    /// what they compared to the sinks ([`Sink::checked`]; the `invariant_guidance`
    /// setting).
    pub(crate) fn observe_checks(&mut self, on: bool) {
        self.forget_previous_run();
        self.chain.observe_checks(on);
    }

    /// Whether runs record data decisions (comparisons whose result goes into data) as
    /// coverage and cost metrics.
    pub(crate) fn record_data_decisions(&mut self, on: bool) {
        self.forget_previous_run();
        self.chain.record_data_decisions(on);
    }

    /// Counts why each function's calls revert ([`FunctionStats::revert_causes`]).
    pub(crate) fn record_revert_causes(&mut self) {
        let functions = self.counts.len();
        self.revert_causes
            .get_or_insert_with(|| vec![RevertCauses::default(); functions]);
    }

    /// Records the blocks regular runs enter, for line coverage ([`Executor::take_blocks`]).
    pub(crate) fn record_blocks(&mut self) {
        self.forget_previous_run();
        self.chain.record_blocks(true);
        self.blocks.get_or_insert_with(BlockCounts::default);
    }

    /// The blocks regular runs entered, and how often (empty unless recorded).
    pub(crate) fn take_blocks(&mut self) -> BlockCounts {
        self.blocks.take().unwrap_or_default()
    }

    /// After a change to what runs observe or check: the next run's transactions no
    /// longer repeat the last run's traces.
    fn forget_previous_run(&mut self) {
        self.previous.clear();
        self.made.clear();
        self.held_through = 0;
    }

    /// The transaction `input` makes as transaction `index` of a regular run: the call made
    /// last run when the transactions up to it are unchanged, else resolved (and kept for
    /// the next run while the run's calls so far all resolved).
    fn make(&mut self, index: usize, input: &TxInput) -> Option<Tx> {
        if let Some(tx) = self.made.get(index) {
            return Some(tx.clone());
        }
        let tx = self.resolve(input)?;
        if index == self.made.len() {
            self.made.push(tx.clone());
        }
        Some(tx)
    }

    /// The transaction `input` makes in the current state, or `None` when it calls a
    /// created kind of which the run created no contract yet.
    fn resolve(&self, input: &TxInput) -> Option<Tx> {
        let to = self.surface.address(input, self.chain.created())?;
        Some(self.surface.tx(input, to))
    }

    /// Notes what the transaction that ran since the chain held `before` created contracts
    /// created: their addresses, and the functions of the fuzzed kinds among them.
    fn note_created(&mut self, before: usize) {
        self.created.clear();
        self.enabled.clear();
        for (address, artifact) in &self.chain.created()[before..] {
            self.created.push(*address);
            if let Some(kind) = artifact.as_deref().and_then(|a| self.surface.kind_of(a)) {
                self.enabled.extend(&self.surface.kinds[kind].functions);
            }
        }
    }

    /// Runs `sequence` from the post-setup state, feeding `sink` each transaction; stops at
    /// the first violation when the executor fails fast.
    pub(crate) fn run(&mut self, sequence: &Sequence, sink: &mut dyn Sink) -> Run {
        self.chain.reset();
        self.held.forget();
        self.sequences += 1;
        let unchanged = (self.previous.iter().zip(&sequence.txs))
            .take_while(|(before, now)| before == now)
            .count();
        self.detectors.start(unchanged);
        self.previous.truncate(unchanged);
        self.previous.extend_from_slice(&sequence.txs[unchanged..]);
        self.made.truncate(unchanged);
        // After each of these the last run's invariants held (or were not checked: they
        // could not have changed), and its state is this run's: they hold again, and are
        // skipped as unchanged. Observed checks run all the same: invariant guidance counts
        // its steps over the whole run.
        // (The chain has a checks trace exactly while checks are observed.)
        let held_before = if self.held.on() && self.chain.checks_trace().is_none() {
            self.held_through.min(unchanged)
        } else {
            0
        };
        self.held_through = 0;
        sink.start(
            sequence,
            RunStart {
                run: self.sequences,
                unchanged,
            },
        );
        let mut path = 0;
        let mut new_edges = 0;
        let mut violations: Vec<Found> = Vec::new();
        let mut rejected = 0;
        for (index, input) in sequence.txs.iter().enumerate() {
            if let (Entry::Property, Some(property)) = (
                &self.surface.functions[input.function].entry,
                self.oracles.property(),
            ) {
                self.transactions += 1;
                self.counts[input.function].calls += 1;
                let calls = self.counts[input.function].calls;
                let created_before = self.chain.created().len();
                let end = property.run_case(&mut self.chain, &input.args);
                self.note_created(created_before);
                let violation = match end {
                    CaseEnd::Held => None,
                    CaseEnd::Rejected => {
                        // As a rejected `vm.assume`: no case.
                        self.counts[input.function].calls -= 1;
                        self.transactions -= 1;
                        rejected += 1;
                        None
                    }
                    CaseEnd::Failed(violation) => Some(violation),
                };
                path = self.learn(
                    index,
                    sequence,
                    input.function,
                    calls,
                    false,
                    path,
                    &mut new_edges,
                    sink,
                );
                if let Some(violation) = violation {
                    violations.push(Found {
                        tx: index,
                        violation,
                        status: "the property failed".into(),
                        messages: crate::oracle::messages(self.chain.last_trace()),
                    });
                }
                continue;
            }
            let Some(tx) = self.make(index, input) else {
                path = extend_path(self.demand_driven, path, REFUSED_PATH);
                sink.refused(index);
                continue;
            };
            let created_before = self.chain.created().len();
            self.transactions += 1;
            let counts = &mut self.counts[input.function];
            counts.calls += 1;
            let calls = counts.calls;
            let timed = self.transactions % TimeSplit::SAMPLE == 0;
            let started = timed.then(Instant::now);
            let executed = self.chain.execute(&tx);
            if let Some(started) = started {
                self.time.transactions += sampled(started);
            }
            self.time.instructions += self.chain.last_trace().steps();
            let outcome = match executed {
                Ok(outcome) => outcome,
                Err(_) => {
                    // The EVM refused it (value above the balance): nothing ran.
                    self.counts[input.function].reverts += 1;
                    if let Some(causes) = &mut self.revert_causes {
                        causes[input.function].add(NOT_SENT, 1);
                    }
                    path = extend_path(self.demand_driven, path, REFUSED_PATH);
                    sink.refused(index);
                    continue;
                }
            };
            let reverted = !outcome.is_success();
            if reverted && is_assume_rejection(&outcome.output) {
                // As forge: a call `vm.assume` rejects is discarded, not a call.
                self.counts[input.function].calls -= 1;
                self.transactions -= 1;
                rejected += 1;
            } else if reverted {
                self.counts[input.function].reverts += 1;
                if let Some(causes) = &mut self.revert_causes {
                    if let Some(cause) = outcome.cause() {
                        causes[input.function].add(&cause, 1);
                    }
                }
            }
            self.note_created(created_before);
            // What the transaction changed beyond the storage it wrote: then no invariant's
            // reads tell whether it still holds.
            let disturbed = self.chain.take_disturbance()
                || tx.sender == ATTACKER_CONTRACT
                || !self.created.is_empty()
                || !self.chain.last_trace().selfdestructs().is_empty();
            if disturbed {
                self.held.forget();
            }
            path = self.learn(
                index,
                sequence,
                input.function,
                calls,
                reverted,
                path,
                &mut new_edges,
                sink,
            );
            // A reverted transaction changed nothing but the block: the invariants that held
            // before still hold unless time moved.
            let unchanged = reverted && tx.warp == Default::default();
            let started = timed.then(Instant::now);
            let mut shown = self.oracles.check(&mut self.chain, &outcome);
            let mut held = true;
            if !unchanged {
                let invariants = self.checked_invariants();
                if index < held_before {
                    self.held.skip_repeated(invariants.len());
                } else {
                    let broken = self.held.check(invariants, &mut self.chain);
                    held = broken.is_empty();
                    shown.extend(broken);
                    if let Some(trace) = self.chain.checks_trace() {
                        sink.checked(index, trace);
                    }
                }
            }
            if held && self.held_through == index {
                self.held_through = index + 1;
            }
            // Read before the detectors, which may run other transactions; the oracles'
            // violations are the ones property libraries explain.
            let messages = if shown.is_empty() {
                Vec::new()
            } else {
                crate::oracle::messages(self.chain.last_trace())
            };
            if self.focus.is_none_or(|focus| focus.detectors) {
                shown.extend(self.detectors.check(&mut self.chain, index, &tx, !reverted));
            }
            if let Some(started) = started {
                self.time.checks += sampled(started);
            }
            for violation in shown {
                // A broken invariant stays broken for the rest of the run: one report.
                if violations.iter().any(|f| f.violation.same_bug(&violation)) {
                    continue;
                }
                violations.push(Found {
                    tx: index,
                    violation,
                    status: outcome.status.to_string(),
                    messages: messages.clone(),
                });
                if self.fail_fast {
                    return Run {
                        path,
                        new_edges,
                        violations,
                        rejected,
                    };
                }
            }
            if index + 1 == sequence.txs.len() && self.oracles.has_finals() {
                for violation in self.oracles.check_end(&self.chain) {
                    if !violations.iter().any(|f| f.violation.same_bug(&violation)) {
                        violations.push(Found {
                            tx: index,
                            violation,
                            status: format!("{}, then the sequence ended", outcome.status),
                            messages: Vec::new(),
                        });
                    }
                }
            }
        }
        Run {
            path,
            new_edges,
            violations,
            rejected,
        }
    }

    /// What every run learns from transaction `index` of `sequence` (a call of `function`,
    /// its `calls`-th), which just ran and left its trace: the blocks it entered, the path
    /// id `path` extended, the edges no run covered before (counted into `new_edges`), and
    /// `sink` fed. Returns the extended path id.
    #[allow(clippy::too_many_arguments)] // the loop's running state, passed in and out
    fn learn(
        &mut self,
        index: usize,
        sequence: &Sequence,
        function: usize,
        calls: u64,
        reverted: bool,
        path: u64,
        new_edges: &mut usize,
        sink: &mut dyn Sink,
    ) -> u64 {
        if self.blocks.is_some() {
            // Now, while the contracts this sequence created exist.
            let entered = self.chain.last_trace().blocks().to_vec();
            if let Some(blocks) = &mut self.blocks {
                blocks.add(&self.chain, &entered);
            }
        }
        let trace = self.chain.last_trace();
        let own_path = path_id(trace.edges());
        let path = extend_path(self.demand_driven, path, own_path);
        let edges_before = *new_edges;
        if self.covered_paths.len() >= COVERED_PATHS {
            self.covered_paths.clear();
        }
        if self.covered_paths.insert(own_path) {
            for edge in trace.edges() {
                let key = EdgeKey {
                    code: edge.code,
                    pc: edge.pc,
                    taken: edge.taken,
                };
                if self.coverage.insert(key) {
                    *new_edges += 1;
                }
            }
        }
        sink.transaction(&Seen {
            index,
            last: index + 1 == sequence.txs.len(),
            function,
            calls,
            trace,
            path: own_path,
            reverted,
            new_edges: *new_edges > edges_before,
            created: &self.created,
            enabled: &self.enabled,
        });
        path
    }

    /// An aggressive run (HARVEY §5): `sequence` with storage fuzzed before its last
    /// transaction: each of `slots` (account and slot) gets the value it comes with, or else
    /// `fuzz` of its current value. Only the path id of the last transaction comes back; the state may be
    /// unreachable, so nothing is checked, covered or learned from it.
    pub(crate) fn run_aggressive(
        &mut self,
        sequence: &Sequence,
        slots: &[((Address, U256), Option<U256>)],
        fuzz: &mut dyn FnMut(U256) -> U256,
    ) -> u64 {
        let Some((last, prefix)) = sequence.txs.split_last() else {
            return 0;
        };
        self.transactions += prefix.len() as u64;
        self.time.instructions += self.set_up(prefix);
        for &((address, slot), value) in slots {
            let value = value.unwrap_or_else(|| fuzz(self.chain.storage(address, slot)));
            self.chain.set_storage(address, slot, value);
        }
        self.transactions += 1;
        let Some(tx) = self.resolve(last) else {
            return REFUSED_PATH;
        };
        let executed = self.chain.execute(&tx);
        self.time.instructions += self.chain.last_trace().steps();
        match executed {
            Ok(_) => path_id(self.chain.last_trace().edges()),
            Err(_) => REFUSED_PATH,
        }
    }

    /// Whether the runs that follow record each transaction's path condition (its own
    /// frame followed symbolically, for the solver-backed step); off by default.
    #[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
    pub(crate) fn record_path_conditions(&mut self, on: bool) {
        self.forget_previous_run();
        self.chain.record_path_conditions(on);
    }

    /// Runs transaction `tx` of `sequence` again after the ones before it, unobserved by
    /// the oracles and with `forced` JUMPIs of its own frame made to go the given way
    /// (indices of its path condition's branches), and returns its path condition: the
    /// solver's look-ahead, which follows a path past branches the arguments do not take
    /// yet. Nothing of the run is learned. `None` when there is no such transaction, or
    /// the EVM refuses it.
    #[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
    pub(crate) fn forced_path_condition(
        &mut self,
        sequence: &Sequence,
        tx: usize,
        forced: Vec<(usize, bool)>,
    ) -> Option<PathCondition> {
        let input = sequence.txs.get(tx)?;
        self.forget_previous_run();
        self.set_up(&sequence.txs[..tx]);
        let resolved = self.resolve(input)?;
        self.chain.record_path_conditions(true);
        self.chain.force_branches(forced);
        let ran = self.chain.execute(&resolved).is_ok();
        self.chain.force_branches(Vec::new());
        self.chain.record_path_conditions(false);
        ran.then(|| self.chain.last_trace().path_condition().clone())
    }

    /// Runs `sequence` again, unobserved by the oracles, and returns the address its last
    /// transaction called with the pcs that transaction's own frame executed (for the
    /// lookahead analysis). `None` when the EVM refuses the last transaction.
    pub(crate) fn path_of_last(&mut self, sequence: &Sequence) -> Option<(Address, Vec<u32>)> {
        let (last, prefix) = sequence.txs.split_last()?;
        self.set_up(prefix);
        let tx = self.resolve(last)?;
        self.chain.record_paths(true);
        let ran = self.chain.execute(&tx).is_ok();
        self.chain.record_paths(false);
        let path = self.chain.last_trace().path().to_vec();
        ran.then_some((tx.to, path))
    }

    /// Restores the post-setup state and runs `prefix` unchecked: the state a run's last
    /// transaction starts from, for the runs that only look at that transaction. A refused
    /// transaction ran nothing, as in the regular run. Returns the EVM instructions the
    /// prefix executed.
    fn set_up(&mut self, prefix: &[TxInput]) -> u64 {
        self.chain.reset();
        let mut instructions = 0;
        for input in prefix {
            if let Some(tx) = self.resolve(input) {
                let _ = self.chain.execute(&tx);
                instructions += self.chain.last_trace().steps();
            }
        }
        instructions
    }

    /// `sequence` decoded for a report or a regression file, each call with the address it
    /// was made to. A call of a created kind needs the run to know where: then the
    /// sequence runs again (unchecked), and a call that could not be made (no contract of
    /// its kind yet) is left out, as it did nothing.
    pub(crate) fn calls(&mut self, sequence: &Sequence) -> Vec<Call> {
        let deployed = self.surface.deployed;
        if sequence.txs.iter().all(|tx| tx.function < deployed) {
            return sequence
                .txs
                .iter()
                .filter_map(|input| {
                    let to = self.surface.address(input, &[])?;
                    Some(self.surface.call(input, to))
                })
                .collect();
        }
        self.chain.reset();
        let mut calls = Vec::with_capacity(sequence.txs.len());
        for input in &sequence.txs {
            if let Some(tx) = self.resolve(input) {
                calls.push(self.surface.call(input, tx.to));
                let _ = self.chain.execute(&tx);
            }
        }
        self.chain.reset();
        calls
    }

    /// The calls the property case of `sequence` (a property campaign's one-call sequence)
    /// makes on the chain, run once more while the chain records them, decoded by the ABI
    /// of the contract each went to.
    pub(crate) fn case_calls(&mut self, sequence: &Sequence) -> Vec<CaseCall> {
        let (Some(property), Some(input)) = (self.oracles.property(), sequence.txs.first()) else {
            return Vec::new();
        };
        self.chain.reset();
        self.chain.record_calls(true);
        property.run_case(&mut self.chain, &input.args);
        let recorded = self.chain.take_recorded_calls();
        self.chain.record_calls(false);
        let calls = recorded
            .into_iter()
            .map(|raw| CaseCall {
                call: self.decoded(&raw),
                status: raw.status,
            })
            .collect();
        self.chain.reset();
        calls
    }

    /// `raw` as a report shows a call: by the function of the called contract's ABI its
    /// selector names, else as `fallback(bytes)` with the whole calldata.
    fn decoded(&self, raw: &RecordedCall) -> Call {
        let artifact = self.chain.artifact_at(raw.to);
        let contract = artifact.map_or_else(|| raw.to.to_string(), |a| a.name.clone());
        let function = artifact.and_then(|artifact| {
            let selector = raw.calldata.get(..4)?;
            let function =
                (artifact.abi.functions()).find(|f| f.selector().as_slice() == selector)?;
            let args = function.abi_decode_input(&raw.calldata[4..]).ok()?;
            Some((function, args))
        });
        let (signature, params, args) = match function {
            Some((function, args)) => (
                function.signature(),
                function.inputs.iter().map(|p| p.name.clone()).collect(),
                args,
            ),
            None => (
                "fallback()".to_string(),
                vec!["calldata".to_string()],
                vec![DynSolValue::Bytes(raw.calldata.to_vec())],
            ),
        };
        Call {
            sender: raw.sender,
            contract,
            address: raw.to,
            signature,
            params,
            args,
            value: raw.value,
            warp: Default::default(),
            instance: None,
        }
    }

    /// The violations of the post-setup state itself, before any transaction.
    pub(crate) fn check_initial_state(&mut self) -> Vec<Violation> {
        self.chain.reset();
        self.oracles.check_invariants(&self.chain)
    }

    /// Whether Rust invariants check the state after each transaction.
    pub(crate) fn has_invariants(&self) -> bool {
        !self.oracles.invariants.is_empty()
    }

    /// The chain, in its post-setup state between runs.
    pub(crate) fn chain(&self) -> &Chain {
        &self.chain
    }

    /// The runtime code deployed at `address`.
    pub(crate) fn code(&self, address: Address) -> Bytes {
        self.chain.code(address)
    }

    /// The surface this executor calls.
    pub(crate) fn surface(&self) -> &Surface {
        &self.surface
    }

    /// The edges covered so far.
    pub(crate) fn coverage(&self) -> &FastSet<EdgeKey> {
        &self.coverage
    }

    /// Transactions executed so far.
    pub(crate) fn transactions(&self) -> u64 {
        self.transactions
    }

    /// Sequences executed so far.
    pub(crate) fn sequences(&self) -> u64 {
        self.sequences
    }

    /// Where the regular runs' time went so far (estimated from a sample).
    pub(crate) fn time(&self) -> TimeSplit {
        TimeSplit {
            invariants_checked: self.held.checked,
            invariants_skipped: self.held.skipped,
            ..self.time
        }
    }

    /// Calls and reverts per function so far, as summary rows.
    pub(crate) fn function_stats(&self) -> Vec<FunctionStats> {
        self.surface
            .functions
            .iter()
            .zip(&self.counts)
            .enumerate()
            .map(|(i, (f, counts))| FunctionStats {
                contract: f.contract.clone(),
                address: match f.at {
                    At::Deployed(address) => Some(address),
                    At::Created(_) => None,
                },
                signature: f.signature.clone(),
                calls: counts.calls,
                reverts: counts.reverts,
                revert_causes: self
                    .revert_causes
                    .as_ref()
                    .map(|causes| causes[i].clone())
                    .unwrap_or_default(),
            })
            .collect()
    }
}

/// The time since `started`, for one sampled transaction: standing for
/// [`TimeSplit::SAMPLE`] of them.
fn sampled(started: Instant) -> Duration {
    started.elapsed() * TimeSplit::SAMPLE as u32
}

/// The path id of a sequence after one more transaction with path id `tx_path`: that
/// transaction's alone with `demand_driven` (earlier ones only set up state), else a hash
/// over the whole sequence in order (HARVEY's configuration D).
fn extend_path(demand_driven: bool, path: u64, tx_path: u64) -> u64 {
    if demand_driven {
        tx_path
    } else {
        path.rotate_left(29) ^ tx_path
    }
}

/// A hash of the branch decisions of one transaction, in order (HARVEY's path id). Not
/// cryptographic; stable across runs and platforms so campaigns are reproducible.
pub(crate) fn path_id(edges: &[Edge]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for edge in edges {
        let code = u64::from_be_bytes(edge.code[12..20].try_into().expect("8 bytes"));
        let key = code ^ (u64::from(edge.pc) << 1 | u64::from(edge.taken));
        hash = (hash ^ key).wrapping_mul(0x0100_0000_01b3).rotate_left(17);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(pc: u32, taken: bool) -> Edge {
        Edge {
            code: Address::with_last_byte(1),
            pc,
            dest: 0,
            taken,
        }
    }

    #[test]
    fn path_ids_depend_on_decisions_and_their_order() {
        let a = path_id(&[edge(10, true), edge(20, false)]);
        assert_eq!(a, path_id(&[edge(10, true), edge(20, false)]));
        assert_ne!(a, path_id(&[edge(10, false), edge(20, false)]));
        assert_ne!(a, path_id(&[edge(20, false), edge(10, true)]));
        assert_ne!(path_id(&[]), path_id(&[edge(10, true)]));
    }
}
