//! `vm.envUint`/`envAddress`/`envBool`/`envString` and their `vm.envOr` forms: the process
//! environment, parsed as forge parses it (decimal or `0x` hex numbers, `true`/`false`,
//! hex addresses). A missing variable is forge's error unless a default is given.

use alloy_primitives::{Address, U256};

use super::fail;

/// A variable's value as a Solidity type.
pub(super) trait FromVar: Sized {
    /// The Solidity type's name, for errors.
    const TYPE: &'static str;
    fn parse(text: &str) -> Option<Self>;
}

impl FromVar for U256 {
    const TYPE: &'static str = "uint256";
    fn parse(text: &str) -> Option<U256> {
        let text = text.trim();
        match text.strip_prefix("0x") {
            Some(hex) => U256::from_str_radix(hex, 16).ok(),
            None => U256::from_str_radix(text, 10).ok(),
        }
    }
}

impl FromVar for Address {
    const TYPE: &'static str = "address";
    fn parse(text: &str) -> Option<Address> {
        text.trim().parse().ok()
    }
}

impl FromVar for bool {
    const TYPE: &'static str = "bool";
    fn parse(text: &str) -> Option<bool> {
        match text.trim().to_ascii_lowercase().as_str() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }
}

impl FromVar for String {
    const TYPE: &'static str = "string";
    fn parse(text: &str) -> Option<String> {
        Some(text.to_owned())
    }
}

/// Variable `name` as a `T`; a missing one is `default` when given, else forge's error.
pub(super) fn read<T: FromVar>(name: &str, default: Option<T>) -> std::result::Result<T, Vec<u8>> {
    read_from(name, std::env::var(name).ok(), default)
}

/// [`read`] over a value already looked up (so tests need not set process variables).
fn read_from<T: FromVar>(
    name: &str,
    value: Option<String>,
    default: Option<T>,
) -> std::result::Result<T, Vec<u8>> {
    match (value, default) {
        (Some(text), _) => T::parse(&text).ok_or_else(|| {
            fail(format!(
                "failed parsing ${name} as type `{}`: {text:?}",
                T::TYPE
            ))
        }),
        (None, Some(default)) => Ok(default),
        (None, None) => Err(fail(format!("environment variable {name:?} not found"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_sol_types::{Revert, SolError};

    fn message(error: Vec<u8>) -> String {
        Revert::abi_decode(&error).unwrap().reason
    }

    #[test]
    fn values_parse_as_forge_parses_them() {
        assert_eq!(
            read_from::<U256>("N", Some("0x10".into()), None),
            Ok(U256::from(16))
        );
        assert_eq!(
            read_from::<U256>("N", Some("42".into()), None),
            Ok(U256::from(42))
        );
        assert_eq!(read_from::<bool>("B", Some("TRUE".into()), None), Ok(true));
        assert_eq!(
            read_from::<Address>(
                "A",
                Some("0x000000000000000000000000000000000000dEaD".into()),
                None
            ),
            Ok(Address::with_last_byte(0xad) | Address::left_padding_from(&[0xde, 0xad]))
        );
        assert_eq!(
            read_from::<U256>("N", None, Some(U256::from(3))),
            Ok(U256::from(3))
        );
        assert_eq!(
            message(read_from::<U256>("N", None, None).unwrap_err()),
            "environment variable \"N\" not found"
        );
        assert_eq!(
            message(read_from::<bool>("B", Some("yes".into()), None).unwrap_err()),
            "failed parsing $B as type `bool`: \"yes\""
        );
    }
}
