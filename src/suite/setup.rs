//! Setting a suite's chain up as its own tool does: forge's sender, addresses and test
//! contract, or an Echidna/Medusa harness deployed by its config's deployer; `setUp()`; then
//! what is fuzzed, as `StdInvariant` declares (forge) or as the harness's tool fuzzes it.

use std::sync::Arc;

use alloy_json_abi::Function;
use alloy_primitives::{Address, U256};

use super::*;

impl Suite {
    /// A chain set up as the suite's own tool sets it up, cheatcodes on: forge's sender
    /// funded and the test contract deployed at [`TEST_CONTRACT`] and funded (forge), or the
    /// harness deployed as its config, else Echidna's defaults, say (Echidna/Medusa); then
    /// `setUp()` called, and the targets, functions and senders selected as the suite
    /// declares (forge) or the harness fuzzed as its tool fuzzes it. forge's calls send no
    /// ether. What harvey does differently from forge is added to `warnings` when given.
    pub(crate) fn build_chain(&self, warnings: Option<&mut Vec<String>>) -> Result<Chain> {
        let mut chain = Chain::new(Arc::clone(&self.artifacts));
        chain.enable_cheatcodes();
        let (options, test) = match self.harness_meaning() {
            None => {
                chain.set_balance(FORGE_SENDER, U256::MAX);
                // forge deploys the test contract at the sender's nonce 1 and funds it first.
                chain.set_nonce(FORGE_SENDER, 1);
                chain.set_balance(TEST_CONTRACT, FORGE_BALANCE);
                chain.commit();
                let options = TxOptions {
                    sender: Some(FORGE_SENDER),
                    value: U256::ZERO,
                };
                let test = chain.deploy_with(&self.test.qualified_name(), &[][..], options)?;
                chain.set_balance(FORGE_SENDER, FORGE_BALANCE);
                (options, test)
            }
            Some((meaning, tool)) => {
                let deployed = self.deploy_harness(&mut chain, meaning, tool);
                match &self.config {
                    Some(config) => deployed.map_err(|e| self.config_error(config, e))?,
                    None => deployed?,
                }
            }
        };
        debug_assert_eq!(test, self.address);
        // What `setUp()` deploys belongs to the test contract and its deployer: the
        // owners the detectors must not take for attackers.
        chain.trust(self.deployer);
        chain.trust(test);
        chain.commit();
        if self.set_up {
            let outcome = chain.try_call_with(test, "setUp()", (), options)?;
            if !outcome.is_success() {
                // A cheatcode harvey lacks is named with the contract and line that called
                // it, not only the address its revert message gives.
                let reason = match chain.take_unsupported() {
                    Some(cheat) => format!(
                        "setUp() called the cheatcode `{}` at {}, which harvey does not support; remove the call or run this suite with forge",
                        cheat.signature,
                        unsupported_place(&chain, &cheat, None)
                    ),
                    None => format!("setUp() {}", outcome.status),
                };
                return Err(Error::Suite {
                    suite: self.test.name.clone(),
                    reason,
                });
            }
        }
        let mut created: Vec<(Address, Arc<ContractArtifact>)> = Vec::new();
        let mut unknown = Vec::new();
        for (address, artifact) in chain.take_created() {
            match artifact {
                Some(artifact) => {
                    chain.adopt(address, Arc::clone(&artifact));
                    created.push((address, artifact));
                }
                None => unknown.push(address),
            }
        }
        let mut notes = Vec::new();
        if !unknown.is_empty() {
            notes.push(format!(
                "{}: setUp created {} contract(s) whose code matches no compiled contract, so they are not fuzzed: {}",
                self.test.name,
                unknown.len(),
                unknown
                    .iter()
                    .map(Address::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        match (self.style, &self.config) {
            (Style::Forge, _) => match &self.fuzz_test {
                Some(function) => self.select_fuzz_test(&mut chain, test, function)?,
                None => self.select_targets(&mut chain, test, &created, &mut notes)?,
            },
            (Style::Properties, None) => self.fuzz_itself(&mut chain, test)?,
            (Style::Properties, Some(config)) => {
                self.fuzz_as_configured(&mut chain, test, &created, config)?
            }
        }
        if self.config.is_none() {
            // forge sends no ether with fuzzed calls; Echidna and Medusa send values to
            // payable functions, as harvey does by default.
            chain.send_no_ether();
        }
        // The campaign's settings (foundry.toml's `max_time_delay`/`max_block_delay`, the
        // attribute, `HARVEY_*`) apply over this.
        chain.set_delays(self.delays());
        chain.commit();
        if let Some(warnings) = warnings {
            warnings.extend(notes);
        }
        Ok(chain)
    }

    /// How far the block moves between fuzzed calls as the suite's own tool moves it: forge
    /// never moves it on its own; a config says how far; Echidna and Medusa, by default,
    /// up to a week and 60,480 blocks (`maxTimeDelay`/`maxBlockDelay`,
    /// `blockTimestampDelayMax`/`blockNumberDelayMax`).
    fn delays(&self) -> Delays {
        let most = |value: u64| Some(u32::try_from(value).unwrap_or(u32::MAX));
        match self.harness_meaning() {
            Some((meaning, _)) => Delays {
                seconds: most(meaning.max_time_delay),
                blocks: most(meaning.max_block_delay),
            },
            None => Delays::STILL,
        }
    }

    /// What sets an Echidna/Medusa harness up, and for which tool: its config, else
    /// Echidna's defaults. `None` for a forge test contract.
    pub(super) fn harness_meaning(&self) -> Option<(&Meaning, Tool)> {
        match (&self.config, &self.defaults) {
            (Some(config), _) => Some((&config.meaning, config.tool)),
            (None, Some(defaults)) => Some((defaults, Tool::Echidna)),
            (None, None) => None,
        }
    }

    /// Deploys the harness as its tool does under `meaning`: the deployer and the senders
    /// funded, the harness created by the deployer with the configured balance. Echidna
    /// mints that balance, so the deployer keeps its own (and what the constructor pays it
    /// back); Medusa transfers it from the deployer's. Returns how the deployer calls it
    /// (`setUp()`) and its address.
    fn deploy_harness(
        &self,
        chain: &mut Chain,
        meaning: &Meaning,
        tool: Tool,
    ) -> Result<(TxOptions, Address)> {
        for sender in &meaning.senders {
            chain.set_balance(*sender, meaning.account_balance);
        }
        let minted = match tool {
            Tool::Echidna => meaning.harness_balance,
            Tool::Medusa => U256::ZERO,
        };
        chain.set_balance(
            self.deployer,
            meaning.account_balance.saturating_add(minted),
        );
        chain.commit();
        let deployment = TxOptions {
            sender: Some(self.deployer),
            value: meaning.harness_balance,
        };
        let test = chain.deploy_with(&self.test.qualified_name(), &[][..], deployment)?;
        let calls = TxOptions {
            sender: Some(self.deployer),
            value: U256::ZERO,
        };
        Ok((calls, test))
    }

    /// Fuzzes what the test contract's `StdInvariant` declarations select.
    fn select_targets(
        &self,
        chain: &mut Chain,
        test: Address,
        created: &[(Address, Arc<ContractArtifact>)],
        warnings: &mut Vec<String>,
    ) -> Result<()> {
        let declared = Declared::read(chain, FORGE_SENDER, test, &self.test)?;
        // forge also sends from the accounts its dictionary holds (`held`).
        let contracts: Vec<Address> = std::iter::once(test)
            .chain(created.iter().map(|(address, _)| *address))
            .collect();
        let mut fuzzed_senders = chain.senders().to_vec();
        fuzzed_senders.extend(held_accounts(chain, &contracts));
        let selection = select(
            &declared,
            created,
            test,
            &self.artifacts,
            &fuzzed_senders,
            warnings,
        )
        .map_err(|reason| Error::Suite {
            suite: self.test.name.clone(),
            reason: format!("failed to set up invariant testing environment: {reason}"),
        })?;
        for target in selection.targets {
            chain.adopt(target.address, target.artifact);
            chain.fuzz(target.address);
            if let Some(only) = &target.only {
                chain.fuzz_only(target.address, only.iter().map(|s| s.to_string()))?;
            }
            if !target.except.is_empty() {
                chain.fuzz_except(target.address, target.except.iter().map(|s| s.to_string()))?;
            }
        }
        chain.set_senders(selection.senders);
        // forge's dynamic targets: contracts created during a run are fuzzed too unless
        // `targetContracts()` named the targets.
        chain.fuzz_created(declared.target_contracts.is_empty());
        Ok(())
    }

    /// Fuzzes what an Echidna or Medusa config selects: the harness's own state-changing
    /// functions except its tests and hooks, with `allContracts`/`testAllContracts` also
    /// the contracts it created (those matching a compiled contract) and those fuzzed calls
    /// create, each through the config's function filter (`Contract.f(..)` entries).
    fn fuzz_as_configured(
        &self,
        chain: &mut Chain,
        test: Address,
        created: &[(Address, Arc<ContractArtifact>)],
        config: &HarnessConfig,
    ) -> Result<()> {
        let meaning = &config.meaning;
        chain.set_senders(meaning.senders.iter().copied());
        // Assertion testing calls view and pure functions too where the tool would (an
        // `assert` in one is a bug); nothing else could come of calling them.
        let views = meaning.view_methods && !meaning.panics.is_empty();
        if views {
            chain.call_views();
        }
        let hooks: Vec<String> = self
            .test
            .abi
            .functions()
            .filter(|f| {
                (views || changes_state(f))
                    && (["setUp", "IS_TEST", "failed"].contains(&f.name.as_str())
                        || (meaning.prefixes.iter())
                            .chain(&meaning.unrun_prefixes)
                            .any(|p| f.name.starts_with(p.as_str())))
            })
            .map(Function::signature)
            .collect();
        let mut fuzzed = vec![(test, &self.test, hooks)];
        if meaning.all_contracts {
            fuzzed.extend(
                created
                    .iter()
                    .map(|(a, artifact)| (*a, artifact, Vec::new())),
            );
        }
        let mut called = Vec::new();
        for (address, artifact, hooks) in fuzzed {
            let listed = meaning.functions.entries_of(&artifact.name);
            match &meaning.functions {
                FunctionFilter::Only(_) if listed.is_empty() => continue,
                FunctionFilter::Only(_) => {
                    chain.fuzz(address);
                    chain
                        .fuzz_only(address, listed)
                        .map_err(|e| self.config_error(config, e))?;
                    called.push((address, artifact));
                }
                // Under allContracts, a harness whose own functions are all properties
                // and hooks is not fuzzed (both tools say nothing of it); the contracts it
                // deployed are.
                _ if meaning.all_contracts
                    && callable(&artifact.abi, views).all(|c| {
                        hooks.contains(&c.signature()) || listed.contains(&c.signature())
                    }) =>
                {
                    continue;
                }
                _ => {
                    chain.fuzz(address);
                    chain
                        .fuzz_except(address, hooks.into_iter().chain(listed))
                        .map_err(|e| self.config_error(config, e))?;
                    called.push((address, artifact));
                }
            }
        }
        let plan = chain.fuzz_plan();
        let left = called.iter().any(|(address, artifact)| {
            callable(&artifact.abi, views).any(|c| plan.calls(*address, &c.signature()))
        });
        if !left {
            return Err(self.config_error(
                config,
                Error::Config(
                    "nothing to fuzz: no contract it fuzzes has a function left to call (its \
                     function filter; `excludeViewPure: true` or Medusa's default \
                     `testViewMethods: false` with only view and pure functions; or a harness \
                     of properties only without allContracts)"
                        .into(),
                ),
            ));
        }
        chain.fuzz_created(meaning.all_contracts);
        Ok(())
    }

    /// `error` in the set-up of a harness run with `config`, naming both.
    fn config_error(&self, config: &HarnessConfig, error: Error) -> Error {
        Error::Suite {
            suite: self.test.name.clone(),
            reason: format!("with {}: {error}", config.file.display()),
        }
    }

    /// Fuzzes the property contract's own state-changing functions as Echidna and Medusa
    /// do: every one, `test*`-named ones included (property libraries such as
    /// crytic/properties name their assertion functions `test_*`), except the properties
    /// themselves and the hooks harvey calls on its own (`setUp`, `afterInvariant`, and
    /// forge-std's `IS_TEST`/`failed`). In assertion mode view and pure functions are
    /// called too, as Echidna calls them by default (`excludeViewPure: false`): an `assert`
    /// in one is a bug. Beside properties they are not, as no call of one can change what a
    /// property reads.
    fn fuzz_itself(&self, chain: &mut Chain, test: Address) -> Result<()> {
        let views = self.assertion_mode();
        if views {
            chain.call_views();
        }
        chain.fuzz(test);
        let hooks: Vec<String> = self
            .test
            .abi
            .functions()
            .filter(|f| (views || changes_state(f)) && is_harness_hook(&f.name))
            .map(Function::signature)
            .collect();
        if callable(&self.test.abi, views).all(|c| hooks.contains(&c.signature())) {
            // Both tools fuzz what such a harness deploys only when its config says so.
            return Err(Error::Suite {
                suite: self.test.name.clone(),
                reason: "nothing to fuzz: every function of the harness is a property or a hook, \
                         and no Echidna or Medusa config names it; with Echidna's \
                         `allContracts: true` or Medusa's `testAllContracts: true` the \
                         contracts it deploys are fuzzed: name that config (`config = \"...\"` \
                         in the attribute, `Campaign::suite_config`)"
                    .into(),
            });
        }
        chain.fuzz_except(test, hooks)
    }
}
