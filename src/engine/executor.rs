//! Running one sequence: restore the post-setup state, execute each transaction under the
//! observer, check the oracles after each one, and compute the feedback (path id of the last
//! transaction, or of all of them without demand-driven sequences; new edges; comparison
//! operands for the dictionary; storage accesses for the dataflow; write patterns for the
//! pools). An aggressive run fuzzes storage before its last transaction and only reports
//! that transaction's path.

use std::hash::Hasher;

use alloy_primitives::{Address, U256};

use crate::chain::Chain;
use crate::engine::cost::{self, Cost, Occurrences};
use crate::engine::dataflow::{Dataflow, Slot};
use crate::engine::input::{Sequence, TxInput};
use crate::engine::pools::value_class;
use crate::engine::surface::Surface;
use crate::hash::{FastSet, KeyHasher};
use crate::observe::Edge;
use crate::oracle::{Oracles, arbitrary_slot};
use crate::outcome::{FunctionStats, SequenceStats, Violation};

/// Comparison operands kept per run for the dictionary: enough for the magic values of a
/// few branches, bounded so a loop-heavy transaction cannot flood the dictionary.
const OPERANDS_PER_RUN: usize = 64;

/// Calls of a function whose storage accesses are all learned from; after that, only those
/// with new edges and every [`DATAFLOW_SAMPLE`]-th. What a function reads and writes is
/// learned in its first calls, and observing every transaction would cost throughput for
/// nothing.
const DATAFLOW_WARMUP: u64 = 1_024;
/// See [`DATAFLOW_WARMUP`].
const DATAFLOW_SAMPLE: u64 = 16;

/// Path id of a transaction the EVM refused (value above the sender's balance).
const REFUSED_PATH: u64 = 0x5eed_0f7e_f05e;

/// A violation found by a run.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    /// Index of the transaction after which the violation showed.
    pub(crate) tx: usize,
    pub(crate) violation: Violation,
    /// How that transaction ended, rendered.
    pub(crate) status: String,
}

/// What one transaction of the last run contributed, for the pools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TxNote {
    /// Whether it covered an edge no earlier run had.
    pub(crate) new_edges: bool,
    /// A hash of the function and what it wrote (slots and value classes); `None` when it
    /// wrote nothing, reverted, or could not be pooled (no new edges and not the last).
    pub(crate) pattern: Option<u64>,
}

/// The feedback of one run.
#[derive(Debug, Clone)]
pub(crate) struct Run {
    /// Path id of the last executed transaction: a hash of its branch decisions in order.
    pub(crate) path: u64,
    /// Edges no earlier run of this executor covered.
    pub(crate) new_edges: usize,
    pub(crate) violation: Option<Found>,
}

/// Runs sequences on one chain; owns the coverage and per-function counts of one worker.
pub(crate) struct Executor<'a> {
    chain: Chain,
    surface: Surface,
    oracles: &'a Oracles<'a>,
    coverage: FastSet<(Address, u32, bool)>,
    /// Per function (surface order): calls and reverts.
    counts: Vec<(u64, u64)>,
    transactions: u64,
    sequences: u64,
    operands: Vec<U256>,
    /// Whether runs evaluate cost metrics (input prediction needs them).
    record_costs: bool,
    costs: Vec<Cost>,
    occurrences: Occurrences,
    /// The slot of the arbitrary-storage-write detector, hashed once.
    arbitrary_slot: U256,
    /// Path ids over the last transaction only (HARVEY §5), or over the whole sequence.
    demand_driven: bool,
    dataflow: Dataflow,
    /// Per transaction of the last regular run.
    notes: Vec<TxNote>,
    /// Regular runs by sequence length (index: length).
    lengths: Vec<u64>,
    aggressive_runs: u64,
    /// Watched target blocks the last regular run entered: (transaction index, code
    /// address, block start pc).
    hits: Vec<(usize, Address, u32)>,
}

impl<'a> Executor<'a> {
    /// An executor on `chain`, whose committed state is the post-setup snapshot; with
    /// `record_costs`, every run evaluates the cost metrics of its transactions;
    /// `demand_driven` chooses path ids over the last transaction (else the whole sequence).
    pub(crate) fn new(
        chain: Chain,
        surface: Surface,
        oracles: &'a Oracles<'a>,
        record_costs: bool,
        demand_driven: bool,
    ) -> Self {
        let counts = vec![(0, 0); surface.functions.len()];
        let dataflow = Dataflow::new(surface.functions.len(), !oracles.invariants.is_empty());
        Executor {
            chain,
            surface,
            oracles,
            coverage: FastSet::default(),
            counts,
            transactions: 0,
            sequences: 0,
            operands: Vec::new(),
            record_costs,
            costs: Vec::new(),
            occurrences: Occurrences::default(),
            arbitrary_slot: arbitrary_slot(),
            demand_driven,
            dataflow,
            notes: Vec::new(),
            lengths: Vec::new(),
            aggressive_runs: 0,
            hits: Vec::new(),
        }
    }

    /// Runs `sequence` from the post-setup state; stops at the first violation.
    pub(crate) fn run(&mut self, sequence: &Sequence) -> Run {
        self.chain.reset();
        self.sequences += 1;
        self.operands.clear();
        self.costs.clear();
        self.notes.clear();
        self.hits.clear();
        SequenceStats::count_length(&mut self.lengths, sequence.txs.len());
        let mut path = 0;
        let mut new_edges = 0;
        for (index, input) in sequence.txs.iter().enumerate() {
            let tx = self.surface.tx(input);
            self.transactions += 1;
            self.counts[input.function].0 += 1;
            let outcome = match self.chain.execute(&tx) {
                Ok(outcome) => outcome,
                Err(_) => {
                    // The EVM refused it (value above the balance): nothing ran.
                    self.counts[input.function].1 += 1;
                    path = extend_path(self.demand_driven, path, REFUSED_PATH);
                    self.notes.push(TxNote {
                        new_edges: false,
                        pattern: None,
                    });
                    continue;
                }
            };
            let reverted = !outcome.is_success();
            if reverted {
                self.counts[input.function].1 += 1;
            }
            let trace = self.chain.last_trace();
            path = extend_path(self.demand_driven, path, path_id(trace.edges()));
            self.hits.extend(
                trace
                    .target_hits()
                    .iter()
                    .map(|&(code, pc)| (index, code, pc)),
            );
            let edges_before = new_edges;
            for edge in trace.edges() {
                if self.coverage.insert((edge.code, edge.pc, edge.taken)) {
                    new_edges += 1;
                }
            }
            let calls = self.counts[input.function].0;
            if new_edges > edges_before || calls <= DATAFLOW_WARMUP || calls % DATAFLOW_SAMPLE == 0
            {
                let moved_value = trace.calls().iter().any(|call| !call.value.is_zero());
                self.dataflow
                    .observe(input.function, trace, !reverted, moved_value);
            }
            // The pools only take transactions with new edges or a kept run's last one,
            // so only those pay for hashing what they wrote.
            let pooled = new_edges > edges_before || index + 1 == sequence.txs.len();
            self.notes.push(TxNote {
                new_edges: new_edges > edges_before,
                pattern: if reverted || !pooled {
                    None
                } else {
                    write_pattern(input.function, trace)
                },
            });
            for cmp in trace.comparisons() {
                if self.operands.len() + 2 > OPERANDS_PER_RUN {
                    break;
                }
                self.operands.extend([cmp.lhs, cmp.rhs]);
            }
            if self.record_costs {
                cost::costs_of(
                    trace,
                    index as u32,
                    self.arbitrary_slot,
                    &mut self.occurrences,
                    &mut self.costs,
                );
            }
            let written = self.oracles.check_trace(trace, self.arbitrary_slot);
            let violation = written
                .or_else(|| self.oracles.check_outcome(&outcome))
                .or_else(|| {
                    // A reverted transaction changed nothing but the block: the invariants
                    // that held before still hold unless time moved.
                    let unchanged = reverted && tx.warp == Default::default();
                    if unchanged {
                        None
                    } else {
                        self.oracles.check_invariants(&self.chain)
                    }
                });
            if let Some(violation) = violation {
                return Run {
                    path,
                    new_edges,
                    violation: Some(Found {
                        tx: index,
                        violation,
                        status: outcome.status.to_string(),
                    }),
                };
            }
        }
        Run {
            path,
            new_edges,
            violation: None,
        }
    }

    /// An aggressive run (HARVEY §5): `sequence` with storage fuzzed before its last
    /// transaction: each of `slots` gets `fuzz` of its current value. Only the path id of
    /// the last transaction comes back; the state may be unreachable, so nothing is checked,
    /// covered or learned from it.
    pub(crate) fn run_aggressive(
        &mut self,
        sequence: &Sequence,
        slots: &[Slot],
        fuzz: &mut dyn FnMut(U256) -> U256,
    ) -> u64 {
        self.aggressive_runs += 1;
        let Some((last, prefix)) = sequence.txs.split_last() else {
            return 0;
        };
        self.transactions += prefix.len() as u64;
        self.set_up(prefix);
        for &(address, slot) in slots {
            let value = fuzz(self.chain.storage(address, slot));
            self.chain.set_storage(address, slot, value);
        }
        self.transactions += 1;
        match self.chain.execute(&self.surface.tx(last)) {
            Ok(_) => path_id(self.chain.last_trace().edges()),
            Err(_) => REFUSED_PATH,
        }
    }

    /// Runs `sequence` again, unobserved by the oracles, and returns the address its last
    /// transaction called with the pcs that transaction's own frame executed (for the
    /// lookahead analysis). `None` when the EVM refuses the last transaction.
    pub(crate) fn path_of_last(&mut self, sequence: &Sequence) -> Option<(Address, Vec<u32>)> {
        let (last, prefix) = sequence.txs.split_last()?;
        self.set_up(prefix);
        let tx = self.surface.tx(last);
        self.chain.record_paths(true);
        let ran = self.chain.execute(&tx).is_ok();
        self.chain.record_paths(false);
        let path = self.chain.last_trace().path().to_vec();
        ran.then_some((tx.to, path))
    }

    /// Restores the post-setup state and runs `prefix` unchecked: the state a run's last
    /// transaction starts from, for the runs that only look at that transaction. A refused
    /// transaction ran nothing, as in the regular run.
    fn set_up(&mut self, prefix: &[TxInput]) {
        self.chain.reset();
        for input in prefix {
            let _ = self.chain.execute(&self.surface.tx(input));
        }
    }

    /// The first violation of the post-setup state itself, before any transaction.
    pub(crate) fn check_initial_state(&mut self) -> Option<Violation> {
        self.chain.reset();
        self.oracles.check_invariants(&self.chain)
    }

    /// The cost metrics of the last run (empty unless recording).
    pub(crate) fn costs(&self) -> &[Cost] {
        &self.costs
    }

    /// Comparison operands of the last run (capped), for the dictionary.
    pub(crate) fn operands(&self) -> &[U256] {
        &self.operands
    }

    /// The chain, in its post-setup state between runs.
    pub(crate) fn chain(&self) -> &Chain {
        &self.chain
    }

    /// The runtime code deployed at `address`.
    pub(crate) fn code(&self, address: Address) -> alloy_primitives::Bytes {
        self.chain.code(address)
    }

    /// The surface this executor calls.
    pub(crate) fn surface(&self) -> &Surface {
        &self.surface
    }

    /// The edges covered so far.
    pub(crate) fn coverage(&self) -> &FastSet<(Address, u32, bool)> {
        &self.coverage
    }

    /// The watched target blocks the last regular run entered: (transaction index, code
    /// address, block start pc).
    pub(crate) fn hits(&self) -> &[(usize, Address, u32)] {
        &self.hits
    }

    /// What each transaction of the last regular run contributed.
    pub(crate) fn notes(&self) -> &[TxNote] {
        &self.notes
    }

    /// The storage accesses learned so far.
    pub(crate) fn dataflow(&self) -> &Dataflow {
        &self.dataflow
    }

    /// The storage accesses learned so far, to mark functions or refresh the graph.
    pub(crate) fn dataflow_mut(&mut self) -> &mut Dataflow {
        &mut self.dataflow
    }

    /// Regular runs by sequence length (index: length).
    pub(crate) fn lengths(&self) -> &[u64] {
        &self.lengths
    }

    /// Aggressive runs so far.
    pub(crate) fn aggressive_runs(&self) -> u64 {
        self.aggressive_runs
    }

    /// Transactions executed so far.
    pub(crate) fn transactions(&self) -> u64 {
        self.transactions
    }

    /// Sequences executed so far.
    pub(crate) fn sequences(&self) -> u64 {
        self.sequences
    }

    /// Calls and reverts per function so far, as summary rows.
    pub(crate) fn function_stats(&self) -> Vec<FunctionStats> {
        self.surface
            .functions
            .iter()
            .zip(&self.counts)
            .map(|(f, &(calls, reverts))| FunctionStats {
                contract: f.contract.clone(),
                address: f.address,
                signature: f.signature.clone(),
                calls,
                reverts,
            })
            .collect()
    }
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

/// A hash of `function` and the slots it wrote with their value classes: two transactions
/// with the same pattern changed state the same way, as far as the pools care.
fn write_pattern(function: usize, trace: &crate::observe::Trace) -> Option<u64> {
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
