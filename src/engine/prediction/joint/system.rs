//! Integer linear algebra for joint prediction: solving `A x = b` over the integers and
//! the integer kernel of `A`, for the few (at most a dozen) inputs of one call.
//!
//! Both come from one reduction: unimodular column operations (extended-gcd steps, which
//! keep every integer solution an integer solution) bring `A` to column echelon form
//! `A U = W`. A solution of `W y = b` found by forward substitution, exactly divisible or
//! not at all, gives `x = U y`; the columns of `U` past the rank span every integer `x`
//! with `A x = 0`. Rational elimination would propose `x = 7/2` for `2x = 7`, which no
//! input can take, and round to an input that misses the equality it solved for.
//!
//! Arithmetic is checked on 1024-bit integers: a system whose reduction overflows is not
//! solved (`None`), which costs a prediction, never a wrong one.

use crate::engine::prediction::secant::Wide;

/// A matrix as rows.
pub(crate) type Matrix = Vec<Vec<Wide>>;

/// `A` reduced: `a · u = w`, `w` in column echelon form, `u` unimodular.
struct Echelon {
    w: Matrix,
    u: Matrix,
    /// Per row of `a`: the column of `w` that is its pivot, if it has one. Pivot columns
    /// increase with the row, and a row without one is zero from the columns of the
    /// pivots before it on.
    pivots: Vec<Option<usize>>,
    rank: usize,
}

/// An integer `x` with `a · x = b` (`a` has `n` columns), or `None` when there is none or
/// the arithmetic overflows. Of the solutions it picks the one the reduction gives
/// (changing, where it can, the columns whose coefficients are small, first among them
/// the ones on the left).
pub(crate) fn solve(a: &Matrix, b: &[Wide], n: usize) -> Option<Vec<Wide>> {
    let echelon = reduce(a, n)?;
    let mut y = vec![Wide::ZERO; n];
    for (r, row) in echelon.w.iter().enumerate() {
        let known = match echelon.pivots[r] {
            Some(p) => p,
            None => echelon.rank_before(r),
        };
        let mut sum = Wide::ZERO;
        for c in 0..known {
            sum = sum.checked_add(row[c].checked_mul(y[c])?)?;
        }
        let rest = b[r].checked_sub(sum)?;
        match echelon.pivots[r] {
            Some(p) => {
                let (quotient, remainder) = div_rem(rest, row[p])?;
                if !remainder.is_zero() {
                    return None;
                }
                y[p] = quotient;
            }
            None if !rest.is_zero() => return None,
            None => {}
        }
    }
    mul_vec(&echelon.u, &y)
}

/// A basis of the integer `x` with `a · x = 0` (`a` has `n` columns); `None` on overflow.
pub(crate) fn kernel(a: &Matrix, n: usize) -> Option<Vec<Vec<Wide>>> {
    let echelon = reduce(a, n)?;
    Some(
        (echelon.rank..n)
            .map(|c| echelon.u.iter().map(|row| row[c]).collect())
            .collect(),
    )
}

/// `a · x`; `None` on overflow.
pub(crate) fn mul_vec(a: &Matrix, x: &[Wide]) -> Option<Vec<Wide>> {
    a.iter().map(|row| dot(row, x)).collect()
}

/// `a · b`; `None` on overflow.
pub(crate) fn dot(a: &[Wide], b: &[Wide]) -> Option<Wide> {
    a.iter().zip(b).try_fold(Wide::ZERO, |sum, (x, y)| {
        sum.checked_add(x.checked_mul(*y)?)
    })
}

/// `Σ coefficients[k] · vectors[k]`, each vector of length `n`; `None` on overflow.
pub(crate) fn combination<'v>(
    vectors: impl IntoIterator<Item = &'v Vec<Wide>>,
    coefficients: &[Wide],
    n: usize,
) -> Option<Vec<Wide>> {
    let mut sum = vec![Wide::ZERO; n];
    for (v, k) in vectors.into_iter().zip(coefficients) {
        for (x, e) in sum.iter_mut().zip(v) {
            *x = x.checked_add(e.checked_mul(*k)?)?;
        }
    }
    Some(sum)
}

impl Echelon {
    /// The rank of the rows before row `r`: the columns their pivots took.
    fn rank_before(&self, r: usize) -> usize {
        self.pivots[..r]
            .iter()
            .rev()
            .find_map(|p| p.map(|p| p + 1))
            .unwrap_or(0)
    }
}

/// Column echelon form of `a` (with `n` columns) by unimodular column operations.
fn reduce(a: &Matrix, n: usize) -> Option<Echelon> {
    let mut w: Matrix = a.clone();
    let mut u: Matrix = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| if i == j { Wide::ONE } else { Wide::ZERO })
                .collect()
        })
        .collect();
    let mut pivots = Vec::with_capacity(a.len());
    let mut rank = 0;
    for r in 0..w.len() {
        // The smallest coefficient first: a unit pivot solves without division and leaves
        // the other columns alone.
        let smallest = (rank..n)
            .filter(|&c| !w[r][c].is_zero())
            .min_by_key(|&c| w[r][c].unsigned_abs());
        let Some(first) = smallest else {
            pivots.push(None);
            continue;
        };
        swap_columns(&mut w, &mut u, rank, first);
        for c in rank + 1..n {
            if !w[r][c].is_zero() {
                eliminate(&mut w, &mut u, r, rank, c)?;
            }
        }
        pivots.push(Some(rank));
        rank += 1;
    }
    Some(Echelon { w, u, pivots, rank })
}

/// Zeroes `w[r][c]` against the pivot column `p`: with `s·a + t·b = g` (`a`, `b` the
/// row's entries), column `p` becomes `s·p + t·c` (entry `g`) and column `c` becomes
/// `(b/g)·p - (a/g)·c` (entry 0); the 2x2 step has determinant -1.
fn eliminate(w: &mut Matrix, u: &mut Matrix, r: usize, p: usize, c: usize) -> Option<()> {
    let (a, b) = (w[r][p], w[r][c]);
    let (g, s, t) = extended_gcd(a, b)?;
    let (b_g, a_g) = (b.checked_div(g)?, a.checked_div(g)?);
    for m in [&mut *w, &mut *u] {
        for row in m.iter_mut() {
            let (x, y) = (row[p], row[c]);
            row[p] = s.checked_mul(x)?.checked_add(t.checked_mul(y)?)?;
            row[c] = b_g.checked_mul(x)?.checked_sub(a_g.checked_mul(y)?)?;
        }
    }
    Some(())
}

fn swap_columns(w: &mut Matrix, u: &mut Matrix, i: usize, j: usize) {
    for row in w.iter_mut().chain(u.iter_mut()) {
        row.swap(i, j);
    }
}

/// `(g, s, t)` with `g = gcd(a, b) > 0` and `s·a + t·b = g` (`a` non-zero); when `a`
/// divides `b`, `t = 0`, so that the pivot column is kept up to sign.
fn extended_gcd(a: Wide, b: Wide) -> Option<(Wide, Wide, Wide)> {
    let sign = |x: Wide| {
        if x.is_negative() {
            -Wide::ONE
        } else {
            Wide::ONE
        }
    };
    if div_rem(b, a)?.1.is_zero() {
        return Some((a.checked_abs()?, sign(a), Wide::ZERO));
    }
    let (mut old_r, mut r) = (a, b);
    let (mut old_s, mut s) = (Wide::ONE, Wide::ZERO);
    let (mut old_t, mut t) = (Wide::ZERO, Wide::ONE);
    while !r.is_zero() {
        let q = old_r.checked_div(r)?;
        (old_r, r) = (r, old_r.checked_sub(q.checked_mul(r)?)?);
        (old_s, s) = (s, old_s.checked_sub(q.checked_mul(s)?)?);
        (old_t, t) = (t, old_t.checked_sub(q.checked_mul(t)?)?);
    }
    let sign = sign(old_r);
    Some((
        old_r.checked_mul(sign)?,
        old_s.checked_mul(sign)?,
        old_t.checked_mul(sign)?,
    ))
}

/// Truncating division and its remainder; `None` for a zero divisor.
fn div_rem(num: Wide, den: Wide) -> Option<(Wide, Wide)> {
    let quotient = num.checked_div(den)?;
    Some((quotient, num.checked_sub(quotient.checked_mul(den)?)?))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn w(values: &[i64]) -> Vec<Wide> {
        values.iter().map(|&v| Wide::try_from(v).unwrap()).collect()
    }

    fn matrix(rows: &[&[i64]]) -> Matrix {
        rows.iter().map(|r| w(r)).collect()
    }

    #[test]
    fn a_unit_coefficient_solves_an_equation_by_changing_its_column_alone() {
        // 3a + b = 10: b is the unit column; a stays.
        let x = solve(&matrix(&[&[3, 1]]), &w(&[10]), 2).unwrap();
        assert_eq!(x, w(&[0, 10]));
    }

    #[test]
    fn an_equation_without_a_unit_coefficient_still_gets_an_integer_solution() {
        // 4a + 6b = 2: no column alone can, together they can (a = -1, b = 1 or others).
        let a = matrix(&[&[4, 6]]);
        let x = solve(&a, &w(&[2]), 2).unwrap();
        assert_eq!(mul_vec(&a, &x).unwrap(), w(&[2]));
        // 4a + 6b = 3 has no integer solution at all.
        assert_eq!(solve(&a, &w(&[3]), 2), None);
    }

    #[test]
    fn dependent_rows_are_solved_when_consistent_and_refused_when_not() {
        let a = matrix(&[&[1, 1, 0], &[2, 2, 0], &[0, 1, 1]]);
        let x = solve(&a, &w(&[3, 6, 1]), 3).unwrap();
        assert_eq!(mul_vec(&a, &x).unwrap(), w(&[3, 6, 1]));
        assert_eq!(solve(&a, &w(&[3, 7, 1]), 3), None);
    }

    #[test]
    fn the_kernel_keeps_every_row_at_zero() {
        // a + b - c = 0 and a - 2d = 0 over (a, b, c, d): a 2-dimensional kernel.
        let a = matrix(&[&[1, 1, -1, 0], &[1, 0, 0, -2]]);
        let basis = kernel(&a, 4).unwrap();
        assert_eq!(basis.len(), 2);
        for v in &basis {
            assert_eq!(mul_vec(&a, v).unwrap(), w(&[0, 0]));
        }
        // No rows: every unit vector.
        assert_eq!(
            kernel(&Vec::new(), 2).unwrap(),
            vec![w(&[1, 0]), w(&[0, 1])]
        );
    }

    proptest! {
        /// Any system built from a known integer solution is solved, by some integer
        /// solution; the kernel's vectors are independent solutions of the homogeneous
        /// system, as many as the columns minus the rank.
        #[test]
        fn solutions_and_kernels_are_exact(
            rows in prop::collection::vec(prop::collection::vec(-20i64..20, 4), 0..5),
            known in prop::collection::vec(-1000i64..1000, 4),
        ) {
            let a = matrix(&rows.iter().map(|r| &r[..]).collect::<Vec<_>>());
            let b = mul_vec(&a, &w(&known)).unwrap();
            let x = solve(&a, &b, 4).expect("a solution exists");
            prop_assert_eq!(mul_vec(&a, &x).unwrap(), b);
            let basis = kernel(&a, 4).unwrap();
            for v in &basis {
                prop_assert!(mul_vec(&a, v).unwrap().iter().all(|e| e.is_zero()));
            }
            let rank = reduce(&a, 4).unwrap().rank;
            prop_assert_eq!(basis.len(), 4 - rank);
        }

        /// A system with no integer solution is refused, never answered wrongly: whatever
        /// `solve` returns solves it.
        #[test]
        fn an_answer_is_always_a_solution(
            rows in prop::collection::vec(prop::collection::vec(-9i64..9, 3), 1..4),
            b in prop::collection::vec(-50i64..50, 3),
        ) {
            let a = matrix(&rows.iter().map(|r| &r[..]).collect::<Vec<_>>());
            let b = &w(&b)[..a.len()];
            if let Some(x) = solve(&a, b, 3) {
                prop_assert_eq!(mul_vec(&a, &x).unwrap(), b.to_vec());
            }
        }
    }
}
