//! harvey's Solidity-project side, without an EVM: finding a project's sources
//! (foundry.toml or `contracts/`), compiling them with foundry-compilers ([`project`]), and
//! what suites the project holds ([`suite`]: forge invariant suites and fuzz tests,
//! Echidna/Medusa harnesses with their config files, by the rules `#[harvey::forge_suite]`
//! applies). Both `harvey` and `cargo-harvey` build on it; `cargo harvey init` needs only
//! this, so installing it does not build revm.
//!
//! Test authors use `harvey`, which re-exports what they need ([`Error`], `harvey::project`,
//! `harvey::discovery`); this crate's other items serve harvey itself, with no stability
//! promise of their own.

pub mod bytecode;
mod error;
pub mod project;
pub mod suite;

pub use error::{Error, Result};
