//! The suites of a project, listed by the rules `#[harvey::forge_suite]` applies to the one
//! it names ([`Suite::find`]): what `cargo harvey init` writes a test for.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use alloy_json_abi::Function;

use super::configs::{self, HarnessConfig};
use super::{Style, SuiteDefinition, forge_tests};
use crate::error::{Error, Result};
use crate::project::{Artifacts, ContractArtifact, Environment, ProjectConfig, compiled};

/// What kind of Solidity suite a [`SuiteSummary`] describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuiteKind {
    /// A forge test contract with `invariant*`/`statefulFuzz*` functions (the contracts its
    /// `setUp()` deploys are fuzzed, as forge-std's `StdInvariant` selects them) or fuzz
    /// tests (`test*` functions with parameters, each called with fuzzed arguments).
    Forge,
    /// An Echidna/Medusa harness (`echidna_*`/`property_*` functions, or the prefixes and
    /// test mode of its config): its own functions are fuzzed. With no property function
    /// it runs in assertion mode.
    Properties,
}

/// One invariant or property suite of a project, as [`suites`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteSummary {
    /// The name `#[harvey::forge_suite]` takes for it: the contract's name, or `path:Name`
    /// when several files define that name.
    pub name: String,
    /// The test contract's name.
    pub contract: String,
    /// Its source file, relative to the project root.
    pub file: PathBuf,
    /// forge suite or Echidna/Medusa property contract.
    pub kind: SuiteKind,
    /// The invariant (or property) functions checked after every call, by name, in the
    /// order of the ABI.
    pub invariants: Vec<String>,
    /// A forge test contract's fuzz tests (`test*` functions with parameters), each run as
    /// a campaign of its own, by name (by signature where the name is overloaded).
    pub fuzz_tests: Vec<String>,
    /// What harvey will do differently from forge with this suite (an invariant it skips,
    /// a misspelt `setUp`), one line each; empty for most suites.
    pub warnings: Vec<String>,
    /// The Echidna yaml or medusa.json the harness runs with, relative to the project's
    /// root (`config = "..."` of `#[harvey::forge_suite]`). A harness whose configs mean
    /// different things is listed once per config.
    pub config: Option<PathBuf>,
}

/// The invariant and property suites of the Solidity project at `root` (foundry.toml's
/// layout, or `contracts/`), compiled with [`compiled`]: every deployable contract outside the
/// project's libraries that `#[harvey::forge_suite("Name")]` would run with at least one
/// invariant function — forge test contracts with `invariant*`/`statefulFuzz*` functions and
/// Echidna/Medusa contracts with `echidna_*`/`property_*` ones, found by the rules of the
/// macro itself. Sorted by name.
///
/// Harnesses with an Echidna or Medusa config (found by the rule of the book's "Echidna and
/// Medusa configs") are listed as their config runs them, with its file: by the config's
/// property prefixes, and in assertion mode when the config names the harness (a medusa.json
/// listing it in `targetContracts`, a yaml of its name or in its directory, a command in its
/// source). A harness whose configs mean different things is listed once per config.
///
/// Forge test contracts are listed with their fuzz tests (`test*` functions with
/// parameters, [`SuiteSummary::fuzz_tests`]), which the same test runs.
///
/// Not listed: abstract contracts (forge skips them too), forge test contracts with neither
/// invariants nor fuzz tests (unit tests only), contracts whose invariant functions take parameters (the macro
/// rejects them), and contracts with no property function and no config naming them
/// (any contract could be an assertion-mode harness, so those are named by hand).
///
/// # Errors
///
/// What [`compiled`] returns: a foundry.toml that cannot be read, no usable solc, or the
/// compiler's errors with their files and lines; an Echidna or Medusa config that cannot
/// be read, with its file and what is wrong.
pub fn suites(root: &Path) -> Result<Vec<SuiteSummary>> {
    let config = ProjectConfig::discover_in(root, &Environment::from_process())?;
    let artifacts = compiled(root)?;
    list(&artifacts, &config.libs)
}

impl SuiteSummary {
    /// Whether the Rust source `text` has a test for this suite: a `#[harvey::forge_suite]`
    /// naming it as `"Name"`, or qualified as `"path:Name"` with any path; when the suite
    /// runs with a config that `text` could leave to the rule (one of several configs of
    /// the harness, `several_configs`), the config's file too.
    pub fn is_named_in(&self, text: &str, several_configs: bool) -> bool {
        let named = text.contains(&format!("{:?}", self.name))
            || text.contains(&format!(":{}\"", self.contract));
        let config = match (&self.config, several_configs) {
            (Some(config), true) => text.contains(&format!("{:?}", shown(config))),
            _ => true,
        };
        named && config
    }
}

/// `path` as written in a Rust string, with `/` on every platform.
fn shown(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// Checks that every suite of the project at `root` (as [`suites`] lists them) has a
/// `#[harvey::forge_suite]` test among the Rust files under `root/tests/` (see
/// [`SuiteSummary::is_named_in`]): the guard `cargo harvey init` writes, so that a suite a
/// team adds later fails `cargo test` until it has a test, where forge, Echidna and Medusa
/// would pick it up by themselves.
///
/// # Errors
///
/// What [`suites`] returns; and [`Error::Config`] naming every suite without a test, with
/// the lines that add one.
pub fn every_suite_tested(root: &Path) -> Result<()> {
    let listed = suites(root)?;
    let mut text = String::new();
    let mut pending = vec![root.join("tests")];
    while let Some(directory) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&directory) else {
            continue;
        };
        for path in entries.filter_map(|e| e.ok()).map(|e| e.path()) {
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                text.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
            }
        }
    }
    let untested: Vec<String> = listed
        .iter()
        .filter(|suite| {
            let configs = listed.iter().filter(|s| s.name == suite.name).count();
            !suite.is_named_in(&text, configs > 1)
        })
        .map(|suite| {
            let config = suite
                .config
                .as_ref()
                .map(|c| format!(", config = {:?}", shown(c)))
                .unwrap_or_default();
            format!(
                "  `{}` ({}): add\n    #[harvey::forge_suite({:?}{config})]\n    fn {}() {{}}",
                suite.contract,
                shown(&suite.file),
                suite.name,
                suite.contract.to_lowercase()
            )
        })
        .collect();
    if untested.is_empty() {
        return Ok(());
    }
    Err(Error::Config(format!(
        "{} suite(s) of the project have no #[harvey::forge_suite] test under {}/ (added after `cargo harvey init`?); forge, Echidna and Medusa would run them:\n{}",
        untested.len(),
        root.join("tests").display(),
        untested.join("\n")
    )))
}

/// The suites among `artifacts`, leaving out contracts whose source lies under one of `libs`
/// (absolute, or relative to the artifacts' root).
fn list(artifacts: &Arc<Artifacts>, libs: &[PathBuf]) -> Result<Vec<SuiteSummary>> {
    let root = artifacts.root();
    let known = artifacts.known_names();
    // Read once for the whole project, not once per contract.
    let medusa = configs::medusa_configs(root)?;
    let mut found = Vec::new();
    for (test, name) in artifacts.contracts().zip(known) {
        let file = root.join(&test.source_path);
        if !test.is_deployable() || libs.iter().any(|lib| file.starts_with(root.join(lib))) {
            continue;
        }
        let configs = configs::candidates(artifacts, test, &medusa)?;
        if configs.is_empty() {
            found.extend(summarise(artifacts, test, &name, None));
        }
        for config in configs {
            found.extend(summarise(artifacts, test, &name, Some(config)));
        }
    }
    found.sort_by(|a, b| (&a.name, &a.config).cmp(&(&b.name, &b.config)));
    Ok(found)
}

/// `test` as a suite named `name` run with `config`, when `#[harvey::forge_suite]` finds
/// something to run in it: fuzz tests of a forge test contract, or invariants
/// [`Suite::find`] takes, or assertions its config names it for.
fn summarise(
    artifacts: &Arc<Artifacts>,
    test: &ContractArtifact,
    name: &str,
    config: Option<HarnessConfig>,
) -> Option<SuiteSummary> {
    let mut warnings = Vec::new();
    let file = config.as_ref().map(|c| c.file.clone());
    let names_harness = config.as_ref().is_some_and(|c| c.names_harness);
    let forge = match &config {
        Some(_) => None,
        None => forge_tests(artifacts, &test.qualified_name()).ok()?,
    };
    // What the invariants' campaign checks: nothing, for a forge test contract of fuzz
    // tests alone.
    let (kind, invariants) = match &forge {
        Some(forge) if !forge.invariants => (SuiteKind::Forge, Vec::new()),
        _ => {
            let suite =
                SuiteDefinition::find(artifacts, &test.qualified_name(), config, &mut warnings)
                    .ok()?;
            if suite.invariants.is_empty() && !names_harness {
                return None;
            }
            let kind = match suite.style {
                Style::Forge => SuiteKind::Forge,
                Style::Properties => SuiteKind::Properties,
            };
            let names = suite.invariants.iter().map(|f: &Function| f.name.clone());
            (kind, names.collect())
        }
    };
    Some(SuiteSummary {
        name: name.to_string(),
        config: file,
        contract: test.name.clone(),
        file: test.source_path.clone(),
        kind,
        invariants,
        fuzz_tests: forge.map(|forge| forge.fuzz_tests).unwrap_or_default(),
        warnings,
    })
}
