//! Solidity invariant suites run as they are: a forge test contract (`invariant_*` functions
//! over the contracts its `setUp()` deploys, targets declared through forge-std's
//! `StdInvariant`, handlers using cheatcodes) or an Echidna/Medusa property contract
//! (`echidna_*`/`property_*` functions returning `bool` over the contract's own state).
//!
//! What a suite is (its invariants, hooks, config and accounts) is found by
//! `harvey_project::suite` ([`SuiteDefinition`], also what `cargo harvey init` lists); a
//! [`Suite`] runs one: it builds each worker's chain as forge sets a test up
//! ([`Suite::build_chain`]: forge's accounts and addresses, cheatcodes on, the test contract
//! deployed and funded, `setUp()` called, the targets selected as `StdInvariant` declares
//! them, `selection`), and gives the campaign its oracles: every invariant function called
//! after each transaction with its state discarded, `afterInvariant()` at the end of each
//! sequence ([`Suite::invariants`], [`Suite::finals`]). Where harvey differs from forge it
//! says so in the doc of the item involved and in the README.

mod fuzz_test;
mod held;
mod selection;
mod setup;

use std::ops::Deref;
use std::sync::Arc;

use alloy_dyn_abi::{DynSolValue, FunctionExt};
use alloy_json_abi::Function;
use alloy_primitives::Address;

use crate::abi::{callable, changes_state};
use crate::chain::{Chain, Delays, TxOptions, TxStatus};
use crate::oracle::{Invariant, unsupported_place};
use crate::outcome::FunctionStats;
use crate::project::{Artifacts, ContractArtifact};
use crate::{Error, Result};
use harvey_project::suite::{
    FORGE_BALANCE, FORGE_SENDER, FunctionFilter, HarnessConfig, Meaning, Style, SuiteDefinition,
    TEST_CONTRACT, Tool, is_harness_hook, is_property,
};
pub(crate) use harvey_project::suite::{
    TEST_FAIL_REMOVED, chosen_config, forge_budget, forge_tests, fuzz_budget, inline_fuzz_settings,
    inline_settings,
};
use held::held_accounts;
use selection::{Declared, select};

/// A suite a campaign runs: its [`SuiteDefinition`] (read through `Deref`), set up on a
/// chain and checked as its own tool checks it.
pub(crate) struct Suite(SuiteDefinition);

impl Deref for Suite {
    type Target = SuiteDefinition;

    fn deref(&self) -> &SuiteDefinition {
        &self.0
    }
}

impl Suite {
    /// The suite whose test contract is `name`, run with `config` when given
    /// ([`SuiteDefinition::find`]).
    pub(crate) fn find(
        artifacts: &Arc<Artifacts>,
        name: &str,
        config: Option<HarnessConfig>,
        warnings: &mut Vec<String>,
    ) -> Result<Suite> {
        SuiteDefinition::find(artifacts, name, config, warnings).map(Suite)
    }

    /// The fuzz test `function` of the forge test contract `name`
    /// ([`SuiteDefinition::fuzz_test`]).
    pub(crate) fn fuzz_test(
        artifacts: &Arc<Artifacts>,
        name: &str,
        function: &str,
        warnings: &mut Vec<String>,
    ) -> Result<Suite> {
        SuiteDefinition::fuzz_test(artifacts, name, function, warnings).map(Suite)
    }

    /// Why a campaign of this suite that found no violation tested nothing, when it did: in
    /// assertion mode, no call of the property contract's own functions (`functions`, the
    /// campaign's counts) ever ran to its end, so none of their assertions was checked
    /// (every call reverted, or none was made).
    pub(crate) fn untested(&self, functions: &[FunctionStats]) -> Option<String> {
        if !self.assertion_mode() {
            return None;
        }
        let own: Vec<&FunctionStats> = functions
            .iter()
            .filter(|f| f.contract == self.test.name)
            .collect();
        if own.iter().any(|f| f.calls > f.reverts) {
            return None;
        }
        let calls: u64 = own.iter().map(|f| f.calls).sum();
        Some(format!(
            "no assertion of {} was ever checked: its {} fuzzed functions were called {calls} \
             times and every call reverted before returning (a `require` that always fails, \
             a missing setup, or a harness whose functions are all excluded)",
            self.test.name,
            own.len()
        ))
    }

    /// The suite's invariant functions as the campaign's invariants: each is called on the
    /// test contract after every transaction, from forge's sender, and its state discarded.
    /// It fails when it reverts (a failed forge-std assertion reverts), sets forge's global
    /// failure flag, or returns `false` (Echidna/Medusa properties; forge ignores return
    /// values, and harvey does too for `invariant*` functions).
    pub(crate) fn invariants(&self) -> Vec<Invariant<'static>> {
        self.invariants
            .iter()
            .map(|function| {
                let holds = if self.expects_revert(&function.name) {
                    Holds::Reverting
                } else if self.config.is_some() || is_property(&function.name) {
                    Holds::ReturningTrue
                } else {
                    Holds::Succeeding
                };
                invariant_call(function.clone(), holds, self.prober, self.address)
            })
            .collect()
    }

    /// `afterInvariant()`, checked at the end of every sequence, as forge calls it at the end
    /// of every run; for a fuzz test, the check of forge's failure flag after each case (its
    /// one call).
    pub(crate) fn finals(&self) -> Vec<Invariant<'static>> {
        self.after_invariant
            .iter()
            .map(|function| {
                invariant_call(
                    function.clone(),
                    Holds::Succeeding,
                    self.prober,
                    self.address,
                )
            })
            .chain(self.failure_flag())
            .collect()
    }
}

/// What an invariant function must do to hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Holds {
    /// Return without reverting and without setting forge's failure flag (forge).
    Succeeding,
    /// That, and not return `false` (Echidna and Medusa properties).
    ReturningTrue,
    /// Revert (Echidna's `echidna_revert_…` properties).
    Reverting,
}

/// An invariant that calls `function` on the test contract at `test` from `prober`, holding
/// as `holds` says.
fn invariant_call(
    function: Function,
    holds: Holds,
    prober: Address,
    test: Address,
) -> Invariant<'static> {
    let calldata: alloy_primitives::Bytes = function.selector().to_vec().into();
    let name = function.name.clone();
    Invariant {
        name,
        check: Box::new(move |chain: &Chain| {
            let probe = chain
                .probe(prober, test, calldata.clone())
                .map_err(|e| e.to_string())?;
            if holds == Holds::Reverting {
                return match probe.outcome.status {
                    TxStatus::Revert(_) => Ok(()),
                    TxStatus::Success => Err(
                        "did not revert (Echidna's `revert_` properties hold only when they revert)"
                            .into(),
                    ),
                    TxStatus::Halt(_) => Err(probe.outcome.status.to_string()),
                };
            }
            if !probe.outcome.is_success() {
                return Err(probe.outcome.status.to_string());
            }
            if probe.failed {
                return Err("a forge-std assertion failed (forge's failure flag is set)".into());
            }
            if holds == Holds::ReturningTrue {
                let returned = function.abi_decode_output(&probe.outcome.output);
                if let Ok(values) = returned
                    && let [DynSolValue::Bool(false)] = values.as_slice()
                {
                    return Err("returned false".into());
                }
            }
            Ok(())
        }),
        // The invariant function's call is all it reads.
        through_probes: true,
    }
}
