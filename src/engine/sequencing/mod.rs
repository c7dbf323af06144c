//! The demand-driven sequencing stage (HARVEY §5, with MuFuzz's and ConFuzzius'
//! read-after-write ordering): what each function reads and writes (the dataflow, learned
//! from regular runs), which functions' coverage depends on state (learned also from
//! aggressive runs, whose storage is fuzzed directly), and the pools of transactions and
//! prefixes that reached new state. The mutator consults it ([`Guide`]) to decide which
//! sequences grow and with what.

pub(super) mod dataflow;
pub(super) mod pools;

use std::hash::Hasher;

use alloy_primitives::U256;

use rand::Rng;
use rand::rngs::StdRng;

use crate::engine::executor::{RunStart, Seen, Sink};
use crate::engine::input::Sequence;
use crate::engine::sequencing::pools::{Pools, value_class};
use crate::hash::KeyHasher;
use crate::observe::Trace;
use crate::outcome::SequenceStats;
use dataflow::{Dataflow, Dependence, Slot, Wanted};

/// What sequence operations consult: the worker's dataflow and pools, which change as it
/// learns.
#[derive(Clone, Copy)]
pub(crate) struct Guide<'g> {
    pub(crate) dataflow: &'g Dataflow,
    pub(crate) pools: &'g Pools,
}

/// Calls of a function whose storage accesses are all learned from; after that, only those
/// with new edges and every [`DATAFLOW_SAMPLE`]-th. What a function reads and writes is
/// learned in its first calls, and observing every transaction would cost throughput for
/// nothing.
const DATAFLOW_WARMUP: u64 = 1_024;
/// See [`DATAFLOW_WARMUP`].
const DATAFLOW_SAMPLE: u64 = 16;

/// HARVEY's p_a: the probability that a mutant's run is followed by an aggressive run of
/// the same mutant, while its last function is not yet known to depend on state.
const AGGRESSIVE_PROBABILITY: f64 = 0.125;

/// Values wanted of storage remembered from the last regular run (see
/// [`Sequencing::aggressive_slots`]).
const WANTED_VALUES: usize = 16;

/// What one transaction of the last regular run contributed, for the pools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TxNote {
    /// Whether it covered an edge no earlier run had.
    new_edges: bool,
    /// A hash of the function and what it wrote (slots and value classes); `None` when it
    /// wrote nothing, reverted, or could not be pooled (no new edges and not the last).
    pattern: Option<u64>,
}

/// One worker's demand-driven sequencing: dataflow, pools, aggressive runs.
pub(crate) struct Sequencing {
    /// Only sequences ending in a state-dependent function grow, and aggressive runs find
    /// such functions; off is HARVEY's configuration D.
    demand_driven: bool,
    dataflow: Dataflow,
    pools: Pools,
    /// Per transaction of the last regular run.
    notes: Vec<TxNote>,
    /// Regular runs by sequence length (index: length).
    lengths: Vec<u64>,
    aggressive_runs: u64,
    /// What the last regular run's last transaction compared the storage it loaded with,
    /// when its function is not yet known to depend on state: the values an aggressive run
    /// of that run writes first.
    wanted: Vec<Wanted>,
    /// Functions of created kinds the last run made callable for the first time, each with
    /// the index of the transaction that created their contract.
    enabled: Vec<(usize, usize)>,
}

impl Sequencing {
    /// The stage for `functions` fuzzed functions; with `invariants`, every function that
    /// changes state feeds them and counts as state-dependent.
    pub(crate) fn new(functions: usize, invariants: bool, demand_driven: bool) -> Sequencing {
        Sequencing {
            demand_driven,
            dataflow: Dataflow::new(functions, invariants),
            pools: Pools::default(),
            notes: Vec::new(),
            lengths: Vec::new(),
            aggressive_runs: 0,
            wanted: Vec::new(),
            enabled: Vec::new(),
        }
    }

    /// The functions of created kinds that runs since the last take made callable for the
    /// first time, each with the index of the transaction that created their contract.
    pub(crate) fn take_enabled(&mut self) -> Vec<(usize, usize)> {
        std::mem::take(&mut self.enabled)
    }

    /// Whether sequencing is demand-driven (else HARVEY's configuration D).
    pub(crate) fn demand_driven(&self) -> bool {
        self.demand_driven
    }

    /// What the mutator consults.
    pub(crate) fn guide(&self) -> Guide<'_> {
        Guide {
            dataflow: &self.dataflow,
            pools: &self.pools,
        }
    }

    /// Whether the mutant `input`, just run, should also get an aggressive run: with
    /// demand-driven fuzzing, with probability p_a, while its last function is not known
    /// to depend on state and has been seen to read storage (there is nothing to fuzz
    /// otherwise).
    pub(crate) fn aggressive_due(&self, input: &Sequence, rng: &mut StdRng) -> bool {
        if !self.demand_driven {
            return false;
        }
        let Some(last) = input.txs.last() else {
            return false;
        };
        self.dataflow.dependence(last.function).is_none()
            && !self.dataflow.reads(last.function).is_empty()
            && rng.random_bool(AGGRESSIVE_PROBABILITY)
    }

    /// The slots an aggressive run of the last regular run (a sequence ending in
    /// `function`) fuzzes: each slot the function reads with probability one half, at
    /// least one, and each slot the last transaction compared with a value, with the value
    /// it wanted half the time (our addition to HARVEY's random state: input prediction's
    /// idea applied to storage, so that `delegateOf[voter] == msg.sender` tells that a
    /// delegation would open the function). Counts the run.
    pub(crate) fn aggressive_slots(
        &mut self,
        function: usize,
        rng: &mut StdRng,
    ) -> Vec<(Slot, Option<U256>)> {
        self.aggressive_runs += 1;
        let reads = self.dataflow.reads(function);
        let mut slots: Vec<(Slot, Option<U256>)> = Vec::new();
        for wanted in &self.wanted {
            if rng.random_bool(0.5) && !slots.iter().any(|(slot, _)| *slot == wanted.slot) {
                let value = match (wanted.exact, rng.random_range(0..3)) {
                    (true, _) | (false, 0) => wanted.value,
                    (false, 1) => wanted.value.wrapping_add(U256::ONE),
                    (false, _) => wanted.value.wrapping_sub(U256::ONE),
                };
                slots.push((wanted.slot, Some(value)));
            }
        }
        for &slot in reads {
            if rng.random_bool(0.5) && !slots.iter().any(|(s, _)| *s == slot) {
                slots.push((slot, None));
            }
        }
        if slots.is_empty() {
            slots.push((reads[rng.random_range(0..reads.len())], None));
        }
        slots
    }

    /// An aggressive run of a sequence ending in `function` took a path no regular run
    /// took: the function's coverage depends on state.
    pub(crate) fn aggressive_found_new_path(&mut self, function: usize) {
        self.dataflow.mark(function, Dependence::Aggressive);
    }

    /// After the regular run of `sequence`: pools its transactions that increased coverage
    /// and changed state in a new way (and its last one when the run was `kept`), and
    /// derives the dataflow graph again.
    pub(crate) fn learn(&mut self, sequence: &Sequence, kept: bool, new_edges: bool) {
        if kept || new_edges {
            let last = sequence.txs.len() - 1;
            for (index, note) in self.notes.iter().enumerate() {
                if let Some(pattern) = note.pattern {
                    if note.new_edges || (kept && index == last) {
                        self.pools.offer(sequence, index, pattern);
                    }
                }
            }
        }
        self.dataflow.refresh();
    }

    /// Whether the last regular run's last transaction succeeded and wrote storage: left
    /// a state the transactions before it had not.
    pub(crate) fn last_wrote(&self) -> bool {
        self.notes.last().is_some_and(|note| note.pattern.is_some())
    }

    /// Per function (surface order): whether and why its sequences may grow.
    pub(crate) fn dependence(&self) -> &[Option<Dependence>] {
        self.dataflow.dependences()
    }

    /// Regular runs by sequence length (index: length).
    pub(crate) fn lengths(&self) -> &[u64] {
        &self.lengths
    }

    /// How often the pools' remembered write patterns were full and forgotten.
    pub(crate) fn patterns_forgotten(&self) -> u64 {
        self.pools.forgotten()
    }

    /// Aggressive runs so far.
    pub(crate) fn aggressive_runs(&self) -> u64 {
        self.aggressive_runs
    }
}

impl Sink for Sequencing {
    fn start(&mut self, sequence: &Sequence, _start: RunStart) {
        self.notes.clear();
        self.wanted.clear();
        SequenceStats::count_length(&mut self.lengths, sequence.txs.len());
    }

    fn transaction(&mut self, seen: &Seen<'_>) {
        for &function in seen.enabled {
            if self.dataflow.created(function, seen.function) {
                self.enabled.push((function, seen.index));
            }
        }
        // Only functions not yet known to depend on state get aggressive runs.
        if seen.last && self.demand_driven && self.dataflow.dependence(seen.function).is_none() {
            self.wanted
                .extend(dataflow::wanted_values(seen.trace, WANTED_VALUES));
        }
        if seen.new_edges || seen.calls <= DATAFLOW_WARMUP || seen.calls % DATAFLOW_SAMPLE == 0 {
            let moved_value = seen.trace.calls().iter().any(|call| !call.value.is_zero());
            self.dataflow
                .observe(seen.function, seen.trace, !seen.reverted, moved_value);
        }
        // The pools only take transactions with new edges or a kept run's last one, so
        // only those pay for hashing what they wrote.
        let pooled = seen.new_edges || seen.last;
        self.notes.push(TxNote {
            new_edges: seen.new_edges,
            pattern: if seen.reverted || !pooled {
                None
            } else {
                write_pattern(seen.function, seen.trace)
            },
        });
    }

    fn refused(&mut self, _index: usize) {
        self.notes.push(TxNote {
            new_edges: false,
            pattern: None,
        });
    }
}

/// A hash of `function` and the slots it wrote with their value classes: two transactions
/// with the same pattern changed state the same way, as far as the pools care.
fn write_pattern(function: usize, trace: &Trace) -> Option<u64> {
    let mut stores = trace.stores().peekable();
    stores.peek()?;
    let mut hasher = KeyHasher::default();
    hasher.write_usize(function);
    for store in stores {
        hasher.write(store.address.as_slice());
        for limb in store.slot.as_limbs() {
            hasher.write_u64(*limb);
        }
        hasher.write_u8(value_class(store.value));
    }
    Some(hasher.finish())
}
