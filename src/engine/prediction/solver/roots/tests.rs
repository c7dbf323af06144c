//! The solver's own roots against the EVM: systems of linear and product equalities over
//! `uint64` words, built around a planted solution as the large mazes' conjunctions are,
//! are solved, and every answer satisfies the whole question as the EVM computes it.

use alloy_primitives::U256;
use proptest::prelude::*;

use super::*;

/// A question under construction: terms over argument words `0..n` and its conditions.
struct Question {
    path: PathCondition,
    conditions: Vec<(TermId, bool)>,
}

impl Question {
    fn new(words: u32) -> Question {
        let mut path = PathCondition::default();
        path.terms.extend((0..words).map(Term::Arg));
        Question {
            path,
            conditions: Vec::new(),
        }
    }

    fn add(&mut self, term: Term) -> TermId {
        self.path.terms.push(term);
        (self.path.terms.len() - 1) as TermId
    }

    fn arg(&self, i: u32) -> TermId {
        2 + i
    }

    fn constant(&mut self, value: U256) -> TermId {
        self.add(Term::Const(value))
    }

    fn binary(&mut self, op: BinaryOp, a: TermId, b: TermId) -> TermId {
        self.add(Term::Binary(op, a, b))
    }

    /// `sum of k * word + constant` as solc computes it (constants first, as pushed).
    fn linear(&mut self, terms: &[(u64, u32)], constant: U256) -> TermId {
        let mut sum = self.constant(constant);
        for &(k, word) in terms {
            let k = self.constant(U256::from(k));
            let product = self.binary(BinaryOp::Mul, k, self.arg(word));
            sum = self.binary(BinaryOp::Add, product, sum);
        }
        sum
    }

    /// The condition `a == b` holds, as solc tests it: `ISZERO(SUB)` jumps.
    fn equal(&mut self, a: TermId, b: TermId) {
        let difference = self.binary(BinaryOp::Sub, a, b);
        let zero = self.add(Term::Unary(UnaryOp::IsZero, difference));
        self.conditions.push((zero, true));
    }

    /// The condition `a > b` holds.
    fn greater(&mut self, a: TermId, b: TermId) {
        let gt = self.binary(BinaryOp::Gt, a, b);
        self.conditions.push((gt, true));
    }

    fn solve(&self, bits: usize) -> Option<Vec<(u32, U256)>> {
        let max = (U256::ONE << bits) - U256::ONE;
        solve(&self.path, &self.conditions, |_| Some(max))
    }

    /// Whether every condition holds at `model`, as the EVM computes it.
    fn holds(&self, model: &[(u32, U256)]) -> bool {
        let last = self.path.terms.len() as TermId - 1;
        let word = |i: u32| model.iter().find(|(j, _)| *j == i).map(|(_, v)| *v);
        let values = self.path.values(last, word);
        self.conditions
            .iter()
            .all(|&(term, truth)| values[term as usize].is_some_and(|v| v.is_zero() != truth))
    }
}

/// The large mazes' shape (`LargeMaze1`, logged by `HARVEY_Z3_LOG`, on which z3 answered
/// `unknown`): three linear equalities and two of products over four `uint64` words.
fn maze_block(a: u64, b: u64, c: u64, d: u64) -> Question {
    let [a, b, c, d] = [a, b, c, d].map(U256::from);
    let mut q = Question::new(4);
    let (wa, wb, wc, wd) = (q.arg(0), q.arg(1), q.arg(2), q.arg(3));
    // D + 7C == 7A + k1
    let k1 = d + U256::from(7) * c - U256::from(7) * a;
    let left = q.linear(&[(1, 3), (7, 2)], U256::ZERO);
    let right = q.linear(&[(7, 0)], k1);
    q.equal(left, right);
    // A + 5B == k2
    let left = q.linear(&[(1, 0), (5, 1)], U256::ZERO);
    let k2 = q.constant(a + U256::from(5) * b);
    q.equal(left, k2);
    // D == C * B + k3
    let cb = q.binary(BinaryOp::Mul, wc, wb);
    let k3 = q.constant(d - c * b);
    let right = q.binary(BinaryOp::Add, cb, k3);
    q.equal(wd, right);
    // B + k5 == A * D
    let ad = q.binary(BinaryOp::Mul, wa, wd);
    let k5 = q.constant(a * d - b);
    let left = q.binary(BinaryOp::Add, wb, k5);
    q.equal(left, ad);
    // C + 6D == 4A + k4
    let left = q.linear(&[(1, 2), (6, 3)], U256::ZERO);
    let right = q.linear(&[(4, 0)], c + U256::from(6) * d - U256::from(4) * a);
    q.equal(left, right);
    // C > 4650
    let floor = q.constant(U256::from(4650));
    q.greater(wc, floor);
    q
}

#[test]
fn a_maze_block_z3_gave_up_on_is_solved() {
    // Words of the logged block's magnitudes: B > 381084, D = C * B + 47264290146518315,
    // A + 5 * B == 3077772125294270.
    let (b, c) = (381_085u64, 4_651u64);
    let d = c * b + 47_264_290_146_518_315;
    let a = 3_077_772_125_294_270 - 5 * b;
    let q = maze_block(a, b, c, d);
    let model = q.solve(64).expect("the equalities determine the words");
    assert!(q.holds(&model), "{model:?}");
}

#[test]
fn contradictory_equalities_have_no_answer() {
    // A + B == 10 and A + B == 11.
    let mut q = Question::new(2);
    for total in [10u64, 11] {
        let sum = q.linear(&[(1, 0), (1, 1)], U256::ZERO);
        let total = q.constant(U256::from(total));
        q.equal(sum, total);
    }
    assert_eq!(q.solve(64), None);
}

#[test]
fn an_answer_outside_the_words_type_is_refused() {
    // A * A == 90000: 300 is no uint8.
    let mut q = Question::new(1);
    let square = q.binary(BinaryOp::Mul, q.arg(0), q.arg(0));
    let target = q.constant(U256::from(90_000));
    q.equal(square, target);
    assert_eq!(q.solve(8), None);
    assert_eq!(q.solve(16), Some(vec![(0, U256::from(300))]));
}

#[test]
fn an_inequality_that_fails_at_the_roots_refuses_them() {
    // A * A == 49 has the root 7 (and -7, no word); then A > 7 fails.
    let mut q = Question::new(1);
    let square = q.binary(BinaryOp::Mul, q.arg(0), q.arg(0));
    let target = q.constant(U256::from(49));
    q.equal(square, target);
    let seven = q.constant(U256::from(7));
    q.greater(q.arg(0), seven);
    assert_eq!(q.solve(64), None);
}

proptest! {
    /// Planted systems of the maze's shape: one linear equality eliminates a word, a
    /// second relates two more, a product equality closes them. Every answer satisfies
    /// the question (an answer may be another solution than the planted one), and a
    /// question with a unique solution is answered.
    #[test]
    fn answers_satisfy_the_question(
        a in 1u64..(1 << 32),
        b in 1u64..(1 << 32),
        c in 1u64..(1 << 20),
        k in 1u64..10,
    ) {
        let [ua, ub, uc] = [a, b, c].map(U256::from);
        let mut q = Question::new(3);
        // A + k * B == const
        let left = q.linear(&[(1, 0), (k, 1)], U256::ZERO);
        let total = q.constant(ua + U256::from(k) * ub);
        q.equal(left, total);
        // B * C == const
        let product = q.binary(BinaryOp::Mul, q.arg(1), q.arg(2));
        let value = q.constant(ub * uc);
        q.equal(product, value);
        // C + A == const
        let sum = q.linear(&[(1, 2), (1, 0)], U256::ZERO);
        let value = q.constant(uc + ua);
        q.equal(sum, value);
        let model = q.solve(64);
        prop_assert!(model.is_some(), "the planted words are a solution");
        let model = model.unwrap_or_default();
        prop_assert!(q.holds(&model), "{:?}", model);
    }
}

/// `LargeMaze1`'s block z3 gave up on (logged by `HARVEY_Z3_LOG`): three equalities over
/// four words, which elimination leaves as one cubic in two; the planted `arg1` is small,
/// and it is eliminated first.
#[test]
fn a_word_small_in_one_factor_is_found_among_the_small_values() {
    let mut q = Question::new(4);
    let (a0, a1, a2, a3) = (q.arg(0), q.arg(1), q.arg(2), q.arg(3));
    let k = q.constant(U256::from(2438154870451659u64));
    let left = q.binary(BinaryOp::Add, k, a1);
    let right = q.binary(BinaryOp::Mul, a2, a3);
    let eq = q.binary(BinaryOp::Eq, left, right);
    q.conditions.push((eq, true));
    let k = q.constant(U256::from(185199206836u64));
    let left = q.binary(BinaryOp::Add, k, a2);
    let right = q.binary(BinaryOp::Mul, a3, a0);
    let eq = q.binary(BinaryOp::Eq, left, right);
    q.conditions.push((eq, true));
    let right = q.linear(&[(5, 1)], U256::from(314237));
    let eq = q.binary(BinaryOp::Eq, a3, right);
    q.conditions.push((eq, true));
    let model = q.solve(64).expect("arg1 = 3862 determines the others");
    assert!(q.holds(&model), "{model:?}");
}
