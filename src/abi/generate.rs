//! Fresh random values of any ABI type, mixing boundaries, dictionary words, small numbers
//! and uniform randomness, always inside the type's domain.

use alloy_dyn_abi::{DynSolType, DynSolValue};
use alloy_primitives::{Address, B256, U256};
use rand::Rng;
use rand::rngs::StdRng;

use super::dictionary::Dictionary;
use super::word::{int_boundary, to_int, to_uint, uint_boundary};

/// Elements a generated dynamic array holds at most.
pub(super) const MAX_ARRAY_LEN: usize = 8;
/// Bytes a generated `bytes` or `string` holds at most.
pub(super) const MAX_BYTES_LEN: usize = 100;

/// Redraws `value` uniformly over its integer type's whole range; other values stay. forge
/// draws most integers that way, and a handler's `bound(x, lo, hi)` then spreads them
/// evenly over its range, where [`generate`]'s small numbers and boundaries gather at the
/// range's ends.
pub(crate) fn redraw_uniform(value: &mut DynSolValue, rng: &mut StdRng) {
    let mut uniform = || U256::from_be_bytes(rng.random::<[u8; 32]>());
    match value {
        DynSolValue::Uint(v, bits) => *v = to_uint(uniform(), *bits),
        DynSolValue::Int(v, bits) => *v = to_int(uniform(), *bits),
        _ => {}
    }
}

/// A fresh random value of type `ty`.
pub(crate) fn generate(ty: &DynSolType, rng: &mut StdRng, dict: &Dictionary) -> DynSolValue {
    match ty {
        DynSolType::Bool => DynSolValue::Bool(rng.random()),
        DynSolType::Uint(bits) => {
            DynSolValue::Uint(to_uint(word(*bits, false, rng, dict), *bits), *bits)
        }
        DynSolType::Int(bits) => {
            DynSolValue::Int(to_int(word(*bits, true, rng, dict), *bits), *bits)
        }
        DynSolType::Address => DynSolValue::Address(address(rng, dict)),
        DynSolType::FixedBytes(size) => {
            DynSolValue::FixedBytes(fixed_bytes(*size, rng, dict), *size)
        }
        DynSolType::Bytes => DynSolValue::Bytes(bytes(rng, dict)),
        DynSolType::String => DynSolValue::String(string(rng, dict)),
        DynSolType::Array(inner) => {
            let len = array_len(rng);
            DynSolValue::Array((0..len).map(|_| generate(inner, rng, dict)).collect())
        }
        DynSolType::FixedArray(inner, len) => {
            DynSolValue::FixedArray((0..*len).map(|_| generate(inner, rng, dict)).collect())
        }
        DynSolType::Tuple(items) => {
            DynSolValue::Tuple(items.iter().map(|item| generate(item, rng, dict)).collect())
        }
        // `unsupported` keeps function types away; a zero pointer keeps the types aligned.
        _ => DynSolValue::Uint(U256::ZERO, 256),
    }
}

/// A raw word for an integer of `bits` (the caller truncates it to the domain): 30%
/// boundaries, 30% dictionary words, 25% small numbers (half of them below 256), 15%
/// uniform.
pub(super) fn word(bits: usize, signed: bool, rng: &mut StdRng, dict: &Dictionary) -> U256 {
    let roll = rng.random_range(0..100);
    if roll < 30 || (roll < 60 && dict.words().is_empty()) {
        let pick = rng.random_range(0..usize::MAX);
        return if signed {
            int_boundary(bits, pick).into_raw()
        } else {
            uint_boundary(bits, pick)
        };
    }
    if roll < 60 {
        let w = dict.words()[rng.random_range(0..dict.words().len())];
        // Negated constants matter for signed comparisons (`x > -5`).
        return if signed && rng.random_bool(0.25) {
            w.wrapping_neg()
        } else {
            w
        };
    }
    if roll < 85 {
        // Small numbers: counts, amounts, indices. Half of them tiny (below 256).
        let limit = if rng.random_bool(0.5) {
            u64::from(u8::MAX)
        } else {
            u64::from(u16::MAX)
        };
        let small = U256::from(rng.random_range(0..=limit));
        return if signed && rng.random_bool(0.5) {
            small.wrapping_neg()
        } else {
            small
        };
    }
    U256::from_limbs(rng.random())
}

/// Mostly a known address (senders, deployed contracts), sometimes zero or arbitrary; only a
/// known one when the dictionary's addresses are closed.
pub(super) fn address(rng: &mut StdRng, dict: &Dictionary) -> Address {
    if dict.addresses_closed() {
        // Never empty: the setup refuses an empty list.
        let known = dict.addresses();
        return known
            .get(rng.random_range(0..known.len().max(1)))
            .copied()
            .unwrap_or_default();
    }
    let roll = rng.random_range(0..100);
    if roll < 75 && !dict.addresses().is_empty() {
        return dict.addresses()[rng.random_range(0..dict.addresses().len())];
    }
    if roll < 85 {
        return Address::ZERO;
    }
    if !dict.words().is_empty() && rng.random_bool(0.5) {
        let w = dict.words()[rng.random_range(0..dict.words().len())];
        return Address::from_word(B256::from(w));
    }
    Address::from(rng.random::<[u8; 20]>())
}

/// A `bytes<size>` word, left-aligned with zero padding (as the ABI requires).
pub(super) fn fixed_bytes(size: usize, rng: &mut StdRng, dict: &Dictionary) -> B256 {
    let mut out = [0u8; 32];
    match rng.random_range(0..3) {
        0 => {}
        1 if !dict.words().is_empty() => {
            let w = dict.words()[rng.random_range(0..dict.words().len())].to_be_bytes::<32>();
            // Constants of a bytesN comparison are pushed left-aligned; others right-aligned.
            let start = if w[..size].iter().any(|b| *b != 0) {
                0
            } else {
                32 - size
            };
            out[..size].copy_from_slice(&w[start..start + size]);
        }
        _ => rng.fill(&mut out[..size]),
    }
    B256::from(out)
}

/// Mostly short byte strings: random bytes or a dictionary word.
pub(super) fn bytes(rng: &mut StdRng, dict: &Dictionary) -> Vec<u8> {
    if !dict.words().is_empty() && rng.random_bool(0.2) {
        let w = dict.words()[rng.random_range(0..dict.words().len())];
        return w.to_be_bytes::<32>().to_vec();
    }
    let len = byte_len(rng);
    let mut out = vec![0u8; len];
    rng.fill(&mut out[..]);
    out
}

/// Mostly short printable strings; sometimes a dictionary word in decimal.
pub(super) fn string(rng: &mut StdRng, dict: &Dictionary) -> String {
    if !dict.words().is_empty() && rng.random_bool(0.1) {
        return dict.words()[rng.random_range(0..dict.words().len())].to_string();
    }
    let len = byte_len(rng);
    (0..len)
        .map(|_| char::from(rng.random_range(0x20u8..0x7f)))
        .collect()
}

/// Mostly 0..=32, sometimes up to [`MAX_BYTES_LEN`].
fn byte_len(rng: &mut StdRng) -> usize {
    if rng.random_bool(0.9) {
        rng.random_range(0..=32)
    } else {
        rng.random_range(0..=MAX_BYTES_LEN)
    }
}

/// Mostly 0..=4 elements, at most [`MAX_ARRAY_LEN`].
pub(super) fn array_len(rng: &mut StdRng) -> usize {
    if rng.random_bool(0.85) {
        rng.random_range(0..=4)
    } else {
        rng.random_range(0..=MAX_ARRAY_LEN)
    }
}
