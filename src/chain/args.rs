//! Arguments of deployments, calls and views, one convention for all: a Rust tuple of plain
//! values (`(alice, U256::from(5), "memo")`), or runtime ABI values (`&[DynSolValue]`).
//! Each value becomes a [`DynSolValue`] and is then fitted to the parameter the ABI declares:
//! an integer fits any integer parameter that can hold its value (`5` or `5u8` for a
//! `uint256`, `-1i64` for an `int8`), so users need not spell Solidity's widths in Rust.
//! What does not fit is an [`Error::Abi`] naming the argument, its value and the parameter.

use alloy_dyn_abi::{DynSolType, DynSolValue, Specifier};
use alloy_json_abi::Param;
use alloy_primitives::{Address, B256, Bytes, FixedBytes, I256, U256};

use crate::{Error, Result};

/// One argument: a value that converts to a Solidity value.
///
/// Implemented for `bool`, every Rust integer (`u8`…`u128`, `i8`…`i128`, `usize`,
/// `isize`), [`U256`] and the other `alloy_primitives::Uint`s, [`I256`], [`Address`],
/// `String`/`&str` (`string`), [`Bytes`] (`bytes`), [`FixedBytes`] (`bytesN`), arrays and
/// vectors of arguments (`T[N]`, `T[]`; note that a `Vec<u8>` is a `uint8[]`, use [`Bytes`]
/// for `bytes`), tuples of arguments (Solidity tuples and structs), and [`DynSolValue`].
pub trait SolArg {
    /// The value as a Solidity value (integers at their Rust width; fitted to the
    /// parameter's width when encoded).
    fn to_sol_value(&self) -> DynSolValue;
}

/// The arguments of a call or constructor: a tuple of [`SolArg`]s (`()`, `(x,)`,
/// `(alice, U256::from(1), true)`), or runtime values (`&[DynSolValue]`,
/// `Vec<DynSolValue>`). A single value is a one-element tuple, as in Solidity's ABI (`(x,)`).
pub trait SolArgs {
    /// The arguments as Solidity values, in order.
    fn sol_values(&self) -> Vec<DynSolValue>;
}

impl<T: SolArg + ?Sized> SolArg for &T {
    fn to_sol_value(&self) -> DynSolValue {
        (**self).to_sol_value()
    }
}

impl SolArg for DynSolValue {
    fn to_sol_value(&self) -> DynSolValue {
        self.clone()
    }
}

impl SolArg for bool {
    fn to_sol_value(&self) -> DynSolValue {
        DynSolValue::Bool(*self)
    }
}

macro_rules! unsigned_args {
    ($($t:ty),*) => {$(
        impl SolArg for $t {
            fn to_sol_value(&self) -> DynSolValue {
                DynSolValue::Uint(U256::from(*self), <$t>::BITS as usize)
            }
        }
    )*};
}
unsigned_args!(u8, u16, u32, u64, u128, usize);

macro_rules! signed_args {
    ($($t:ty),*) => {$(
        impl SolArg for $t {
            fn to_sol_value(&self) -> DynSolValue {
                DynSolValue::Int(I256::try_from(*self as i128).unwrap_or(I256::ZERO), <$t>::BITS as usize)
            }
        }
    )*};
}
signed_args!(i8, i16, i32, i64, i128, isize);

impl<const BITS: usize, const LIMBS: usize> SolArg for alloy_primitives::Uint<BITS, LIMBS> {
    fn to_sol_value(&self) -> DynSolValue {
        // Every Solidity uint is at most 256 bits wide; a wider Rust value that does not fit
        // in 256 bits becomes the largest one (which then fits only a uint256 parameter).
        let value = U256::try_from_be_slice(&self.to_be_bytes_vec()).unwrap_or(U256::MAX);
        DynSolValue::Uint(value, BITS.min(256))
    }
}

impl SolArg for I256 {
    fn to_sol_value(&self) -> DynSolValue {
        DynSolValue::Int(*self, 256)
    }
}

impl SolArg for Address {
    fn to_sol_value(&self) -> DynSolValue {
        DynSolValue::Address(*self)
    }
}

impl SolArg for str {
    fn to_sol_value(&self) -> DynSolValue {
        DynSolValue::String(self.to_string())
    }
}

impl SolArg for String {
    fn to_sol_value(&self) -> DynSolValue {
        DynSolValue::String(self.clone())
    }
}

impl SolArg for Bytes {
    fn to_sol_value(&self) -> DynSolValue {
        DynSolValue::Bytes(self.to_vec())
    }
}

impl<const N: usize> SolArg for FixedBytes<N> {
    fn to_sol_value(&self) -> DynSolValue {
        let mut word = B256::ZERO;
        let n = N.min(32);
        word[..n].copy_from_slice(&self[..n]);
        DynSolValue::FixedBytes(word, N)
    }
}

impl<T: SolArg> SolArg for [T] {
    fn to_sol_value(&self) -> DynSolValue {
        DynSolValue::Array(self.iter().map(SolArg::to_sol_value).collect())
    }
}

impl<T: SolArg> SolArg for Vec<T> {
    fn to_sol_value(&self) -> DynSolValue {
        self.as_slice().to_sol_value()
    }
}

impl<T: SolArg, const N: usize> SolArg for [T; N] {
    fn to_sol_value(&self) -> DynSolValue {
        DynSolValue::FixedArray(self.iter().map(SolArg::to_sol_value).collect())
    }
}

impl SolArgs for [DynSolValue] {
    fn sol_values(&self) -> Vec<DynSolValue> {
        self.to_vec()
    }
}

impl SolArgs for Vec<DynSolValue> {
    fn sol_values(&self) -> Vec<DynSolValue> {
        self.clone()
    }
}

impl<const N: usize> SolArgs for [DynSolValue; N] {
    fn sol_values(&self) -> Vec<DynSolValue> {
        self.to_vec()
    }
}

impl<T: SolArgs + ?Sized> SolArgs for &T {
    fn sol_values(&self) -> Vec<DynSolValue> {
        (**self).sol_values()
    }
}

impl SolArgs for () {
    fn sol_values(&self) -> Vec<DynSolValue> {
        Vec::new()
    }
}

macro_rules! tuple_args {
    ($(($($name:ident),+)),*) => {$(
        impl<$($name: SolArg),+> SolArgs for ($($name,)+) {
            #[allow(non_snake_case)]
            fn sol_values(&self) -> Vec<DynSolValue> {
                let ($($name,)+) = self;
                vec![$($name.to_sol_value()),+]
            }
        }

        impl<$($name: SolArg),+> SolArg for ($($name,)+) {
            fn to_sol_value(&self) -> DynSolValue {
                DynSolValue::Tuple(self.sol_values())
            }
        }
    )*};
}
tuple_args!(
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, E),
    (A, B, C, D, E, F),
    (A, B, C, D, E, F, G),
    (A, B, C, D, E, F, G, H),
    (A, B, C, D, E, F, G, H, I),
    (A, B, C, D, E, F, G, H, I, J),
    (A, B, C, D, E, F, G, H, I, J, K),
    (A, B, C, D, E, F, G, H, I, J, K, L)
);

/// The parameter types of `params`; `what` names the function or constructor for errors.
pub(crate) fn param_types(params: &[Param], what: &str) -> Result<Vec<DynSolType>> {
    params
        .iter()
        .map(|p| {
            p.resolve()
                .map_err(|e| Error::Abi(format!("{what}: parameter `{}` ({}): {e}", p.name, p.ty)))
        })
        .collect()
}

/// `values` fitted to `types` and ABI-encoded (without a selector). `what` names the
/// function or constructor in errors, `shown` its parameter list (`(address,uint256)`).
pub(crate) fn encode(
    types: &[DynSolType],
    values: Vec<DynSolValue>,
    what: &dyn std::fmt::Display,
) -> Result<Vec<u8>> {
    // The common case, and the one invariants hit after every transaction: values that
    // already have their parameters' types are encoded as they are, without fitting copies.
    if values.len() == types.len() && values.iter().zip(types).all(|(v, t)| v.matches(t)) {
        if values.is_empty() {
            return Ok(Vec::new());
        }
        return Ok(DynSolValue::Tuple(values).abi_encode_params());
    }
    let shown = || {
        let names: Vec<String> = types
            .iter()
            .map(DynSolType::sol_type_name)
            .map(Into::into)
            .collect();
        format!("({})", names.join(","))
    };
    if values.len() != types.len() {
        let given: Vec<String> = values
            .iter()
            .map(|v| v.sol_type_name().map_or_else(|| "?".into(), Into::into))
            .collect();
        return Err(Error::Abi(format!(
            "{what} takes {}, but the arguments are ({})",
            shown(),
            given.join(",")
        )));
    }
    let mut fitted = Vec::with_capacity(values.len());
    for (i, (value, ty)) in values.into_iter().zip(types).enumerate() {
        // Kept for the error message only when the value does not fit.
        let Some(value) = fit(value.clone(), ty) else {
            return Err(Error::Abi(format!(
                "{what} takes {}: argument {} ({}) does not fit `{}`",
                shown(),
                i + 1,
                crate::chain::SolDisplay(&value),
                ty.sol_type_name()
            )));
        };
        fitted.push(value);
    }
    Ok(DynSolValue::Tuple(fitted).abi_encode_params())
}

/// `value` as a value of type `ty`, when it can be one without changing what it means:
/// integers move to any width and signedness that holds them, containers fit element by
/// element; anything else must already have the type.
fn fit(value: DynSolValue, ty: &DynSolType) -> Option<DynSolValue> {
    match (value, ty) {
        (DynSolValue::Uint(v, _), DynSolType::Uint(bits)) => {
            (v.bit_len() <= *bits).then_some(DynSolValue::Uint(v, *bits))
        }
        (DynSolValue::Uint(v, _), DynSolType::Int(bits)) => {
            (v.bit_len() < *bits).then(|| DynSolValue::Int(I256::from_raw(v), *bits))
        }
        (DynSolValue::Int(v, _), DynSolType::Int(bits)) => {
            signed_fits(v, *bits).then_some(DynSolValue::Int(v, *bits))
        }
        (DynSolValue::Int(v, _), DynSolType::Uint(bits)) => (!v.is_negative()
            && v.into_raw().bit_len() <= *bits)
            .then(|| DynSolValue::Uint(v.into_raw(), *bits)),
        (DynSolValue::Array(items), DynSolType::Array(inner)) => items
            .into_iter()
            .map(|item| fit(item, inner))
            .collect::<Option<_>>()
            .map(DynSolValue::Array),
        (
            DynSolValue::FixedArray(items) | DynSolValue::Array(items),
            DynSolType::FixedArray(inner, len),
        ) if items.len() == *len => items
            .into_iter()
            .map(|item| fit(item, inner))
            .collect::<Option<_>>()
            .map(DynSolValue::FixedArray),
        (DynSolValue::Tuple(items), DynSolType::Tuple(types)) if items.len() == types.len() => {
            items
                .into_iter()
                .zip(types)
                .map(|(item, ty)| fit(item, ty))
                .collect::<Option<_>>()
                .map(DynSolValue::Tuple)
        }
        (value, ty) => value.matches(ty).then_some(value),
    }
}

/// Whether signed `v` fits in `bits` bits (two's complement).
fn signed_fits(v: I256, bits: usize) -> bool {
    if bits >= 256 {
        return true;
    }
    let bound = I256::ONE.wrapping_shl(bits - 1);
    v >= -bound && v < bound
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types(text: &str) -> Vec<DynSolType> {
        match DynSolType::parse(text).unwrap() {
            DynSolType::Tuple(types) => types,
            other => vec![other],
        }
    }

    #[test]
    fn small_rust_integers_fit_wider_parameters() {
        let encoded = encode(&types("(uint256,int8)"), (5u8, -3i32).sol_values(), &"f").unwrap();
        let expected = DynSolValue::Tuple(vec![
            DynSolValue::Uint(U256::from(5), 256),
            DynSolValue::Int(I256::try_from(-3).unwrap(), 8),
        ])
        .abi_encode_params();
        assert_eq!(encoded, expected);
        // A plain literal is an i32 in Rust: fine for a uint when it is not negative.
        assert!(encode(&types("(uint256)"), (7,).sol_values(), &"f").is_ok());
    }

    #[test]
    fn values_that_do_not_fit_name_the_argument() {
        let err = encode(&types("(uint256)"), (-1,).sol_values(), &"`f(uint256)`")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("argument 1 (-1) does not fit `uint256`"),
            "{err}"
        );
        let err = encode(&types("(uint8)"), (300u16,).sol_values(), &"f").unwrap_err();
        assert!(err.to_string().contains("does not fit `uint8`"), "{err}");
        assert!(encode(&types("(int8)"), (128u16,).sol_values(), &"f").is_err());
        assert!(encode(&types("(int8)"), (-129i16,).sol_values(), &"f").is_err());
        assert!(encode(&types("(int8)"), (-128i16,).sol_values(), &"f").is_ok());
        let err = encode(&types("(address,uint256)"), (1u8,).sol_values(), &"f").unwrap_err();
        assert!(
            err.to_string()
                .ends_with("f takes (address,uint256), but the arguments are (uint8)"),
            "{err}"
        );
    }

    #[test]
    fn strings_arrays_and_tuples_convert() {
        let values = ("memo", vec![1u8, 2], [Address::ZERO; 2], (true, 9u64)).sol_values();
        let encoded = encode(
            &types("(string,uint256[],address[2],(bool,uint64))"),
            values,
            &"f",
        )
        .unwrap();
        let decoded = DynSolType::parse("(string,uint256[],address[2],(bool,uint64))")
            .unwrap()
            .abi_decode_params(&encoded)
            .unwrap();
        let DynSolValue::Tuple(items) = decoded else {
            panic!("a tuple")
        };
        assert_eq!(items[0], DynSolValue::String("memo".into()));
        assert_eq!(
            items[1],
            DynSolValue::Array(vec![
                DynSolValue::Uint(U256::from(1), 256),
                DynSolValue::Uint(U256::from(2), 256)
            ])
        );
    }

    #[test]
    fn runtime_values_are_arguments_too() {
        let values = [DynSolValue::Uint(U256::from(7), 256)];
        let borrowed: &[DynSolValue] = &values;
        assert_eq!(values.sol_values(), borrowed.sol_values());
        assert_eq!(values.sol_values(), (U256::from(7),).sol_values());
        let bytes = (Bytes::from(vec![1, 2]), FixedBytes::<4>::from([9; 4])).sol_values();
        assert!(encode(&types("(bytes,bytes4)"), bytes, &"f").is_ok());
    }
}
