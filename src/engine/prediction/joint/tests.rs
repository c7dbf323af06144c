//! Joint prediction against programs simulated in Rust: a conjunction of comparisons over a
//! call's inputs, evaluated as solc compiles `&&` (each one a branch; the first false one
//! ends the path), with the inputs' domain `[0, 2^64)` as the maze's `uint64`s have.

use alloy_primitives::Address;
use proptest::prelude::*;

use super::*;

/// A side of a comparison, as a function of the inputs.
type Side = Box<dyn Fn(&[i128]) -> i128>;

/// One conjunct: `op(lhs(x), rhs(x))` must hold (`want`) or not.
struct Conjunct {
    op: CmpOp,
    lhs: Side,
    rhs: Side,
    want: bool,
}

fn conjunct(
    op: CmpOp,
    want: bool,
    lhs: impl Fn(&[i128]) -> i128 + 'static,
    rhs: impl Fn(&[i128]) -> i128 + 'static,
) -> Conjunct {
    Conjunct {
        op,
        lhs: Box::new(lhs),
        rhs: Box::new(rhs),
        want,
    }
}

/// The relations a run of the conjunction at `x` evaluates, up to the first conjunct that
/// fails (conjunct `k` at pc `k`).
fn run(program: &[Conjunct], x: &[i128]) -> Vec<Relation> {
    let mut out = Vec::new();
    for (k, c) in program.iter().enumerate() {
        let residual = Wide::try_from((c.lhs)(x) - (c.rhs)(x)).unwrap();
        let relation = Relation {
            tx: 0,
            code: Address::ZERO,
            pc: k as u32,
            nth: 0,
            op: c.op,
            residual,
        };
        out.push(relation);
        if relation.holds() != c.want {
            break;
        }
    }
    out
}

/// The first conjunct that fails at `x`, as a metric key.
fn failing(program: &[Conjunct], x: &[i128]) -> Option<CostKey> {
    let relations = run(program, x);
    let last = relations.last()?;
    let k = last.pc as usize;
    (last.holds() != program[k].want).then_some(CostKey {
        tx: 0,
        code: Address::ZERO,
        pc: k as u32,
        kind: CostKind::Jump,
        nth: 0,
        checked: false,
    })
}

/// The domain of the maze's inputs.
const TOP: i128 = (1i128 << 64) - 1;

fn in_domain(x: &[i128]) -> bool {
    x.iter().all(|v| (0..=TOP).contains(v))
}

/// Per input at `x`: the smallest and largest offsets inside the domain (`bounded`), or
/// far beyond anything a test reaches.
fn bounds(x: &[i128], bounded: bool) -> Vec<(Wide, Wide)> {
    let far = Wide::try_from(1i128 << 100).unwrap();
    x.iter()
        .map(|v| match bounded {
            true => (
                Wide::try_from(-v).unwrap(),
                Wide::try_from(TOP - v).unwrap(),
            ),
            false => (-far, far),
        })
        .collect()
}

fn moved(x: &[i128], offset: &[Wide]) -> Option<Vec<i128>> {
    x.iter()
        .zip(offset)
        .map(|(v, o)| v.checked_add(i128::try_from(*o).ok()?))
        .collect()
}

/// Joint searches, each on the first failing conjunct, from `x` until every conjunct holds;
/// the inputs that satisfy all, the searches and the runs taken. Inside the domain.
fn satisfy(
    program: &[Conjunct],
    x: Vec<i128>,
    searches: usize,
) -> Option<(Vec<i128>, usize, usize)> {
    satisfy_within(program, x, searches, true)
}

/// [`satisfy`], inside the domain (`bounded`) or over unbounded integers.
fn satisfy_within(
    program: &[Conjunct],
    mut x: Vec<i128>,
    searches: usize,
    bounded: bool,
) -> Option<(Vec<i128>, usize, usize)> {
    let mut runs = 0;
    for search_count in 0..searches {
        let Some(key) = failing(program, &x) else {
            return Some((x, search_count, runs));
        };
        let found = search::<()>(&key, &bounds(&x, bounded), |offset| {
            runs += 1;
            Ok(run(program, &moved(&x, offset).unwrap()))
        })
        .unwrap();
        let Search::Flipped(found) = found else {
            return None;
        };
        x = moved(&x, &found).unwrap();
        assert!(in_domain(&x) || !bounded);
    }
    failing(program, &x)
        .is_none()
        .then_some((x, searches, runs))
}

#[test]
fn coupled_equalities_and_an_inequality_are_satisfied_together() {
    // The shape: p2 == p3 * p3 && p1 == p4 * p3 && p1 >= p2 (as !(p1 < p2)).
    let program = [
        conjunct(CmpOp::Eq, true, |x| x[1], |x| x[2] * x[2]),
        conjunct(CmpOp::Eq, true, |x| x[0], |x| x[3] * x[2]),
        conjunct(CmpOp::Lt, false, |x| x[0], |x| x[1]),
    ];
    // p3 = 5 already squared into p2, p1 = p4 * p3 with p4 < p3: only the last fails.
    let start = vec![15, 25, 5, 3];
    assert_eq!(failing(&program, &start).unwrap().pc, 2);
    let (x, searches, _) = satisfy(&program, start, 1).expect("one search flips it");
    assert_eq!(searches, 1);
    assert!(
        x[0] >= x[1] && x[1] == x[2] * x[2] && x[0] == x[3] * x[2],
        "{x:?}"
    );
    // From nothing satisfied: a search per conjunct.
    let (x, _, _) = satisfy(&program, vec![7, 1000, 12, 90], 3).expect("three searches");
    assert!(
        x[0] >= x[1] && x[1] == x[2] * x[2] && x[0] == x[3] * x[2],
        "{x:?}"
    );
}

#[test]
fn the_secant_method_alone_cannot_here_a_joint_step_can() {
    // a + b == 100 && a - b == 10: moving one input to satisfy the second breaks the
    // first; the joint step moves both (a = 55, b = 45).
    let program = [
        conjunct(CmpOp::Eq, true, |x| x[0] + x[1], |_| 100),
        conjunct(CmpOp::Eq, true, |x| x[0] - x[1] + 1000, |_| 1010),
    ];
    let (x, searches, runs) = satisfy(&program, vec![30, 70], 1).expect("solved");
    assert_eq!(x, vec![55, 45]);
    assert_eq!(searches, 1);
    // The base run, a probe per input, one along the kept direction, the step's run.
    assert!(runs <= 5, "{runs} runs");
}

#[test]
fn equalities_without_unit_coefficients_get_integer_solutions() {
    // 4a + 6b == 2c + 10 && 3a == 9 + c (held first): integers exist (a = 4, c = 3, b = 0
    // among others) though no single input has coefficient one in the first.
    let program = [
        conjunct(CmpOp::Eq, true, |x| 3 * x[0], |x| 9 + x[2]),
        conjunct(CmpOp::Eq, true, |x| 4 * x[0] + 6 * x[1], |x| 2 * x[2] + 10),
    ];
    let (x, _, _) = satisfy(&program, vec![10, 10, 21], 1).expect("solved");
    assert_eq!(3 * x[0], 9 + x[2]);
    assert_eq!(4 * x[0] + 6 * x[1], 2 * x[2] + 10);
}

#[test]
fn a_comparison_no_input_moves_is_reported_independent() {
    let program = [conjunct(CmpOp::Eq, true, |_| 7, |_| 8)];
    let key = failing(&program, &[1, 2]).unwrap();
    let found = search::<()>(&key, &bounds(&[1, 2], true), |offset| {
        Ok(run(&program, &moved(&[1, 2], offset).unwrap()))
    });
    assert_eq!(found, Ok(Search::Independent));
}

#[test]
fn a_contradiction_is_given_up_without_a_wrong_answer() {
    let program = [
        conjunct(CmpOp::Eq, true, |x| x[0] + x[1], |_| 10),
        conjunct(CmpOp::Eq, true, |x| x[0] + x[1], |_| 11),
    ];
    assert_eq!(satisfy(&program, vec![3, 7], 3), None);
}

#[test]
fn steps_stay_inside_the_inputs_domain() {
    // a + b == 2^64 + 5 with a < 2^64, b < 2^64: both must move up, and a step moving one
    // alone past the domain's end is replaced by one that holds it at its largest value.
    let top = TOP;
    let program = [
        conjunct(CmpOp::Lt, true, |x| x[0], |_| 100),
        conjunct(CmpOp::Eq, true, |x| x[0] + x[1] + x[2], move |_| top + 50),
    ];
    let (x, _, _) = satisfy(&program, vec![10, 20, 30], 2).expect("solved");
    assert!(in_domain(&x) && x[0] < 100, "{x:?}");
    assert_eq!(x[0] + x[1] + x[2], top + 50);
}

#[test]
fn an_inequality_before_the_aim_is_kept_while_stepping() {
    // a > 1000 && a + b == 50_000: b alone suffices, and a step that also moved a below
    // 1000 would lose the path; the linear check holds a if it would.
    let program = [
        conjunct(CmpOp::Gt, true, |x| x[0], |_| 1000),
        conjunct(CmpOp::Eq, true, |x| 2 * x[0] + x[1], |_| 2100),
    ];
    let (x, _, _) = satisfy(&program, vec![1001, 5000], 2).expect("solved");
    assert!(x[0] > 1000 && 2 * x[0] + x[1] == 2100, "{x:?}");
}

#[test]
fn an_input_equal_to_its_bound_moves_with_the_call_that_stored_the_bound() {
    // A spender's last instalment (InstalmentToken): x = [amount, earlier instalment,
    // approved]. `amount <= approved - earlier` (as !(amount > allowed)), the remainder
    // spent exactly, and the amount above 1000. At 979 + 979 of 1958 the amount equals its
    // bound: moved up alone it leaves the path at the bound, and so does the earlier
    // instalment; moved down each keeps it and shows how the remainder moves, whose kernel
    // has the amount and the approval rise together.
    let program = [
        conjunct(CmpOp::Gt, false, |x| x[0], |x| x[2] - x[1]),
        conjunct(CmpOp::Eq, true, |x| x[2] - x[1] - x[0], |_| 0),
        conjunct(CmpOp::Gt, true, |x| x[0], |_| 1000),
    ];
    let start = vec![979, 979, 1958];
    assert_eq!(failing(&program, &start).unwrap().pc, 2);
    let (x, searches, runs) = satisfy(&program, start, 1).expect("one search flips it");
    assert_eq!(searches, 1);
    assert!(
        x[0] > 1000 && x[0] <= x[2] - x[1] && x[2] - x[1] == x[0],
        "{x:?}"
    );
    // The base run, two probes each for the inputs at their bound and one for the
    // approval, one for each of the two directions that keep the remainder, the step's.
    assert!(runs <= 9, "{runs} runs");
}

/// A spender's instalments from an owner who minted `minted` and approved `approved`:
/// the earlier ones (19, 102, 19: calls 0 to 2) each refuse more than what is left of the
/// allowance or the balance; the last (call 3, `x = [last, approved, minted]`) counts the
/// instalments that went through, checks its amount against what is left, spends the
/// remainder exactly and must pay more than 1000. Each call's relations carry its
/// transaction.
fn instalments(x: &[i128]) -> Vec<Relation> {
    let relation = |tx, pc, op, residual: i128| Relation {
        tx,
        code: Address::ZERO,
        pc,
        nth: 0,
        op,
        residual: Wide::try_from(residual).unwrap(),
    };
    let (last, approved, minted) = (x[0], x[1], x[2]);
    let (mut left, mut balance, mut made) = (approved, minted, 1);
    let mut out = vec![];
    for (tx, first) in [19, 102, 19].into_iter().enumerate() {
        let tx = tx as u32;
        out.push(relation(tx, 1, CmpOp::Gt, first - left));
        if first <= left {
            out.push(relation(tx, 2, CmpOp::Gt, first - balance));
            if first <= balance {
                (left, balance, made) = (left - first, balance - first, made + 1);
            }
        }
    }
    out.push(relation(3, 3, CmpOp::Lt, made - 4));
    let steps = [
        (CmpOp::Gt, last - left, false),
        (CmpOp::Gt, last - balance, false),
        (CmpOp::Eq, left - last, true),
        (CmpOp::Gt, last - 1000, true),
    ];
    if made == 4 {
        for (pc, (op, residual, want)) in (4..).zip(steps) {
            let relation = relation(3, pc, op, residual);
            out.push(relation);
            if relation.holds() != want {
                break;
            }
        }
    }
    out
}

#[test]
fn an_amount_past_a_stored_bound_moves_the_calls_that_stored_it() {
    // 2 left of 142 approved, 101 of 241 minted: the last instalment must exceed 1000,
    // so the approval and the mint grow with it, and the earlier instalments (whose
    // relations are on the path) still go through.
    let key = CostKey {
        tx: 3,
        code: Address::ZERO,
        pc: 7,
        kind: CostKind::Jump,
        nth: 0,
        checked: false,
    };
    let start = [2i128, 142, 241];
    assert_eq!(instalments(&start).last().unwrap().pc, 7);
    let found = search::<()>(&key, &bounds(&start, true), |offset| {
        Ok(instalments(&moved(&start, offset).unwrap()))
    });
    let Ok(Search::Flipped(offset)) = found else {
        panic!("{found:?}");
    };
    let x = moved(&start, &offset).unwrap();
    assert!(
        x[0] > 1000 && x[0] == x[1] - 140 && x[0] <= x[2] - 140,
        "{x:?}"
    );
}

#[test]
fn a_site_reached_through_another_comparison_has_no_change() {
    // The aim `x > 1000` at pc 7; a probe on which a conjunct before it failed reaches
    // pc 7 as `ISZERO` of the short-circuited result: not a change of the aim.
    let relation = |op, residual: i64| Relation {
        tx: 0,
        code: Address::ZERO,
        pc: 7,
        nth: 0,
        op,
        residual: Wide::try_from(residual).unwrap(),
    };
    let mut jacobian = Jacobian::new(&[relation(CmpOp::Gt, -21)], true, 1);
    jacobian.add(vec![Wide::ONE], 1, &[relation(CmpOp::IsZero, 0)]);
    assert_eq!(jacobian.change(0, &[Wide::ONE]), None);
    jacobian.add(vec![-Wide::ONE], 1, &[relation(CmpOp::Gt, -22)]);
    assert_eq!(jacobian.change(0, &[-Wide::ONE]), Some(-Wide::ONE));
}

#[test]
fn the_calls_that_feed_a_call_lend_it_their_inputs_nearest_first() {
    use crate::engine::input::TxInput;
    use crate::engine::surface::tests::ether_surface;
    use alloy_dyn_abi::DynSolValue;
    use alloy_primitives::U256;

    // ether_surface: 0 withdraw(uint256), 1 give(address), 2 receive() payable,
    // 4 mint(uint256,address[]).
    let surface = ether_surface();
    let uint = |v: u64| DynSolValue::Uint(U256::from(v), 256);
    let mint = TxInput::of(4, vec![uint(5), DynSolValue::Array(vec![])]);
    let give = TxInput::of(1, vec![DynSolValue::Address(Address::ZERO)]);
    let receive = TxInput::of(2, vec![]);
    let withdraw = TxInput::of(0, vec![uint(2)]);
    let sequence = Sequence {
        txs: vec![mint, give, receive, withdraw.clone()],
    };
    let own = Leaf::Arg {
        tx: 3,
        path: abi::LeafPath(vec![0]),
    };
    assert_eq!(
        leaves(&surface, &sequence, 3, |_| false),
        std::slice::from_ref(&own)
    );
    // Every call before feeds it: the receive's value, then the mint's amount (the give
    // has no integer input).
    assert_eq!(
        leaves(&surface, &sequence, 3, |_| true),
        [
            own.clone(),
            Leaf::Value { tx: 2 },
            Leaf::Arg {
                tx: 0,
                path: abi::LeafPath(vec![0]),
            },
        ]
    );
    // Only the mint writes what withdraw reads.
    assert_eq!(leaves(&surface, &sequence, 3, |f| f == 4).len(), 2);
    // At most MAX_LEAVES, the nearest calls first.
    let long = Sequence {
        txs: vec![withdraw; MAX_LEAVES + 3],
    };
    let moved = leaves(&surface, &long, MAX_LEAVES + 2, |_| true);
    assert_eq!(moved.len(), MAX_LEAVES);
    assert_eq!(
        moved.last(),
        Some(&Leaf::Arg {
            tx: 3,
            path: abi::LeafPath(vec![0]),
        })
    );
}

proptest! {
    /// Conjunctions of linear equalities with small coefficients that some integer point
    /// satisfies: over unbounded integers a joint search per conjunct satisfies them all,
    /// from anywhere (the held rows' integer kernel holds every solution). Inside a domain
    /// it is a search, not a decision procedure: finding a solution in a box is an integer
    /// program, which is the solver's part.
    #[test]
    fn feasible_linear_equalities_are_each_solved_by_one_search(
        rows in prop::collection::vec(prop::collection::vec(-9i128..10, 4), 1..4),
        witness in prop::collection::vec(0i128..1_000_000, 4),
        start in prop::collection::vec(0i128..1_000_000, 4),
    ) {
        let program: Vec<Conjunct> = rows
            .iter()
            .map(|row| {
                let (row, witness) = (row.clone(), witness.clone());
                let value: i128 = row.iter().zip(&witness).map(|(c, w)| c * w).sum();
                let offset = 10i128.pow(8);
                conjunct(
                    CmpOp::Eq,
                    true,
                    move |x| row.iter().zip(x).map(|(c, v)| c * v).sum::<i128>() + offset,
                    move |_| value + offset,
                )
            })
            .collect();
        let solved = satisfy_within(&program, start.clone(), rows.len(), false);
        let (x, _, _) = solved.expect("every conjunct solved");
        prop_assert!(failing(&program, &x).is_none());
    }
}
