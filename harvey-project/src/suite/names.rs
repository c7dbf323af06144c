//! The function names that say what a test contract's function is, by forge's and the
//! harness tools' conventions: forge invariants, Echidna/Medusa properties, and the hooks
//! harvey calls itself.

/// Functions of a property contract that harvey calls itself or that belong to forge-std,
/// never as fuzzed calls.
pub fn is_harness_hook(name: &str) -> bool {
    ["setUp", "afterInvariant", "IS_TEST", "failed"].contains(&name) || is_property(name)
}

/// Whether `name` is a forge invariant function's: `invariant*` or `statefulFuzz*`.
pub fn is_forge_invariant(name: &str) -> bool {
    name.starts_with("invariant") || name.starts_with("statefulFuzz")
}

/// Whether `name` is an Echidna/Medusa property's: `echidna_*` or `property_*`.
pub fn is_property(name: &str) -> bool {
    name.starts_with("echidna_") || name.starts_with("property_")
}
