//! What a Solidity suite is, found among a project's compiled contracts: a forge test
//! contract (`invariant_*` functions over the contracts its `setUp()` deploys, fuzz tests)
//! or an Echidna/Medusa property contract (`echidna_*`/`property_*` functions, or assertion
//! mode), with the Echidna or Medusa config it runs with ([`SuiteDefinition`]); the suites a
//! project holds ([`suites`]); and the settings forge's and the harness tools' configurations
//! give a campaign of one. harvey's `suite` module sets the chain up and checks the
//! invariants; what is here only reads artifacts and files.

mod configs;
mod forge_tests;
mod inline_config;
mod list;
mod names;

use std::sync::Arc;

use alloy_json_abi::Function;
use alloy_primitives::{Address, U256, address};

use crate::error::{Error, Result};
use crate::project::{Artifacts, ChainSettings, ContractArtifact};
use configs::echidna_defaults;
pub use configs::{FunctionFilter, HarnessConfig, Meaning, Tool, chosen as chosen_config};
pub use forge_tests::{ForgeTests, TEST_FAIL_REMOVED, forge_tests, fuzz_budget};
pub use list::{SuiteKind, SuiteSummary, every_suite_tested, suites};
pub use names::{is_forge_invariant, is_harness_hook, is_property};

/// forge's default sender: it deploys the test contract, calls `setUp()` and every
/// invariant (`Config::DEFAULT_SENDER`, also `CALLER`).
pub const FORGE_SENDER: Address = address!("0x1804c8AB1F12E6bbf3894d4083f33e07309d1f38");

/// Where forge's test contract lives: [`FORGE_SENDER`]'s creation at nonce 1.
pub const TEST_CONTRACT: Address = address!("0x7FA9385bE102ac3EAc297483Dd6233D62b3e1496");

/// forge's `initial_balance` of the test contract (and its senders after deployment):
/// 2^96 - 1 wei.
pub const FORGE_BALANCE: U256 = U256::from_limbs([u64::MAX, u32::MAX as u64, 0, 0]);

/// forge's default gas limit of a test transaction: 2^30.
const FORGE_GAS_LIMIT: u64 = 1 << 30;

/// How a suite's contracts are chosen for fuzzing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// forge: the contracts `setUp()` deployed, as `StdInvariant` selects them.
    Forge,
    /// Echidna/Medusa: the property contract's own functions.
    Properties,
}

/// A test contract whose invariants a campaign checks, as found among the compiled
/// contracts: which functions are its invariants and hooks, the config it runs with, and
/// the accounts that deploy and probe it. harvey's `Suite` sets a chain up from it.
#[derive(Debug, Clone)]
pub struct SuiteDefinition {
    /// The test contract's artifact.
    pub test: Arc<ContractArtifact>,
    /// The project's artifacts with forge's execution defaults where foundry.toml sets none.
    pub artifacts: Arc<Artifacts>,
    /// How its contracts are chosen for fuzzing.
    pub style: Style,
    /// The invariant functions: `invariant*`/`statefulFuzz*` and `echidna_*`/`property_*`.
    pub invariants: Vec<Function>,
    /// `afterInvariant()`, when the test contract has one.
    pub after_invariant: Option<Function>,
    /// The forge fuzz test the campaign runs instead of invariants, when it runs one.
    pub fuzz_test: Option<Function>,
    /// Whether the test contract has a `setUp()` to call.
    pub set_up: bool,
    /// The Echidna or Medusa config the harness runs with, if any.
    pub config: Option<HarnessConfig>,
    /// For an Echidna/Medusa harness no config names: Echidna's defaults, which set it up
    /// (see [`SuiteDefinition::harness_meaning`]).
    pub defaults: Option<Meaning>,
    /// Who deploys the test contract (forge's sender, or the config's deployer).
    pub deployer: Address,
    /// Where the test contract lives: the deployer's first creation.
    pub address: Address,
    /// Who calls the invariant functions: forge's sender, or the config's property sender.
    pub prober: Address,
}

impl SuiteDefinition {
    /// The suite whose test contract is `name` (`Name` or `path:Name`), run with the Echidna
    /// or Medusa `config` when given (its property prefixes, deployer and senders). An unknown name lists
    /// the known contracts; a contract without invariant functions, or with one that takes
    /// parameters, is an [`Error::Suite`]. Invariants harvey cannot check as forge does are
    /// left out with a line in `warnings`.
    pub fn find(
        artifacts: &Arc<Artifacts>,
        name: &str,
        config: Option<HarnessConfig>,
        warnings: &mut Vec<String>,
    ) -> Result<SuiteDefinition> {
        let test = Arc::clone(artifacts.get(name)?);
        if let Some(config) = config {
            return SuiteDefinition::with_config(artifacts, test, config, warnings);
        }
        let failed = |reason: String| Error::Suite {
            suite: test.name.clone(),
            reason,
        };
        let mut invariants = Vec::new();
        let mut forge = false;
        for function in test.abi.functions() {
            let forge_style = is_forge_invariant(&function.name);
            let property_style = is_property(&function.name);
            if !forge_style && !property_style {
                continue;
            }
            if !function.inputs.is_empty() {
                return Err(failed(format!(
                    "invariant function `{}` takes parameters; invariant functions take none",
                    function.signature()
                )));
            }
            if forge_style && returns(function, "int256") {
                warnings.push(format!(
                    "{}: `{}` returns int256, which forge runs as an optimization target (maximised, never failing); harvey does not, and skips it",
                    test.name,
                    function.signature()
                ));
                continue;
            }
            forge |= forge_style;
            invariants.push(function.clone());
        }
        if invariants.is_empty() {
            // A forge test contract without invariants is not an invariant suite; any other
            // contract runs in Echidna's assertion mode (its failed asserts and
            // `AssertionFailed` events are the bugs).
            if test.abi.function("IS_TEST").is_some() {
                return Err(failed(
                    "it has no invariant function (`invariant*`, `statefulFuzz*`, `echidna_*` or `property_*`, without parameters); a fuzz test (`test*` with parameters) runs with Campaign::fuzz_test".into(),
                ));
            }
            warnings.push(format!(
                "{}: no invariant or property function, so it runs in assertion mode: its own functions are fuzzed and failed asserts and AssertionFailed events are the violations",
                test.name
            ));
        }
        let set_up = special(&test, "setUp", warnings)?.is_some();
        let after_invariant = special(&test, "afterInvariant", warnings)?;
        // An Echidna/Medusa harness with no config is set up as those tools set it up by
        // default, not as forge sets up a test contract.
        let defaults = (!forge).then(echidna_defaults);
        Ok(SuiteDefinition {
            invariants,
            after_invariant,
            ..SuiteDefinition::plain(artifacts, test, set_up, defaults)
        })
    }

    /// The forge test contract `name` with nothing to check yet: what a fuzz test starts
    /// from.
    fn forge_test(
        artifacts: &Arc<Artifacts>,
        name: &str,
        warnings: &mut Vec<String>,
    ) -> Result<SuiteDefinition> {
        let test = Arc::clone(artifacts.get(name)?);
        let set_up = special(&test, "setUp", warnings)?.is_some();
        Ok(SuiteDefinition::plain(artifacts, test, set_up, None))
    }

    /// The suite of `test` with no invariants, set up as forge sets up a test contract, or
    /// by Echidna's `defaults` as a harness without a config.
    fn plain(
        artifacts: &Arc<Artifacts>,
        test: Arc<ContractArtifact>,
        set_up: bool,
        defaults: Option<Meaning>,
    ) -> SuiteDefinition {
        let (deployer, prober) = defaults.as_ref().map_or((FORGE_SENDER, FORGE_SENDER), |m| {
            (m.deployer, m.property_sender)
        });
        SuiteDefinition {
            artifacts: Arc::new(with_forge_defaults(artifacts)),
            test,
            style: match defaults {
                None => Style::Forge,
                Some(_) => Style::Properties,
            },
            invariants: Vec::new(),
            after_invariant: None,
            fuzz_test: None,
            set_up,
            config: None,
            // forge deploys at its sender's nonce 1, the harness tools at the deployer's 0.
            address: match defaults {
                None => TEST_CONTRACT,
                Some(_) => deployer.create(0),
            },
            defaults,
            deployer,
            prober,
        }
    }

    /// The harness `test` as its Echidna or Medusa `config` runs it: the property functions
    /// are those with one of the config's prefixes that take nothing and return a `bool`
    /// (when the config checks properties), the harness is deployed by the config's deployer
    /// and probed from its property sender. A forge test contract takes no config; a config
    /// under which nothing is tested is an error, as in both tools.
    fn with_config(
        artifacts: &Arc<Artifacts>,
        test: Arc<ContractArtifact>,
        config: HarnessConfig,
        warnings: &mut Vec<String>,
    ) -> Result<SuiteDefinition> {
        let failed = |reason: String| Error::Suite {
            suite: test.name.clone(),
            reason: format!("with {}: {reason}", config.file.display()),
        };
        if test.abi.function("IS_TEST").is_some() {
            return Err(failed(format!(
                "{} is a forge test contract; an {} config applies to a harness",
                test.name,
                config.tool.name()
            )));
        }
        let meaning = &config.meaning;
        let mut invariants = Vec::new();
        for function in test.abi.functions() {
            if !meaning
                .prefixes
                .iter()
                .any(|p| function.name.starts_with(p.as_str()))
            {
                continue;
            }
            let property = function.inputs.is_empty() && returns(function, "bool");
            if property && meaning.properties {
                invariants.push(function.clone());
            } else if !property {
                warnings.push(format!(
                    "{}: `{}` has a test prefix of {} but is not a property (no parameters, returns bool): it is neither checked nor called",
                    test.name,
                    function.signature(),
                    config.file.display()
                ));
            }
        }
        if invariants.is_empty() && meaning.panics.is_empty() {
            return Err(failed(format!(
                "no test to run: no property function (named {} with no parameters, returning bool) and no assertion testing; {} stops here too",
                meaning
                    .prefixes
                    .iter()
                    .map(|p| format!("`{p}*`"))
                    .collect::<Vec<_>>()
                    .join(" or "),
                config.tool.name()
            )));
        }
        warnings.extend(
            config
                .ignored
                .iter()
                .map(|w| format!("{}: {w}", config.file.display())),
        );
        let set_up = special(&test, "setUp", warnings)?.is_some();
        let deployer = meaning.deployer;
        let prober = meaning.property_sender;
        Ok(SuiteDefinition {
            artifacts: Arc::new(with_forge_defaults(artifacts)),
            test,
            style: Style::Properties,
            invariants,
            after_invariant: None,
            fuzz_test: None,
            set_up,
            address: deployer.create(0),
            deployer,
            prober,
            config: Some(config),
            defaults: None,
        })
    }

    /// Whether the suite runs in Echidna's assertion mode: a property contract with no
    /// property functions, whose own functions' assertions are what is tested.
    pub fn assertion_mode(&self) -> bool {
        self.style == Style::Properties && self.invariants.is_empty()
    }

    /// Whether a reverting fuzzed call can be a violation (`fail_on_revert`): in forge
    /// suites, as forge. Echidna and Medusa never count reverts in property contracts,
    /// whose `require`s are how a property rejects inputs that do not apply.
    pub fn counts_reverts(&self) -> bool {
        self.style == Style::Forge
    }

    /// Whether an `AssertionFailed(..)` event is a violation: in forge suites and property
    /// contracts without a config (harvey's default), and under an Echidna config in
    /// assertion mode; Medusa never counts them.
    pub fn counts_assertion_events(&self) -> bool {
        self.config
            .as_ref()
            .is_none_or(|config| config.meaning.assertion_events)
    }

    /// Whether a revert with a failed forge-std assertion (`assertion failed: ..`) is a
    /// violation: in every suite without a config (as forge), and under a config only in
    /// assertion mode (as Echidna 2.3).
    pub fn counts_forge_assertions(&self) -> bool {
        self.config
            .as_ref()
            .is_none_or(|config| !config.meaning.panics.is_empty())
    }

    /// Whether property `name` is one Echidna expects to revert: named `<prefix>revert_…`
    /// (`echidna_revert_…` by default), Echidna's convention for a property that holds when
    /// it reverts. Medusa and forge have no such convention.
    pub fn expects_revert(&self, name: &str) -> bool {
        let prefixes: &[String] = match self.harness_meaning() {
            Some((meaning, Tool::Echidna)) => &meaning.prefixes,
            _ => &[],
        };
        prefixes.iter().any(|prefix| {
            name.strip_prefix(prefix.as_str())
                .is_some_and(|rest| rest.starts_with("revert_"))
        })
    }

    /// What sets an Echidna/Medusa harness up, and for which tool: its config, else
    /// Echidna's defaults. `None` for a forge test contract.
    pub fn harness_meaning(&self) -> Option<(&Meaning, Tool)> {
        match (&self.config, &self.defaults) {
            (Some(config), _) => Some((&config.meaning, config.tool)),
            (None, Some(defaults)) => Some((defaults, Tool::Echidna)),
            (None, None) => None,
        }
    }
}

/// The inline `forge-config` settings (`runs`, `depth`, `fail_on_revert` of `profile`) in
/// the source file of suite `name`, as `(setting, text)` pairs. An unknown name is the
/// campaign's error to report: no settings then.
pub fn inline_settings(
    artifacts: &Artifacts,
    name: &str,
    profile: &str,
) -> Vec<(&'static str, String)> {
    source_of(artifacts, name)
        .map(|(_, source)| inline_config::invariant_settings(source, profile))
        .unwrap_or_default()
}

/// The inline `forge-config` `[fuzz]` settings of `profile` that apply to fuzz test
/// `function` (a name or a signature) of suite `name`: those documenting the contract, then
/// those documenting the function (later pairs win).
pub fn inline_fuzz_settings(
    artifacts: &Artifacts,
    name: &str,
    profile: &str,
    function: &str,
) -> Vec<(&'static str, String)> {
    let function = function.split_once('(').map_or(function, |(name, _)| name);
    source_of(artifacts, name)
        .map(|(test, source)| inline_config::fuzz_settings(source, profile, &test.name, function))
        .unwrap_or_default()
}

/// Suite `name`'s contract and the text of the file defining it, when both are known.
fn source_of<'a>(artifacts: &'a Artifacts, name: &str) -> Option<(&'a ContractArtifact, &'a str)> {
    let test = artifacts.get(name).ok()?;
    let file = test
        .sources
        .iter()
        .find(|file| file.path == test.source_path)?;
    Some((test, &file.content))
}

/// forge's `[invariant] runs` where neither foundry.toml nor inline config sets it.
const FORGE_RUNS: u64 = 256;
/// forge's `[invariant] depth` where neither foundry.toml nor inline config sets it.
const FORGE_DEPTH: u64 = 500;

/// A suite's settings from forge's configuration (`configured`: foundry.toml's pairs, then
/// the suite's inline ones, later pairs winning), with forge's budget made harvey's: forge
/// runs `runs` sequences of exactly `depth` calls, harvey's sequences are at most `depth`
/// long and grow on demand, so `runs` becomes a `calls` budget of `runs × depth` (forge's
/// 256 × 500 where neither is set): at least the calls forge makes. A value that is not a
/// number is passed on as it is, for the settings' parser to report.
pub fn forge_budget(configured: Vec<(&'static str, String)>) -> Vec<(&'static str, String)> {
    let last = |key: &str| configured.iter().rev().find(|(name, _)| *name == key);
    let number =
        |key: &str| last(key).map(|(_, text)| text.trim().replace('_', "").parse::<u64>().ok());
    let (Some(runs), Some(depth)) = (
        number("runs").unwrap_or(Some(FORGE_RUNS)),
        number("depth").unwrap_or(Some(FORGE_DEPTH)),
    ) else {
        return configured;
    };
    let mut pairs: Vec<(&'static str, String)> = configured
        .into_iter()
        .filter(|(name, _)| *name != "runs")
        .collect();
    pairs.push(("calls", runs.saturating_mul(depth).max(1).to_string()));
    pairs
}

/// `test`'s hook function `wanted` (`setUp`, `afterInvariant`) when it has one without
/// parameters. A function whose name differs only in case, or that takes parameters, is
/// named in `warnings` and not called, as forge warns; two are an error.
fn special(
    test: &ContractArtifact,
    wanted: &str,
    warnings: &mut Vec<String>,
) -> Result<Option<Function>> {
    let found: Vec<&Function> = test
        .abi
        .functions()
        .filter(|f| f.name.eq_ignore_ascii_case(wanted))
        .collect();
    match found.as_slice() {
        [] => Ok(None),
        [one] if one.name == wanted && one.inputs.is_empty() => Ok(Some((*one).clone())),
        [other] => {
            warnings.push(format!(
                "{}: found invalid {wanted} function \"{}\", did you mean \"{wanted}()\"? It is not called",
                test.name,
                other.signature()
            ));
            Ok(None)
        }
        _ => Err(Error::Suite {
            suite: test.name.clone(),
            reason: format!("multiple {wanted} functions"),
        }),
    }
}

/// Whether `function` returns exactly one value of Solidity type `ty`.
fn returns(function: &Function, ty: &str) -> bool {
    matches!(function.outputs.as_slice(), [one] if one.ty == ty)
}

/// `artifacts` with forge's execution defaults where foundry.toml sets none: gas limit
/// 2^30, block 1 at
/// timestamp 1.
fn with_forge_defaults(artifacts: &Artifacts) -> Artifacts {
    let set = artifacts.chain_settings();
    let settings = ChainSettings {
        gas_limit: set.gas_limit.or(Some(FORGE_GAS_LIMIT)),
        block_timestamp: set.block_timestamp.or(Some(1)),
        block_number: set.block_number.or(Some(1)),
        ..set.clone()
    };
    artifacts.clone().with_chain_settings(settings)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(setting, text)` pairs from literals, as the suites' settings functions take and
    /// give them (shared by this module's tests).
    pub(super) fn pairs(list: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
        list.iter().map(|(k, v)| (*k, v.to_string())).collect()
    }

    #[test]
    fn forge_runs_become_calls_of_runs_times_depth() {
        // foundry.toml's runs = 64, depth = 64: forge makes 4,096 calls.
        assert_eq!(
            forge_budget(pairs(&[("runs", "64"), ("depth", "64"), ("seed", "1")])),
            pairs(&[("depth", "64"), ("seed", "1"), ("calls", "4096")])
        );
        // Inline config comes later and wins; forge's defaults fill what neither sets.
        assert_eq!(
            forge_budget(pairs(&[("runs", "64"), ("runs", "1_000")])),
            pairs(&[("calls", "500000")])
        );
        assert_eq!(
            forge_budget(pairs(&[("depth", "25")])),
            pairs(&[("depth", "25"), ("calls", "6400")])
        );
        assert_eq!(forge_budget(Vec::new()), pairs(&[("calls", "128000")]));
        // Garbage is left for the settings' parser to report.
        let garbage = pairs(&[("runs", "lots")]);
        assert_eq!(forge_budget(garbage.clone()), garbage);
    }
}
