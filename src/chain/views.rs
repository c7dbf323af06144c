//! Reading the chain without changing it: logs and decoded events, and views of `view`/
//! `pure` functions (resolved and checked once per signature, since invariants call the
//! same views after every transaction).

use std::sync::Arc;

use alloy_dyn_abi::DynSolValue;
use alloy_json_abi::Function;
use alloy_primitives::{Address, Log, U256};
use alloy_sol_types::SolEvent;

use super::*;
use crate::abi::changes_state;
use crate::{Error, Result};

impl Chain {
    /// Every log emitted in the current state, oldest first: setup's (committed) and the
    /// current sequence's. An invariant can follow holders and flows from them (every
    /// `Transfer` recipient) where forge users keep ghost variables in handlers.
    pub fn logs(&self) -> &[Log] {
        self.logs.all()
    }

    /// The logs of the transactions since the last commit: during a campaign, those of the
    /// sequence being run.
    pub fn sequence_logs(&self) -> &[Log] {
        self.logs.pending()
    }

    /// The logs of [`Chain::logs`] that decode as event type `E` (declared with alloy's
    /// `sol!`), with their emitters.
    pub fn events<E: SolEvent>(&self) -> Vec<(Address, E)> {
        logs::events(self.logs.all())
    }

    /// The logs of [`Chain::logs`] of event `declaration` (`"Transfer(address,address,uint256)"`,
    /// or `"event Transfer(address indexed from, address indexed to, uint256 value)"` for an
    /// emitter this chain did not deploy), each with its emitter and its parameters in
    /// declaration order.
    pub fn events_of(&self, declaration: &str) -> Result<Vec<(Address, Vec<DynSolValue>)>> {
        logs::events_of(self.logs.all(), declaration, |address| {
            self.artifact_at(address).map(Arc::as_ref)
        })
    }

    /// Calls view or pure function `signature` on `address` with `args` (a tuple) and
    /// decodes the result as `T`: `chain.view::<U256>(vault, "totalDeposits()", ())`, or a
    /// tuple for several return values. Sees pending state and changes none.
    ///
    /// Errors: [`Error::Reverted`] when the call reverts (with the decoded reason);
    /// [`Error::Call`] when the function is not `view`/`pure` in the contract's ABI, or
    /// when there is no contract;
    /// [`Error::Abi`] when `args` or `T` do not fit the function.
    pub fn view<T: SolReturns>(
        &self,
        address: Address,
        signature: &str,
        args: impl SolArgs,
    ) -> Result<T> {
        let view = self.checked_view::<T>(address, signature)?;
        let mut calldata = view.selector.to_vec();
        // Views run after every transaction: the error's name is formatted only on error.
        calldata.extend(args::encode(
            &view.inputs,
            args.sol_values(),
            &format_args!("`{signature}`"),
        )?);
        let mut vm = self.vm.try_borrow_mut().map_err(|_| {
            Error::Call("the chain is busy: a view cannot run inside another chain call".into())
        })?;
        let calldata = Bytes::from(calldata);
        let result = vm.run(
            VIEW_CALLER,
            Target::Call(address),
            calldata.clone(),
            U256::ZERO,
            false,
        )?;
        let outcome = self.outcome(address, result);
        self.record(VIEW_CALLER, address, &calldata, U256::ZERO, &outcome);
        if !outcome.is_success() {
            return Err(Error::Reverted {
                call: format!("view {}", self.describe_call(address, signature)),
                reason: outcome.status.to_string(),
            });
        }
        if outcome.output.is_empty() && !vm.has_code(address) {
            return Err(Error::Call(format!(
                "view `{signature}`: there is no contract at {address}"
            )));
        }
        decode_returns::<T>(&outcome.output, signature)
    }

    /// View `signature` on `address` with return type `T`, resolved and checked once:
    /// invariants call the same views after every transaction, and parsing signatures
    /// would cost as much as the call.
    pub(super) fn checked_view<T: SolReturns>(
        &self,
        address: Address,
        signature: &str,
    ) -> Result<CheckedView> {
        // The Rust type's name stands for its Solidity return types without building them
        // (this runs after every transaction).
        let returns = std::any::type_name::<T>();
        if let Some(found) = self.checked_views.borrow().get(&address).and_then(|known| {
            known
                .iter()
                .find(|view| &*view.signature == signature && view.returns == returns)
                .cloned()
        }) {
            return Ok(found);
        }
        let function = self.resolve(address, signature)?;
        self.check_view(address, &function, &T::return_types())?;
        let view = CheckedView {
            signature: signature.into(),
            returns,
            selector: function.selector(),
            inputs: args::param_types(&function.inputs, &format!("`{signature}`"))?.into(),
        };
        self.checked_views
            .borrow_mut()
            .entry(address)
            .or_default()
            .push(view.clone());
        Ok(view)
    }

    pub(super) fn check_view(
        &self,
        address: Address,
        function: &Function,
        returns: &str,
    ) -> Result<()> {
        let signature = function.signature();
        let Some(artifact) = self.artifact_at(address) else {
            return Ok(());
        };
        if changes_state(function) {
            return Err(Error::Call(format!(
                "`{signature}` of {} is not a view function (it is {}): views must not change state; use Chain::call",
                artifact.name,
                function.state_mutability.as_json_str()
            )));
        }
        self.check_returns(address, function, returns)
    }

    /// Whether `function` of the contract at `address` returns `returns` (when its ABI is
    /// known).
    pub(super) fn check_returns(
        &self,
        address: Address,
        function: &Function,
        returns: &str,
    ) -> Result<()> {
        let Some(artifact) = self.artifact_at(address) else {
            return Ok(());
        };
        let outputs = abi::param_types(&function.outputs);
        if !abi::types_fit(&outputs, returns) {
            return Err(Error::Abi(format!(
                "`{}` of {} returns {outputs}, not {returns}",
                function.signature(),
                artifact.name
            )));
        }
        Ok(())
    }
}
