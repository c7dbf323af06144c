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
