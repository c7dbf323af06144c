//! The Rust types a `#[harvey::property]` takes as inputs, each with the Solidity type the
//! fuzzer generates for it and the conversion back from a generated value. alloy's
//! `SolValue` leaves out `u8` (a `Vec<u8>` would be ambiguous), which properties need, so
//! the mapping is harvey's: `Vec<u8>` is `uint8[]`, and `Bytes` is `bytes`.

use alloy_dyn_abi::DynSolValue;
use alloy_primitives::{Address, Bytes, FixedBytes, I256, U256};

/// A type a property's input can have.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a property's input",
    label = "not a type harvey generates",
    note = "inputs are Solidity values: `U256`, `I256`, `Address`, `bool`, `u8`..`u128`, `i8`..`i128`, `FixedBytes<N>`, `Bytes`, `String`, `Vec<T>`, `[T; N]` and tuples of them"
)]
pub trait Input: Sized {
    /// Its Solidity type (`uint256`, `address[]`, `(bool,bytes4)`).
    fn sol_type() -> String;
    /// `value`, generated for [`Input::sol_type`], as this type; `None` for a value of
    /// another type.
    fn from_value(value: &DynSolValue) -> Option<Self>;
}

impl Input for bool {
    fn sol_type() -> String {
        "bool".into()
    }
    fn from_value(value: &DynSolValue) -> Option<Self> {
        value.as_bool()
    }
}

impl Input for Address {
    fn sol_type() -> String {
        "address".into()
    }
    fn from_value(value: &DynSolValue) -> Option<Self> {
        value.as_address()
    }
}

impl Input for Bytes {
    fn sol_type() -> String {
        "bytes".into()
    }
    fn from_value(value: &DynSolValue) -> Option<Self> {
        value.as_bytes().map(Bytes::copy_from_slice)
    }
}

impl Input for String {
    fn sol_type() -> String {
        "string".into()
    }
    fn from_value(value: &DynSolValue) -> Option<Self> {
        value.as_str().map(str::to_string)
    }
}

impl<const N: usize> Input for FixedBytes<N> {
    fn sol_type() -> String {
        format!("bytes{N}")
    }
    fn from_value(value: &DynSolValue) -> Option<Self> {
        match value {
            DynSolValue::FixedBytes(word, size) if *size == N => {
                Some(FixedBytes::from_slice(&word[..N]))
            }
            _ => None,
        }
    }
}

/// Integers: unsigned ones as `DynSolValue::Uint` and `uint<bits>`, signed ones as `Int` and
/// `int<bits>`.
macro_rules! integers {
    ($variant:ident, $prefix:literal: $($ty:ty => $bits:literal),*) => {$(
        impl Input for $ty {
            fn sol_type() -> String {
                concat!($prefix, $bits).into()
            }
            fn from_value(value: &DynSolValue) -> Option<Self> {
                match value {
                    DynSolValue::$variant(v, $bits) => (*v).try_into().ok(),
                    _ => None,
                }
            }
        }
    )*};
}
integers!(Uint, "uint": u8 => 8, u16 => 16, u32 => 32, u64 => 64, u128 => 128, U256 => 256);
integers!(Int, "int": i8 => 8, i16 => 16, i32 => 32, i64 => 64, i128 => 128, I256 => 256);

impl<T: Input> Input for Vec<T> {
    fn sol_type() -> String {
        format!("{}[]", T::sol_type())
    }
    fn from_value(value: &DynSolValue) -> Option<Self> {
        match value {
            DynSolValue::Array(items) => items.iter().map(T::from_value).collect(),
            _ => None,
        }
    }
}

impl<T: Input, const N: usize> Input for [T; N] {
    fn sol_type() -> String {
        format!("{}[{N}]", T::sol_type())
    }
    fn from_value(value: &DynSolValue) -> Option<Self> {
        match value {
            DynSolValue::FixedArray(items) => {
                let items: Vec<T> = items.iter().map(T::from_value).collect::<Option<_>>()?;
                items.try_into().ok()
            }
            _ => None,
        }
    }
}

/// Tuples of inputs: `(a,b,..)`.
macro_rules! tuple {
    ($($name:ident $index:tt),+) => {
        impl<$($name: Input),+> Input for ($($name,)+) {
            fn sol_type() -> String {
                let parts: Vec<String> = vec![$($name::sol_type()),+];
                format!("({})", parts.join(","))
            }
            fn from_value(value: &DynSolValue) -> Option<Self> {
                match value {
                    DynSolValue::Tuple(items) if items.len() == [$($index),+].len() => {
                        Some(($($name::from_value(&items[$index])?,)+))
                    }
                    _ => None,
                }
            }
        }
    };
}
tuple!(A 0);
tuple!(A 0, B 1);
tuple!(A 0, B 1, C 2);
tuple!(A 0, B 1, C 2, D 3);
tuple!(A 0, B 1, C 2, D 3, E 4);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_take_their_rust_types_from_generated_values() {
        assert_eq!(U256::sol_type(), "uint256");
        assert_eq!(<Vec<Address>>::sol_type(), "address[]");
        assert_eq!(<(u8, bool)>::sol_type(), "(uint8,bool)");
        assert_eq!(<[i16; 3]>::sol_type(), "int16[3]");
        assert_eq!(<Vec<u8>>::sol_type(), "uint8[]");
        // Every Solidity type named parses, and its generated values convert back.
        for ty in [
            U256::sol_type(),
            <Vec<(u8, FixedBytes<2>)>>::sol_type(),
            <[String; 2]>::sol_type(),
        ] {
            assert!(alloy_dyn_abi::DynSolType::parse(&ty).is_ok(), "{ty}");
        }
        assert_eq!(
            Bytes::from_value(&DynSolValue::Bytes(vec![1, 2])),
            Some(Bytes::from(vec![1, 2]))
        );
        assert_eq!(
            <Vec<u8>>::from_value(&DynSolValue::Array(vec![DynSolValue::Uint(
                U256::from(7),
                8
            )])),
            Some(vec![7])
        );
        assert_eq!(
            <[i16; 1]>::from_value(&DynSolValue::FixedArray(vec![DynSolValue::Int(
                I256::MINUS_ONE,
                16
            )])),
            Some([-1])
        );
        let pair = DynSolValue::Tuple(vec![
            DynSolValue::Int(I256::MINUS_ONE, 256),
            DynSolValue::FixedBytes(FixedBytes::<32>::left_padding_from(&[0]), 2),
        ]);
        assert_eq!(
            <(I256, FixedBytes<2>)>::from_value(&pair),
            Some((I256::MINUS_ONE, FixedBytes::ZERO))
        );
        // Another type, another width, another length: no value.
        assert_eq!(u8::from_value(&DynSolValue::Uint(U256::from(1), 16)), None);
        assert_eq!(<Vec<u8>>::from_value(&DynSolValue::Bool(true)), None);
        assert_eq!(
            <[bool; 2]>::from_value(&DynSolValue::FixedArray(vec![DynSolValue::Bool(true)])),
            None
        );
    }
}
