//! Which contracts, functions and senders a forge suite fuzzes: what the test contract
//! declares through forge-std's `StdInvariant` (`targetContract`, `targetSelector`,
//! `excludeSender`, ...), applied to the contracts `setUp()` deployed, as forge applies it.
//!
//! The declarations are read from the test contract after `setUp()` ([`Declared::read`]);
//! [`select`] is the rule itself, on plain data.

use std::sync::Arc;

use alloy_dyn_abi::{DynSolValue, FunctionExt};
use alloy_json_abi::Function;
use alloy_primitives::{Address, Selector, U256};

use crate::abi::changes_state;
use crate::chain::CREATE2_DEPLOYER;
use crate::chain::{CHEATCODE_ADDRESS, CONSOLE_ADDRESS as CONSOLE, Chain};
use crate::project::{Artifacts, ContractArtifact};
use crate::{Error, Result};
use harvey_project::suite::{is_forge_invariant, is_harness_hook};

/// What a test contract declares about its targets (each list empty when it declares
/// nothing, or does not inherit `StdInvariant`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Declared {
    pub(crate) target_contracts: Vec<Address>,
    pub(crate) target_selectors: Vec<(Address, Vec<Selector>)>,
    pub(crate) target_senders: Vec<Address>,
    pub(crate) target_interfaces: Vec<(Address, Vec<String>)>,
    pub(crate) target_artifacts: Vec<String>,
    pub(crate) target_artifact_selectors: Vec<(String, Vec<Selector>)>,
    pub(crate) exclude_contracts: Vec<Address>,
    pub(crate) exclude_senders: Vec<Address>,
    pub(crate) exclude_selectors: Vec<(Address, Vec<Selector>)>,
    pub(crate) exclude_artifacts: Vec<String>,
}

/// A contract to fuzz and which of its functions.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    pub(crate) address: Address,
    /// The ABI it is fuzzed with: the artifact its code matches, or the one
    /// `targetInterfaces` names.
    pub(crate) artifact: Arc<ContractArtifact>,
    /// Only these selectors (`targetSelector`, `targetArtifactSelector`); `None`: all.
    pub(crate) only: Option<Vec<Selector>>,
    /// Never these (`excludeSelector`).
    pub(crate) except: Vec<Selector>,
}

/// What the suite fuzzes: contracts with their functions, and the senders.
#[derive(Debug, Clone)]
pub(crate) struct Selection {
    pub(crate) targets: Vec<Target>,
    pub(crate) senders: Vec<Address>,
}

impl Target {
    /// `address` fuzzed with `artifact`'s ABI, every function of it.
    fn new(address: Address, artifact: &Arc<ContractArtifact>) -> Target {
        Target {
            address,
            artifact: Arc::clone(artifact),
            only: None,
            except: Vec::new(),
        }
    }
}

impl Declared {
    /// Reads every declaration `test` (whose ABI is `artifact`'s) makes, by calling the
    /// `StdInvariant` getters it has (state discarded, as a view).
    pub(crate) fn read(
        chain: &Chain,
        caller: Address,
        test: Address,
        artifact: &ContractArtifact,
    ) -> Result<Declared> {
        let get = |name: &str| -> Result<Option<DynSolValue>> {
            let Some(function) = artifact.abi.function(name).and_then(|f| f.first()) else {
                return Ok(None);
            };
            if !function.inputs.is_empty() {
                return Ok(None);
            }
            getter(chain, caller, test, function, &artifact.name).map(Some)
        };
        Ok(Declared {
            target_contracts: addresses(get("targetContracts")?),
            target_selectors: address_selectors(get("targetSelectors")?),
            target_senders: addresses(get("targetSenders")?),
            target_interfaces: address_names(get("targetInterfaces")?),
            target_artifacts: names(get("targetArtifacts")?),
            target_artifact_selectors: name_selectors(get("targetArtifactSelectors")?),
            exclude_contracts: addresses(get("excludeContracts")?),
            exclude_senders: addresses(get("excludeSenders")?),
            exclude_selectors: address_selectors(get("excludeSelectors")?),
            exclude_artifacts: names(get("excludeArtifacts")?),
        })
    }
}

/// Calls getter `function` of the test contract and decodes its one return value.
fn getter(
    chain: &Chain,
    caller: Address,
    test: Address,
    function: &Function,
    suite: &str,
) -> Result<DynSolValue> {
    let failed = |reason: String| Error::Suite {
        suite: suite.to_string(),
        reason: format!("`{}` {reason}", function.signature()),
    };
    let probe = chain.probe(caller, test, function.selector().to_vec().into())?;
    if !probe.outcome.is_success() {
        return Err(failed(probe.outcome.status.to_string()));
    }
    let mut values = function
        .abi_decode_output(&probe.outcome.output)
        .map_err(|e| failed(format!("returned data that does not decode: {e}")))?;
    if values.len() != 1 {
        return Err(failed("does not return one value".into()));
    }
    Ok(values.remove(0))
}

/// The elements of an array value (nothing for anything else).
fn elements(value: Option<DynSolValue>) -> Vec<DynSolValue> {
    match value {
        Some(DynSolValue::Array(items)) | Some(DynSolValue::FixedArray(items)) => items,
        _ => Vec::new(),
    }
}

fn addresses(value: Option<DynSolValue>) -> Vec<Address> {
    elements(value)
        .iter()
        .filter_map(DynSolValue::as_address)
        .collect()
}

fn names(value: Option<DynSolValue>) -> Vec<String> {
    elements(value)
        .iter()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}

/// The selectors of a `bytes4[]`.
fn selectors(value: &DynSolValue) -> Vec<Selector> {
    match value {
        DynSolValue::Array(items) => items
            .iter()
            .filter_map(|item| match item {
                DynSolValue::FixedBytes(word, 4) => Some(Selector::from_slice(&word[..4])),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// `FuzzSelector[]`: `(address addr, bytes4[] selectors)`.
fn address_selectors(value: Option<DynSolValue>) -> Vec<(Address, Vec<Selector>)> {
    elements(value)
        .iter()
        .filter_map(|item| match item.as_tuple()? {
            [addr, list] => Some((addr.as_address()?, selectors(list))),
            _ => None,
        })
        .collect()
}

/// `FuzzArtifactSelector[]`: `(string artifact, bytes4[] selectors)`.
fn name_selectors(value: Option<DynSolValue>) -> Vec<(String, Vec<Selector>)> {
    elements(value)
        .iter()
        .filter_map(|item| match item.as_tuple()? {
            [name, list] => Some((name.as_str()?.to_string(), selectors(list))),
            _ => None,
        })
        .collect()
}

/// `FuzzInterface[]`: `(address addr, string[] artifacts)`.
fn address_names(value: Option<DynSolValue>) -> Vec<(Address, Vec<String>)> {
    elements(value)
        .iter()
        .filter_map(|item| match item.as_tuple()? {
            [addr, list] => Some((addr.as_address()?, names(Some(list.clone())))),
            _ => None,
        })
        .collect()
}

/// Accounts forge never fuzzes or sends from: the cheatcode and console addresses and the
/// CREATE2 deployer.
const FORGE_ACCOUNTS: [Address; 3] = [CHEATCODE_ADDRESS, CONSOLE, CREATE2_DEPLOYER];

/// Whether `address` is a precompile (0x01..=0x11 and P-256's 0x100: forge never sends
/// from one), the zero address or one of forge's own accounts.
fn is_reserved_sender(address: Address) -> bool {
    let word = U256::from_be_bytes(address.into_word().0);
    word <= U256::from(0x11) || word == U256::from(0x100) || FORGE_ACCOUNTS.contains(&address)
}

/// forge's target selection over `created`, the contracts deployed by the test contract's
/// constructor and `setUp()` with the artifact each one's code matches (`test` among them).
/// `fuzzed_senders` (harvey's defaults, then the accounts the suite's state holds) are used
/// when the suite targets none. Problems with the declarations
/// are `Err` with forge's wording; what harvey does differently goes to `warnings`.
pub(crate) fn select(
    declared: &Declared,
    created: &[(Address, Arc<ContractArtifact>)],
    test: Address,
    artifacts: &Artifacts,
    fuzzed_senders: &[Address],
    warnings: &mut Vec<String>,
) -> std::result::Result<Selection, String> {
    let filters = ArtifactFilters::new(declared, artifacts)?;
    // Contracts: those setUp created, narrowed by targetContracts and the filters.
    let mut targets: Vec<Target> = created
        .iter()
        .filter(|(address, artifact)| {
            let selected = declared.target_contracts.contains(address);
            if *address == test {
                return selected;
            }
            !FORGE_ACCOUNTS.contains(address)
                && (declared.target_contracts.is_empty() || selected)
                && !declared.exclude_contracts.contains(address)
                && filters.matches(artifact)
        })
        .map(|(address, artifact)| Target::new(*address, artifact))
        .collect();
    // targetInterfaces: any address, with the named ABI, past every exclusion.
    for (address, names) in &declared.target_interfaces {
        let Some(artifact) = names.iter().find_map(|name| artifacts.get(name).ok()) else {
            continue;
        };
        if names.len() > 1 {
            warnings.push(format!(
                "targetInterfaces: {address} is fuzzed with the ABI of {} only (forge merges the ABIs of {})",
                artifact.name,
                names.join(", ")
            ));
        }
        targets.retain(|t| t.address != *address);
        targets.push(Target::new(*address, artifact));
    }
    // Selectors: targetArtifactSelectors, then targetSelectors, then excludeSelectors.
    for (address, artifact) in created {
        if let Some(selectors) = filters.selectors_of(artifact) {
            target_entry(&mut targets, *address, artifact)
                .only
                .get_or_insert_with(Vec::new)
                .extend(selectors);
        }
    }
    for (address, selectors) in &declared.target_selectors {
        if let Some(target) = selected(
            &mut targets,
            created,
            *address,
            selectors,
            "targetSelectors",
        )? {
            target.only.get_or_insert_with(Vec::new).extend(selectors);
        }
    }
    for (address, selectors) in &declared.exclude_selectors {
        if let Some(target) = selected(
            &mut targets,
            created,
            *address,
            selectors,
            "excludeSelectors",
        )? {
            target.except.extend(selectors);
        }
    }
    for target in &mut targets {
        if target.address == test && target.only.is_none() {
            // The test contract's own test functions are never fuzzed (views such as
            // forge-std's `IS_TEST` getter never are anyway, and cannot be excluded).
            target.except.extend(
                target
                    .artifact
                    .abi
                    .functions()
                    .filter(|f| is_reserved_function(&f.name) && changes_state(f))
                    .map(|f| f.selector()),
            );
        }
        if target.only.is_some() {
            // As forge: an explicit selection is taken as is.
            target.except.clear();
        }
        drop_views(target, warnings);
    }
    targets.retain(|t| t.only.as_ref().is_none_or(|only| !only.is_empty()));
    if targets.is_empty() {
        return Err("No contracts to fuzz.".into());
    }
    // As forge's sender filters: the targeted senders are taken as declared (precompile
    // addresses included: a suite's `targetSender(address(0x1))` means that address), less
    // the excluded ones and address(0); none left means none targeted.
    let targeted: Vec<Address> = declared
        .target_senders
        .iter()
        .copied()
        .filter(|a| !a.is_zero() && !declared.exclude_senders.contains(a))
        .collect();
    let senders = if targeted.is_empty() {
        // The fuzzed senders, never a precompile or forge's own accounts, less the
        // excluded ones.
        let excluded = |a: &Address| is_reserved_sender(*a) || declared.exclude_senders.contains(a);
        fuzzed_senders
            .iter()
            .copied()
            .filter(|a| !excluded(a))
            .collect()
    } else {
        targeted
    };
    if senders.is_empty() {
        return Err("every sender is excluded (targetSenders/excludeSenders)".into());
    }
    Ok(Selection { targets, senders })
}

/// Functions of a forge test contract that are its tests, not state to fuzz.
fn is_reserved_function(name: &str) -> bool {
    is_harness_hook(name) || name.starts_with("test") || is_forge_invariant(name)
}

/// The target at `address`, added with `artifact` when there is none yet.
fn target_entry<'t>(
    targets: &'t mut Vec<Target>,
    address: Address,
    artifact: &Arc<ContractArtifact>,
) -> &'t mut Target {
    let at = match targets.iter().position(|t| t.address == address) {
        Some(at) => at,
        None => {
            targets.push(Target::new(address, artifact));
            targets.len() - 1
        }
    };
    &mut targets[at]
}

/// The target whose `selectors` a `getter` declaration (`targetSelectors`,
/// `excludeSelectors`) names, added when it is not one yet; `None` for an empty list, which
/// forge ignores. `address` must be a target or a contract setUp created, and have every
/// selector: forge's errors otherwise.
fn selected<'t>(
    targets: &'t mut Vec<Target>,
    created: &[(Address, Arc<ContractArtifact>)],
    address: Address,
    selectors: &[Selector],
    getter: &str,
) -> std::result::Result<Option<&'t mut Target>, String> {
    if selectors.is_empty() {
        return Ok(None);
    }
    let artifact = targets
        .iter()
        .find(|t| t.address == address)
        .map(|t| Arc::clone(&t.artifact))
        .or_else(|| {
            created
                .iter()
                .find(|(a, _)| *a == address)
                .map(|(_, artifact)| Arc::clone(artifact))
        })
        .ok_or_else(|| {
            format!("[{getter}] address does not have an associated contract: {address}")
        })?;
    check_selectors(&artifact, selectors)?;
    Ok(Some(target_entry(targets, address, &artifact)))
}

/// Every selector must be one of `artifact`'s functions.
fn check_selectors(
    artifact: &ContractArtifact,
    selectors: &[Selector],
) -> std::result::Result<(), String> {
    match selectors
        .iter()
        .find(|s| !artifact.abi.functions().any(|f| f.selector() == **s))
    {
        Some(missing) => Err(format!(
            "{} does not have the selector {missing}",
            artifact.name
        )),
        None => Ok(()),
    }
}

/// Removes the view and pure functions of an explicit selection: harvey fuzzes only calls
/// that can change state (forge calls them too, to no effect).
fn drop_views(target: &mut Target, warnings: &mut Vec<String>) {
    let Some(only) = &mut target.only else {
        return;
    };
    let abi = &target.artifact.abi;
    let is_view = |selector: &Selector| {
        abi.functions()
            .any(|f| f.selector() == *selector && !changes_state(f))
    };
    let views: Vec<Selector> = only.iter().copied().filter(|s| is_view(s)).collect();
    if !views.is_empty() {
        only.retain(|s| !is_view(s));
        let names: Vec<String> = abi
            .functions()
            .filter(|f| views.contains(&f.selector()))
            .map(|f| f.signature())
            .collect();
        warnings.push(format!(
            "{}: not fuzzing the view/pure functions the suite selects ({}): they cannot change state",
            target.artifact.name,
            names.join(", ")
        ));
    }
    only.dedup();
}

/// forge's artifact filters: `targetArtifactSelectors` > `excludeArtifacts` >
/// `targetArtifacts`; artifacts without a state-changing function are always excluded.
struct ArtifactFilters {
    /// Targeted artifacts (qualified names), each with its selectors (empty: all).
    targeted: Vec<(String, Vec<Selector>)>,
    excluded: Vec<String>,
}

impl ArtifactFilters {
    fn new(declared: &Declared, artifacts: &Artifacts) -> std::result::Result<Self, String> {
        let artifact_named = |name: &str| {
            artifacts.get(name).map_err(|_| {
                format!(
                    "{name} not found in the project. Allowed format: `contract_name` or `contract_path:contract_name`."
                )
            })
        };
        let find = |name: &str| artifact_named(name).map(|a| a.qualified_name());
        let mut targeted: Vec<(String, Vec<Selector>)> = Vec::new();
        for (name, selectors) in &declared.target_artifact_selectors {
            let artifact = artifact_named(name)?;
            check_selectors(artifact, selectors)?;
            let id = artifact.qualified_name();
            match targeted.iter_mut().find(|(known, _)| *known == id) {
                Some((_, known)) => known.extend(selectors),
                None => targeted.push((id, selectors.clone())),
            }
        }
        let mut excluded = declared
            .exclude_artifacts
            .iter()
            .map(|name| find(name))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        excluded.extend(
            artifacts
                .contracts()
                .filter(|a| !a.abi.functions().any(changes_state))
                .map(|a| a.qualified_name()),
        );
        for name in &declared.target_artifacts {
            let id = find(name)?;
            if !targeted.iter().any(|(known, _)| *known == id) && !excluded.contains(&id) {
                targeted.push((id, Vec::new()));
            }
        }
        Ok(ArtifactFilters { targeted, excluded })
    }

    fn matches(&self, artifact: &ContractArtifact) -> bool {
        let id = artifact.qualified_name();
        (self.targeted.is_empty() || self.targeted.iter().any(|(known, _)| *known == id))
            && !self.excluded.contains(&id)
    }

    /// The selectors `targetArtifactSelectors` names for `artifact`, if any.
    fn selectors_of(&self, artifact: &ContractArtifact) -> Option<Vec<Selector>> {
        let id = artifact.qualified_name();
        self.targeted
            .iter()
            .find(|(known, selectors)| *known == id && !selectors.is_empty())
            .map(|(_, selectors)| selectors.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// An artifact whose ABI has `functions` (`"name:mutability"`, no parameters).
    fn artifact(name: &str, functions: &[&str]) -> ContractArtifact {
        let entries: Vec<String> = functions
            .iter()
            .map(|f| {
                let (name, mutability) = f.split_once(':').unwrap_or((f, "nonpayable"));
                format!(
                    r#"{{"type":"function","name":"{name}","inputs":[],"outputs":[],"stateMutability":"{mutability}"}}"#
                )
            })
            .collect();
        let mut artifact = ContractArtifact::bare(name);
        artifact.abi = serde_json::from_str(&format!("[{}]", entries.join(","))).unwrap();
        artifact
    }

    struct World {
        artifacts: Artifacts,
        created: Vec<(Address, Arc<ContractArtifact>)>,
    }

    const TEST: Address = Address::repeat_byte(0x7e);
    const HANDLER: Address = Address::repeat_byte(0xa1);
    const TOKEN: Address = Address::repeat_byte(0xa2);
    const ORACLE: Address = Address::repeat_byte(0xa3);

    fn world() -> World {
        let artifacts = Artifacts::new(
            PathBuf::from("."),
            vec![
                artifact(
                    "Suite",
                    &[
                        "setUp",
                        "invariant_supply:view",
                        "poke",
                        "targetContracts:view",
                        "IS_TEST:view",
                    ],
                ),
                artifact("Handler", &["deposit", "withdraw", "ghost:view"]),
                artifact("Token", &["transfer", "totalSupply:view"]),
                artifact("Oracle", &["price:view"]),
            ],
            false,
        );
        let by_name = |name: &str| Arc::clone(artifacts.get(name).unwrap());
        let created = vec![
            (TEST, by_name("Suite")),
            (HANDLER, by_name("Handler")),
            (TOKEN, by_name("Token")),
            (ORACLE, by_name("Oracle")),
        ];
        World { artifacts, created }
    }

    fn run(declared: &Declared) -> std::result::Result<Selection, String> {
        let world = world();
        let mut warnings = Vec::new();
        select(
            declared,
            &world.created,
            TEST,
            &world.artifacts,
            &[Address::with_last_byte(1), Address::repeat_byte(0x10)],
            &mut warnings,
        )
    }

    fn addresses_of(selection: &Selection) -> Vec<Address> {
        selection.targets.iter().map(|t| t.address).collect()
    }

    fn selector(world: &World, contract: &str, function: &str) -> Selector {
        world
            .artifacts
            .get(contract)
            .unwrap()
            .abi
            .function(function)
            .unwrap()[0]
            .selector()
    }

    #[test]
    fn by_default_every_created_contract_with_state_to_change_but_the_test() {
        let selection = run(&Declared::default()).unwrap();
        // The test contract is not targeted unless named; a view-only contract never is.
        assert_eq!(addresses_of(&selection), vec![HANDLER, TOKEN]);
        assert!(selection.targets.iter().all(|t| t.only.is_none()));
        // Precompiles are never senders: 0x..01 is dropped from the defaults.
        assert_eq!(selection.senders, vec![Address::repeat_byte(0x10)]);
    }

    #[test]
    fn target_and_exclude_contracts_narrow_the_set() {
        let only_handler = Declared {
            target_contracts: vec![HANDLER],
            ..Declared::default()
        };
        assert_eq!(addresses_of(&run(&only_handler).unwrap()), vec![HANDLER]);
        let no_token = Declared {
            exclude_contracts: vec![TOKEN],
            ..Declared::default()
        };
        assert_eq!(addresses_of(&run(&no_token).unwrap()), vec![HANDLER]);
        let nothing = Declared {
            exclude_contracts: vec![HANDLER, TOKEN],
            ..Declared::default()
        };
        assert_eq!(run(&nothing).unwrap_err(), "No contracts to fuzz.");
    }

    #[test]
    fn the_test_contract_is_fuzzed_only_when_targeted_and_never_its_tests() {
        let world = world();
        let declared = Declared {
            target_contracts: vec![TEST],
            ..Declared::default()
        };
        let selection = run(&declared).unwrap();
        assert_eq!(addresses_of(&selection), vec![TEST]);
        let except = &selection.targets[0].except;
        assert!(except.contains(&selector(&world, "Suite", "setUp")));
        assert!(!except.contains(&selector(&world, "Suite", "poke")));
        // A view (forge-std's `IS_TEST` getter) is not called anyway: excluding it would be
        // excluding what the fuzz plan refuses to name (Chimera's `targetContract(this)`).
        assert!(!except.contains(&selector(&world, "Suite", "IS_TEST")));
    }

    #[test]
    fn selectors_restrict_and_add_targets() {
        let world = world();
        let withdraw = selector(&world, "Handler", "withdraw");
        let declared = Declared {
            target_contracts: vec![TOKEN],
            target_selectors: vec![(HANDLER, vec![withdraw])],
            exclude_selectors: vec![(TOKEN, vec![selector(&world, "Token", "transfer")])],
            ..Declared::default()
        };
        let selection = run(&declared).unwrap();
        assert_eq!(addresses_of(&selection), vec![TOKEN, HANDLER]);
        assert_eq!(selection.targets[1].only, Some(vec![withdraw]));
        assert_eq!(selection.targets[0].except.len(), 1);
        // A selector the contract lacks, or an address setUp did not create: forge's errors.
        let missing = Declared {
            target_selectors: vec![(HANDLER, vec![Selector::repeat_byte(9)])],
            ..Declared::default()
        };
        assert!(
            run(&missing)
                .unwrap_err()
                .contains("does not have the selector")
        );
        let stranger = Declared {
            target_selectors: vec![(Address::repeat_byte(0xee), vec![withdraw])],
            ..Declared::default()
        };
        assert!(
            run(&stranger)
                .unwrap_err()
                .starts_with("[targetSelectors] address does not have an associated contract")
        );
    }

    #[test]
    fn a_selected_view_is_dropped_with_a_warning() {
        let world = world();
        let declared = Declared {
            target_selectors: vec![(
                HANDLER,
                vec![
                    selector(&world, "Handler", "ghost"),
                    selector(&world, "Handler", "deposit"),
                ],
            )],
            ..Declared::default()
        };
        let mut warnings = Vec::new();
        let selection = select(
            &declared,
            &world.created,
            TEST,
            &world.artifacts,
            &[Address::repeat_byte(0x10)],
            &mut warnings,
        )
        .unwrap();
        let handler = selection
            .targets
            .iter()
            .find(|t| t.address == HANDLER)
            .unwrap();
        assert_eq!(
            handler.only,
            Some(vec![selector(&world, "Handler", "deposit")])
        );
        assert!(warnings[0].contains("ghost()"), "{warnings:?}");
    }

    #[test]
    fn artifacts_filter_by_name() {
        let only_tokens = Declared {
            target_artifacts: vec!["Token".into()],
            ..Declared::default()
        };
        assert_eq!(addresses_of(&run(&only_tokens).unwrap()), vec![TOKEN]);
        let no_handlers = Declared {
            exclude_artifacts: vec!["src/Handler.sol:Handler".into()],
            ..Declared::default()
        };
        assert_eq!(addresses_of(&run(&no_handlers).unwrap()), vec![TOKEN]);
        let unknown = Declared {
            target_artifacts: vec!["Nope".into()],
            ..Declared::default()
        };
        assert!(
            run(&unknown)
                .unwrap_err()
                .starts_with("Nope not found in the project")
        );
    }

    #[test]
    fn senders_are_the_targeted_ones_minus_the_excluded() {
        let alice = Address::repeat_byte(0x11);
        let bob = Address::repeat_byte(0x12);
        let declared = Declared {
            target_senders: vec![alice, bob, Address::ZERO],
            exclude_senders: vec![bob],
            ..Declared::default()
        };
        assert_eq!(run(&declared).unwrap().senders, vec![alice]);
        // Precompile addresses a suite targets are its senders (a token sale's buyers
        // `targetSender(address(0x1))` ... `address(0x5)`), as forge runs them.
        let buyers: Vec<Address> = (1..=5u8).map(Address::with_last_byte).collect();
        let low = Declared {
            target_senders: buyers.clone(),
            ..Declared::default()
        };
        assert_eq!(run(&low).unwrap().senders, buyers);
        // Every targeted sender excluded: none targeted, so the fuzzed ones (less the
        // precompile among this test's defaults), as forge fuzzes senders then too.
        let all_out = Declared {
            target_senders: vec![bob],
            exclude_senders: vec![bob],
            ..Declared::default()
        };
        assert_eq!(
            run(&all_out).unwrap().senders,
            vec![Address::repeat_byte(0x10)]
        );
        let none_left = Declared {
            exclude_senders: vec![Address::repeat_byte(0x10)],
            ..Declared::default()
        };
        assert!(
            run(&none_left)
                .unwrap_err()
                .contains("every sender is excluded")
        );
        // An interface target takes any address, past the exclusions.
        let proxy = Address::repeat_byte(0x99);
        let interfaced = Declared {
            target_interfaces: vec![(proxy, vec!["Handler".into()])],
            exclude_contracts: vec![proxy],
            ..Declared::default()
        };
        assert!(addresses_of(&run(&interfaced).unwrap()).contains(&proxy));
    }
}
