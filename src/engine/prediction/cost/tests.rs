//! Cost functions against their definitions (HARVEY §4.3), on small values where `i128`
//! arithmetic is the reference, and at the 256-bit extremes.

use proptest::prelude::*;

use super::*;

fn reference(op: CmpOp, l: i128, r: i128) -> (u128, u128) {
    let d = |a: i128, b: i128| (a - b).unsigned_abs();
    // (distance to true, distance to false) of `l op r` on integers.
    match op {
        CmpOp::Eq => (d(l, r), u128::from(l == r)),
        CmpOp::IsZero => (d(l, 0), u128::from(l == 0)),
        CmpOp::Lt | CmpOp::Slt => {
            if l < r {
                (0, d(r, l))
            } else {
                (d(l, r) + 1, 0)
            }
        }
        CmpOp::Gt | CmpOp::Sgt => {
            if l > r {
                (0, d(l, r))
            } else {
                (d(r, l) + 1, 0)
            }
        }
    }
}

fn word(v: i128) -> U256 {
    I256::try_from(v).expect("fits").into_raw()
}

proptest! {
    #[test]
    fn unsigned_costs_match_the_definitions(l in 0i128..1 << 100, r in 0i128..1 << 100, op in 0usize..4) {
        let op = [CmpOp::Eq, CmpOp::Lt, CmpOp::Gt, CmpOp::IsZero][op];
        let (t, f) = reference(op, l, if op == CmpOp::IsZero { 0 } else { r });
        let rhs = if op == CmpOp::IsZero { U256::ZERO } else { word(r) };
        prop_assert_eq!(distances(op, word(l), rhs), (U256::from(t), U256::from(f)));
    }

    #[test]
    fn signed_costs_match_the_definitions(l in -(1i128 << 100)..1 << 100, r in -(1i128 << 100)..1 << 100, slt: bool) {
        let op = if slt { CmpOp::Slt } else { CmpOp::Sgt };
        let (t, f) = reference(op, l, r);
        prop_assert_eq!(distances(op, word(l), word(r)), (U256::from(t), U256::from(f)));
    }

    #[test]
    fn exactly_one_side_is_zero(l: [u64; 4], r: [u64; 4], op in 0usize..6) {
        let op = [CmpOp::Eq, CmpOp::Lt, CmpOp::Gt, CmpOp::Slt, CmpOp::Sgt, CmpOp::IsZero][op];
        let (l, r) = (U256::from_limbs(l), U256::from_limbs(r));
        let (to_true, to_false) = distances(op, l, r);
        if op.eval(l, r) {
            prop_assert!(to_true.is_zero() && !to_false.is_zero());
        } else {
            prop_assert!(to_false.is_zero() && !to_true.is_zero());
        }
    }
}

#[test]
fn extremes_are_exact_or_saturate_at_the_one_overflowing_point() {
    let (min, max) = (I256::MIN.into_raw(), I256::MAX.into_raw());
    // MIN < MAX signed: making it false needs MAX - MIN = 2^256 - 1.
    assert_eq!(distances(CmpOp::Slt, min, max), (U256::ZERO, U256::MAX));
    // MAX < MIN is false: MAX - MIN + 1 = 2^256 saturates.
    assert_eq!(distances(CmpOp::Slt, max, min), (U256::MAX, U256::ZERO));
    assert_eq!(
        distances(CmpOp::Lt, U256::MAX, U256::ZERO),
        (U256::MAX, U256::ZERO)
    );
    assert_eq!(
        distances(CmpOp::Eq, U256::MAX, U256::ZERO),
        (U256::MAX, U256::ZERO)
    );
}

#[test]
fn negations_swap_the_branch_costs() {
    let cmp = |negations| Comparison {
        code: Address::ZERO,
        cmp_pc: 0,
        jumpi_pc: 9,
        op: CmpOp::Eq,
        lhs: U256::from(7),
        rhs: U256::from(42),
        negations,
        taken: false,
    };
    assert_eq!(branch_costs(&cmp(0)), (U256::from(35), U256::ZERO));
    assert_eq!(branch_costs(&cmp(1)), (U256::ZERO, U256::from(35)));
    assert_eq!(branch_costs(&cmp(2)), (U256::from(35), U256::ZERO));
}

#[test]
fn occurrences_are_numbered_per_location() {
    let mut seen = Occurrences::default();
    let code = Address::ZERO;
    let counts: Vec<u32> = [(5, false), (5, false), (6, false), (5, true), (5, false)]
        .into_iter()
        .map(|(pc, store)| seen.next(code, pc, store))
        .collect();
    assert_eq!(counts, [0, 1, 0, 0, 2]);
}

proptest! {
    /// The table and its overflow number evaluations as counting each position in a map
    /// does, within a transaction and afresh after `clear`: positions that share a table
    /// entry (the same pc in two contracts, pcs `TABLE` apart, a JUMPI and an SSTORE) each
    /// keep their own count.
    #[test]
    fn occurrences_number_as_a_count_per_position_does(
        transactions in prop::collection::vec(
            prop::collection::vec((0u8..3, 0u32..3, 0u32..4, any::<bool>()), 0..40),
            1..6,
        ),
    ) {
        let mut seen = Occurrences::default();
        for evaluations in &transactions {
            seen.clear();
            let mut counts: std::collections::HashMap<(Address, u32, bool), u32> =
                std::collections::HashMap::new();
            for &(code, lap, offset, store) in evaluations {
                let code = Address::with_last_byte(code);
                // Few pcs, some `TABLE` apart: entries are shared.
                let pc = lap * TABLE as u32 + offset;
                let count = counts.entry((code, pc, store)).or_insert(0);
                prop_assert_eq!(seen.next(code, pc, store), *count);
                *count += 1;
            }
        }
    }
}

/// After 2^32 transactions the transaction count comes round again: an entry claimed in
/// the first transaction is free in the transaction that gets its number again.
#[test]
fn occurrences_start_afresh_when_the_transaction_count_wraps() {
    let mut seen = Occurrences::default();
    let code = Address::ZERO;
    assert_eq!(
        (seen.next(code, 5, false), seen.next(code, 5, false)),
        (0, 1)
    );
    seen.current = u32::MAX;
    seen.clear();
    assert_eq!(seen.next(code, 5, false), 0);
}

/// A branch metric of transaction `tx` at `pc` (its `nth` evaluation there) of value `value`.
fn metric(tx: u32, pc: u32, nth: u32, value: u64) -> Cost {
    Cost {
        key: CostKey {
            tx,
            code: Address::with_last_byte(1),
            pc,
            kind: CostKind::Jump,
            nth,
            checked: false,
        },
        value: U256::from(value),
        residual: None,
        xor: None,
        compared_at: pc,
    }
}

/// A run's metrics in transaction order, keys unique: for each of `txs` transactions, the
/// `pcs` given (an occurrence index counting repeats), valued by position.
fn run_of(txs: &[Vec<u32>]) -> Vec<Cost> {
    let mut costs = Vec::new();
    for (tx, pcs) in txs.iter().enumerate() {
        let mut seen: Vec<u32> = Vec::new();
        for &pc in pcs {
            let nth = seen.iter().filter(|&&p| p == pc).count() as u32;
            seen.push(pc);
            costs.push(metric(tx as u32, pc, nth, costs.len() as u64));
        }
    }
    costs
}

proptest! {
    /// Looking a mutant's metrics up in its parent's, at their positions, finds exactly
    /// what a search by key over the parent's metrics of transactions `from` on finds:
    /// whether the two runs took the same path (positions line up), parted (they do not)
    /// or the parent's metrics start later (`from`).
    #[test]
    fn parent_costs_find_what_a_search_by_key_finds(
        parent in prop::collection::vec(prop::collection::vec(0u32..6, 0..8), 1..4),
        child in prop::collection::vec(prop::collection::vec(0u32..6, 0..8), 1..4),
        same_path in any::<bool>(),
        from in 0usize..3,
    ) {
        let parent = run_of(&parent);
        let child = if same_path { parent.clone() } else { run_of(&child) };
        let looked_up = ParentCosts::of(&parent, from);
        for (at, c1) in child.iter().enumerate().filter(|(_, c)| c.key.tx as usize >= from) {
            let searched = parent.iter().find(|c0| c0.key == c1.key && c0.key.tx as usize >= from);
            prop_assert_eq!(looked_up.get(at, &c1.key), searched);
        }
        let shared = ParentCosts::shared(&Arc::from(&parent[..]));
        for (at, c1) in child.iter().enumerate() {
            prop_assert_eq!(shared.get(at, &c1.key), parent.iter().find(|c0| c0.key == c1.key));
        }
    }
}
