//! Calls from setup code and invariants: `call` (fails on a revert, with its decoded
//! reason), `try_call` (the outcome, reverted or not), `call_returning` (decoded return
//! values), each from the deployer, a sender, or with options.

use alloy_primitives::{Address, Bytes};

use super::*;
use crate::{Error, Result};

impl Chain {
    /// Calls `signature` (`"withdraw(uint256)"`, or a selector `"0x2e1a7d4d"`) on `to` from
    /// [`DEPLOYER`] with `args` (a tuple, as for [`Chain::deploy`], or `&[DynSolValue]`), and
    /// commits. A call that reverts or halts is an [`Error::Reverted`] with the decoded
    /// reason (its state changes are undone), so setup code and invariants write
    /// `chain.call(..)?`; [`Chain::try_call`] returns the outcome of a call that is allowed to
    /// revert. Other errors: the call could not be made (bad signature or arguments, value
    /// above the balance).
    pub fn call(&mut self, to: Address, signature: &str, args: impl SolArgs) -> Result<TxOutcome> {
        self.call_with(to, signature, args, TxOptions::default())
    }

    /// [`Chain::call`] from `sender`.
    pub fn call_as(
        &mut self,
        sender: Address,
        to: Address,
        signature: &str,
        args: impl SolArgs,
    ) -> Result<TxOutcome> {
        self.call_with(to, signature, args, TxOptions::from(sender))
    }

    /// [`Chain::call`] with a sender and a value.
    pub fn call_with(
        &mut self,
        to: Address,
        signature: &str,
        args: impl SolArgs,
        options: TxOptions,
    ) -> Result<TxOutcome> {
        let outcome = self.try_call_with(to, signature, args, options)?;
        if outcome.is_success() {
            return Ok(outcome);
        }
        Err(Error::Reverted {
            call: self.describe_call(to, signature),
            reason: outcome.status.to_string(),
        })
    }

    /// [`Chain::call`], decoding the return value as `T` (a Rust type such as `U256`,
    /// `Address`, `bool`, or a tuple for several values):
    /// `let shares: U256 = chain.call_returning(vault, "deposit(uint256)", (amount,))?;`.
    /// Errors as [`Chain::call`], plus [`Error::Abi`] when `T` does not fit the function's
    /// return types.
    pub fn call_returning<T: SolReturns>(
        &mut self,
        to: Address,
        signature: &str,
        args: impl SolArgs,
    ) -> Result<T> {
        // Checked before the call: the ABI decoder alone accepts return data longer than `T`.
        let function = self.resolve(to, signature)?;
        self.check_returns(to, &function, &T::return_types())?;
        let outcome = self.call(to, signature, args)?;
        decode_returns::<T>(&outcome.output, signature)
    }

    /// Calls `signature` on `to` as [`Chain::call`] does, but a revert or a halt is an `Ok`
    /// outcome (its [`TxOutcome::status`] says how it ended, with the decoded reason): for
    /// calls that are expected or allowed to revert. `Err` means the call could not be made.
    pub fn try_call(
        &mut self,
        to: Address,
        signature: &str,
        args: impl SolArgs,
    ) -> Result<TxOutcome> {
        self.try_call_with(to, signature, args, TxOptions::default())
    }

    /// [`Chain::try_call`] from `sender`.
    pub fn try_call_as(
        &mut self,
        sender: Address,
        to: Address,
        signature: &str,
        args: impl SolArgs,
    ) -> Result<TxOutcome> {
        self.try_call_with(to, signature, args, TxOptions::from(sender))
    }

    /// [`Chain::try_call`] with a sender and a value.
    pub fn try_call_with(
        &mut self,
        to: Address,
        signature: &str,
        args: impl SolArgs,
        options: TxOptions,
    ) -> Result<TxOutcome> {
        let calldata = self.calldata(to, signature, args)?;
        let sender = options.sender.unwrap_or(DEPLOYER);
        let result = self.vm.get_mut().run(
            sender,
            Target::Call(to),
            calldata.clone(),
            options.value,
            false,
        )?;
        let outcome = self.outcome(to, result);
        self.record(sender, to, &calldata, options.value, &outcome);
        self.settle(&outcome);
        self.commit();
        Ok(outcome)
    }

    /// "`signature` on Name (address)": how errors name a call.
    pub(super) fn describe_call(&self, to: Address, signature: &str) -> String {
        match self.label_of(to) {
            Some(label) => format!("`{signature}` on {label} ({to})"),
            None => format!("`{signature}` on {to}"),
        }
    }

    /// The calldata of `signature` on `to` with `args`: the selector and the arguments
    /// fitted to the parameter types of the function as the ABI of `to` declares it.
    pub(super) fn calldata(
        &self,
        to: Address,
        signature: &str,
        args: impl SolArgs,
    ) -> Result<Bytes> {
        let function = self.resolve(to, signature)?;
        let what = format!("`{}`", function.signature());
        let types = args::param_types(&function.inputs, &what)?;
        let mut calldata = function.selector().to_vec();
        calldata.extend(args::encode(&types, args.sol_values(), &what)?);
        Ok(calldata.into())
    }
}
