//! Cost metrics (HARVEY §4.3): for every comparison deciding a JUMPI, the distance to making
//! the branch jump and to making it fall through; for every SSTORE, the distance of its slot
//! from a fixed slot no contract writes on purpose (SWC-124). Computed from the observer's
//! operands, never by instrumenting bytecode; exact 256-bit arithmetic.

use std::cell::OnceCell;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use alloy_primitives::{Address, I256, U256};

use crate::engine::executor::CodePc;
use crate::hash::FastMap;
use crate::observe::{CmpOp, Comparison, StorageOp, Trace};

/// Which distance a metric measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum CostKind {
    /// To making the JUMPI jump.
    Jump,
    /// To making the JUMPI fall through.
    Fall,
    /// From the SSTORE's slot to the arbitrary slot (SWC-124).
    Store,
}

/// A metric: where it was evaluated. The n-th evaluation at the same pc in the same
/// transaction is a metric of its own (loop iterations differ).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct CostKey {
    /// Index of the transaction in its sequence.
    pub(crate) tx: u32,
    /// The code (JUMPI) or storage context (SSTORE) address.
    pub(crate) code: Address,
    pub(crate) pc: u32,
    pub(crate) kind: CostKind,
    /// Occurrence at this pc within the transaction, from 0.
    pub(crate) nth: u32,
    /// Whether the invariant checks after transaction `tx` evaluated it, not the
    /// transaction (their occurrences are counted apart: the checks may run the same code,
    /// a view of the contract the transaction called).
    pub(crate) checked: bool,
}

impl CostKey {
    /// Whether it measures a branch of the transaction itself (not a store, not the checks
    /// after it): what joint prediction and the solver, which follow the transaction's
    /// inputs into its comparisons, can flip.
    pub(crate) fn transaction_branch(&self) -> bool {
        self.kind != CostKind::Store && !self.checked
    }
}

/// One evaluated metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cost {
    pub(crate) key: CostKey,
    pub(crate) value: U256,
    /// For an equality distance `|l - r|`: `l - r` as a signed word (exact while
    /// `|l - r| < 2^255`). The secant method needs the sign: on the absolute value, two
    /// points on either side of the root fit a line that points away from it.
    pub(crate) residual: Option<I256>,
    /// For an equality: `l ^ r`, the bits by which the operands differ. When the input
    /// reaches the comparison through XOR with a constant, flipping exactly these bits of
    /// the input makes them equal, which no line through two points finds.
    pub(crate) xor: Option<U256>,
    /// For a branch metric, the pc of the comparison that decided the JUMPI; for a store
    /// metric, the SSTORE's. One JUMPI can be decided by several comparisons (the end of
    /// a conjunction, reached from whichever conjunct failed first), and what holds of one
    /// (no input moves it) need not hold of another.
    pub(crate) compared_at: u32,
}

/// Occurrence counters per JUMPI or SSTORE position within one transaction, reused across
/// transactions (one per worker and purpose): [`Occurrences::next`] numbers each
/// evaluation at a position, [`Occurrences::clear`] starts the next transaction.
///
/// Why not a hash map alone: the count is taken at every comparison of every transaction,
/// and a hash lookup there cost 3% of the fuzzing loop on `Bank`. Most positions occur
/// once or a few times. A table of [`TABLE`] entries, indexed by the position's pc, counts
/// each position in the entry it maps to when the position is the first of the transaction
/// to map there; the others are counted in a hash map. Entries are only claimed within a
/// transaction, never given back, so a position finds its entry free only at its first
/// evaluation, and each position is counted in one place throughout.
#[derive(Debug, Clone)]
pub(crate) struct Occurrences {
    /// Per entry: the position holding it, its count, and the transaction (`current`'s
    /// value) in which it was claimed; an entry of an earlier transaction is free.
    table: Box<[(Site, u32, u32)]>,
    current: u32,
    /// The positions whose entry another holds.
    overflow: FastMap<Site, u32>,
}

/// Entries of the [`Occurrences`] table.
const TABLE: usize = 64;

impl Default for Occurrences {
    fn default() -> Occurrences {
        let free = Site {
            at: CodePc {
                code: Address::ZERO,
                pc: 0,
            },
            store: false,
        };
        Occurrences {
            table: vec![(free, 0, 0); TABLE].into_boxed_slice(),
            current: 1,
            overflow: FastMap::default(),
        }
    }
}

impl Occurrences {
    /// Forgets every count: the next transaction's evaluations start from 0.
    pub(crate) fn clear(&mut self) {
        self.current = self.current.wrapping_add(1);
        if self.current == 0 {
            // After 2^32 transactions: no entry may look claimed in the new one.
            self.table.iter_mut().for_each(|entry| entry.2 = 0);
            self.current = 1;
        }
        if !self.overflow.is_empty() {
            self.overflow.clear();
        }
    }

    /// The occurrence index (from 0) of this evaluation at (`code`, `pc`) in the
    /// transaction; `store` for an SSTORE's, else a JUMPI's.
    pub(crate) fn next(&mut self, code: Address, pc: u32, store: bool) -> u32 {
        let site = Site {
            at: CodePc { code, pc },
            store,
        };
        let entry = &mut self.table[(pc as usize ^ usize::from(store)) % TABLE];
        if entry.2 != self.current {
            *entry = (site, 1, self.current);
            return 0;
        }
        if entry.0 == site {
            entry.1 += 1;
            return entry.1 - 1;
        }
        let count = self.overflow.entry(site).or_insert(0);
        *count += 1;
        *count - 1
    }
}

/// A JUMPI's or (`store`) an SSTORE's position, as [`Occurrences`] counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Site {
    at: CodePc,
    store: bool,
}

impl Hash for Site {
    /// One word: the code address's last eight bytes with the pc and the kind. The derived
    /// hash took six words, for every comparison of every transaction; equal sites still
    /// hash alike, and the map compares whole sites.
    fn hash<H: Hasher>(&self, state: &mut H) {
        let code = self.at.code.as_slice();
        let mut tail = [0u8; 8];
        tail.copy_from_slice(&code[code.len() - 8..]);
        let place = u64::from(self.at.pc) << 1 | u64::from(self.store);
        state.write_u64(u64::from_le_bytes(tail) ^ place);
    }
}

/// A parent run's metrics from some transaction on, to look a mutant's metrics up in by
/// key ([`ParentCosts::get`]).
///
/// Why not a hash map built at once: a mutant usually takes its parent's path, and then its
/// metrics come in its parent's order, key for key; a lookup first tries the parent's
/// metric at the mutant's position and only hashes when that one has another key (the
/// paths parted). The map is built then, once. Keys are unique within a run (`nth` counts
/// repeats), so the metric found at the position is the one the map would give.
#[derive(Debug, Clone)]
pub(crate) struct ParentCosts {
    /// The run's metrics, in its order, but for the first `skipped`.
    costs: Arc<[Cost]>,
    skipped: usize,
    /// Positions in `costs` by key, built at the first lookup that misses its position.
    by_key: OnceCell<FastMap<CostKey, u32>>,
}

impl ParentCosts {
    /// The metrics of transactions `from` on of a run that evaluated `costs`, copied: what
    /// a mutant changed from transaction `from` on is compared with. The transactions
    /// before `from` run in the mutant as they ran in its parent, so their costs are the
    /// same and no prediction starts from them. (Only the metrics before the first of
    /// transaction `from` or later are left out: a key names its transaction, so looking
    /// up one of transaction `from` or later never finds one of an earlier transaction.)
    pub(crate) fn of(costs: &[Cost], from: usize) -> ParentCosts {
        let skipped = costs
            .iter()
            .take_while(|c| (c.key.tx as usize) < from)
            .count();
        ParentCosts {
            costs: costs[skipped..].into(),
            skipped,
            by_key: OnceCell::new(),
        }
    }

    /// All the metrics of a run that evaluated `costs` (a corpus entry's), shared.
    pub(crate) fn shared(costs: &Arc<[Cost]>) -> ParentCosts {
        ParentCosts {
            costs: Arc::clone(costs),
            skipped: 0,
            by_key: OnceCell::new(),
        }
    }

    /// The parent's metric with `key`, if its run evaluated one; `at` is the position of
    /// the mutant's metric with that key among all its run's metrics, where the parent's
    /// is when the two runs evaluated the same metrics up to it.
    pub(crate) fn get(&self, at: usize, key: &CostKey) -> Option<&Cost> {
        let aligned = at.checked_sub(self.skipped).and_then(|i| self.costs.get(i));
        if let Some(cost) = aligned.filter(|c| c.key == *key) {
            return Some(cost);
        }
        let by_key = self.by_key.get_or_init(|| {
            (self.costs.iter().enumerate())
                .map(|(i, c)| (c.key, i as u32))
                .collect()
        });
        by_key.get(key).map(|&i| &self.costs[i as usize])
    }
}

impl Default for ParentCosts {
    /// No metrics: every lookup misses.
    fn default() -> ParentCosts {
        ParentCosts::of(&[], 0)
    }
}

/// Appends the metrics of transaction `tx`'s trace to `out`; `target` is the arbitrary
/// slot of the storage-write metric ([`crate::oracle::arbitrary_slot`]).
pub(crate) fn costs_of(
    trace: &Trace,
    tx: u32,
    target: U256,
    seen: &mut Occurrences,
    out: &mut Vec<Cost>,
) {
    seen.clear();
    branch_costs_of(trace, tx, false, seen, out);
    for store in trace.storage().iter().filter(|s| s.op == StorageOp::Store) {
        let nth = seen.next(store.address, store.pc, true);
        out.push(Cost {
            key: CostKey {
                tx,
                code: store.address,
                pc: store.pc,
                kind: CostKind::Store,
                nth,
                checked: false,
            },
            value: store.slot.abs_diff(target),
            residual: Some(I256::from_raw(store.slot.wrapping_sub(target))),
            xor: None,
            compared_at: store.pc,
        });
    }
}

/// Appends the branch metrics of the invariant checks after transaction `tx` (their
/// `trace`) to `out`: the distances of what the invariants compare, which no branch of the
/// transactions may show (a spender's total pulled against what was approved). Store
/// metrics are left out: the checks' writes are undone.
pub(crate) fn checked_costs_of(
    trace: &Trace,
    tx: u32,
    seen: &mut Occurrences,
    out: &mut Vec<Cost>,
) {
    seen.clear();
    branch_costs_of(trace, tx, true, seen, out);
}

/// Appends the branch metrics of `trace` to `out`, as of transaction `tx` or (`checked`)
/// the checks after it.
fn branch_costs_of(
    trace: &Trace,
    tx: u32,
    checked: bool,
    seen: &mut Occurrences,
    out: &mut Vec<Cost>,
) {
    out.reserve(2 * trace.comparisons().len());
    for cmp in trace.comparisons() {
        let nth = seen.next(cmp.code, cmp.jumpi_pc, false);
        let (jump, fall) = branch_costs(cmp);
        let (residual, xor) = match cmp.op {
            CmpOp::Eq => (
                Some(I256::from_raw(cmp.lhs.wrapping_sub(cmp.rhs))),
                Some(cmp.lhs ^ cmp.rhs),
            ),
            CmpOp::IsZero => (Some(I256::from_raw(cmp.lhs)), Some(cmp.lhs)),
            _ => (None, None),
        };
        // Both belong to the side whose distance is |l - r|: making `l == r` true.
        let ((jump_residual, jump_xor), (fall_residual, fall_xor)) = if cmp.negations % 2 == 0 {
            ((residual, xor), (None, None))
        } else {
            ((None, None), (residual, xor))
        };
        let key = |kind| CostKey {
            tx,
            code: cmp.code,
            pc: cmp.jumpi_pc,
            kind,
            nth,
            checked,
        };
        out.push(Cost {
            key: key(CostKind::Jump),
            value: jump,
            residual: jump_residual,
            xor: jump_xor,
            compared_at: cmp.cmp_pc,
        });
        out.push(Cost {
            key: key(CostKind::Fall),
            value: fall,
            residual: fall_residual,
            xor: fall_xor,
            compared_at: cmp.cmp_pc,
        });
    }
}

/// (cost to make the JUMPI jump, cost to make it fall through) for `cmp`: the comparison's
/// distances to true and false, swapped when an odd number of ISZEROs negated it.
pub(crate) fn branch_costs(cmp: &Comparison) -> (U256, U256) {
    let (to_true, to_false) = distances(cmp.op, cmp.lhs, cmp.rhs);
    if cmp.negations % 2 == 0 {
        (to_true, to_false)
    } else {
        (to_false, to_true)
    }
}

/// (distance to making `op(l, r)` true, distance to making it false), as HARVEY defines
/// them: zero on the side the comparison already is.
pub(crate) fn distances(op: CmpOp, l: U256, r: U256) -> (U256, U256) {
    match op {
        CmpOp::Eq => (l.abs_diff(r), U256::from(l == r)),
        CmpOp::IsZero => (l, U256::from(l.is_zero())),
        CmpOp::Lt => lt(l, r, l < r),
        CmpOp::Gt => lt(r, l, r < l),
        CmpOp::Slt => lt(l, r, I256::from_raw(l) < I256::from_raw(r)),
        CmpOp::Sgt => lt(r, l, I256::from_raw(r) < I256::from_raw(l)),
    }
}

/// The distances of `l < r` (signed or not, as `holds` says), from the raw words: when the
/// comparison holds, `r - l` makes it false; otherwise `l - r + 1` makes it true. Both
/// differences are exact in 256 bits (they are between 0 and 2^256 - 1 as integers, so the
/// wrapping subtraction of the words is the true value); only `+ 1` can overflow, at
/// `l - r = 2^256 - 1`, and saturates.
fn lt(l: U256, r: U256, holds: bool) -> (U256, U256) {
    if holds {
        (U256::ZERO, r.wrapping_sub(l))
    } else {
        (l.wrapping_sub(r).saturating_add(U256::ONE), U256::ZERO)
    }
}

#[cfg(test)]
mod tests;
