//! Integer roots of a question's equalities, for the questions z3 gives up on (issue 43).
//!
//! The large mazes' conjunctions are linear equalities and equalities of products over
//! `uint64` words, built around one planted solution (`D + 7 * C == 7 * A + k1 && A + 5 * B
//! == k2 && D == C * B + k3 && ...`). Their solutions are near-unique, and z3's nonlinear
//! integer arithmetic answers `unknown` within its budget (even at a hundred times it, for
//! some); pinning a factor of a product to one guess makes them `unsat`. Algebra answers
//! many of them exactly: each equality in which a word occurs only linearly, with a
//! constant coefficient, eliminates that word (Gaussian elimination, over the rationals,
//! extended to equalities with products); an equality left in one word is a polynomial
//! whose integer roots within the word's type are found exactly (degree two at most: the
//! quadratic formula with an integer square root), each root tried in turn. When neither
//! applies (fewer equalities than words, or every word left in a product), each word, the
//! eliminated ones too, takes the values `0..SMALL_VALUES` in turn, smallest first, and the
//! equalities determine the rest: the planted words are often small in one factor. A
//! search tries [`MAX_TRIES`] values at most (about a second in release builds when none
//! fits, about what z3 spent before giving up). The words found are checked against every
//! condition of the question as the EVM computes it ([`PathCondition::values`]) before
//! they are proposed; a condition on a word they leave free is not checked here (the word
//! keeps its value in the sequence, as for a z3 model that leaves it out), and the run
//! still says whether the branch flipped.
//!
//! Terms are read as polynomials over the integers: `ADD`, `SUB`, `MUL`, shifts left and
//! divisions by constants, low-bit masks and sign extensions as the identity (exact for
//! the words the check accepts). What is not a polynomial (`OR`, `MOD`, a comparison as
//! a word) gives no equality, and is only checked.

use std::collections::{BTreeMap, BTreeSet};

use alloy_primitives::U256;
use num_bigint::{BigInt, Sign};
use num_rational::BigRational;
use num_traits::{Signed, Zero};

use crate::observe::symbolic::{BinaryOp, PathCondition, Term, TermId, UnaryOp};

/// Monomials of one polynomial, at most: a larger one is not worked with (substitutions
/// multiply them out).
const MAX_MONOMIALS: usize = 64;
/// The degree of a monomial, at most.
const MAX_DEGREE: usize = 4;
/// Values tried in one search, at most: roots of an equality in one word, and the small
/// values each word takes when the equalities do not determine the words.
const MAX_TRIES: usize = 1 << 15;
/// The small values a word takes: `0..SMALL_VALUES`.
const SMALL_VALUES: i64 = 1 << 14;

/// An argument word's index, a variable of the polynomials.
type Var = u32;

/// A polynomial over argument words with rational coefficients: each monomial (its words
/// in order, repeated by their power; the constant's is empty) with a coefficient that is
/// never zero.
#[derive(Debug, Clone, Default, PartialEq)]
struct Poly(BTreeMap<Vec<Var>, BigRational>);

impl Poly {
    fn constant(value: BigRational) -> Poly {
        let mut poly = Poly::default();
        if !value.is_zero() {
            poly.0.insert(Vec::new(), value);
        }
        poly
    }

    fn var(var: Var) -> Poly {
        Poly(BTreeMap::from([(vec![var], ratio(1))]))
    }

    /// `self + other`, `None` past [`MAX_MONOMIALS`].
    fn plus(&self, other: &Poly) -> Option<Poly> {
        let mut sum = self.clone();
        for (monomial, c) in &other.0 {
            sum.add_term(monomial.clone(), c.clone());
        }
        (sum.0.len() <= MAX_MONOMIALS).then_some(sum)
    }

    fn add_term(&mut self, monomial: Vec<Var>, c: BigRational) {
        let entry = self.0.entry(monomial).or_insert_with(BigRational::zero);
        *entry += c;
        if entry.is_zero() {
            self.0.retain(|_, c| !c.is_zero());
        }
    }

    fn scaled(&self, k: &BigRational) -> Poly {
        if k.is_zero() {
            return Poly::default();
        }
        Poly(self.0.iter().map(|(m, c)| (m.clone(), c * k)).collect())
    }

    fn minus(&self, other: &Poly) -> Option<Poly> {
        self.plus(&other.scaled(&ratio(-1)))
    }

    /// `self * other`, `None` past [`MAX_MONOMIALS`] or [`MAX_DEGREE`].
    fn times(&self, other: &Poly) -> Option<Poly> {
        let mut product = Poly::default();
        for (a, x) in &self.0 {
            for (b, y) in &other.0 {
                if a.len() + b.len() > MAX_DEGREE {
                    return None;
                }
                let mut monomial = [a.as_slice(), b.as_slice()].concat();
                monomial.sort_unstable();
                product.add_term(monomial, x * y);
            }
        }
        (product.0.len() <= MAX_MONOMIALS).then_some(product)
    }

    /// The constant, when that is all the polynomial is.
    fn as_constant(&self) -> Option<BigRational> {
        match self.0.iter().next() {
            None => Some(BigRational::zero()),
            Some((m, c)) if m.is_empty() && self.0.len() == 1 => Some(c.clone()),
            _ => None,
        }
    }

    fn degree(&self) -> usize {
        self.0.keys().map(Vec::len).max().unwrap_or(0)
    }

    fn vars(&self) -> BTreeSet<Var> {
        self.0.keys().flatten().copied().collect()
    }

    /// `var`'s coefficient when `var` occurs only on its own, to the first power.
    fn linear_coefficient(&self, var: Var) -> Option<BigRational> {
        let mut coefficient = None;
        for (monomial, c) in &self.0 {
            if monomial.as_slice() == [var] {
                coefficient = Some(c.clone());
            } else if monomial.contains(&var) {
                return None;
            }
        }
        coefficient
    }

    /// `self` with `by` in place of `var`; `None` past the limits.
    fn substitute(&self, var: Var, by: &Poly) -> Option<Poly> {
        let mut result = Poly::default();
        for (monomial, c) in &self.0 {
            let rest: Vec<Var> = monomial.iter().copied().filter(|&v| v != var).collect();
            let mut term = Poly(BTreeMap::from([(rest, c.clone())]));
            for _ in 0..monomial.len() - term.degree() {
                term = term.times(by)?;
            }
            result = result.plus(&term)?;
        }
        Some(result)
    }

    /// The value at `values`, `None` when a word it has is not among them.
    fn evaluate(&self, values: &BTreeMap<Var, BigRational>) -> Option<BigRational> {
        let mut sum = BigRational::zero();
        for (monomial, c) in &self.0 {
            let mut term = c.clone();
            for var in monomial {
                term *= values.get(var)?;
            }
            sum += term;
        }
        Some(sum)
    }

    /// The integer roots in `[0, max]` of a polynomial in `var` alone, of degree two at
    /// most (empty for a higher degree).
    fn integer_roots(&self, var: Var, max: &BigInt) -> Vec<BigInt> {
        let mut coefficients = [
            BigRational::zero(),
            BigRational::zero(),
            BigRational::zero(),
        ];
        for (monomial, c) in &self.0 {
            match coefficients.get_mut(monomial.len()) {
                Some(slot) if monomial.iter().all(|&v| v == var) => *slot = c.clone(),
                _ => return Vec::new(),
            }
        }
        // Over a common denominator: integers a x^2 + b x + c.
        let denominator = coefficients.iter().fold(BigInt::from(1), |l, c| {
            num_integer::lcm(l, c.denom().clone())
        });
        let [c, b, a] = coefficients.map(|k| (k * &denominator).to_integer());
        let quotient = |n: BigInt, d: &BigInt| (!d.is_zero() && (&n % d).is_zero()).then(|| n / d);
        let mut roots: Vec<BigInt> = if a.is_zero() {
            quotient(-c, &b).into_iter().collect()
        } else {
            let discriminant = &b * &b - BigInt::from(4) * &a * &c;
            if discriminant.is_negative() {
                return Vec::new();
            }
            let s = discriminant.sqrt();
            if &s * &s != discriminant {
                return Vec::new();
            }
            let two_a = BigInt::from(2) * &a;
            [-&b + &s, -&b - &s]
                .into_iter()
                .filter_map(|n| quotient(n, &two_a))
                .collect()
        };
        roots.dedup();
        roots.retain(|r| !r.is_negative() && r <= max);
        roots
    }
}

fn ratio(n: i64) -> BigRational {
    BigRational::from_integer(BigInt::from(n))
}

fn big(word: U256) -> BigInt {
    BigInt::from_bytes_be(Sign::Plus, &word.to_be_bytes::<32>())
}

/// The word an integer is, if it is one.
fn word(value: &BigRational) -> Option<U256> {
    if !value.is_integer() || value.is_negative() {
        return None;
    }
    let (_, bytes) = value.to_integer().to_bytes_be();
    U256::try_from_be_slice(&bytes)
}

/// The argument words (by head index) under which every condition `(term, truth)` of
/// `conditions` is as `truth` says, found from their equalities; the last condition is the
/// wanted branch's, and must hold. `arg_max(i)` is the largest word argument word `i` may
/// hold, `None` for words that may not be chosen. `None` when the equalities do not
/// determine such words (or none exist, or it is beyond the limits of this module).
pub(super) fn solve(
    path: &PathCondition,
    conditions: &[(TermId, bool)],
    arg_max: impl Fn(u32) -> Option<U256>,
) -> Option<Vec<(u32, U256)>> {
    let mut reader = Reader {
        path,
        arg_max: &arg_max,
        memo: BTreeMap::new(),
    };
    let equalities: Vec<Poly> = conditions
        .iter()
        .filter_map(|&(term, truth)| reader.equality(term, truth))
        .collect();
    if equalities.is_empty() {
        return None;
    }
    let last = conditions.iter().map(|&(term, _)| term).max()?;
    let (&(wanted, want), before) = conditions.split_last()?;
    let holds = |model: &BTreeMap<Var, U256>| {
        let values = path.values(last, |i| model.get(&i).copied());
        let value = |term: TermId| values.get(term as usize).copied().flatten();
        let goes = |v: U256, truth: bool| v.is_zero() != truth;
        value(wanted).is_some_and(|v| goes(v, want))
            && before
                .iter()
                .all(|&(term, truth)| value(term).is_none_or(|v| goes(v, truth)))
    };
    let mut search = Search {
        arg_max: &arg_max,
        tries_left: MAX_TRIES,
        enumerating: false,
        holds: &holds,
    };
    let model = search.run(equalities, Vec::new())?;
    Some(model.into_iter().collect())
}

/// Terms read as polynomials, each once.
struct Reader<'a, F> {
    path: &'a PathCondition,
    arg_max: &'a F,
    memo: BTreeMap<TermId, Option<Poly>>,
}

impl<F: Fn(u32) -> Option<U256>> Reader<'_, F> {
    /// The equality `p == 0` that the condition `term` being `truth` says, if it says one.
    fn equality(&mut self, term: TermId, truth: bool) -> Option<Poly> {
        match *self.path.terms.get(term as usize)? {
            Term::Unary(UnaryOp::IsZero, inner) => self.equality(inner, !truth),
            Term::Binary(BinaryOp::Eq, a, b) if truth => self.poly(a)?.minus(&self.poly(b)?),
            // A word is false when it is zero (solc compiles `a == b` to `SUB` too).
            _ if !truth => self.poly(term),
            _ => None,
        }
    }

    /// Term `id` as a polynomial, if it is one.
    fn poly(&mut self, id: TermId) -> Option<Poly> {
        if let Some(done) = self.memo.get(&id) {
            return done.clone();
        }
        let poly = self.read(*self.path.terms.get(id as usize)?);
        self.memo.insert(id, poly.clone());
        poly
    }

    fn read(&mut self, term: Term) -> Option<Poly> {
        let constant = |poly: &Poly| poly.as_constant().filter(|c| c.is_integer());
        match term {
            Term::Arg(i) => (self.arg_max)(i).map(|_| Poly::var(i)),
            Term::Const(value) => Some(Poly::constant(BigRational::from_integer(big(value)))),
            Term::Binary(op, a, b) => {
                let (a, b) = (self.poly(a)?, self.poly(b)?);
                match op {
                    BinaryOp::Add => a.plus(&b),
                    BinaryOp::Sub => a.minus(&b),
                    BinaryOp::Mul => a.times(&b),
                    BinaryOp::Div => {
                        let divisor = constant(&b).filter(|d| !d.is_zero())?;
                        Some(a.scaled(&divisor.recip()))
                    }
                    BinaryOp::Shl => {
                        let shift = u32::try_from(constant(&a)?.to_integer()).ok()?;
                        (shift < 256)
                            .then(|| b.scaled(&BigRational::from_integer(BigInt::from(1) << shift)))
                    }
                    // Masks of low bits (`uint64`'s cleanup) and sign extensions keep the
                    // words the check accepts.
                    BinaryOp::And => {
                        let (mask, other) = match (constant(&a), constant(&b)) {
                            (Some(mask), None) => (mask, b),
                            (None, Some(mask)) => (mask, a),
                            _ => return None,
                        };
                        let plus_one: BigInt = mask.to_integer() + 1;
                        (plus_one.magnitude().count_ones() == 1).then_some(other)
                    }
                    BinaryOp::SignExtend => Some(b),
                    _ => None,
                }
            }
            Term::Unary(..) | Term::Opaque => None,
        }
    }
}

/// One search for the words the equalities determine.
struct Search<'a, F, H> {
    arg_max: &'a F,
    tries_left: usize,
    /// Whether a word is taking small values already (one at a time, at most).
    enumerating: bool,
    /// Whether words found satisfy the question (checked on the EVM's terms).
    holds: &'a H,
}

impl<F, H> Search<'_, F, H>
where
    F: Fn(u32) -> Option<U256>,
    H: Fn(&BTreeMap<Var, U256>) -> bool,
{
    /// Words satisfying `equalities` (each `p == 0`) and the question, given the words
    /// `eliminated` so far (each equal to its polynomial over words eliminated after it).
    fn run(
        &mut self,
        equalities: Vec<Poly>,
        mut eliminated: Vec<(Var, Poly)>,
    ) -> Option<BTreeMap<Var, U256>> {
        let mut equalities: Vec<Poly> =
            equalities.into_iter().filter(|p| !p.0.is_empty()).collect();
        if equalities.iter().any(|p| p.as_constant().is_some()) {
            return None;
        }
        if equalities.is_empty() {
            return self.words(&eliminated);
        }
        // Lowest degree first: linear equalities before those with products.
        equalities.sort_by_key(|p| (p.degree(), p.0.len()));
        let linear = equalities.iter().enumerate().find_map(|(i, p)| {
            p.vars()
                .into_iter()
                .find_map(|v| p.linear_coefficient(v).map(|c| (i, v, c)))
        });
        if let Some((i, var, c)) = linear {
            // p == c * var + rest == 0: var == -rest / c.
            let p = equalities.swap_remove(i);
            let rest = p.minus(&Poly::var(var).scaled(&c))?;
            let by = rest.scaled(&-c.recip());
            let equalities = equalities
                .iter()
                .map(|q| q.substitute(var, &by))
                .collect::<Option<Vec<Poly>>>()?;
            eliminated.push((var, by));
            return self.run(equalities, eliminated);
        }
        // No word occurs linearly: an equality in one word is solved for its roots.
        let univariate = equalities.iter().find_map(|p| {
            let vars = p.vars();
            let only = *vars.first().filter(|_| vars.len() == 1)?;
            Some((p, only))
        });
        if let Some((p, var)) = univariate {
            let max = big((self.arg_max)(var)?);
            return p
                .integer_roots(var, &max)
                .into_iter()
                .find_map(|root| self.fix(&equalities, &eliminated, var, root));
        }
        // Fewer equalities than words, or words that occur only in products: each word in
        // turn, eliminated ones too, takes the small values, the equalities then
        // determining the others (the mazes' planted words are often small in one factor
        // of a product, not always in one left after elimination).
        if self.enumerating {
            return None;
        }
        self.enumerating = true;
        let mut words: Vec<(Var, Poly)> = equalities
            .iter()
            .flat_map(Poly::vars)
            .collect::<BTreeSet<Var>>()
            .into_iter()
            .map(|var| (var, Poly::var(var)))
            .collect();
        for (k, (var, _)) in eliminated.iter().enumerate() {
            // The word as the words not eliminated give it.
            let mut by = Some(eliminated[k].1.clone());
            for (later, expr) in &eliminated[k + 1..] {
                by = by.and_then(|by| by.substitute(*later, expr));
            }
            words.extend(by.map(|by| (*var, by)));
        }
        // The smallest values first, in every word.
        let found = (0..SMALL_VALUES).find_map(|v| {
            words.iter().find_map(|(_, word)| {
                self.tries_left = self.tries_left.checked_sub(1)?;
                let fixed = word.minus(&Poly::constant(ratio(v)))?;
                let with: Vec<Poly> = equalities.iter().cloned().chain([fixed]).collect();
                self.run(with, eliminated.clone())
            })
        });
        self.enumerating = false;
        found
    }

    /// [`Search::run`] with root `value` for `var`, if tries are left.
    fn fix(
        &mut self,
        equalities: &[Poly],
        eliminated: &[(Var, Poly)],
        var: Var,
        value: BigInt,
    ) -> Option<BTreeMap<Var, U256>> {
        self.tries_left = self.tries_left.checked_sub(1)?;
        let value = Poly::constant(BigRational::from_integer(value));
        let rest = equalities
            .iter()
            .map(|q| q.substitute(var, &value))
            .collect::<Option<Vec<Poly>>>()?;
        let mut eliminated = eliminated.to_vec();
        eliminated.push((var, value));
        self.run(rest, eliminated)
    }

    /// The words `eliminated` gives, back-substituted, if each is a word its type holds
    /// and together they satisfy the question.
    fn words(&self, eliminated: &[(Var, Poly)]) -> Option<BTreeMap<Var, U256>> {
        let mut values = BTreeMap::new();
        for (var, poly) in eliminated.iter().rev() {
            let value = poly.evaluate(&values)?;
            values.insert(*var, value);
        }
        let words = values
            .iter()
            .map(|(&var, value)| {
                let word =
                    word(value).filter(|w| (self.arg_max)(var).is_some_and(|max| *w <= max))?;
                Some((var, word))
            })
            .collect::<Option<BTreeMap<Var, U256>>>()?;
        (self.holds)(&words).then_some(words)
    }
}

#[cfg(test)]
mod tests;
