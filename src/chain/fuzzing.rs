//! What the campaign and the engine do with a chain, beside what users call: the fuzz plan
//! and delays, raw transactions run under the observer, probes, created contracts, and
//! contracts adopted by the runtime code a transaction created.

use std::sync::Arc;

use alloy_primitives::{Address, Bytes};

use super::*;
use crate::observe::{FlowSet, Trace};
use crate::project::ContractArtifact;
use crate::{Error, Result};

impl Chain {
    /// What setup declared about the fuzzed calls.
    pub(crate) fn fuzz_plan(&self) -> &FuzzPlan {
        &self.plan
    }

    /// Sets how far the block may move before a fuzzed call (the limits set, over those
    /// set before).
    pub(crate) fn set_delays(&mut self, delays: Delays) {
        self.plan.set_delays(delays);
    }

    /// Starts (`on`) or ends a Rust property case: from its start every call the case makes
    /// is observed into one trace ([`Chain::last_trace`]), and [`Chain::commit`] keeps
    /// nothing, so that every case starts from the post-setup state.
    pub(crate) fn set_case(&mut self, on: bool) {
        self.vm.get_mut().set_case(on);
    }

    /// Starts (`on`) or stops recording the calls made through [`Chain::try_call_with`]
    /// (and so `call`) and [`Chain::view`], dropping what was recorded.
    pub(crate) fn record_calls(&self, on: bool) {
        *self.recorded.borrow_mut() = on.then(Vec::new);
    }

    /// The calls recorded since [`Chain::record_calls`] started.
    pub(crate) fn take_recorded_calls(&self) -> Vec<RecordedCall> {
        self.recorded
            .borrow_mut()
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Records the call of `calldata` from `sender` to `to` that ended in `outcome`, when
    /// recording.
    pub(super) fn record(
        &self,
        sender: Address,
        to: Address,
        calldata: &Bytes,
        value: U256,
        outcome: &TxOutcome,
    ) {
        if let Some(recorded) = self.recorded.borrow_mut().as_mut() {
            recorded.push(RecordedCall {
                sender,
                to,
                calldata: calldata.clone(),
                value,
                status: outcome.status.to_string(),
            });
        }
    }

    /// Whether forge's failure flag is set (forge-std's and ds-test's `fail()` set it
    /// without reverting; forge fails the test then).
    pub(crate) fn forge_failed(&self) -> bool {
        !self
            .storage(super::CHEATCODE_ADDRESS, super::cheatcodes::FAILED_SLOT)
            .is_zero()
    }

    /// Lets view and pure functions be selected and called (a forge fuzz test may be one).
    pub(crate) fn call_views(&mut self) {
        self.plan.call_views();
    }

    /// Makes every fuzzed call send no ether, payable or not (forge's invariant calls).
    pub(crate) fn send_no_ether(&mut self) {
        self.plan.send_no_ether();
    }

    /// Records that the contract at `address`, which a transaction created (not
    /// [`Chain::deploy`]), is `artifact`'s: reports name it and the fuzzer can call it.
    pub(crate) fn adopt(&mut self, address: Address, artifact: Arc<ContractArtifact>) {
        if !self.code_at.contains_key(&address) {
            self.deployed.push((artifact.name.clone(), address));
        }
        self.code_at.insert(address, artifact);
    }

    internal! {
        /// Runs `tx` into the pending state under the observer (see [`Chain::last_trace`]),
        /// after applying its warp. Nothing is committed. `Err` only when the EVM refuses the
        /// transaction (value above the sender's balance); pending state is then unchanged
        /// apart from the warp.
        fn execute(&mut self, tx: &Tx) -> Result<TxOutcome> {
            let vm = self.vm.get_mut();
            advance(vm.block_mut(), tx.warp);
            let result = vm.run(
                tx.sender,
                Target::Call(tx.to),
                tx.calldata.clone(),
                tx.value,
                true,
            )?;
            let outcome = self.outcome(tx.to, result);
            self.settle(&outcome);
            Ok(outcome)
        }
    }

    internal! {
        /// Target blocks [`Chain::execute`] watches for: block start pcs of the runtime code at
        /// each address; entering one shows in [`Trace::target_hits`].
        fn watch_targets(&mut self, targets: impl IntoIterator<Item = (Address, Vec<usize>)>) {
            self.vm
                .get_mut()
                .watch_targets(targets.into_iter().collect());
        }
    }

    internal! {
        /// Whether [`Chain::execute`] records the pcs of each transaction's own frame
        /// ([`Trace::path`]); off by default, since it costs a push per instruction.
        fn record_paths(&mut self, on: bool) {
            self.vm.get_mut().record_path(on);
        }
    }

    internal! {
        /// Whether [`Chain::execute`] follows each transaction's own frame symbolically
        /// ([`Trace::path_condition`]); off by default, since it costs a shadow stack update
        /// per instruction.
        #[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
        fn record_path_conditions(&mut self, on: bool) {
            self.vm.get_mut().record_path_condition(on);
        }
    }

    internal! {
        /// Makes the JUMPIs of each transaction's own frame at these indices of its path
        /// condition go the given way (jump when true), whatever their condition, while path
        /// conditions are recorded; empty for none. A forced run's trace is no
        /// transaction's: only its path condition is for use.
        #[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
        fn force_branches(&mut self, forced: Vec<(usize, bool)>) {
            self.vm.get_mut().force_branches(forced);
        }
    }

    internal! {
        /// Whether [`Chain::execute`] records data decisions: comparisons whose result goes
        /// into data rather than a JUMPI, as edges and comparisons of the trace (on by
        /// default).
        fn record_data_decisions(&mut self, on: bool) {
            self.vm.get_mut().record_data_decisions(on);
        }
    }

    internal! {
        /// Whether [`Chain::execute`] records the blocks each transaction enters
        /// ([`Trace::blocks`]); off by default, since it costs a push per JUMPDEST.
        fn record_blocks(&mut self, on: bool) {
            self.vm.get_mut().record_blocks(on);
        }
    }

    internal! {
        /// Which data flows [`Chain::execute`] follows into [`Trace::flows`] (none by
        /// default: a flow followed costs time in every transaction that runs its source).
        fn follow_flows(&mut self, flows: FlowSet) {
            self.vm.get_mut().follow_flows(flows);
        }
    }

    /// Whether inspected transactions ([`Chain::execute`], and every transaction while
    /// cheatcodes are on) call the observer and the cheatcodes around every instruction, as
    /// revm's own inspected loop does (`on`), instead of only around the instructions they
    /// record (the default, and the same record): the tests compare the two, the
    /// benchmarks their speed.
    #[cfg(feature = "internals")]
    #[doc(hidden)]
    pub fn inspect_every_instruction(&mut self, on: bool) {
        self.vm.get_mut().inspect_every_instruction(on);
    }

    internal! {
        /// What the observer recorded during the last [`Chain::execute`].
        fn last_trace(&mut self) -> &Trace {
            self.vm.get_mut().trace()
        }
    }

    internal! {
        /// Whether [`Chain::checking`] runs the invariant checks observed, into a trace of
        /// their own ([`Chain::checks_trace`]); off by default: observing costs the checks
        /// time.
        fn observe_checks(&mut self, on: bool) {
            self.vm.get_mut().observe_checks(on);
        }
    }

    internal! {
        /// Runs `checks` (the invariant checks after a transaction), observed when
        /// [`Chain::observe_checks`] is on; [`Chain::last_trace`] stays the transaction's.
        fn checking<R>(&mut self, checks: impl FnOnce(&mut Chain) -> R) -> R {
            self.vm.get_mut().start_checks();
            let result = checks(self);
            self.vm.get_mut().end_checks();
            result
        }
    }

    internal! {
        /// What the last observed [`Chain::checking`] did: every comparison and branch of
        /// its calls; `None` unless checks are observed.
        fn checks_trace(&mut self) -> Option<&Trace> {
            self.vm.get_mut().checks_trace()
        }
    }

    /// Records what a transaction run into the pending state left besides its state: its
    /// logs, the labels it gave with `vm.label`, and the contracts it created.
    pub(super) fn settle(&mut self, outcome: &TxOutcome) {
        self.logs.record(&outcome.logs);
        let vm = self.vm.get_mut();
        for (address, name) in vm.take_labels() {
            self.labels.insert(address, name);
        }
        for address in vm.take_created() {
            let code_at = &self.code_at;
            self.created.record(
                address,
                &self.artifacts,
                |at| vm.code(at),
                |at| code_at.get(&at),
            );
        }
    }

    /// Starts recording what probes read ([`Chain::probe`]: storage slots, or that they read
    /// more), until [`Chain::take_reads`]: what the engine needs to skip an invariant of a
    /// suite that no storage a transaction wrote could change.
    pub(crate) fn record_reads(&mut self) {
        self.vm.get_mut().record_reads();
    }

    /// What probes read since [`Chain::record_reads`], ending the recording; `None` when
    /// nothing was recorded.
    pub(crate) fn take_reads(&mut self) -> Option<Reads> {
        self.vm.get_mut().take_reads()
    }

    /// Whether the transactions since the last take may have changed what a probe reads
    /// beyond the storage they wrote: a cheatcode that writes state, or cheatcode state left
    /// in force (a prank, an armed expectation).
    pub(crate) fn take_disturbance(&mut self) -> bool {
        self.vm.get_mut().take_disturbance()
    }

    internal! {
        /// Runs `calldata` from `sender` to `to` in the pending state (unobserved, through
        /// the cheatcodes if on), then puts the pending state back exactly as it was: what
        /// forge does with an invariant function's call. Works on `&self`, like
        /// [`Chain::view`]. `Err` only when the EVM refuses the call.
        fn probe(&self, sender: Address, to: Address, calldata: Bytes) -> Result<Probe> {
            let mut vm = self.vm.try_borrow_mut().map_err(|_| {
                Error::Call(
                    "the chain is busy: a probe cannot run inside another chain call".into(),
                )
            })?;
            let (result, failed) = vm.probe(sender, to, calldata)?;
            drop(vm);
            Ok(Probe {
                outcome: self.outcome(to, result),
                failed,
            })
        }
    }

    internal! {
        /// Every contract created (CREATE or CREATE2, at any depth, by a frame that did not
        /// fail) by the transactions since the last take or reset, with the compiled
        /// contract its runtime code matches (a minimal proxy: its implementation's). Only
        /// inspected transactions record them: observed ones ([`Chain::execute`]) and all
        /// once cheatcodes are on.
        fn take_created(&mut self) -> Vec<Created> {
            self.created.take()
        }
    }

    internal! {
        /// [`Chain::take_created`] without taking: the contracts created in the current
        /// state so far.
        fn created(&self) -> &[Created] {
            self.created.list()
        }
    }

    internal! {
        /// The first cheatcode harvey does not support that a transaction called since the
        /// last take.
        fn take_unsupported(&mut self) -> Option<UnsupportedCheatcode> {
            self.vm.get_mut().take_unsupported()
        }
    }

    /// The nonzero values `address` holds in storage, committed state only (the order is the
    /// storage map's: callers sort what they keep).
    pub(crate) fn stored_values(&self, address: Address) -> Vec<U256> {
        self.vm.borrow().committed_storage(address)
    }

    /// Puts arbitrary runtime `code` at `address` in the pending state: the hostile-code
    /// tests run code no compiler wrote.
    #[cfg(test)]
    pub(crate) fn set_code(&mut self, address: Address, code: Bytes) {
        self.vm.get_mut().set_code(address, code);
    }
}
