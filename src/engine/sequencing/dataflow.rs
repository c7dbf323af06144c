//! What each fuzzed function reads and writes in storage, learned from the runs: the
//! read-after-write graph that orders sequences (writers before readers, MuFuzz and
//! ConFuzzius), the self-dependencies that make a call worth repeating, the slots an
//! aggressive run fuzzes, and which functions' coverage depends on state (HARVEY §5).

use alloy_primitives::{Address, U256};

use crate::hash::FastSet;
use crate::observe::{CmpOp, Comparison, Trace};
pub(crate) use crate::outcome::Dependence;

/// Distinct slots remembered per function and kind of access. Mapping slots are keyed by
/// fuzzed values, so without a cap a function could accumulate thousands; the first slots
/// seen are the ones every run touches (the contract's scalars), which is what ordering
/// and aggressive runs need.
const SLOTS_PER_FUNCTION: usize = 64;

/// Comparisons a transaction's loads are matched against when looking for condition reads.
const COMPARISONS_SCANNED: usize = 64;

/// Whether `bound` looks like the other side of a checked-arithmetic overflow test
/// (`x > MAX - y`): solc compares every `+=` operand against such a value, and counting
/// those would make every counter "branch on its own state".
fn is_overflow_bound(bound: U256) -> bool {
    bound.bit(255)
}

/// A storage slot of some account.
pub(crate) type Slot = (Address, U256);

/// The comparisons of `trace` matched against its loads.
fn scanned(trace: &Trace) -> &[Comparison] {
    &trace.comparisons()[..trace.comparisons().len().min(COMPARISONS_SCANNED)]
}

/// The operand `comparison` compared `value` with, when `value` is one of its operands
/// (and the other is not a checked-arithmetic overflow bound).
fn compared_with(comparison: &Comparison, value: U256) -> Option<U256> {
    if comparison.lhs == value && !is_overflow_bound(comparison.rhs) {
        Some(comparison.rhs)
    } else if comparison.rhs == value && !is_overflow_bound(comparison.lhs) {
        Some(comparison.lhs)
    } else {
        None
    }
}

/// The comparisons of `trace` (among the first it made) that compared a value it loaded
/// from storage: the conditions on state. A value equal to a load by coincidence counts
/// too; telling them apart would need the stack's provenance, which is not recorded.
pub(crate) fn state_comparisons(trace: &Trace) -> impl Iterator<Item = &Comparison> + '_ {
    scanned(trace).iter().filter(move |c| {
        trace
            .loads()
            .any(|access| compared_with(c, access.value).is_some())
    })
}

/// A value a comparison wanted of a storage slot: what a loaded value was compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Wanted {
    pub(crate) slot: Slot,
    /// The other operand.
    pub(crate) value: U256,
    /// Whether the comparison was an equality (else an ordering, which a neighbour of the
    /// value may be what flips).
    pub(crate) exact: bool,
}

/// What the comparisons of `trace` compared its loaded storage values with, at most `max`:
/// the values that would decide those comparisons the other way if the slots held them
/// (for aggressive runs, which write storage directly).
pub(crate) fn wanted_values(trace: &Trace, max: usize) -> impl Iterator<Item = Wanted> + '_ {
    let comparisons = scanned(trace);
    trace
        .loads()
        .flat_map(move |access| {
            comparisons.iter().filter_map(move |c| {
                compared_with(c, access.value).map(|other| Wanted {
                    slot: (access.address, access.slot),
                    // Equal operands (`armed` under `ISZERO`, an equality that holds):
                    // the slot holds the value already, and another flips the comparison.
                    value: if other == access.value {
                        other.wrapping_add(U256::ONE)
                    } else {
                        other
                    },
                    exact: matches!(c.op, CmpOp::Eq | CmpOp::IsZero),
                })
            })
        })
        .take(max)
}

/// The distinct slots of one kind of access, in the order first seen.
#[derive(Debug, Default, Clone)]
struct SlotSet {
    order: Vec<Slot>,
    seen: FastSet<Slot>,
}

impl SlotSet {
    /// Adds `slot` unless known or full; whether it was added.
    fn insert(&mut self, slot: Slot) -> bool {
        if self.order.len() >= SLOTS_PER_FUNCTION || !self.seen.insert(slot) {
            return false;
        }
        self.order.push(slot);
        true
    }

    fn contains(&self, slot: &Slot) -> bool {
        self.seen.contains(slot)
    }

    fn intersects(&self, other: &SlotSet) -> bool {
        self.order.iter().any(|slot| other.contains(slot))
    }
}

/// One function's observed storage accesses.
#[derive(Debug, Default, Clone)]
struct Accesses {
    reads: SlotSet,
    /// Written by a transaction that succeeded (a revert undoes its writes).
    writes: SlotSet,
    /// Read slots whose value then fed a comparison: state the function branches on.
    condition_reads: SlotSet,
}

/// The storage accesses of every fuzzed function (surface order) and what follows from them.
#[derive(Debug, Clone)]
pub(crate) struct Dataflow {
    functions: Vec<Accesses>,
    dependent: Vec<Option<Dependence>>,
    /// Whether the campaign has Rust invariants (see [`Dependence::Invariants`]).
    invariants: bool,
    /// Per function: the other functions that write a slot it reads (a function that
    /// feeds itself is [`Dataflow::is_self_dependent`] instead).
    writers: Vec<Vec<usize>>,
    /// Per function: the functions that read a slot it writes, itself included when it is
    /// self-dependent (what may follow it in a chain of steps).
    readers: Vec<Vec<usize>>,
    /// Per function: whether it writes a slot it branches on (worth calling repeatedly).
    self_dependent: Vec<bool>,
    /// Per function of a created contract: the functions seen to create one (writers of
    /// it, whatever the storage says).
    creators: Vec<Vec<usize>>,
    /// Whether accesses changed since `writers` and `self_dependent` were derived.
    stale: bool,
}

impl Dataflow {
    /// Nothing observed yet for `functions` functions; `invariants` says whether Rust
    /// invariants are checked after every transaction.
    pub(crate) fn new(functions: usize, invariants: bool) -> Self {
        Dataflow {
            functions: vec![Accesses::default(); functions],
            dependent: vec![None; functions],
            invariants,
            writers: vec![Vec::new(); functions],
            readers: vec![Vec::new(); functions],
            self_dependent: vec![false; functions],
            creators: vec![Vec::new(); functions],
            stale: false,
        }
    }

    /// Learns from one transaction that called `function` and left `trace`; `succeeded`
    /// says whether its writes stuck, `moved_value` whether it transferred ether.
    pub(crate) fn observe(
        &mut self,
        function: usize,
        trace: &Trace,
        succeeded: bool,
        moved_value: bool,
    ) {
        let accesses = &mut self.functions[function];
        let comparisons = scanned(trace);
        let mut changed = false;
        let mut wrote = false;
        for access in trace.loads() {
            let slot = (access.address, access.slot);
            changed |= accesses.reads.insert(slot);
            if !accesses.condition_reads.contains(&slot)
                && comparisons
                    .iter()
                    .any(|c| compared_with(c, access.value).is_some())
            {
                // The loaded value was compared: the function branches on this slot. A
                // value equal by coincidence only costs a few extra repeats.
                changed |= accesses.condition_reads.insert(slot);
            }
        }
        if succeeded {
            for access in trace.stores() {
                wrote = true;
                changed |= accesses.writes.insert((access.address, access.slot));
            }
        }
        if self.invariants && succeeded && (wrote || moved_value) {
            self.mark(function, Dependence::Invariants);
        }
        self.stale |= changed;
    }

    /// Records that a call of `creator` created a contract `function` belongs to: `function`
    /// can be called now (after `creator`), and `creator` writes what it needs. Whether
    /// that is news: the first contract `function` belongs to.
    pub(crate) fn created(&mut self, function: usize, creator: usize) -> bool {
        let creators = &mut self.creators[function];
        if !creators.contains(&creator) {
            creators.push(creator);
            self.stale = true;
        }
        self.mark(function, Dependence::Created)
    }

    /// The functions seen to create a contract `function` belongs to.
    pub(crate) fn creators(&self, function: usize) -> &[usize] {
        &self.creators[function]
    }

    /// Records that `function`'s coverage depends on state; whether that is news.
    pub(crate) fn mark(&mut self, function: usize, why: Dependence) -> bool {
        let slot = &mut self.dependent[function];
        if slot.is_some() {
            return false;
        }
        *slot = Some(why);
        true
    }

    /// Whether `function` gets sequences longer than one transaction, and why.
    pub(crate) fn dependence(&self, function: usize) -> Option<Dependence> {
        self.dependent[function]
    }

    /// Per function (surface order): whether and why its sequences may grow.
    pub(crate) fn dependences(&self) -> &[Option<Dependence>] {
        &self.dependent
    }

    /// The slots `function` has been seen to read (what an aggressive run may fuzz).
    pub(crate) fn reads(&self, function: usize) -> &[Slot] {
        &self.functions[function].reads.order
    }

    /// The other functions that write a slot `function` reads.
    pub(crate) fn writers_of(&self, function: usize) -> &[usize] {
        debug_assert!(!self.stale, "refresh() after observing");
        &self.writers[function]
    }

    /// The functions that read a slot `function` writes, itself first when it reads back
    /// what it wrote and branches on it: the calls that may take the next step after it.
    pub(crate) fn readers_of(&self, function: usize) -> &[usize] {
        debug_assert!(!self.stale, "refresh() after observing");
        &self.readers[function]
    }

    /// Whether `function` writes a slot it branches on: calling it again may take another
    /// path (a counter, a second investment).
    pub(crate) fn is_self_dependent(&self, function: usize) -> bool {
        debug_assert!(!self.stale, "refresh() after observing");
        self.self_dependent[function]
    }

    /// Records accesses directly, for tests of the graph's users.
    #[cfg(test)]
    pub(crate) fn learn(
        &mut self,
        function: usize,
        reads: &[Slot],
        writes: &[Slot],
        branched_on: &[Slot],
    ) {
        let accesses = &mut self.functions[function];
        for &slot in reads {
            accesses.reads.insert(slot);
        }
        for &slot in writes {
            accesses.writes.insert(slot);
        }
        for &slot in branched_on {
            accesses.condition_reads.insert(slot);
        }
        self.stale = true;
    }

    /// Derives the graph again if observations changed it (cheap when they did not).
    pub(crate) fn refresh(&mut self) {
        if !self.stale {
            return;
        }
        self.stale = false;
        for (reader, accesses) in self.functions.iter().enumerate() {
            self.writers[reader] = self
                .functions
                .iter()
                .enumerate()
                .filter(|&(writer, writes)| {
                    writer != reader
                        && (writes.writes.intersects(&accesses.reads)
                            || self.creators[reader].contains(&writer))
                })
                .map(|(index, _)| index)
                .collect();
            self.self_dependent[reader] = accesses.writes.intersects(&accesses.condition_reads);
        }
        for writer in 0..self.functions.len() {
            let mut readers: Vec<usize> = Vec::new();
            if self.self_dependent[writer] {
                readers.push(writer);
            }
            readers.extend(
                (0..self.functions.len()).filter(|&reader| self.writers[reader].contains(&writer)),
            );
            self.readers[writer] = readers;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::{CmpOp, Comparison, StorageAccess, StorageOp};

    fn trace(accesses: &[(StorageOp, u8, u64)], compared: &[u64]) -> Trace {
        let mut trace = Trace::default();
        for &(op, slot, value) in accesses {
            trace.push_storage(StorageAccess {
                op,
                address: Address::with_last_byte(1),
                code: Address::with_last_byte(1),
                pc: 0,
                slot: U256::from(slot),
                value: U256::from(value),
                frame: 0,
            });
        }
        for &value in compared {
            trace.push_comparison(Comparison {
                code: Address::with_last_byte(1),
                cmp_pc: 0,
                jumpi_pc: 1,
                op: CmpOp::Eq,
                lhs: U256::from(value),
                rhs: U256::from(40),
                negations: 0,
                taken: false,
            });
        }
        trace
    }

    use StorageOp::{Load, Store};

    #[test]
    fn wanted_values_are_what_loaded_values_were_compared_with() {
        // Slot 3 held 7, compared with 40; slot 4's 9 was compared with nothing.
        let compared = trace(&[(Load, 3, 7), (Load, 4, 9), (Store, 5, 7)], &[7]);
        let wanted: Vec<Wanted> = wanted_values(&compared, 8).collect();
        assert_eq!(
            wanted,
            [Wanted {
                slot: (Address::with_last_byte(1), U256::from(3)),
                value: U256::from(40),
                exact: true,
            }]
        );
        // A comparison the loaded value already satisfies (40 == 40) wants another value.
        let equal = trace(&[(Load, 3, 40)], &[40]);
        assert_eq!(
            wanted_values(&equal, 8)
                .map(|w| w.value)
                .collect::<Vec<_>>(),
            [U256::from(41)]
        );
        // An overflow bound is no wanted value, and the cap holds.
        let mut overflow = compared.clone();
        overflow.push_comparison(Comparison {
            rhs: U256::MAX - U256::from(1),
            lhs: U256::from(9),
            op: CmpOp::Gt,
            ..compared.comparisons()[0]
        });
        assert_eq!(wanted_values(&overflow, 8).count(), 1);
        let many = trace(&[(Load, 3, 7)], &[7, 7, 7]);
        assert_eq!(wanted_values(&many, 2).count(), 2);
    }

    #[test]
    fn writers_come_before_readers_and_repeats_need_a_branch_on_own_state() {
        // 0: set() writes slot 1; 1: copy() reads 1, writes 2; 2: increment() reads slot 3,
        // writes it, and compares the value it read.
        let mut flow = Dataflow::new(3, false);
        flow.observe(0, &trace(&[(Store, 1, 5)], &[]), true, false);
        flow.observe(1, &trace(&[(Load, 1, 5), (Store, 2, 5)], &[]), true, false);
        flow.observe(
            2,
            &trace(&[(Load, 3, 7), (Store, 3, 8), (Load, 3, 8)], &[8]),
            true,
            false,
        );
        flow.refresh();
        assert_eq!(flow.writers_of(1), &[0]);
        assert_eq!(flow.writers_of(0), &[] as &[usize]);
        assert!(flow.writers_of(2).is_empty(), "itself is no other writer");
        assert!(flow.is_self_dependent(2));
        assert_eq!(flow.readers_of(0), &[1], "copy reads what set writes");
        assert_eq!(
            flow.readers_of(2),
            &[2],
            "increment reads back its own count"
        );
        assert!(flow.readers_of(1).is_empty(), "nobody reads the copy");
        assert!(
            !flow.is_self_dependent(1),
            "copy writes what it never branches on"
        );
        assert_eq!(
            flow.reads(1),
            &[(Address::with_last_byte(1), U256::from(1))]
        );
    }

    #[test]
    fn overflow_checks_are_not_branches_on_state() {
        let mut flow = Dataflow::new(1, false);
        let mut t = trace(&[(Load, 3, 7), (Store, 3, 8)], &[]);
        t.push_comparison(Comparison {
            code: Address::with_last_byte(1),
            cmp_pc: 0,
            jumpi_pc: 1,
            op: CmpOp::Gt,
            lhs: U256::from(7),
            rhs: U256::MAX - U256::from(1),
            negations: 0,
            taken: false,
        });
        flow.observe(0, &t, true, false);
        flow.refresh();
        assert!(
            !flow.is_self_dependent(0),
            "`x += 1` alone is no self-dependency"
        );
    }

    #[test]
    fn reverted_writes_do_not_count() {
        let mut flow = Dataflow::new(2, true);
        flow.observe(0, &trace(&[(Store, 1, 5)], &[]), false, false);
        flow.observe(1, &trace(&[(Load, 1, 0)], &[]), true, false);
        flow.refresh();
        assert!(flow.writers_of(1).is_empty());
        assert_eq!(flow.dependence(0), None, "a reverted write changes nothing");
    }

    #[test]
    fn with_invariants_every_state_change_makes_a_function_state_dependent() {
        let mut flow = Dataflow::new(3, true);
        flow.observe(0, &trace(&[(Store, 1, 5)], &[]), true, false);
        flow.observe(1, &trace(&[], &[]), true, true);
        flow.observe(2, &trace(&[(Load, 1, 5)], &[]), true, false);
        assert_eq!(flow.dependence(0), Some(Dependence::Invariants));
        assert_eq!(
            flow.dependence(1),
            Some(Dependence::Invariants),
            "it moved ether"
        );
        assert_eq!(flow.dependence(2), None, "it only reads");
        let mut without = Dataflow::new(1, false);
        without.observe(0, &trace(&[(Store, 1, 5)], &[]), true, false);
        assert_eq!(without.dependence(0), None);
    }

    #[test]
    fn a_function_is_marked_once_with_the_first_reason() {
        let mut flow = Dataflow::new(1, false);
        assert!(flow.mark(0, Dependence::Aggressive));
        assert!(!flow.mark(0, Dependence::Invariants));
        assert_eq!(flow.dependence(0), Some(Dependence::Aggressive));
    }

    #[test]
    fn slots_per_function_are_capped() {
        let mut flow = Dataflow::new(1, false);
        let loads: Vec<_> = (0..=200u8).map(|s| (Load, s, 0)).collect();
        flow.observe(0, &trace(&loads, &[]), true, false);
        assert_eq!(flow.reads(0).len(), SLOTS_PER_FUNCTION);
    }
}
