//! Simpler values for shrinking: each candidate has the same type and is strictly smaller in
//! a well-founded order (numbers toward zero, shorter strings and arrays, one component at a
//! time), so repeatedly taking a candidate always ends.

use alloy_dyn_abi::DynSolValue;
use alloy_primitives::{B256, I256, U256};

/// Candidates offered at most per value.
const MAX_CANDIDATES: usize = 16;

/// Simpler candidates for `value`, simplest first. Addresses are kept: they usually name a
/// sender or contract that matters, and no address is "simpler" than another.
pub(crate) fn simplifications(value: &DynSolValue) -> Vec<DynSolValue> {
    let mut out = match value {
        DynSolValue::Bool(true) => vec![DynSolValue::Bool(false)],
        DynSolValue::Uint(v, bits) => uint_candidates(*v)
            .into_iter()
            .map(|c| DynSolValue::Uint(c, *bits))
            .collect(),
        DynSolValue::Int(v, bits) => int_candidates(*v)
            .into_iter()
            .map(|c| DynSolValue::Int(c, *bits))
            .collect(),
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

/// 0, 1, v/2, v-1: all strictly below `v`, deduplicated.
fn uint_candidates(v: U256) -> Vec<U256> {
    let mut out: Vec<U256> = Vec::new();
    for c in [U256::ZERO, U256::ONE, v >> 1, v.saturating_sub(U256::ONE)] {
        if c < v && !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// Toward zero from either side: 0, ±1, v/2, v∓1, all strictly closer to zero.
fn int_candidates(v: I256) -> Vec<I256> {
    let magnitude = v.unsigned_abs();
    let sign = if v.is_negative() {
        I256::MINUS_ONE
    } else {
        I256::ONE
    };
    let mut out: Vec<I256> = Vec::new();
    let step = if v.is_negative() {
        v + I256::ONE
    } else {
        v - I256::ONE
    };
    for c in [
        I256::ZERO,
        sign,
        v / I256::try_from(2).expect("2 fits"),
        step,
    ] {
        if c.unsigned_abs() < magnitude && !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

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
