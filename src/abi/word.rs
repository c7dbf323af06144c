//! Integer words in the domain of a Solidity integer type: masking to a width, sign
//! extension, and the boundary values fuzzers know to try.

use alloy_primitives::{I256, U256};

/// The largest value of a `bits`-wide unsigned integer.
pub(crate) fn umax(bits: usize) -> U256 {
    if bits >= 256 {
        U256::MAX
    } else {
        (U256::ONE << bits) - U256::ONE
    }
}

/// `word` truncated to `bits` (unsigned).
pub(super) fn to_uint(word: U256, bits: usize) -> U256 {
    word & umax(bits)
}

/// `word` truncated to `bits` and sign-extended: a value of `int<bits>`.
pub(super) fn to_int(word: U256, bits: usize) -> I256 {
    if bits >= 256 {
        return I256::from_raw(word);
    }
    let low = word & umax(bits);
    let negative = low.bit(bits - 1);
    I256::from_raw(if negative { low | !umax(bits) } else { low })
}

/// Boundary values of `uint<bits>`: 0, 1, 2, max, max-1, and every power of two below the
/// width with its neighbours; `pick` chooses one (any `usize` is valid).
pub(super) fn uint_boundary(bits: usize, pick: usize) -> U256 {
    let k = (pick / 4) % bits;
    let power = U256::ONE << k;
    match pick % 4 {
        0 => {
            let fixed = [
                U256::ZERO,
                U256::ONE,
                U256::from(2),
                umax(bits),
                umax(bits) - U256::ONE,
            ];
            fixed[(pick / 4) % fixed.len()]
        }
        1 => power,
        2 => to_uint(power + U256::ONE, bits),
        _ => power - U256::ONE,
    }
}

/// Boundary values of `int<bits>`: 0, ±1, min, min+1, max, max-1, and ±2^k.
pub(super) fn int_boundary(bits: usize, pick: usize) -> I256 {
    let max = I256::from_raw(umax(bits - 1));
    let min = -max - I256::ONE;
    let fixed = [
        I256::ZERO,
        I256::ONE,
        I256::MINUS_ONE,
        min,
        min + I256::ONE,
        max,
        max - I256::ONE,
    ];
    if pick % 2 == 0 {
        return fixed[(pick / 2) % fixed.len()];
    }
    let k = (pick / 2) % (bits - 1);
    let power = I256::from_raw(U256::ONE << k);
    if pick % 4 == 1 { power } else { -power }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_and_sign_extension() {
        assert_eq!(to_uint(U256::from(0x1ff), 8), U256::from(0xff));
        assert_eq!(to_int(U256::from(0xff), 8), I256::MINUS_ONE);
        assert_eq!(to_int(U256::from(0x7f), 8), I256::try_from(127).unwrap());
        assert_eq!(to_int(U256::from(0x80), 8), I256::try_from(-128).unwrap());
        assert_eq!(umax(256), U256::MAX);
    }

    #[test]
    fn boundaries_stay_in_range() {
        for bits in (8..=256).step_by(8) {
            for pick in 0..600 {
                assert!(uint_boundary(bits, pick) <= umax(bits));
                let v = int_boundary(bits, pick);
                assert_eq!(to_int(v.into_raw(), bits), v, "int{bits} pick {pick}");
            }
        }
    }
}
