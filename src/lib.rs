//! harvey: property and invariant tests for Solidity contracts, written in Rust and run by
//! a greybox fuzzer under plain `cargo test`.
//!
//! What a user needs:
//! - [`Campaign`] runs an invariant campaign and returns an [`Outcome`] (what
//!   `#[harvey::invariant]` runs), configured by its builder methods or a [`Config`], and
//!   aimed at the lines of a [`TargetSpec`] (a git diff, or explicit `file:line`s);
//! - [`chain`] is an in-memory revm chain: deploy, call, view, decoded outcomes, and what a
//!   setup declares about the fuzzed calls;
//! - [`project`] compiles the Solidity sources with foundry-compilers
//!   ([`project::compiled`]) and exposes the artifacts (ABI, bytecode, source maps);
//! - [`report`] renders a failure and a campaign's summary.
//!
//! The layers behind them (see `ARCHITECTURE.md`) are internal. harvey's own tests and
//! benches reach some of them (the observer, the lookahead analysis, the settings'
//! resolution, a chain's raw transactions) through the `internals` feature, which is not
//! for users and has no stability promise.

/// Declares an item `pub` (and doc-hidden) with the `internals` feature and `pub(crate)`
/// without it: what harvey's own tests and benches reach but users do not need. Inside such
/// an item, `pub` means public with the feature, so `unreachable_pub` is allowed there.
macro_rules! internal {
    ($(#[$meta:meta])* $kind:ident $($rest:tt)*) => {
        #[cfg(feature = "internals")]
        #[doc(hidden)]
        $(#[$meta])*
        pub $kind $($rest)*
        #[cfg(not(feature = "internals"))]
        #[allow(unreachable_pub)]
        $(#[$meta])*
        pub(crate) $kind $($rest)*
    };
}

mod abi;
// One decoder of EVM code for the whole library, shared with the project side.
use harvey_project::bytecode;
mod campaign;
pub mod chain;
mod detect;
internal! { mod config; }
mod engine;
mod hash;
internal! { mod lookahead; }
internal! { mod observe; }
internal! { mod oracle; }
pub mod outcome;
mod output;
pub mod project;
pub mod report;
pub(crate) mod suite;
internal! { mod targets; }

pub use campaign::Campaign;
pub use config::{Config, Detector, DetectorSet, Invalid, PanicSet, Steering};
pub use harvey_macros::{forge_suite, invariant, invariants, property};
pub use harvey_project::{Error, Result};
pub use oracle::IntoCheck;
// What a test author reads of an outcome; the statistics' parts are in `outcome`.
pub use harvey_project::suite::every_suite_tested;
pub use outcome::{Call, Failure, Outcome, Place, Progress, Stats, Violation};
pub use targets::{SourceLine, TargetSpec};

/// What a Solidity project holds for harvey: its suites (forge test contracts, Echidna and
/// Medusa harnesses with their configs) and its own contracts. `cargo harvey init` reads
/// them; the guard test it writes calls [`every_suite_tested`].
pub mod discovery {
    pub use crate::project::own_contracts;
    pub use harvey_project::suite::{SuiteKind, SuiteSummary, suites};
}

#[doc(hidden)]
pub mod __private;

/// Rejects the running `#[harvey::property]` case unless `condition` holds: the inputs are
/// not ones the property is about, so the case neither passes nor fails and counts toward
/// no budget (as proptest's `prop_assume!` and forge's `vm.assume`). A property whose every
/// case is rejected fails once `max_rejects` (65,536) are. Only in a property's body.
///
/// ```
/// use harvey::prelude::*;
///
/// fn shares_round_down(chain: &mut Chain, assets: U256, supply: U256) -> bool {
///     harvey::assume!(supply > U256::ZERO);
///     assets * supply / supply == assets
/// }
/// ```
#[macro_export]
macro_rules! assume {
    ($condition:expr $(,)?) => {
        if !$condition {
            return $crate::__private::reject();
        }
    };
}

/// Fails an invariant with a message unless `condition` holds, as `assert!` fails a test
/// (and `prop_assert!` a property): returns `Err(harvey::Error::Invariant(message))` from
/// the enclosing function, which returns a `harvey::Result`. The message is built only when
/// the condition fails; without one, it names the condition.
///
/// ```
/// use harvey::prelude::*;
///
/// fn bank_accounts_add_up(chain: &Chain) -> harvey::Result<()> {
///     let bank = chain.get("Bank");
///     let owed: U256 = chain.view(bank, "total()", ())?;
///     harvey::ensure!(
///         chain.balance(bank) == owed,
///         "the bank holds {} wei but owes {owed}",
///         chain.balance(bank)
///     );
///     Ok(())
/// }
/// ```
#[macro_export]
macro_rules! ensure {
    ($condition:expr $(,)?) => {
        if !$condition {
            return ::core::result::Result::Err($crate::Error::Invariant(
                ::core::concat!("condition does not hold: ", ::core::stringify!($condition))
                    .into(),
            ));
        }
    };
    ($condition:expr, $($message:tt)+) => {
        if !$condition {
            return ::core::result::Result::Err($crate::Error::Invariant(::std::format!(
                $($message)+
            )));
        }
    };
}

/// The names a setup function and an invariant need, in one import: the chain and its call
/// options, the value types arguments and views use, runtime ABI values, the trait of
/// `sol!` event types (`sol!` itself expands to paths of the `alloy-sol-types` crate, so a
/// crate that declares events with it depends on that crate), and the campaign types.
pub mod prelude {
    pub use crate::chain::{AddressArgs, Chain, PanicCode, TxOptions, TxOutcome, TxStatus};
    pub use crate::{
        Campaign, Config, DetectorSet, Error, Failure, Outcome, PanicSet, Place, Result, Violation,
    };
    pub use alloy_dyn_abi::DynSolValue;
    pub use alloy_primitives::{Address, B256, Bytes, FixedBytes, I256, U256, address};
    pub use alloy_sol_types::SolEvent;
}

/// The Rust code of the README and the book's chapters on the API, compiled as doctests so
/// that what they show keeps compiling against the crate. Doctests build without `--test`,
/// which drops `#[test]` functions unchecked: the attribute macros keep the user's function
/// beside the test they make, so its body is type-checked too (`tests/ui/*_body_checked.rs`
/// hold that to a planted error).
#[cfg(doctest)]
mod documentation {
    #[doc = include_str!("../README.md")]
    struct Readme;
    #[doc = include_str!("../docs/book/src/invariants.md")]
    struct Invariants;
    #[doc = include_str!("../docs/book/src/chain.md")]
    struct DrivingAChain;
    #[doc = include_str!("../docs/book/src/suites.md")]
    struct Suites;
}
