//! Inclusive ranges for integer leaves, as a setup declares them for a parameter
//! (`chain.bound(..)`, forge-std's `bound(x, lo, hi)`): mapping any value of the type into
//! the range the way forge-std does, and the range's simplest value for shrinking.

use std::fmt;

use alloy_dyn_abi::DynSolValue;
use alloy_primitives::{I256, U256};

/// The sign bit: flipping it orders two's-complement words like the signed numbers they
/// hold, so one unsigned algorithm serves `uint` and `int`.
const SIGN: U256 = U256::from_limbs([0, 0, 0, 1 << 63]);

/// An inclusive range `lo..=hi` for a `uint<N>` or `int<N>` leaf. Both ends lie in the
/// type's domain (the setup checks that), so every value the range admits is one of the
/// type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bound {
    /// The ends as order-preserving unsigned words (signed ones with the sign bit flipped).
    lo: U256,
    hi: U256,
    signed: bool,
}

impl Bound {
    /// `lo..=hi` for an unsigned leaf; `None` when `lo > hi`.
    pub(crate) fn uint(lo: U256, hi: U256) -> Option<Bound> {
        (lo <= hi).then_some(Bound {
            lo,
            hi,
            signed: false,
        })
    }

    /// `lo..=hi` for a signed leaf; `None` when `lo > hi`.
    pub(crate) fn int(lo: I256, hi: I256) -> Option<Bound> {
        (lo <= hi).then_some(Bound {
            lo: lo.into_raw() ^ SIGN,
            hi: hi.into_raw() ^ SIGN,
            signed: true,
        })
    }

    /// Whether the range is for a signed leaf.
    pub(crate) fn signed(&self) -> bool {
        self.signed
    }

    /// The ends as two's-complement words (`I256::from_raw` gives signed ones).
    pub(crate) fn raw_ends(&self) -> (U256, U256) {
        (self.raw(self.lo), self.raw(self.hi))
    }

    /// Whether `value` (an integer leaf) lies in the range; other leaves never do.
    pub(crate) fn contains(&self, value: &DynSolValue) -> bool {
        self.ordered(value)
            .is_some_and(|v| (self.lo..=self.hi).contains(&v))
    }

    /// Maps an integer leaf into the range as forge-std's `bound(x, lo, hi)` does: values
    /// inside stay (dictionary values keep their meaning), the four smallest and largest
    /// words map to the range's ends and their neighbours (boundaries stay boundaries), any
    /// other value wraps around the range. Other leaves are left alone.
    pub(crate) fn apply(&self, value: &mut DynSolValue) {
        let Some(x) = self.ordered(value) else {
            return;
        };
        let bounded = forge_bound(x, self.lo, self.hi);
        if bounded != x {
            let raw = self.raw(bounded);
            match value {
                DynSolValue::Uint(v, _) => *v = raw,
                DynSolValue::Int(v, _) => *v = I256::from_raw(raw),
                _ => {}
            }
        }
    }

    /// Simpler values than `value` inside the range, simplest first, each strictly closer
    /// to the range's simplest value: the value nearest zero (`lo` for unsigned ranges and
    /// for ranges above zero, `hi` for ranges below zero, else zero). Empty for a value at
    /// that point, outside the range, or not an integer.
    pub(crate) fn simplifications(&self, value: &DynSolValue) -> Vec<DynSolValue> {
        let Some(v) = self
            .ordered(value)
            .filter(|v| (self.lo..=self.hi).contains(v))
        else {
            return Vec::new();
        };
        let zero = if self.signed { SIGN } else { U256::ZERO };
        let target = zero.clamp(self.lo, self.hi);
        let mut out: Vec<U256> = Vec::new();
        let candidates = if v > target {
            let gap = v - target;
            [
                target,
                target + U256::ONE,
                target + (gap >> 1),
                v - U256::ONE,
            ]
        } else if v < target {
            let gap = target - v;
            [
                target,
                target - U256::ONE,
                target - (gap >> 1),
                v + U256::ONE,
            ]
        } else {
            return Vec::new();
        };
        for c in candidates {
            // Strictly between the target (inclusive) and v: closer, and inside the range.
            let closer = if v > target {
                c >= target && c < v
            } else {
                c <= target && c > v
            };
            if closer && !out.contains(&c) {
                out.push(c);
            }
        }
        out.into_iter()
            .map(|c| {
                let mut simpler = value.clone();
                let raw = self.raw(c);
                match &mut simpler {
                    DynSolValue::Uint(v, _) => *v = raw,
                    DynSolValue::Int(v, _) => *v = I256::from_raw(raw),
                    _ => {}
                }
                simpler
            })
            .collect()
    }

    /// `value`'s order-preserving word, when it is an integer of the range's signedness.
    fn ordered(&self, value: &DynSolValue) -> Option<U256> {
        match value {
            DynSolValue::Uint(v, _) if !self.signed => Some(*v),
            DynSolValue::Int(v, _) if self.signed => Some(v.into_raw() ^ SIGN),
            _ => None,
        }
    }

    /// The two's-complement word of an order-preserving one.
    fn raw(&self, ordered: U256) -> U256 {
        if self.signed { ordered ^ SIGN } else { ordered }
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (lo, hi) = self.raw_ends();
        if self.signed {
            write!(f, "{}..={}", I256::from_raw(lo), I256::from_raw(hi))
        } else {
            write!(f, "{lo}..={hi}")
        }
    }
}

/// forge-std's `_bound(uint256 x, uint256 min, uint256 max)` (StdUtils.sol).
fn forge_bound(x: U256, min: U256, max: U256) -> U256 {
    if x >= min && x <= max {
        return x;
    }
    // The size of the range, minus one (the full range has 2^256 values, which overflows).
    let span = max - min;
    let three = U256::from(3);
    if x <= three && span >= x {
        return min + x;
    }
    if x >= U256::MAX - three && span >= U256::MAX - x {
        return max - (U256::MAX - x);
    }
    // `size` is span + 1; x is outside the range, so span < 2^256 - 1 and it fits.
    let size = span + U256::ONE;
    if x > max {
        let rem = (x - max) % size;
        if rem.is_zero() {
            max
        } else {
            min + rem - U256::ONE
        }
    } else {
        let rem = (min - x) % size;
        if rem.is_zero() {
            min
        } else {
            max - rem + U256::ONE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uint(v: u64) -> DynSolValue {
        DynSolValue::Uint(U256::from(v), 256)
    }

    fn int(v: i64) -> DynSolValue {
        DynSolValue::Int(I256::try_from(v).unwrap(), 64)
    }

    #[test]
    fn values_map_into_the_range_like_forge_std() {
        let b = Bound::uint(U256::from(10), U256::from(20)).unwrap();
        let mapped = |v: U256| {
            let mut value = DynSolValue::Uint(v, 256);
            b.apply(&mut value);
            value.as_uint().unwrap().0
        };
        // Inside stays; 0..=3 map to lo..; the top four words map to ..hi.
        assert_eq!(mapped(U256::from(15)), U256::from(15));
        assert_eq!(mapped(U256::ZERO), U256::from(10));
        assert_eq!(mapped(U256::from(3)), U256::from(13));
        assert_eq!(mapped(U256::MAX), U256::from(20));
        assert_eq!(mapped(U256::MAX - U256::ONE), U256::from(19));
        // Above wraps from lo (forge-std: bound(21, 10, 20) == 10, bound(22, ..) == 11).
        assert_eq!(mapped(U256::from(21)), U256::from(10));
        assert_eq!(mapped(U256::from(22)), U256::from(11));
        // Below wraps from hi (bound(9, 10, 20) == 20, bound(5, ..) == 16).
        assert_eq!(mapped(U256::from(9)), U256::from(20));
        assert_eq!(mapped(U256::from(5)), U256::from(16));
        for v in [4u64, 7, 100, 1 << 40, u64::MAX] {
            assert!(b.contains(&DynSolValue::Uint(mapped(U256::from(v)), 256)));
        }
        // The full range maps nothing.
        let all = Bound::uint(U256::ZERO, U256::MAX).unwrap();
        let mut v = uint(12345);
        all.apply(&mut v);
        assert_eq!(v, uint(12345));
    }

    #[test]
    fn signed_ranges_order_like_numbers() {
        let b = Bound::int(I256::try_from(-5).unwrap(), I256::try_from(5).unwrap()).unwrap();
        assert!(b.contains(&int(-5)) && b.contains(&int(0)) && b.contains(&int(5)));
        assert!(!b.contains(&int(-6)) && !b.contains(&int(6)));
        assert!(
            !b.contains(&uint(1)),
            "a uint is not a value of an int range"
        );
        for v in [-1000i64, -6, 6, 77, i64::MIN, i64::MAX] {
            let mut value = int(v);
            b.apply(&mut value);
            assert!(b.contains(&value), "{v} mapped to {value:?}");
        }
        assert_eq!(b.to_string(), "-5..=5");
        assert!(Bound::int(I256::ONE, I256::ZERO).is_none());
    }

    #[test]
    fn simplifications_approach_the_simplest_value_inside_the_range() {
        let b = Bound::uint(U256::from(100), U256::from(1_000)).unwrap();
        assert_eq!(
            b.simplifications(&uint(900)),
            [uint(100), uint(101), uint(500), uint(899)]
        );
        assert!(b.simplifications(&uint(100)).is_empty());
        assert!(b.simplifications(&uint(5)).is_empty(), "outside the range");
        // A signed range around zero simplifies toward zero from both sides.
        let s = Bound::int(I256::try_from(-50).unwrap(), I256::try_from(50).unwrap()).unwrap();
        assert_eq!(
            s.simplifications(&int(-40)),
            [int(0), int(-1), int(-20), int(-39)]
        );
        assert_eq!(s.simplifications(&int(2)), [int(0), int(1)]);
        // Below zero, toward its top end.
        let neg = Bound::int(I256::try_from(-50).unwrap(), I256::try_from(-10).unwrap()).unwrap();
        assert_eq!(neg.simplifications(&int(-12)), [int(-10), int(-11)]);
        for c in neg.simplifications(&int(-50)) {
            assert!(neg.contains(&c));
        }
    }
}
