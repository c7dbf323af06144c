//! Everything about the Solidity side, from `harvey-project` (which `cargo harvey init`
//! builds on without an EVM): finding the sources (`foundry.toml` or `contracts/`), the solc
//! compilers, compiling with foundry-compilers (cached on disk, at most once per process:
//! [`compiled`]) and the artifacts, with their library link references and a pc → source
//! line index.
//!
//! This module knows nothing about fuzzing.

pub(crate) use harvey_project::project::JumpKind;
pub use harvey_project::project::{
    Artifacts, ChainSettings, ContractArtifact, FuzzSettings, InvariantSettings, LibraryLink,
    SourceFile, SourceLocation, SourceSet, compiled, own_contracts,
};
internal! { use harvey_project::project::{Environment, ProjectConfig}; }
// harvey's own tests compile their fixtures with an environment of their own; the library
// itself compiles through `compiled`.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub use harvey_project::project::compiled_in;
