//! The ABI side of calls: return types (alloy `SolValue`s), function signatures resolved
//! against a contract's ABI, and the checks that turn a mismatch into an [`Error::Abi`] a
//! Solidity developer can act on. Arguments are [`super::args`]'.

use alloy_dyn_abi::DynSolType;
use alloy_json_abi::{Function, JsonAbi, Param};
use alloy_primitives::Selector;
use alloy_sol_types::{SolType, SolValue};

use crate::{Error, Result};

/// The Rust type a view's return data decodes into: one [`SolValue`] for a function that
/// returns one value (`U256`, `String`, `Address`, a `sol!` struct), a tuple for several
/// (`(U256, Address)`).
pub trait SolReturns: Sized {
    /// The returned Solidity types as a tuple, e.g. `(uint256)` or `(uint256,string)`.
    fn return_types() -> String;
    /// Decodes return data.
    fn abi_decode_returns(data: &[u8]) -> alloy_sol_types::Result<Self>;
}

impl<T> SolReturns for T
where
    T: SolValue + From<<T::SolType as SolType>::RustType>,
{
    fn return_types() -> String {
        let name = <T::SolType as SolType>::SOL_NAME;
        if is_rust_tuple::<T>() {
            name.to_string()
        } else {
            format!("({name})")
        }
    }

    fn abi_decode_returns(data: &[u8]) -> alloy_sol_types::Result<Self> {
        // Return data is the encoding of the *tuple* of return values. A single value is
        // decoded as a one-element tuple. A Rust tuple already is that tuple: wrapping it
        // in one more tuple only adds the offset word that a dynamic tuple needs.
        let decode = |bytes: &[u8]| {
            <(T::SolType,) as SolType>::abi_decode_params_validate(bytes).map(|(v,)| T::from(v))
        };
        if is_rust_tuple::<T>() && <T::SolType as SolType>::DYNAMIC {
            let mut wrapped = Vec::with_capacity(32 + data.len());
            wrapped.extend_from_slice(&alloy_primitives::U256::from(32).to_be_bytes::<32>());
            wrapped.extend_from_slice(data);
            decode(&wrapped)
        } else {
            decode(data)
        }
    }
}

/// Whether `T` is a Rust tuple (several return values) rather than one Solidity value.
/// Tuples are the only `SolValue`s whose Solidity name is wrapped in parentheses (an
/// array of tuples, `(uint256,bool)[]`, starts with one but ends with `]`).
fn is_rust_tuple<T: SolValue>() -> bool {
    let name = <T::SolType as SolType>::SOL_NAME;
    name.starts_with('(') && name.ends_with(')')
}

/// `(type1,type2)` for a parameter list, as in a canonical signature.
pub(crate) fn param_types(params: &[Param]) -> String {
    let types: Vec<_> = params.iter().map(|p| p.selector_type()).collect();
    format!("({})", types.join(","))
}

/// Whether Solidity types `given` (from a Rust type) fit `expected` (from an ABI). A name
/// that does not parse as a Solidity type comes from a `sol!` struct, whose name hides its
/// fields: it is given the benefit of the doubt (decoding still checks it).
pub(crate) fn types_fit(expected: &str, given: &str) -> bool {
    expected == given || DynSolType::parse(given).is_err()
}

/// `signature` as a function: `name(types)`, a full human-readable declaration
/// (`function f(uint256) returns (bool)`), or a 4-byte selector `0x12345678`. When the
/// target's ABI is known, the ABI's entry is returned (it knows the outputs and the state
/// mutability), and a function the ABI lacks is an error.
pub(crate) fn resolve_function(
    signature: &str,
    contract: Option<(&str, &JsonAbi)>,
) -> Result<Function> {
    let signature = signature.trim();
    if let Some(selector) = parse_selector(signature) {
        let Some((name, abi)) = contract else {
            return Err(Error::Abi(format!(
                "cannot call selector {signature}: the target is not a contract deployed by this chain, so its ABI is unknown; call it by signature, e.g. \"transfer(address,uint256)\""
            )));
        };
        return abi
            .functions()
            .find(|f| f.selector() == selector)
            .cloned()
            .ok_or_else(|| no_such_function(signature, name, abi));
    }
    let parsed = Function::parse(signature).map_err(|e| {
        Error::Abi(format!(
            "cannot parse function signature \"{signature}\" (expected e.g. \"withdraw(uint256)\"): {e}"
        ))
    })?;
    let Some((name, abi)) = contract else {
        return Ok(parsed);
    };
    let selector = parsed.selector();
    abi.functions()
        .find(|f| f.selector() == selector)
        .cloned()
        .ok_or_else(|| no_such_function(&parsed.signature(), name, abi))
}

fn parse_selector(s: &str) -> Option<Selector> {
    let hex = s.strip_prefix("0x")?;
    if hex.len() != 8 {
        return None;
    }
    let bytes = alloy_primitives::hex::decode(hex).ok()?;
    Some(Selector::from_slice(&bytes))
}

fn no_such_function(wanted: &str, contract: &str, abi: &JsonAbi) -> Error {
    let mut known: Vec<String> = abi.functions().map(|f| f.signature()).collect();
    known.sort();
    let known = if known.is_empty() {
        "it has no functions".to_string()
    } else {
        format!("its functions are: {}", known.join(", "))
    };
    Error::Abi(format!("{contract} has no function `{wanted}`; {known}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{Address, U256};

    fn vault_abi() -> JsonAbi {
        JsonAbi::parse([
            "function withdraw(uint256 amount)",
            "function totalDeposits() view returns (uint256)",
        ])
        .expect("parses")
    }

    #[test]
    fn returns_decode_single_static_dynamic_and_tuples() {
        let one = U256::from(5).abi_encode();
        assert_eq!(U256::abi_decode_returns(&one).unwrap(), U256::from(5));
        assert_eq!(U256::return_types(), "(uint256)");

        let s = ("hello".to_string(),).abi_encode_params();
        assert_eq!(String::abi_decode_returns(&s).unwrap(), "hello");

        let pair = (U256::from(1), Address::with_last_byte(9)).abi_encode_params();
        let decoded = <(U256, Address)>::abi_decode_returns(&pair).unwrap();
        assert_eq!(decoded, (U256::from(1), Address::with_last_byte(9)));
        assert_eq!(<(U256, Address)>::return_types(), "(uint256,address)");

        let mixed = (U256::from(2), "two".to_string()).abi_encode_params();
        let decoded = <(U256, String)>::abi_decode_returns(&mixed).unwrap();
        assert_eq!(decoded, (U256::from(2), "two".to_string()));

        assert!(Address::abi_decode_returns(&U256::MAX.abi_encode()).is_err());
    }

    #[test]
    fn type_fit() {
        assert!(types_fit("(uint256)", "(uint256)"));
        assert!(!types_fit("(uint256)", "(uint256,uint256)"));
        assert!(types_fit("((uint256,address))", "(MyStruct)"));
    }

    #[test]
    fn resolution_against_an_abi() {
        let abi = vault_abi();
        let f = resolve_function("totalDeposits()", Some(("Vault", &abi))).unwrap();
        assert_eq!(f.outputs.len(), 1, "the ABI's entry, with outputs");
        let by_selector = format!("0x{}", alloy_primitives::hex::encode(f.selector()));
        let g = resolve_function(&by_selector, Some(("Vault", &abi))).unwrap();
        assert_eq!(g.name, "totalDeposits");

        let err = resolve_function("deposit()", Some(("Vault", &abi))).unwrap_err();
        assert_eq!(
            err.to_string(),
            "ABI error: Vault has no function `deposit()`; its functions are: totalDeposits(), withdraw(uint256)"
        );
        let err = resolve_function("withdraw(uint256", None).unwrap_err();
        assert!(err.to_string().contains("cannot parse"), "{err}");
        assert!(resolve_function("0x12345678", None).is_err());
        let free = resolve_function("function f(uint8) returns (bool)", None).unwrap();
        assert_eq!(free.outputs.len(), 1);
    }
}
