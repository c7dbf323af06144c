//! The suites of a project, listed by the rules `#[harvey::forge_suite]` applies to the one
//! it names ([`Suite::find`]): what `cargo harvey init` writes a test for.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use alloy_json_abi::Function;

use super::{Style, Suite};
use crate::error::Result;
use crate::project::{Artifacts, ContractArtifact, Environment, ProjectConfig, compiled};

/// What kind of Solidity suite a [`SuiteSummary`] describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuiteKind {
    /// A forge test contract with `invariant*`/`statefulFuzz*` functions: the contracts its
    /// `setUp()` deploys are fuzzed, as forge-std's `StdInvariant` selects them.
    Forge,
    /// An Echidna/Medusa property contract (`echidna_*`/`property_*` functions): its own
    /// functions are fuzzed.
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
    /// What harvey will do differently from forge with this suite (an invariant it skips,
    /// a misspelt `setUp`), one line each; empty for most suites.
    pub warnings: Vec<String>,
}

/// The invariant and property suites of the Solidity project at `root` (foundry.toml's
/// layout, or `contracts/`), compiled with [`compiled`]: every deployable contract outside the
/// project's libraries that `#[harvey::forge_suite("Name")]` would run with at least one
/// invariant function — forge test contracts with `invariant*`/`statefulFuzz*` functions and
/// Echidna/Medusa contracts with `echidna_*`/`property_*` ones, found by the rules of the
/// macro itself. Sorted by name.
///
/// Not listed: abstract contracts (forge skips them too), forge test contracts without
/// invariants (unit tests), contracts whose invariant functions take parameters (the macro
/// rejects them), and Echidna/Medusa contracts in assertion mode (no property function;
/// any contract could be one, so they are named by hand).
///
/// # Errors
///
/// What [`compiled`] returns: a foundry.toml that cannot be read, no usable solc, or the
/// compiler's errors with their files and lines.
pub fn suites(root: &Path) -> Result<Vec<SuiteSummary>> {
    let config = ProjectConfig::discover_in(root, &Environment::from_process())?;
    let artifacts = compiled(root)?;
    Ok(list(&artifacts, &config.libs))
}

/// The suites among `artifacts`, leaving out contracts whose source lies under one of `libs`
/// (absolute, or relative to the artifacts' root).
fn list(artifacts: &Arc<Artifacts>, libs: &[PathBuf]) -> Vec<SuiteSummary> {
    let root = artifacts.root();
    let known = artifacts.known_names();
    let mut found = Vec::new();
    for (test, name) in artifacts.contracts().zip(known) {
        let file = root.join(&test.source_path);
        if !test.is_deployable() || libs.iter().any(|lib| file.starts_with(root.join(lib))) {
            continue;
        }
        if let Some(summary) = summarise(artifacts, test, name) {
            found.push(summary);
        }
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    found
}

/// `test` as a suite named `name`, when [`Suite::find`] takes it and finds invariants in it.
fn summarise(
    artifacts: &Arc<Artifacts>,
    test: &ContractArtifact,
    name: String,
) -> Option<SuiteSummary> {
    let mut warnings = Vec::new();
    let suite = Suite::find(artifacts, &test.qualified_name(), &mut warnings).ok()?;
    if suite.invariants.is_empty() {
        return None;
    }
    Some(SuiteSummary {
        name,
        contract: test.name.clone(),
        file: test.source_path.clone(),
        kind: match suite.style {
            Style::Forge => SuiteKind::Forge,
            Style::Properties => SuiteKind::Properties,
        },
        invariants: suite
            .invariants
            .iter()
            .map(|f: &Function| f.name.clone())
            .collect(),
        warnings,
    })
}
