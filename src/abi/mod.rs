//! Typed ABI values for the fuzzer: generation and mutation for every ABI type, leaf paths
//! (which leaf of a call's arguments a mutation changed), simplification for shrinking, and
//! the dictionary of interesting constants, and the ranges a setup declares for integer
//! parameters. Knows nothing about corpus or energy.

mod bound;
mod callable;
mod dictionary;
mod generate;
mod mutate;
mod simplify;
mod word;

use alloy_dyn_abi::{DynSolType, DynSolValue};

pub(crate) use bound::Bound;
pub(crate) use callable::{Callable, callable, changes_state};
pub(crate) use dictionary::Dictionary;
pub(crate) use generate::{generate, redraw_uniform};
pub(crate) use mutate::{mutate, mutate_uint, mutate_where};
#[cfg(feature = "solver")]
pub(crate) use simplify::head_leaves;
pub(crate) use simplify::{
    Bisection, integer_leaves, magnitude, numeric_leaves, simplifications, with_magnitude,
};
pub(crate) use word::umax;

/// Elements a fixed array type may hold in total before the fuzzer refuses it.
const MAX_FIXED_ELEMENTS: usize = 256;
/// Nesting depth of arrays and tuples the fuzzer accepts.
const MAX_NESTING: usize = 8;

/// The path of one leaf inside a call's arguments: the argument's index, then component
/// indices inside tuples and arrays. A dynamic array, `bytes` or `string` is itself a leaf
/// when a mutation resized or replaced it as a whole.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct LeafPath(pub(crate) Vec<u32>);

/// Why values of `ty` cannot be fuzzed, or `None` when they can: every int/uint width,
/// address, bool, bytesN, bytes, string, fixed and dynamic arrays, and tuples can; function
/// pointers, huge fixed arrays and very deep nesting cannot.
pub(crate) fn unsupported(ty: &DynSolType) -> Option<String> {
    check_supported(ty, 0).err()
}

fn check_supported(ty: &DynSolType, depth: usize) -> Result<usize, String> {
    if depth > MAX_NESTING {
        return Err(format!("nested deeper than {MAX_NESTING} levels"));
    }
    // Returns the number of elements a value holds, to bound fixed arrays.
    match ty {
        DynSolType::Function => Err("function-pointer parameters are not supported".into()),
        DynSolType::FixedArray(inner, len) => {
            let total = check_supported(inner, depth + 1)?.saturating_mul(*len);
            if total > MAX_FIXED_ELEMENTS {
                Err(format!(
                    "a fixed array of {total} elements (at most {MAX_FIXED_ELEMENTS} are supported)"
                ))
            } else {
                Ok(total)
            }
        }
        DynSolType::Array(inner) => check_supported(inner, depth + 1).map(|_| 1),
        DynSolType::Tuple(items) => items
            .iter()
            .map(|item| check_supported(item, depth + 1))
            .sum(),
        _ => Ok(1),
    }
}

/// The leaf at `path` in `args`, if it exists.
pub(crate) fn leaf_at<'a>(args: &'a [DynSolValue], path: &LeafPath) -> Option<&'a DynSolValue> {
    let (first, rest) = path.0.split_first()?;
    let mut value = args.get(*first as usize)?;
    for &index in rest {
        value = components(value)?.get(index as usize)?;
    }
    Some(value)
}

/// Replaces the leaf at `path` with `value`; false when the path does not exist.
pub(crate) fn set_leaf(args: &mut [DynSolValue], path: &LeafPath, value: DynSolValue) -> bool {
    let Some((first, rest)) = path.0.split_first() else {
        return false;
    };
    let Some(mut slot) = args.get_mut(*first as usize) else {
        return false;
    };
    for &index in rest {
        match components_mut(slot).and_then(|items| items.get_mut(index as usize)) {
            Some(next) => slot = next,
            None => return false,
        }
    }
    *slot = value;
    true
}

/// The components of an array or tuple value.
fn components(value: &DynSolValue) -> Option<&[DynSolValue]> {
    match value {
        DynSolValue::Array(items) | DynSolValue::FixedArray(items) | DynSolValue::Tuple(items) => {
            Some(items)
        }
        _ => None,
    }
}

fn components_mut(value: &mut DynSolValue) -> Option<&mut Vec<DynSolValue>> {
    match value {
        DynSolValue::Array(items) | DynSolValue::FixedArray(items) | DynSolValue::Tuple(items) => {
            Some(items)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests;
