//! harvey: property and invariant tests for Solidity contracts, written in Rust and run by
//! a greybox fuzzer under plain `cargo test`.
//!
//! The crate is built in layers (see `ARCHITECTURE.md`):
//! - [`project`] finds solc, compiles the Solidity sources with foundry-compilers and exposes
//!   the artifacts (ABI, bytecode, source maps, pc → line index);
//! - [`chain`] is an in-memory revm chain: deploy, call, view, snapshot/restore, decoded
//!   outcomes;
//! - [`config`] resolves campaign settings from the attribute and `HARVEY_*` variables;
//! - [`observe`] records what a transaction did (branches, comparison operands, storage,
//!   calls) for the fuzzer's feedback;
//! - [`targets`] turns what a change touched (a git diff, or explicit `file:line`s) into the
//!   bytecode locations targeted fuzzing steers towards;
//! - [`lookahead`] is the static lookahead analysis: the shortest prefix of a run's path
//!   after which no target is reachable, which steers targeted campaigns.

mod abi;
mod campaign;
pub mod chain;
pub mod config;
mod engine;
mod error;
mod hash;
pub mod lookahead;
pub mod observe;
mod oracle;
mod outcome;
pub mod project;
mod regression;
pub mod report;
pub mod targets;

pub use campaign::Campaign;
pub use chain::Labels;
pub use chain::PanicSet;
pub use config::Steering;
pub use error::{Error, Result};
pub use harvey_macros::invariant;
pub use oracle::IntoCheck;
pub use outcome::{
    Call, Dependence, Failure, FunctionStats, LookaheadStats, Outcome, PredictionStats, Progress,
    SequenceStats, ShrinkStats, StateDependent, Stats, Violation,
};

#[doc(hidden)]
pub mod __private;

/// The names a setup function and an invariant need, in one import: the chain and its call
/// options, the value types arguments and views use, runtime ABI values, the trait of
/// `sol!` event types (`sol!` itself expands to paths of the `alloy-sol-types` crate, so a
/// crate that declares events with it depends on that crate), and the campaign types.
pub mod prelude {
    pub use crate::chain::{AddressArgs, Chain, PanicCode, TxOptions, TxOutcome, TxStatus};
    pub use crate::{Campaign, Error, Outcome, PanicSet, Result};
    pub use alloy_dyn_abi::DynSolValue;
    pub use alloy_primitives::{Address, B256, Bytes, FixedBytes, I256, U256, address};
    pub use alloy_sol_types::SolEvent;
}
