//! Where a project's Solidity lives and how to compile it: `foundry.toml` when there is one,
//! otherwise harvey's convention (`contracts/`).
//!
//! What is compiled: every `.sol` file under foundry.toml `src` (default `src/`) and `test`
//! (default `test/`), with their imports, minus files under `script` (default `script/`) and
//! files matching a `skip` glob. Scripts are left out on purpose: a campaign deploys sources
//! and test helpers (mocks, handlers), never scripts, and compiling less keeps solcjs within
//! its memory on large repositories. `HARVEY_SKIP` adds globs (comma-separated) to `skip`, to
//! narrow a compile further (for example `HARVEY_SKIP="test/fork/**,*.t.sol"`).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::project::env::Environment;
use crate::project::remappings::{self, Origin};

/// How a project is compiled: its layout, remappings, compiler choice and solc settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectConfig {
    /// The project root (normally the crate's `CARGO_MANIFEST_DIR`).
    pub root: PathBuf,
    /// The directory holding the contracts (foundry.toml `src`; default `src/` with a
    /// foundry.toml, `contracts/` without).
    pub sources: PathBuf,
    /// The directory holding tests and their helpers (foundry.toml `test`; default `test/`
    /// with a foundry.toml, none without). Compiled too, when it exists: mocks and handlers
    /// live there.
    pub tests: Option<PathBuf>,
    /// The scripts directory (foundry.toml `script`; default `script/`), never compiled even
    /// where it lies inside `sources` or `tests`.
    pub scripts: PathBuf,
    /// Globs of files not to compile: foundry.toml `skip`, then `HARVEY_SKIP`'s
    /// comma-separated globs. A glob is matched against the path relative to the root
    /// (`test/fork/**`), and one without a `/` also against the file name (`*.t.sol`).
    pub skip: Vec<String>,
    /// Library directories imports are resolved and remappings detected in (foundry.toml
    /// `libs`; default `lib/` and `node_modules/` as in forge 1.7.1; without foundry.toml,
    /// as forge: `lib/` if there is one, else `node_modules/` if there is one).
    pub libs: Vec<PathBuf>,
    /// Import remappings `[context:]prefix=target` in forge's precedence: `remappings.txt`,
    /// then foundry.toml `remappings`, then those auto-detected in `libs`; the first of each
    /// name wins. See `remappings.rs` for how harvey and forge differ.
    pub remappings: Vec<String>,
    /// Per written remapping whose target directory does not exist, a note naming it, its
    /// origin and the missing path: added to the error when compilation fails.
    pub missing_remappings: Vec<String>,
    /// The compiler asked for by foundry.toml `solc`/`solc_version`: a path or a version.
    pub solc: Option<String>,
    /// Whether the solc optimizer runs (foundry.toml `optimizer`; default off, as in forge).
    pub optimizer: bool,
    /// Optimizer runs (foundry.toml `optimizer_runs`; default 200).
    pub optimizer_runs: usize,
    /// Target EVM version (foundry.toml `evm_version`; default: solc's own default).
    pub evm_version: Option<String>,
    /// Compile through the IR pipeline (foundry.toml `via_ir`).
    pub via_ir: bool,
    /// Where harvey keeps compiler cache and artifacts: `<root>/target/harvey`, apart from
    /// forge's own `cache/` and `out/` so the two tools never invalidate each other.
    pub cache_dir: PathBuf,
    /// How the chain executes transactions (foundry.toml's execution keys).
    pub chain: ChainSettings,
    /// forge's invariant settings (`[invariant]` and `[fuzz] seed`), which
    /// `#[harvey::forge_suite]` starts from.
    pub invariant: InvariantSettings,
    /// forge's fuzz test settings (`[fuzz]`), which `#[harvey::forge_suite]` starts each of
    /// a test contract's fuzz tests from.
    pub fuzz: FuzzSettings,
}

/// foundry.toml's `[fuzz]` keys a forge fuzz test honours, each `None` when the file does
/// not set it. Read from `[profile.<name>.fuzz]` (the selected profile over `default`), else
/// from the top-level `[fuzz]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FuzzSettings {
    /// Inputs run per fuzz test (`runs`; forge's default 256).
    pub runs: Option<u64>,
    /// Whether a reverting case fails the test (`fail_on_revert`; forge's default true).
    pub fail_on_revert: Option<bool>,
    /// How many inputs `vm.assume` may reject (`max_test_rejects`; forge's default 65,536).
    pub max_test_rejects: Option<u32>,
    /// `seed` (a number or `"0x.."`), its low 64 bits.
    pub seed: Option<u64>,
}

impl FuzzSettings {
    /// The settings as `(key, text)` pairs: `runs` as forge names it (a forge fuzz test's
    /// budget is the suite's to make harvey's), the others as harvey's settings
    /// (`fail_on_revert`, `max_rejects`, `seed`).
    pub fn as_pairs(&self) -> Vec<(&'static str, String)> {
        set_pairs([
            ("runs", self.runs.map(|v| v.to_string())),
            ("fail_on_revert", self.fail_on_revert.map(|v| v.to_string())),
            ("max_rejects", self.max_test_rejects.map(|v| v.to_string())),
            ("seed", self.seed.map(|v| v.to_string())),
        ])
    }
}

/// foundry.toml's `[invariant]` keys a suite honours, and `[fuzz] seed`: each `None` when
/// the file does not set it. Read from `[profile.<name>.invariant]` (the selected profile
/// over `default`), else from the top-level `[invariant]`/`[fuzz]` tables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InvariantSettings {
    /// Sequences per invariant (`runs`, else `[fuzz] runs`; forge's default 256).
    pub runs: Option<u64>,
    /// Calls per sequence (`depth`; forge's default 500).
    pub depth: Option<u32>,
    /// Whether a reverting call is a violation (`fail_on_revert`; default false).
    pub fail_on_revert: Option<bool>,
    /// The most seconds time advances before a fuzzed call (`max_time_delay`; forge's
    /// default: none, time stays).
    pub max_time_delay: Option<u32>,
    /// The most blocks the block number advances before a fuzzed call (`max_block_delay`;
    /// forge's default: none).
    pub max_block_delay: Option<u32>,
    /// `[fuzz] seed` (a number or `"0x.."`), its low 64 bits: harvey's seeds are `u64`.
    pub seed: Option<u64>,
}

impl InvariantSettings {
    /// The settings as `(setting, text)` pairs for `harvey_settings`' parsers, in the order
    /// `Config::resolve` applies attribute pairs.
    pub fn as_pairs(&self) -> Vec<(&'static str, String)> {
        set_pairs([
            ("runs", self.runs.map(|v| v.to_string())),
            ("depth", self.depth.map(|v| v.to_string())),
            ("fail_on_revert", self.fail_on_revert.map(|v| v.to_string())),
            ("max_time_delay", self.max_time_delay.map(|v| v.to_string())),
            (
                "max_block_delay",
                self.max_block_delay.map(|v| v.to_string()),
            ),
            ("seed", self.seed.map(|v| v.to_string())),
        ])
    }
}

/// The keys of `keyed` that foundry.toml sets, with their text, in order.
fn set_pairs<const N: usize>(
    keyed: [(&'static str, Option<String>); N],
) -> Vec<(&'static str, String)> {
    keyed
        .into_iter()
        .filter_map(|(key, text)| Some((key, text?)))
        .collect()
}

/// `[invariant]`: the keys harvey reads (forge has more; they are ignored).
#[derive(Debug, Default, Clone, Deserialize)]
struct InvariantTable {
    runs: Option<u64>,
    depth: Option<u32>,
    fail_on_revert: Option<bool>,
    max_time_delay: Option<u32>,
    max_block_delay: Option<u32>,
}

/// `[fuzz]`: the keys a fuzz test honours; its `seed` and `runs` are also what
/// `[invariant]` falls back to (as forge's `STANDALONE_FALLBACK_SECTIONS`).
#[derive(Debug, Default, Clone, Deserialize)]
struct FuzzTable {
    seed: Option<TomlSeed>,
    runs: Option<u64>,
    fail_on_revert: Option<bool>,
    max_test_rejects: Option<u32>,
}

/// A seed as foundry.toml writes it: a number or a (hex) string.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum TomlSeed {
    Number(u64),
    Text(String),
}

impl TomlSeed {
    /// The seed's low 64 bits, or why it is not a number.
    fn read(&self) -> std::result::Result<u64, String> {
        match self {
            TomlSeed::Number(n) => Ok(*n),
            TomlSeed::Text(text) => {
                let text = text.trim();
                let parsed = match text.strip_prefix("0x") {
                    Some(hex) => alloy_primitives::U256::from_str_radix(hex, 16),
                    None => alloy_primitives::U256::from_str_radix(text, 10),
                };
                parsed.map(|v| v.as_limbs()[0]).map_err(|_| {
                    format!("`[fuzz] seed = {text:?}` is not a number (decimal or 0x-hex)")
                })
            }
        }
    }
}

/// The foundry.toml keys that change how transactions execute, each `None` when the file
/// does not set it (the chain then keeps its own default, named on each field).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChainSettings {
    /// The hardfork transactions run under (`evm_version`, solc's names: `paris`, `shanghai`,
    /// `cancun`, `prague`, `osaka`, …; the same key chooses solc's target). Default: revm's
    /// latest (Osaka), as forge 1.7.
    pub evm_version: Option<String>,
    /// The largest runtime code a deployment may return, in bytes (`code_size_limit`);
    /// initcode may be twice as large. Default: none, as forge's tests (a campaign warns
    /// about a deployed contract above EIP-170's 24,576 bytes); set it to EIP-170's 24,576
    /// to refuse what mainnet would.
    pub code_size_limit: Option<usize>,
    /// Gas of every transaction (`gas_limit`). Default: 16,000,000, under Osaka's
    /// per-transaction cap; forge's default is 2^30 with the cap off. When set, the cap is
    /// lifted to it, as forge does.
    pub gas_limit: Option<u64>,
    /// `block.chainid` (`chain_id`, a number). Default: 31,337 (anvil's, as forge).
    pub chain_id: Option<u64>,
    /// `block.timestamp` at the start (`block_timestamp`). Default: 1,700,000,000, so that
    /// contracts subtracting durations from "now" do not underflow (forge starts at 1).
    pub block_timestamp: Option<u64>,
    /// `block.number` at the start (`block_number`). Default: 1, as forge.
    pub block_number: Option<u64>,
}

/// A foundry.toml number that may also be written as a string (forge accepts
/// `gas_limit = "18446744073709551615"`, since TOML integers stop at 2^63 - 1).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum TomlU64 {
    Number(u64),
    Text(String),
}

/// The keys of one `[profile.*]` table that harvey honours; all optional so that a profile
/// can override only some of `default`'s.
#[derive(Debug, Default, Deserialize)]
struct FoundryProfile {
    src: Option<PathBuf>,
    test: Option<PathBuf>,
    script: Option<PathBuf>,
    skip: Option<Vec<String>>,
    libs: Option<Vec<PathBuf>>,
    remappings: Option<Vec<String>>,
    solc: Option<String>,
    solc_version: Option<String>,
    optimizer: Option<bool>,
    optimizer_runs: Option<usize>,
    evm_version: Option<String>,
    via_ir: Option<bool>,
    code_size_limit: Option<usize>,
    gas_limit: Option<TomlU64>,
    chain_id: Option<TomlU64>,
    block_timestamp: Option<TomlU64>,
    block_number: Option<TomlU64>,
    invariant: Option<InvariantTable>,
    fuzz: Option<FuzzTable>,
}

impl FoundryProfile {
    /// `self` with every key `over` sets replaced by `over`'s value.
    fn overridden_by(self, over: FoundryProfile) -> FoundryProfile {
        FoundryProfile {
            src: over.src.or(self.src),
            test: over.test.or(self.test),
            script: over.script.or(self.script),
            skip: over.skip.or(self.skip),
            libs: over.libs.or(self.libs),
            remappings: over.remappings.or(self.remappings),
            solc: over.solc.or(self.solc),
            solc_version: over.solc_version.or(self.solc_version),
            optimizer: over.optimizer.or(self.optimizer),
            optimizer_runs: over.optimizer_runs.or(self.optimizer_runs),
            evm_version: over.evm_version.or(self.evm_version),
            via_ir: over.via_ir.or(self.via_ir),
            code_size_limit: over.code_size_limit.or(self.code_size_limit),
            gas_limit: over.gas_limit.or(self.gas_limit),
            chain_id: over.chain_id.or(self.chain_id),
            block_timestamp: over.block_timestamp.or(self.block_timestamp),
            block_number: over.block_number.or(self.block_number),
            invariant: merge_invariant(self.invariant, over.invariant),
            fuzz: match (self.fuzz, over.fuzz) {
                (Some(under), Some(over)) => Some(FuzzTable {
                    seed: over.seed.or(under.seed),
                    runs: over.runs.or(under.runs),
                    fail_on_revert: over.fail_on_revert.or(under.fail_on_revert),
                    max_test_rejects: over.max_test_rejects.or(under.max_test_rejects),
                }),
                (under, over) => over.or(under),
            },
        }
    }
}

/// `under` with every key `over` sets replaced by `over`'s value.
fn merge_invariant(
    under: Option<InvariantTable>,
    over: Option<InvariantTable>,
) -> Option<InvariantTable> {
    match (under, over) {
        (Some(under), Some(over)) => Some(InvariantTable {
            runs: over.runs.or(under.runs),
            depth: over.depth.or(under.depth),
            fail_on_revert: over.fail_on_revert.or(under.fail_on_revert),
            max_time_delay: over.max_time_delay.or(under.max_time_delay),
            max_block_delay: over.max_block_delay.or(under.max_block_delay),
        }),
        (under, over) => over.or(under),
    }
}

#[derive(Debug, Default, Deserialize)]
struct FoundryToml {
    #[serde(default)]
    profile: std::collections::BTreeMap<String, FoundryProfile>,
    /// Top-level `[invariant]` and `[fuzz]`, under every profile's own.
    invariant: Option<InvariantTable>,
    fuzz: Option<FuzzTable>,
}

impl ProjectConfig {
    /// The configuration of the project rooted at `root`: its `foundry.toml` (profile from
    /// `FOUNDRY_PROFILE`, default `default`) if present, else `contracts/` with defaults.
    pub fn discover(root: &Path) -> Result<Self> {
        Self::discover_in(root, &Environment::from_process())
    }

    /// [`ProjectConfig::discover`] with `FOUNDRY_PROFILE` and `HARVEY_SKIP` taken from `env`
    /// rather than from the process.
    pub fn discover_in(root: &Path, env: &Environment) -> Result<Self> {
        // Relative to the working directory, made absolute: every path below is the root's.
        let root = &std::path::absolute(root).map_err(|e| Error::io(root, &e))?;
        let manifest = root.join("foundry.toml");
        let foundry = manifest.is_file();
        let profile = if foundry {
            let text = std::fs::read_to_string(&manifest).map_err(|e| Error::io(&manifest, &e))?;
            let selected = env.foundry_profile.as_deref().unwrap_or("default");
            read_profile(&text, selected)
                .map_err(|message| Error::Config(format!("{}: {message}", manifest.display())))?
        } else {
            // forge without foundry.toml takes `lib/`, else `node_modules/` (a Hardhat
            // project's packages), as its libraries.
            let libs = ["lib", "node_modules"]
                .into_iter()
                .find(|lib| root.join(lib).is_dir())
                .map(PathBuf::from);
            FoundryProfile {
                src: Some(PathBuf::from("contracts")),
                libs: Some(libs.into_iter().collect()),
                ..FoundryProfile::default()
            }
        };
        let number = |key: &str, value: &Option<TomlU64>| -> Result<Option<u64>> {
            value
                .as_ref()
                .map(|v| v.read(key))
                .transpose()
                .map_err(|why| Error::Config(format!("{}: {why}", manifest.display())))
        };
        let chain = ChainSettings {
            evm_version: profile.evm_version.clone(),
            code_size_limit: profile.code_size_limit,
            gas_limit: number("gas_limit", &profile.gas_limit)?,
            chain_id: number("chain_id", &profile.chain_id)?,
            block_timestamp: number("block_timestamp", &profile.block_timestamp)?,
            block_number: number("block_number", &profile.block_number)?,
        };
        // forge's defaults where foundry.toml is silent.
        let libs: Vec<PathBuf> = profile
            .libs
            .unwrap_or_else(|| vec!["lib".into(), "node_modules".into()])
            .into_iter()
            .map(|lib| root.join(lib))
            .collect();
        // forge 1.7.1 lets remappings.txt win over foundry.toml for the same name.
        let written: Vec<(String, Origin)> = read_remappings_txt(root)?
            .into_iter()
            .map(|r| (r, Origin::RemappingsTxt))
            .chain(
                profile
                    .remappings
                    .unwrap_or_default()
                    .into_iter()
                    .map(|r| (r, Origin::FoundryToml)),
            )
            .collect();
        let remappings = remappings::resolve(root, &written, &libs)?;
        let missing_remappings = remappings::missing(root, &written);
        let invariant_table = profile.invariant.clone().unwrap_or_default();
        let seed = profile
            .fuzz
            .as_ref()
            .and_then(|f| f.seed.as_ref())
            .map(TomlSeed::read)
            .transpose()
            .map_err(|why| Error::Config(format!("{}: {why}", manifest.display())))?;
        let invariant = InvariantSettings {
            runs: invariant_table
                .runs
                .or(profile.fuzz.as_ref().and_then(|f| f.runs)),
            depth: invariant_table.depth,
            fail_on_revert: invariant_table.fail_on_revert,
            max_time_delay: invariant_table.max_time_delay,
            max_block_delay: invariant_table.max_block_delay,
            seed,
        };
        let fuzz_table = profile.fuzz.clone().unwrap_or_default();
        let fuzz = FuzzSettings {
            runs: fuzz_table.runs,
            fail_on_revert: fuzz_table.fail_on_revert,
            max_test_rejects: fuzz_table.max_test_rejects,
            seed,
        };
        let skip = skip_globs(profile.skip.unwrap_or_default(), env.harvey_skip.as_deref());
        Ok(ProjectConfig {
            root: root.to_path_buf(),
            sources: root.join(profile.src.unwrap_or_else(|| "src".into())),
            tests: foundry.then(|| root.join(profile.test.unwrap_or_else(|| "test".into()))),
            scripts: root.join(profile.script.unwrap_or_else(|| "script".into())),
            skip,
            libs,
            remappings,
            missing_remappings,
            solc: profile.solc.or(profile.solc_version),
            optimizer: profile.optimizer.unwrap_or(false),
            optimizer_runs: profile.optimizer_runs.unwrap_or(200),
            evm_version: profile.evm_version,
            via_ir: profile.via_ir.unwrap_or(false),
            cache_dir: root.join("target").join("harvey"),
            chain,
            invariant,
            fuzz,
        })
    }
}

impl TomlU64 {
    /// The number, or why `key`'s value is not one.
    fn read(&self, key: &str) -> std::result::Result<u64, String> {
        match self {
            TomlU64::Number(n) => Ok(*n),
            TomlU64::Text(text) => text.trim().replace('_', "").parse().map_err(|_| {
                format!("`{key} = {text:?}` is not a number (harvey reads numeric values only, e.g. chain ids as 31337 rather than names)")
            }),
        }
    }
}

/// foundry.toml's `skip` globs followed by those of `HARVEY_SKIP` (comma-separated).
fn skip_globs(mut foundry: Vec<String>, harvey_skip: Option<&str>) -> Vec<String> {
    foundry.extend(
        harvey_skip
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|g| !g.is_empty())
            .map(String::from),
    );
    foundry
}

/// The `default` profile of a foundry.toml, overridden by profile `selected`.
fn read_profile(text: &str, selected: &str) -> std::result::Result<FoundryProfile, String> {
    let mut parsed: FoundryToml = toml::from_str(text).map_err(|e| e.to_string())?;
    let top = FoundryProfile {
        invariant: parsed.invariant.take(),
        fuzz: parsed.fuzz.take(),
        ..FoundryProfile::default()
    };
    let default = top.overridden_by(parsed.profile.remove("default").unwrap_or_default());
    Ok(match parsed.profile.remove(selected) {
        Some(over) if selected != "default" => default.overridden_by(over),
        _ => default,
    })
}

/// The remappings in `<root>/remappings.txt`, one per non-empty line.
fn read_remappings_txt(root: &Path) -> Result<Vec<String>> {
    let path = root.join("remappings.txt");
    if !path.is_file() {
        return Ok(Vec::new());
    }
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, &e))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invariant_settings_come_from_the_profile_over_the_top_level_tables() {
        let text = r#"
            [invariant]
            runs = 64
            depth = 20
            [fuzz]
            seed = "0x2a"
            [profile.default.invariant]
            depth = 50
            fail_on_revert = true
            max_time_delay = 3600
            [profile.ci.invariant]
            runs = 1000
            max_block_delay = 0
        "#;
        let read = |selected| {
            let p = read_profile(text, selected).unwrap();
            let table = p.invariant.unwrap();
            let seed = p.fuzz.and_then(|f| f.seed).map(|s| s.read().unwrap());
            let delays = (table.max_time_delay, table.max_block_delay);
            (table.runs, table.depth, table.fail_on_revert, seed, delays)
        };
        assert_eq!(
            read("default"),
            (Some(64), Some(50), Some(true), Some(42), (Some(3600), None))
        );
        assert_eq!(
            read("ci"),
            (
                Some(1000),
                Some(50),
                Some(true),
                Some(42),
                (Some(3600), Some(0))
            )
        );
        assert!(TomlSeed::Text("lucky".into()).read().is_err());
        assert_eq!(TomlSeed::Text("17".into()).read(), Ok(17));
        let settings = InvariantSettings {
            runs: Some(8),
            seed: Some(3),
            max_block_delay: Some(12),
            ..InvariantSettings::default()
        };
        assert_eq!(
            settings.as_pairs(),
            vec![
                ("runs", "8".to_string()),
                ("max_block_delay", "12".to_string()),
                ("seed", "3".to_string())
            ]
        );
    }

    #[test]
    fn fuzz_settings_come_from_the_profile_over_the_top_level_table() {
        let text = r#"
            [fuzz]
            runs = 64
            max_test_rejects = 10
            [profile.ci.fuzz]
            runs = 1000
            fail_on_revert = false
        "#;
        let read = |selected| {
            let fuzz = read_profile(text, selected).unwrap().fuzz.unwrap();
            (fuzz.runs, fuzz.fail_on_revert, fuzz.max_test_rejects)
        };
        assert_eq!(read("default"), (Some(64), None, Some(10)));
        assert_eq!(read("ci"), (Some(1000), Some(false), Some(10)));
        let settings = FuzzSettings {
            runs: Some(8),
            max_test_rejects: Some(0),
            seed: Some(3),
            ..FuzzSettings::default()
        };
        assert_eq!(
            settings.as_pairs(),
            vec![
                ("runs", "8".to_string()),
                ("max_rejects", "0".to_string()),
                ("seed", "3".to_string())
            ]
        );
    }

    #[test]
    fn selected_profile_overrides_default_key_by_key() {
        let text = r#"
            [profile.default]
            src = "src"
            solc = "0.8.28"
            optimizer = true
            [profile.ci]
            optimizer_runs = 10000
        "#;
        let p = read_profile(text, "ci").unwrap();
        assert_eq!(p.src, Some(PathBuf::from("src")));
        assert_eq!(p.solc.as_deref(), Some("0.8.28"));
        assert_eq!(p.optimizer, Some(true));
        assert_eq!(p.optimizer_runs, Some(10000));
    }

    #[test]
    fn execution_keys_are_read_as_forge_writes_them() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("foundry.toml"),
            "[profile.default]\nevm_version = \"paris\"\ncode_size_limit = 100000\n\
             gas_limit = \"18446744073709551615\"\nchain_id = 5\nblock_timestamp = 1_680_220_800\n\
             block_number = 7\n",
        )
        .unwrap();
        let config = ProjectConfig::discover(dir.path()).unwrap();
        assert_eq!(
            config.chain,
            ChainSettings {
                evm_version: Some("paris".into()),
                code_size_limit: Some(100_000),
                gas_limit: Some(u64::MAX),
                chain_id: Some(5),
                block_timestamp: Some(1_680_220_800),
                block_number: Some(7),
            }
        );
        std::fs::write(
            dir.path().join("foundry.toml"),
            "[profile.default]\nchain_id = \"goerli\"\n",
        )
        .unwrap();
        let err = ProjectConfig::discover(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("`chain_id = \"goerli\"` is not a number"),
            "{err}"
        );
        assert!(err.contains("foundry.toml"), "{err}");
    }

    #[test]
    fn harvey_skip_adds_comma_separated_globs_to_foundry_skip() {
        let globs = skip_globs(vec!["test/fork/**".into()], Some(" *.t.sol, ,src/Big.sol"));
        assert_eq!(globs, ["test/fork/**", "*.t.sol", "src/Big.sol"]);
        assert!(skip_globs(Vec::new(), None).is_empty());
    }

    #[test]
    fn malformed_toml_is_reported() {
        let err = read_profile("[profile.default\nsrc = ", "default").unwrap_err();
        assert!(!err.is_empty());
    }

    #[test]
    fn without_foundry_toml_sources_are_in_contracts() {
        let dir = tempfile::tempdir().unwrap();
        let config = ProjectConfig::discover(dir.path()).unwrap();
        assert_eq!(config.sources, dir.path().join("contracts"));
        assert!(config.libs.is_empty());
        assert_eq!(config.solc, None);
        // A Hardhat project's packages are its library, as forge takes them.
        std::fs::create_dir_all(dir.path().join("node_modules/@oz/contracts")).unwrap();
        std::fs::write(dir.path().join("node_modules/@oz/contracts/Token.sol"), "").unwrap();
        let config = ProjectConfig::discover(dir.path()).unwrap();
        assert_eq!(config.libs, vec![dir.path().join("node_modules")]);
        assert!(
            config.remappings.iter().any(|r| r.starts_with("@oz/=")),
            "{:?}",
            config.remappings
        );
        // `lib/` first, when there is one.
        std::fs::create_dir_all(dir.path().join("lib")).unwrap();
        let config = ProjectConfig::discover(dir.path()).unwrap();
        assert_eq!(config.libs, vec![dir.path().join("lib")]);
    }

    #[test]
    fn foundry_toml_layout_and_remappings_txt_are_honoured() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("foundry.toml"),
            "[profile.default]\nsrc = \"sol\"\nlibs = [\"deps\"]\nremappings = [\"a/=deps/a/\"]\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("remappings.txt"), "b/=deps/b/\n\n").unwrap();
        for dep in ["deps/a", "deps/b"] {
            std::fs::create_dir_all(dir.path().join(dep)).unwrap();
        }
        let config = ProjectConfig::discover(dir.path()).unwrap();
        assert_eq!(config.sources, dir.path().join("sol"));
        assert_eq!(config.tests, Some(dir.path().join("test")));
        assert_eq!(config.libs, vec![dir.path().join("deps")]);
        assert_eq!(config.remappings, vec!["b/=deps/b/", "a/=deps/a/"]);
    }
}
