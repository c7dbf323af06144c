//! The `[profile.dev.package]` speed list `cargo harvey init` writes: harvey's hot path
//! built with `opt-level = 3` under `cargo test`. The list is harvey's own root Cargo.toml's,
//! which a test below holds it to (one list, checked, not two drifting copies).

/// The crates that run per EVM instruction and per transaction, optimised in the dev profile
/// (harvey's root Cargo.toml explains the choice and its measured cost).
pub(crate) const FAST_CRATES: &[&str] = &[
    "revm",
    "revm-bytecode",
    "revm-context",
    "revm-context-interface",
    "revm-database",
    "revm-database-interface",
    "revm-handler",
    "revm-inspector",
    "revm-interpreter",
    "revm-precompile",
    "revm-primitives",
    "revm-state",
    "ruint",
    "alloy-primitives",
    "alloy-dyn-abi",
    "alloy-sol-types",
    "alloy-json-abi",
    "keccak",
    "sha3",
    "hashbrown",
    "foldhash",
    "rand",
    "rand_core",
    "rand_chacha",
    "ppv-lite86",
    "bytes",
    "smallvec",
    "const-hex",
    "harvey",
    "harvey-project",
];

/// The `[profile.dev.package]` table, one `name = { opt-level = 3 }` line per crate.
pub(crate) fn table() -> String {
    let mut text = String::from("[profile.dev.package]\n");
    for name in FAST_CRATES {
        text.push_str(&format!("{name} = {{ opt-level = 3 }}\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `[profile.dev.package]` entries of harvey's root Cargo.toml, in order.
    fn root_list() -> Vec<(String, String)> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml");
        let text = std::fs::read_to_string(path).unwrap();
        let section = text
            .split("[profile.dev.package]\n")
            .nth(1)
            .expect("the root Cargo.toml has a [profile.dev.package] table");
        section
            .lines()
            .take_while(|line| !line.trim().is_empty() && !line.starts_with('['))
            .map(|line| {
                let (name, value) = line.split_once('=').unwrap();
                (name.trim().to_string(), value.trim().to_string())
            })
            .collect()
    }

    #[test]
    fn the_list_is_the_root_cargo_toml_s() {
        let root = root_list();
        let ours: Vec<(String, String)> = FAST_CRATES
            .iter()
            .map(|name| (name.to_string(), "{ opt-level = 3 }".to_string()))
            .collect();
        assert_eq!(
            ours, root,
            "cargo-harvey/src/profile.rs must list the root Cargo.toml's [profile.dev.package] crates, in its order"
        );
    }

    #[test]
    fn the_table_is_valid_toml_with_every_crate_at_opt_level_3() {
        let parsed: toml::Table = toml::from_str(&table()).unwrap();
        let packages = parsed["profile"]["dev"]["package"].as_table().unwrap();
        assert_eq!(packages.len(), FAST_CRATES.len());
        for name in FAST_CRATES {
            assert_eq!(packages[*name]["opt-level"].as_integer(), Some(3), "{name}");
        }
    }
}
