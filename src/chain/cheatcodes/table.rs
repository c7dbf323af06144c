//! The cheatcodes harvey implements, by signature as forge-std's `Vm` declares them, and the
//! signatures of every cheatcode the project's own `Vm` interface declares (so that one
//! harvey does not implement is reported by name).

use std::collections::HashMap;

use alloy_dyn_abi::DynSolType;
use alloy_primitives::{Selector, keccak256};

use crate::project::Artifacts;

/// A cheatcode harvey implements: its name and parameter types.
#[derive(Debug, Clone)]
pub(super) struct Known {
    pub(super) name: &'static str,
    pub(super) params: Vec<DynSolType>,
}

/// Cheatcodes that are not assertions, as `name(types)`.
const PLAIN: &[&str] = &[
    "warp(uint256)",
    "roll(uint256)",
    "fee(uint256)",
    "chainId(uint256)",
    "deal(address,uint256)",
    "label(address,string)",
    "getLabel(address)",
    "store(address,bytes32,bytes32)",
    "load(address,bytes32)",
    "etch(address,bytes)",
    "getNonce(address)",
    "setNonce(address,uint64)",
    "prank(address)",
    "prank(address,address)",
    "startPrank(address)",
    "startPrank(address,address)",
    "stopPrank()",
    "assume(bool)",
];

/// The value types forge's `assertEq`/`assertNotEq` take (also as arrays).
const EQ_TYPES: [&str; 7] = [
    "bool", "uint256", "int256", "address", "bytes32", "string", "bytes",
];

/// Every assertion signature forge-std 1.9's `Vm` declares, generated: each comes with and
/// without a trailing error string.
fn assertions() -> Vec<String> {
    let mut base: Vec<String> = vec!["assertTrue(bool)".into(), "assertFalse(bool)".into()];
    for name in ["assertEq", "assertNotEq"] {
        for ty in EQ_TYPES {
            base.push(format!("{name}({ty},{ty})"));
            base.push(format!("{name}({ty}[],{ty}[])"));
        }
        for ty in ["uint256", "int256"] {
            base.push(format!("{name}Decimal({ty},{ty},uint256)"));
        }
    }
    for name in ["assertLt", "assertGt", "assertLe", "assertGe"] {
        for ty in ["uint256", "int256"] {
            base.push(format!("{name}({ty},{ty})"));
            base.push(format!("{name}Decimal({ty},{ty},uint256)"));
        }
    }
    for name in ["assertApproxEqAbs", "assertApproxEqRel"] {
        for ty in ["uint256", "int256"] {
            base.push(format!("{name}({ty},{ty},uint256)"));
            base.push(format!("{name}Decimal({ty},{ty},uint256,uint256)"));
        }
    }
    let with_message = base
        .iter()
        .map(|sig| format!("{},string)", &sig[..sig.len() - 1]));
    let with_message: Vec<String> = with_message.collect();
    base.extend(with_message);
    base
}

/// The implemented cheatcodes by selector.
pub(super) fn known() -> HashMap<Selector, Known> {
    let mut table = HashMap::new();
    let signatures = PLAIN.iter().map(|s| s.to_string()).chain(assertions());
    for signature in signatures {
        let (name, params) = signature.split_once('(').unwrap_or((&signature, ")"));
        let params = &params[..params.len() - 1];
        let params: Vec<DynSolType> = if params.is_empty() {
            Vec::new()
        } else {
            params
                .split(',')
                .filter_map(|ty| DynSolType::parse(ty).ok())
                .collect()
        };
        // Handlers match on the name: keep its `'static` spelling.
        let Some(name) = static_name(name) else {
            continue;
        };
        let selector = Selector::from_slice(&keccak256(signature.as_bytes())[..4]);
        table.insert(selector, Known { name, params });
    }
    table
}

/// The `'static` spelling of a cheatcode name from [`PLAIN`] or [`assertions`].
fn static_name(name: &str) -> Option<&'static str> {
    const NAMES: &[&str] = &[
        "warp",
        "roll",
        "fee",
        "chainId",
        "deal",
        "label",
        "getLabel",
        "store",
        "load",
        "etch",
        "getNonce",
        "setNonce",
        "prank",
        "startPrank",
        "stopPrank",
        "assume",
        "assertTrue",
        "assertFalse",
        "assertEq",
        "assertNotEq",
        "assertEqDecimal",
        "assertNotEqDecimal",
        "assertLt",
        "assertGt",
        "assertLe",
        "assertGe",
        "assertLtDecimal",
        "assertGtDecimal",
        "assertLeDecimal",
        "assertGeDecimal",
        "assertApproxEqAbs",
        "assertApproxEqRel",
        "assertApproxEqAbsDecimal",
        "assertApproxEqRelDecimal",
    ];
    NAMES.iter().copied().find(|known| *known == name)
}

/// The signature of every function of the project's `Vm`/`VmSafe` interfaces (forge-std's,
/// or the user's own), by selector: what forge would run at the cheatcode address.
pub(super) fn forge_cheatcodes(artifacts: &Artifacts) -> HashMap<Selector, String> {
    artifacts
        .contracts()
        .filter(|c| c.name == "Vm" || c.name == "VmSafe")
        .flat_map(|c| c.abi.functions())
        .map(|f| (f.selector(), f.signature()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_holds_forge_std_selectors() {
        let table = known();
        let selector = |s: &str| Selector::from_slice(&keccak256(s.as_bytes())[..4]);
        // Selectors as forge-std 1.9's Vm.sol lists them.
        for (signature, hex) in [
            ("warp(uint256)", "e5d6bf02"),
            ("prank(address)", "ca669fa7"),
            ("deal(address,uint256)", "c88a5e6d"),
            ("assume(bool)", "4c63e562"),
            ("assertEq(uint256,uint256,string)", "88b44c85"),
        ] {
            assert_eq!(
                selector(signature).to_string(),
                format!("0x{hex}"),
                "{signature}"
            );
            assert!(table.contains_key(&selector(signature)), "{signature}");
        }
        let eq =
            &table[&selector("assertApproxEqRelDecimal(int256,int256,uint256,uint256,string)")];
        assert_eq!(eq.name, "assertApproxEqRelDecimal");
        assert_eq!(eq.params.len(), 5);
        assert!(table.values().all(|k| !k.name.is_empty()));
        // Every generated signature found its name.
        assert_eq!(table.len(), PLAIN.len() + assertions().len());
    }
}
