//! Simpler values for shrinking. Structural candidates ([`simplifications`]) have the same
//! type and are strictly smaller in a well-founded order (`false`, zero words, shorter
//! strings, bytes and arrays, zero numbers, one component at a time), so repeatedly taking a
//! candidate always ends. Numbers are shrunk further by a [`Bisection`] toward the smallest
//! magnitude that still fails: offering `0, 1, v/2, v-1` as plain candidates made a shrinker
//! that takes the first failing candidate halve down to within twice the failing threshold
//! and then count down by one (four runs per step), spending its whole budget and keeping
//! a 22-to-28-digit amount.

use alloy_dyn_abi::DynSolValue;
use alloy_primitives::{B256, I256, U256};

use super::LeafPath;

/// Candidates offered at most per value.
const MAX_CANDIDATES: usize = 16;

/// Simpler candidates for `value`, simplest first. Addresses are kept: they usually name a
/// sender or contract that matters, and no address is "simpler" than another. Numbers offer
/// only zero here; [`Bisection`] finds the smallest one that still fails.
pub(crate) fn simplifications(value: &DynSolValue) -> Vec<DynSolValue> {
    let mut out = match value {
        DynSolValue::Bool(true) => vec![DynSolValue::Bool(false)],
        DynSolValue::Uint(v, bits) if !v.is_zero() => std::iter::once(U256::ZERO)
            .chain(fewer_bits(*v))
            .map(|simpler| DynSolValue::Uint(simpler, *bits))
            .collect(),
        DynSolValue::Int(v, bits) if !v.is_zero() => vec![DynSolValue::Int(I256::ZERO, *bits)],
        DynSolValue::FixedBytes(word, size) if !word.is_zero() => {
            vec![DynSolValue::FixedBytes(B256::ZERO, *size)]
        }
        DynSolValue::Bytes(bytes) if !bytes.is_empty() => {
            shorter(bytes).into_iter().map(DynSolValue::Bytes).collect()
        }
        DynSolValue::String(s) if !s.is_empty() => shorter(s.as_bytes())
            .into_iter()
            .map(|b| DynSolValue::String(String::from_utf8_lossy(&b).into_owned()))
            .collect(),
        DynSolValue::Array(items) => {
            let mut out: Vec<DynSolValue> =
                shorter(items).into_iter().map(DynSolValue::Array).collect();
            out.extend(componentwise(items).into_iter().map(DynSolValue::Array));
            out
        }
        DynSolValue::FixedArray(items) => componentwise(items)
            .into_iter()
            .map(DynSolValue::FixedArray)
            .collect(),
        DynSolValue::Tuple(items) => componentwise(items)
            .into_iter()
            .map(DynSolValue::Tuple)
            .collect(),
        _ => Vec::new(),
    };
    out.truncate(MAX_CANDIDATES);
    out
}

/// `v` with one of its highest set bits cleared, the highest first (at most
/// [`CLEARED_BITS`] of them), when it has two or more: smaller numbers of fewer bits, which
/// bisection toward zero does not try. A bug that takes every `k · 2^80 - c` shrinks to
/// `2^80 - c` this way, where bisection stops at the first value below that fails no more.
fn fewer_bits(v: U256) -> Vec<U256> {
    if v.count_ones() < 2 {
        return Vec::new();
    }
    (0..256)
        .rev()
        .filter(|&bit| v.bit(bit))
        .take(CLEARED_BITS)
        .map(|bit| v ^ (U256::from(1) << bit))
        .collect()
}

/// Set bits [`fewer_bits`] offers to clear, at most.
const CLEARED_BITS: usize = 8;

/// Empty, then the first half, then all but the last element.
fn shorter<T: Clone>(items: &[T]) -> Vec<Vec<T>> {
    if items.is_empty() {
        return Vec::new();
    }
    let mut out = vec![Vec::new()];
    if items.len() > 2 {
        out.push(items[..items.len() / 2].to_vec());
    }
    if items.len() > 1 {
        out.push(items[..items.len() - 1].to_vec());
    }
    out
}

/// Copies of `items` with one component simplified.
fn componentwise(items: &[DynSolValue]) -> Vec<Vec<DynSolValue>> {
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        for simpler in simplifications(item) {
            if out.len() >= MAX_CANDIDATES {
                return out;
            }
            let mut copy = items.to_vec();
            copy[i] = simpler;
            out.push(copy);
        }
    }
    out
}

/// The paths of the nonzero integers in `args`, in order: the leaves a [`Bisection`]
/// shrinks.
pub(crate) fn numeric_leaves(args: &[DynSolValue]) -> Vec<LeafPath> {
    let mut leaves = integer_leaves(args);
    leaves.retain(|path| {
        super::leaf_at(args, path)
            .and_then(magnitude)
            .is_some_and(|m| !m.is_zero())
    });
    leaves
}

/// Walks `args` in order, depth first, handing `visit` each value with its path; `visit`
/// returns the items to walk into (a tuple's or an array's), or `None` for a leaf.
fn walk<'a>(
    args: &'a [DynSolValue],
    visit: &mut impl FnMut(&'a DynSolValue, &[u32]) -> Option<&'a [DynSolValue]>,
) {
    fn inner<'a>(
        items: &'a [DynSolValue],
        path: &mut Vec<u32>,
        visit: &mut impl FnMut(&'a DynSolValue, &[u32]) -> Option<&'a [DynSolValue]>,
    ) {
        for (i, item) in items.iter().enumerate() {
            path.push(i as u32);
            if let Some(inside) = visit(item, path) {
                inner(inside, path, visit);
            }
            path.pop();
        }
    }
    inner(args, &mut Vec::new(), visit);
}

/// The paths of the integers in `args`, in order, arrays and tuples walked into.
pub(crate) fn integer_leaves(args: &[DynSolValue]) -> Vec<LeafPath> {
    let mut out = Vec::new();
    walk(args, &mut |value, path| match value {
        DynSolValue::Uint(..) | DynSolValue::Int(..) => {
            out.push(LeafPath(path.to_vec()));
            None
        }
        DynSolValue::Array(items) | DynSolValue::FixedArray(items) | DynSolValue::Tuple(items) => {
            Some(items)
        }
        _ => None,
    });
    out
}

/// What each 32-byte word of the arguments' ABI head holds, in order: the path of the
/// integer or `bytesN` leaf encoded in it, or `None` (an address, a bool, the offset of a
/// dynamic value). Static tuples and fixed arrays are encoded in place, so their leaves
/// have words of their own.
#[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
pub(crate) fn head_leaves(args: &[DynSolValue]) -> Vec<Option<LeafPath>> {
    let mut out = Vec::new();
    walk(args, &mut |value, path| match value {
        DynSolValue::Uint(..) | DynSolValue::Int(..) | DynSolValue::FixedBytes(..) => {
            out.push(Some(LeafPath(path.to_vec())));
            None
        }
        DynSolValue::FixedArray(items) | DynSolValue::Tuple(items) if !value.is_dynamic() => {
            Some(items)
        }
        _ => {
            out.push(None);
            None
        }
    });
    out
}

/// The distance of an integer from zero; `None` for other values.
pub(crate) fn magnitude(value: &DynSolValue) -> Option<U256> {
    match value {
        DynSolValue::Uint(v, _) => Some(*v),
        DynSolValue::Int(v, _) => Some(v.unsigned_abs()),
        _ => None,
    }
}

/// `value` (an integer) with its magnitude replaced by `magnitude` and its type and sign
/// kept; `None` for other values or a magnitude not below the current one (so it always
/// fits the type).
pub(crate) fn with_magnitude(value: &DynSolValue, magnitude: U256) -> Option<DynSolValue> {
    match value {
        DynSolValue::Uint(v, bits) if magnitude < *v => Some(DynSolValue::Uint(magnitude, *bits)),
        DynSolValue::Int(v, bits) if magnitude < v.unsigned_abs() => {
            I256::checked_from_sign_and_abs(v.sign(), magnitude).map(|i| DynSolValue::Int(i, *bits))
        }
        _ => None,
    }
}

/// The search for the smallest magnitude at which a violation still shows, starting from a
/// failing one: 0 first (most numbers do not matter), then powers of two upward (1, 2, 4, …:
/// the smallest failing number is usually far below a random 256-bit one), and once one
/// fails or the next would not be below the smallest failing one, bisection between the
/// largest magnitude seen passing and the smallest seen failing. Every candidate lies
/// strictly below the smallest failing magnitude and above the largest passing one, so the
/// search ends: after about `2·log2(b)` tries for a boundary `b` (142 for 1000 ether), at
/// most 512 for a 256-bit number. When failing is monotonic in the number
/// (`amount > balance`) it finds the exact boundary; otherwise a failing magnitude at most
/// the start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bisection {
    /// The largest magnitude seen passing; `None` before any was.
    passing: Option<U256>,
    /// The smallest magnitude seen failing.
    failing: U256,
    /// Whether no probe has failed yet (powers of two are still being tried).
    galloping: bool,
}

impl Bisection {
    /// A search down from `failing`, a magnitude the violation shows with.
    pub(crate) fn new(failing: U256) -> Bisection {
        Bisection {
            passing: None,
            failing,
            galloping: true,
        }
    }

    /// The next magnitude to try, or `None` when [`Bisection::smallest`] is final.
    pub(crate) fn next(&self) -> Option<U256> {
        let Some(passing) = self.passing else {
            return (!self.failing.is_zero()).then_some(U256::ZERO);
        };
        if self.galloping {
            let probe = if passing.is_zero() {
                U256::ONE
            } else {
                passing.saturating_mul(U256::from(2))
            };
            if probe < self.failing {
                return Some(probe);
            }
        }
        let middle = passing + ((self.failing - passing) >> 1);
        (middle > passing).then_some(middle)
    }

    /// Records whether the violation showed with magnitude `tried`.
    pub(crate) fn record(&mut self, tried: U256, failed: bool) {
        if failed {
            self.failing = self.failing.min(tried);
            self.galloping = false;
        } else {
            self.passing = Some(self.passing.map_or(tried, |passing| passing.max(tried)));
        }
    }

    /// The smallest magnitude seen failing.
    pub(crate) fn smallest(&self) -> U256 {
        self.failing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a bisection against `fails`, returning the result and the number of tries.
    fn search(start: U256, fails: impl Fn(U256) -> bool) -> (U256, usize) {
        let mut bisection = Bisection::new(start);
        let mut tries = 0;
        while let Some(m) = bisection.next() {
            assert!(m < bisection.smallest(), "candidates go down");
            tries += 1;
            bisection.record(m, fails(m));
        }
        (bisection.smallest(), tries)
    }

    #[test]
    fn bisection_finds_the_exact_boundary_in_logarithmic_tries() {
        let threshold = U256::from(10).pow(U256::from(21));
        let (smallest, tries) = search(U256::MAX, |m| m > threshold);
        assert_eq!(smallest, threshold + U256::ONE);
        assert!(tries <= 145, "{tries} tries");
        // A small boundary costs only a few tries, however large the start.
        let (smallest, tries) = search(U256::MAX, |m| m > U256::from(100));
        assert_eq!(smallest, U256::from(101));
        assert!(tries <= 16, "{tries} tries");
        // A boundary right below the start: at most 512 tries for 256 bits.
        let (smallest, tries) = search(U256::MAX, |m| m == U256::MAX);
        assert_eq!(smallest, U256::MAX);
        assert!(tries <= 512, "{tries} tries");
        assert_eq!(search(U256::from(12_345), |_| true), (U256::ZERO, 1));
        assert_eq!(search(U256::from(12_345), |m| !m.is_zero()), (U256::ONE, 2));
        // Already the smallest: nothing below is found.
        assert_eq!(
            search(U256::from(7), |m| m >= U256::from(7)).0,
            U256::from(7)
        );
        // Not monotonic: still a failing magnitude, never above the start.
        let (smallest, _) = search(U256::from(1_000), |m| {
            m == U256::from(1_000) || m == U256::from(3)
        });
        assert_eq!(smallest, U256::from(1_000));
        assert_eq!(search(U256::ZERO, |_| true), (U256::ZERO, 0));
    }

    #[test]
    fn numbers_keep_their_type_and_sign() {
        let negative = DynSolValue::Int(I256::try_from(-300).unwrap(), 16);
        assert_eq!(magnitude(&negative), Some(U256::from(300)));
        assert_eq!(
            with_magnitude(&negative, U256::from(5)),
            Some(DynSolValue::Int(I256::try_from(-5).unwrap(), 16))
        );
        assert_eq!(with_magnitude(&negative, U256::from(300)), None);
        let min = DynSolValue::Int(I256::MIN, 256);
        assert_eq!(
            with_magnitude(&min, U256::from(1)),
            Some(DynSolValue::Int(I256::MINUS_ONE, 256))
        );
        assert_eq!(with_magnitude(&DynSolValue::Bool(true), U256::ZERO), None);
    }

    #[test]
    fn numeric_leaves_are_found_inside_arrays_and_tuples() {
        let args = [
            DynSolValue::Uint(U256::from(3), 256),
            DynSolValue::Uint(U256::ZERO, 8),
            DynSolValue::Tuple(vec![
                DynSolValue::Bool(true),
                DynSolValue::Array(vec![DynSolValue::Int(I256::MINUS_ONE, 8)]),
            ]),
        ];
        assert_eq!(
            numeric_leaves(&args),
            [LeafPath(vec![0]), LeafPath(vec![2, 1, 0])]
        );
    }
}
