//! What `forge test` runs of a forge test contract besides its invariants: its stateless
//! fuzz tests (`test*` functions with parameters), each run by harvey as a campaign of its
//! own whose sequences are one call long, with forge's `[fuzz]` budget; and the
//! `testFail*` functions forge 1.7.1 refuses.

use alloy_json_abi::Function;
use alloy_primitives::Address;

use super::SuiteDefinition;
use crate::error::{Error, Result};

/// What forge 1.7.1 reports for every `testFail*` function of a test contract, running
/// nothing else of it.
pub const TEST_FAIL_REMOVED: &str = "`testFail*` has been removed. Consider changing to test_Revert[If|When]_Condition and expecting a revert";

/// forge's `[fuzz] runs` where neither foundry.toml nor inline config sets it.
const FORGE_FUZZ_RUNS: u64 = 256;

/// Whether forge runs `function` as a fuzz test: named `test*`, with parameters, and not
/// a `testFail*` one (which forge 1.7.1 refuses, [`is_test_fail`]).
pub(crate) fn is_fuzz_test(function: &Function) -> bool {
    function.name.starts_with("test") && !function.inputs.is_empty() && !is_test_fail(function)
}

/// Whether forge refuses `function` as a removed `testFail*` test.
pub(crate) fn is_test_fail(function: &Function) -> bool {
    function.name.starts_with("testFail")
}

/// A fuzz test's settings from forge's configuration (`configured`: foundry.toml's `[fuzz]`
/// pairs, then the function's inline ones, later pairs winning), as harvey's: every case is
/// one call, so forge's `runs` (256 where nothing sets it) becomes the `calls` budget (a
/// call `vm.assume` rejected is no call, as forge draws another input), sequences are one
/// call deep, and reverts fail the test unless `fail_on_revert = false`. A value that is not
/// a number is passed on, for the settings' parser to report.
pub fn fuzz_budget(configured: Vec<(&'static str, String)>) -> Vec<(&'static str, String)> {
    let runs = configured
        .iter()
        .rev()
        .find(|(name, _)| *name == "runs")
        .map_or(FORGE_FUZZ_RUNS.to_string(), |(_, text)| text.clone());
    let mut pairs = vec![("fail_on_revert", "true".to_string())];
    pairs.extend(configured.into_iter().filter(|(name, _)| *name != "runs"));
    pairs.push(("calls", runs));
    pairs.push(("depth", "1".to_string()));
    pairs
}

/// What `forge test` runs of a forge test contract: whether it has invariants, its fuzz
/// tests (by name, or by signature where the name is overloaded), and the `testFail*`
/// functions forge 1.7.1 refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForgeTests {
    /// Whether it has invariant (or property) functions, run by one campaign.
    pub invariants: bool,
    /// Its fuzz tests, each run by a campaign of its own.
    pub fuzz_tests: Vec<String>,
    /// The signatures of its `testFail*` functions, which forge 1.7.1 refuses.
    pub test_fail: Vec<String>,
}

/// What `forge test` runs of contract `name` when it is a forge test contract (forge-std's
/// `IS_TEST()`, or forge invariant functions); `None` for any other contract (an
/// Echidna/Medusa harness, whose `test*` functions are its own, fuzzed in assertion
/// mode). A test contract with nothing harvey runs, only unit tests, is an
/// [`Error::Suite`]: forge runs unit tests, harvey leaves them to it.
pub fn forge_tests(
    artifacts: &crate::project::Artifacts,
    name: &str,
) -> Result<Option<ForgeTests>> {
    let test = artifacts.get(name)?;
    let functions: Vec<&Function> = test.abi.functions().collect();
    let forge_invariants = functions
        .iter()
        .any(|f| super::names::is_forge_invariant(&f.name));
    if test.abi.function("IS_TEST").is_none() && !forge_invariants {
        return Ok(None);
    }
    let invariants =
        forge_invariants || functions.iter().any(|f| super::names::is_property(&f.name));
    let fuzz: Vec<&Function> = functions
        .iter()
        .copied()
        .filter(|f| is_fuzz_test(f))
        .collect();
    let fuzz_tests: Vec<String> = fuzz
        .iter()
        .map(|f| {
            if fuzz.iter().filter(|g| g.name == f.name).count() > 1 {
                f.signature()
            } else {
                f.name.clone()
            }
        })
        .collect();
    let test_fail: Vec<String> = functions
        .iter()
        .filter(|f| is_test_fail(f))
        .map(|f| f.signature())
        .collect();
    if !invariants && fuzz_tests.is_empty() && test_fail.is_empty() {
        return Err(Error::Suite {
            suite: test.name.clone(),
            reason: "it has no invariant function (`invariant*`, `statefulFuzz*`, `echidna_*` or \
                     `property_*`, without parameters) and no fuzz test (`test*` with \
                     parameters); its unit tests are forge's to run"
                .into(),
        });
    }
    Ok(Some(ForgeTests {
        invariants,
        fuzz_tests,
        test_fail,
    }))
}

impl SuiteDefinition {
    /// The fuzz test `function` (a name, or a signature when the name is overloaded) of the
    /// forge test contract `name`, set up as forge sets it up. A function that is not a fuzz
    /// test, a `testFail*` one (forge 1.7.1 no longer runs them) or an unknown one is an
    /// [`Error::Suite`] listing the contract's fuzz tests.
    pub fn fuzz_test(
        artifacts: &std::sync::Arc<crate::project::Artifacts>,
        name: &str,
        function: &str,
        warnings: &mut Vec<String>,
    ) -> Result<SuiteDefinition> {
        let mut suite = SuiteDefinition::forge_test(artifacts, name, warnings)?;
        let failed = |reason: String| Error::Suite {
            suite: suite.test.name.clone(),
            reason,
        };
        let named: Vec<&Function> = (suite.test.abi.functions())
            .filter(|f| f.name == function || f.signature() == function)
            .collect();
        let found = match named.as_slice() {
            [one] if is_test_fail(one) => return Err(failed(TEST_FAIL_REMOVED.to_string())),
            [one] if is_fuzz_test(one) => (*one).clone(),
            [] | [_] => {
                let known: Vec<String> = (suite.test.abi.functions())
                    .filter(|f| is_fuzz_test(f))
                    .map(Function::signature)
                    .collect();
                return Err(failed(format!(
                    "`{function}` is not one of its fuzz tests (`test*` functions with parameters): {}",
                    if known.is_empty() {
                        "it has none".to_string()
                    } else {
                        known.join(", ")
                    }
                )));
            }
            several => {
                return Err(failed(format!(
                    "`{function}` names {} functions: give its signature ({})",
                    several.len(),
                    several
                        .iter()
                        .map(|f| f.signature())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        };
        suite.fuzz_test = Some(found);
        Ok(suite)
    }

    /// The test contract whose own reverts fail a case, `fail_on_revert` or not: a fuzz
    /// test's (forge ignores, with `fail_on_revert = false`, only reverts a callee raised).
    pub fn own_reverts(&self) -> Option<Address> {
        self.fuzz_test.as_ref().map(|_| self.address)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::pairs;
    use super::*;

    #[test]
    fn forge_fuzz_runs_become_calls_of_one_call_sequences() {
        assert_eq!(
            fuzz_budget(Vec::new()),
            pairs(&[("fail_on_revert", "true"), ("calls", "256"), ("depth", "1")])
        );
        // Inline config comes later and wins; `fail_on_revert = false` over the default.
        assert_eq!(
            fuzz_budget(pairs(&[
                ("runs", "64"),
                ("fail_on_revert", "false"),
                ("seed", "3"),
                ("runs", "1_000")
            ])),
            pairs(&[
                ("fail_on_revert", "true"),
                ("fail_on_revert", "false"),
                ("seed", "3"),
                ("calls", "1_000"),
                ("depth", "1")
            ])
        );
    }

    #[test]
    fn fuzz_tests_are_test_functions_with_parameters() {
        let function = |sig: &str| Function::parse(sig).unwrap();
        assert!(is_fuzz_test(&function("testFuzz_deposit(uint256)")));
        assert!(is_fuzz_test(&function("test_x(address,bytes)")));
        assert!(!is_fuzz_test(&function("test_unit()")));
        assert!(!is_fuzz_test(&function("invariant_x(uint256)")));
        assert!(is_test_fail(&function("testFailDeposit(uint256)")));
        assert!(!is_fuzz_test(&function("testFailDeposit(uint256)")));
    }
}
