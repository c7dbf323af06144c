//! Mutating typed values: one leaf of a call's arguments at a time, staying in the type's
//! domain and returning the leaf's path (input prediction pairs runs that differ in one leaf).

use alloy_dyn_abi::{DynSolType, DynSolValue};
use alloy_primitives::{I256, U256};
use rand::Rng;
use rand::rngs::StdRng;

use super::LeafPath;
use super::dictionary::Dictionary;
use super::generate::{self, MAX_ARRAY_LEN, MAX_BYTES_LEN, generate};
use super::word::{int_boundary, to_int, to_uint, uint_boundary};

/// Tries at producing a value different from the old one before settling for a bit flip.
const RETRIES: usize = 4;

/// Changes exactly one leaf of `args` (`types[i]` is `args[i]`'s type), chosen uniformly
/// among all leaves, and returns its path; `None` when there is no leaf (no arguments).
/// Dynamic arrays are leaves too (grown, shrunk or replaced as a whole).
pub(crate) fn mutate(
    args: &mut [DynSolValue],
    types: &[DynSolType],
    rng: &mut StdRng,
    dict: &Dictionary,
) -> Option<LeafPath> {
    mutate_where(args, types, |_| true, rng, dict)
}

/// [`mutate`] among the leaves of the arguments `allowed` admits (by index); `None` when
/// they have no leaf.
pub(crate) fn mutate_where(
    args: &mut [DynSolValue],
    types: &[DynSolType],
    allowed: impl Fn(usize) -> bool,
    rng: &mut StdRng,
    dict: &Dictionary,
) -> Option<LeafPath> {
    let mut leaves = Vec::new();
    for (index, (value, ty)) in args.iter().zip(types).enumerate() {
        if allowed(index) {
            collect_leaves(value, ty, &mut vec![index as u32], &mut leaves);
        }
    }
    if leaves.is_empty() {
        return None;
    }
    let (path, ty) = leaves.swap_remove(rng.random_range(0..leaves.len()));
    let slot = leaf_mut(args, &path)?;
    mutate_leaf(slot, &ty, rng, dict);
    Some(LeafPath(path))
}

/// Every leaf under `value` with its type: scalars, `bytes`/`string`, and dynamic arrays
/// (whose elements are leaves as well).
fn collect_leaves(
    value: &DynSolValue,
    ty: &DynSolType,
    path: &mut Vec<u32>,
    out: &mut Vec<(Vec<u32>, DynSolType)>,
) {
    let children: Vec<(&DynSolValue, &DynSolType)> = match (value, ty) {
        (DynSolValue::Array(items), DynSolType::Array(inner)) => {
            out.push((path.clone(), ty.clone()));
            items.iter().map(|item| (item, inner.as_ref())).collect()
        }
        (DynSolValue::FixedArray(items), DynSolType::FixedArray(inner, _)) => {
            items.iter().map(|item| (item, inner.as_ref())).collect()
        }
        (DynSolValue::Tuple(items), DynSolType::Tuple(types)) => items.iter().zip(types).collect(),
        _ => {
            out.push((path.clone(), ty.clone()));
            return;
        }
    };
    for (i, (item, item_ty)) in children.into_iter().enumerate() {
        path.push(i as u32);
        collect_leaves(item, item_ty, path, out);
        path.pop();
    }
}

fn leaf_mut<'a>(args: &'a mut [DynSolValue], path: &[u32]) -> Option<&'a mut DynSolValue> {
    let (first, rest) = path.split_first()?;
    let mut slot = args.get_mut(*first as usize)?;
    for &index in rest {
        slot = super::components_mut(slot)?.get_mut(index as usize)?;
    }
    Some(slot)
}

/// Changes `value` (of type `ty`) in place.
fn mutate_leaf(value: &mut DynSolValue, ty: &DynSolType, rng: &mut StdRng, dict: &Dictionary) {
    match value {
        DynSolValue::Bool(b) => *b = !*b,
        DynSolValue::Uint(v, bits) => *v = mutate_uint(*v, *bits, rng, dict),
        DynSolValue::Int(v, bits) => *v = mutate_int(*v, *bits, rng, dict),
        DynSolValue::Address(a) => {
            for _ in 0..RETRIES {
                let new = generate::address(rng, dict);
                if new != *a {
                    *a = new;
                    return;
                }
            }
            // A closed set of addresses may have no other one: then it stays.
            if !dict.addresses_closed() {
                a.0[19] ^= 1;
            }
        }
        DynSolValue::FixedBytes(word, size) => {
            if rng.random_bool(0.5) {
                let at = rng.random_range(0..*size);
                word.0[at] ^= 1 << rng.random_range(0..8);
            } else {
                let old = *word;
                *word = generate::fixed_bytes(*size, rng, dict);
                if *word == old {
                    word.0[0] ^= 0x80;
                }
            }
        }
        DynSolValue::Bytes(bytes) => mutate_bytes(bytes, rng, dict),
        DynSolValue::String(s) => {
            let old = std::mem::take(s);
            let mut raw = old.clone().into_bytes();
            mutate_bytes(&mut raw, rng, dict);
            // Keep it valid UTF-8 and printable: map every byte into ASCII.
            *s = raw
                .into_iter()
                .map(|b| char::from(0x20 + b % 0x5f))
                .collect();
            if *s == old {
                // The mapping folded the change away: change the length instead.
                if s.pop().is_none() {
                    s.push('a');
                }
            }
        }
        DynSolValue::Array(items) => {
            let DynSolType::Array(inner) = ty else {
                return;
            };
            resize_array(items, inner, rng, dict);
        }
        other => *other = generate(ty, rng, dict),
    }
}

/// Grows, shrinks or replaces a dynamic array, within [`MAX_ARRAY_LEN`].
fn resize_array(
    items: &mut Vec<DynSolValue>,
    inner: &DynSolType,
    rng: &mut StdRng,
    dict: &Dictionary,
) {
    match rng.random_range(0..3) {
        0 if items.len() < MAX_ARRAY_LEN => {
            let at = rng.random_range(0..=items.len());
            items.insert(at, generate(inner, rng, dict));
        }
        1 if !items.is_empty() => {
            items.remove(rng.random_range(0..items.len()));
        }
        _ if items.is_empty() => items.push(generate(inner, rng, dict)),
        _ => {
            // Duplicating an element finds "same value twice" checks.
            let from = rng.random_range(0..items.len());
            let to = rng.random_range(0..items.len());
            if from != to && items[from] != items[to] {
                items[to] = items[from].clone();
            } else {
                items.pop();
            }
        }
    }
}

/// Flips, inserts, removes or replaces bytes, within [`MAX_BYTES_LEN`].
fn mutate_bytes(bytes: &mut Vec<u8>, rng: &mut StdRng, dict: &Dictionary) {
    match rng.random_range(0..4) {
        0 if !bytes.is_empty() => {
            let at = rng.random_range(0..bytes.len());
            bytes[at] ^= 1 << rng.random_range(0..8);
        }
        1 if bytes.len() < MAX_BYTES_LEN => {
            let at = rng.random_range(0..=bytes.len());
            bytes.insert(at, rng.random());
        }
        2 if !bytes.is_empty() => {
            bytes.remove(rng.random_range(0..bytes.len()));
        }
        _ => {
            let old = std::mem::take(bytes);
            *bytes = generate::bytes(rng, dict);
            if *bytes == old {
                bytes.push(0);
            }
        }
    }
}

/// A different value of `uint<bits>` near or related to `value`: a bit flip, a small
/// step, a boundary, a dictionary word, a fresh value, or doubling/halving.
pub(crate) fn mutate_uint(value: U256, bits: usize, rng: &mut StdRng, dict: &Dictionary) -> U256 {
    for _ in 0..RETRIES {
        let new = to_uint(mutate_word(value, bits, false, rng, dict), bits);
        if new != value {
            return new;
        }
    }
    value ^ U256::ONE
}

/// [`mutate_uint`] for `int<bits>`, on the two's-complement word.
fn mutate_int(value: I256, bits: usize, rng: &mut StdRng, dict: &Dictionary) -> I256 {
    for _ in 0..RETRIES {
        let new = to_int(mutate_word(value.into_raw(), bits, true, rng, dict), bits);
        if new != value {
            return new;
        }
    }
    to_int(value.into_raw() ^ U256::ONE, bits)
}

/// One raw change of a word (the caller maps it back into the domain).
fn mutate_word(
    value: U256,
    bits: usize,
    signed: bool,
    rng: &mut StdRng,
    dict: &Dictionary,
) -> U256 {
    match rng.random_range(0..8) {
        0 => value ^ (U256::ONE << rng.random_range(0..bits)),
        1 => value.wrapping_add(U256::from(rng.random_range(1..=16u64))),
        2 => value.wrapping_sub(U256::from(rng.random_range(1..=16u64))),
        3 => {
            let pick = rng.random_range(0..usize::MAX);
            if signed {
                int_boundary(bits, pick).into_raw()
            } else {
                uint_boundary(bits, pick)
            }
        }
        4 | 5 => generate::word(bits, signed, rng, dict),
        6 => value << 1,
        _ if signed => (to_int(value, bits) / I256::try_from(2).expect("2 fits")).into_raw(),
        _ => value >> 1,
    }
}
