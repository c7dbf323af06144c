//! Everything about the Solidity side: finding the sources (`foundry.toml` or `contracts/`)
//! and what to compile (`config.rs`), import remappings as forge infers them
//! (`remappings.rs`), the solc compilers and which one compiles which file (`solc.rs`),
//! compiling with foundry-compilers (cached on disk, at most once per process; `compile.rs`)
//! and exposing the artifacts, with their library link references, and a pc → source line
//! index (`artifacts.rs`, `source_map.rs`). The environment variables all this reads are one
//! value (`env.rs`), which callers may also pass explicitly.
//!
//! This module knows nothing about fuzzing.

mod artifacts;
mod compile;
mod config;
mod env;
mod remappings;
mod solc;
mod source_map;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use once_cell::sync::Lazy;

pub use artifacts::{
    Artifacts, ContractArtifact, LibraryLink, SourceFile, SourceLocation, SourceSet,
};
pub use config::ProjectConfig;
pub use config::{ChainSettings, FuzzSettings, InvariantSettings};
pub use env::Environment;
pub use source_map::JumpKind;

use crate::error::{Error, Result};

impl ProjectConfig {
    /// Compiles the project now (foundry-compilers' on-disk cache still applies: unchanged
    /// sources are not recompiled). Most callers want [`compiled`], which also shares the
    /// result within the process.
    pub fn compile(&self) -> Result<Artifacts> {
        self.compile_in(&Environment::from_process())
    }

    /// [`ProjectConfig::compile`] with the compilers found through `env` (`HARVEY_SOLC`,
    /// `PATH`, `HOME`, `XDG_DATA_HOME`) rather than through the process environment.
    pub fn compile_in(&self, env: &Environment) -> Result<Artifacts> {
        compile::compile(self, env)
    }
}

/// Per-process memo of compile results by project root, so that every test of a test binary
/// shares one compilation (and one failure report).
static COMPILED: Lazy<Mutex<HashMap<PathBuf, Result<Arc<Artifacts>>>>> =
    Lazy::new(Default::default);

/// The artifacts of the project at `root` (usually `env!("CARGO_MANIFEST_DIR")`), compiled at
/// most once per process.
pub fn compiled(root: &Path) -> Result<Arc<Artifacts>> {
    compiled_in(root, &Environment::from_process())
}

/// The deployable contracts of the project's own sources at `root` (foundry.toml's `src`,
/// or `contracts/`): not its tests, scripts or libraries, nor interfaces and abstract
/// contracts. Compiled with [`compiled`]; sorted by name.
///
/// # Errors
///
/// What [`compiled`] returns: a foundry.toml that cannot be read, no usable solc, or the
/// compiler's errors with their files and lines.
pub fn own_contracts(root: &Path) -> Result<Vec<Arc<ContractArtifact>>> {
    let config = ProjectConfig::discover_in(root, &Environment::from_process())?;
    let artifacts = compiled(root)?;
    let sources = root.join(&config.sources);
    Ok(artifacts
        .contracts()
        .filter(|c| c.is_deployable() && root.join(&c.source_path).starts_with(&sources))
        .cloned()
        .collect())
}

/// [`compiled`] with the settings of `env` rather than the process environment. The memo
/// is the same and is keyed by root alone: the first of the two to compile a root decides
/// its artifacts for the whole process, so a caller with its own environment calls this
/// before anything (a `Campaign` on that root, say) calls [`compiled`].
pub fn compiled_in(root: &Path, env: &Environment) -> Result<Arc<Artifacts>> {
    // Holding the lock while compiling is deliberate: concurrent tests wait for the one
    // compilation instead of starting their own.
    let mut memo = COMPILED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    // A root relative to the working directory, made absolute: the sources' paths are
    // taken relative to it, and one project is one memo entry however it is named.
    let root = std::path::absolute(root).map_err(|e| Error::io(root, &e))?;
    memo.entry(root.clone())
        .or_insert_with(|| {
            ProjectConfig::discover_in(&root, env)?
                .compile_in(env)
                .map(Arc::new)
        })
        .clone()
}
