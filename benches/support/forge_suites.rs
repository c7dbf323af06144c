//! The forge-suites fixture (`tests/fixtures/forge-suites`) for the benches that run its
//! suites: installed and compiled once per process.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use harvey::project::{Artifacts, Environment};

use super::root::harvey_root;

/// The fixture ready to run: its npm dependency (forge-std) installed and the fixture
/// compiled with the repo's solc shim (it pins no compiler, as a stock Foundry repository).
/// Returns its root and its artifacts; the per-process memo is keyed by root, so every
/// campaign on it uses this compilation.
pub(crate) fn compiled_fixture() -> (PathBuf, Arc<Artifacts>) {
    let repo = harvey_root();
    let fixture = repo.join("tests/fixtures/forge-suites");
    let status = Command::new(fixture.join("npm-install"))
        .status()
        .expect("the fixture's npm-install runs");
    assert!(status.success(), "the fixture's npm dependencies install");
    let shim = repo.join("tools/solc-shim/solc");
    let environment = Environment {
        harvey_solc: Some(shim.display().to_string()),
        ..Environment::from_process()
    };
    let artifacts =
        harvey::project::compiled_in(&fixture, &environment).unwrap_or_else(|e| panic!("{e}"));
    (fixture, artifacts)
}
