//! An in-memory EVM chain backed by revm: funded accounts, deploying and calling compiled
//! contracts, read-only views, block time, and the snapshot/restore the fuzzer runs every
//! call sequence from. Transaction results come back as harvey's [`TxOutcome`], with
//! revert reasons decoded against the compiled ABIs.
//!
//! # State model
//!
//! A chain has two layers of state:
//!
//! - the **base**: the committed state (revm's `CacheDB`) and the base block env. Setup
//!   builds it: [`Chain::deploy`], [`Chain::call`] and [`Chain::commit`] write to it.
//! - the **pending** state: revm's journal on top of the base. The fuzzer runs its
//!   transactions there (under the observer), each seeing the effects of those before it.
//!   [`Chain::warp`], [`Chain::roll`], [`Chain::set_balance`] and [`Chain::set_storage`]
//!   also write pending state.
//!
//! [`Chain::commit`] folds pending into base. [`Chain::reset`] drops pending and restores
//! the base block: this is "restore the snapshot", and it costs only what the dropped
//! transactions touched, however large the base is. The fuzzer runs each sequence as
//! `execute`×n then `reset`, all on the one `Evm` built in [`Chain::new`] (building an
//! `Evm` costs more than running a transaction).
//!
//! Read-only methods ([`Chain::view`], [`Chain::balance`], [`Chain::storage`]) take `&self`
//! because invariants receive `&Chain`; they see pending state. A view runs as an
//! unobserved transaction from [`VIEW_CALLER`], and only functions the ABI declares `view`
//! or `pure` may be viewed, so a view never changes contract state (it bumps the view
//! caller's nonce, which nothing else reads). The `Evm` therefore lives in a `RefCell`: a
//! `Chain` is `Send` but not `Sync`.

mod abi;
mod args;
mod attacker;
mod cheatcodes;
mod created;
mod db;
mod deal;
mod fuzz_plan;
mod hooks;
mod labels;
mod link;
mod logs;
mod outcome;
mod vm;

pub use abi::SolReturns;
pub use attacker::{ATTACKER_CONTRACT, ATTACKER_RUNTIME};
pub(crate) use cheatcodes::CREATE2_DEPLOYER;
pub use cheatcodes::{CHEATCODE_ADDRESS, CONSOLE_ADDRESS};
pub use created::Created;
internal! {
    use cheatcodes::{UnsupportedCheatcode, is_assume_rejection};
}
pub use args::{SolArg, SolArgs};
pub use fuzz_plan::{AddressArgs, BoundValue, Param};
pub(crate) use fuzz_plan::{Delays, FuzzPlan};
pub use harvey_settings::PanicSet;
pub use labels::Labels;
pub use outcome::{HaltReason, PanicCode, RevertReason, SolDisplay, TxOutcome, TxStatus};
pub use vm::{CHAIN_ID, TX_GAS_LIMIT};

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use alloy_dyn_abi::{DynSolType, DynSolValue};
use alloy_json_abi::Function;
use alloy_primitives::{Address, Bytes, Log, Selector, U256, address};
use alloy_sol_types::SolEvent;
use revm::context::BlockEnv;

use crate::abi::changes_state;
use crate::error::{Error, Result};
use crate::observe::{FlowSet, Trace};
use crate::project::{Artifacts, ContractArtifact};
use logs::LogBook;
use vm::{Target, Vm};

/// The account that deploys contracts and sends [`Chain::call`]s unless told otherwise.
pub const DEPLOYER: Address = address!("0x00000000000000000000000000000000000d3910");

/// The default senders of fuzzed transactions, in order: two accounts, and the attacker
/// contract ([`ATTACKER_CONTRACT`]), which calls back.
pub const SENDERS: [Address; 3] = [
    address!("0x0000000000000000000000000000000000010000"),
    address!("0x0000000000000000000000000000000000020000"),
    address!("0x0000000000000000000000000000000000030000"),
];

/// `msg.sender` of [`Chain::view`] calls. Unfunded, and used for nothing else.
pub const VIEW_CALLER: Address = address!("0x00000000000000000000000000000000000f1e35");

/// Every funded account's initial balance: 10^24 wei (one million ether).
pub const INITIAL_BALANCE: U256 = U256::from_limbs([
    (10u128.pow(24) & u64::MAX as u128) as u64,
    (10u128.pow(24) >> 64) as u64,
    0,
    0,
]);

/// `block.timestamp` of a new chain (November 2023: contracts that subtract durations from
/// "now" do not underflow).
pub const GENESIS_TIMESTAMP: u64 = 1_700_000_000;

/// `block.number` of a new chain.
pub const GENESIS_NUMBER: u64 = 1;

/// Who sends a deployment or call, and with how much ether.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TxOptions {
    /// The sender; [`DEPLOYER`] when `None`.
    pub sender: Option<Address>,
    /// `msg.value`, in wei.
    pub value: U256,
}

impl From<Address> for TxOptions {
    /// A call from `sender` with no ether.
    fn from(sender: Address) -> TxOptions {
        TxOptions {
            sender: Some(sender),
            value: U256::ZERO,
        }
    }
}

/// Time passing before a transaction: added to `block.timestamp` and `block.number`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Warp {
    /// Seconds added to `block.timestamp`.
    pub seconds: u64,
    /// Blocks added to `block.number`.
    pub blocks: u64,
}

internal! {
    /// A raw transaction for [`Chain::execute`]: what the fuzzer generates.
    #[derive(Debug, Clone, Default, PartialEq, Eq)]
    struct Tx {
        /// `msg.sender` (and `tx.origin`).
        pub sender: Address,
        /// The called account.
        pub to: Address,
        /// Calldata: selector and ABI-encoded arguments.
        pub calldata: Bytes,
        /// `msg.value`, in wei.
        pub value: U256,
        /// Time passing before the transaction.
        pub warp: Warp,
    }
}

internal! {
    /// What [`Chain::probe`] saw: the call's outcome and forge's global failure flag.
    #[derive(Debug, Clone, PartialEq)]
    struct Probe {
        /// How the call ended.
        pub outcome: TxOutcome,
        /// Whether the cheatcode address's `bytes32("failed")` slot was non-zero after the
        /// call (forge-std's `fail()`).
        pub failed: bool,
    }
}

/// An in-memory chain with compiled contracts to deploy. See the [module docs](self) for
/// the state model.
pub struct Chain {
    vm: RefCell<Vm>,
    artifacts: Arc<Artifacts>,
    /// Deployments in order, by contract name.
    deployed: Vec<(String, Address)>,
    /// The artifact of every contract deployed through this chain.
    code_at: HashMap<Address, Arc<ContractArtifact>>,
    /// Contracts the transactions created since the last reset (or take).
    created: created::CreatedContracts,
    fuzzed: Vec<Address>,
    senders: Vec<Address>,
    /// Accounts the vulnerability detectors trust: [`DEPLOYER`] and what
    /// [`Chain::trust`] added.
    trusted: Vec<Address>,
    /// What setup declared about the fuzzed calls (functions, address arguments, bounds).
    plan: FuzzPlan,
    /// Names given with [`Chain::label`], for reports.
    labels: HashMap<Address, String>,
    /// Views resolved and checked, by address, each with the signature and the Rust
    /// return type it was called with.
    checked_views: RefCell<CheckedViews>,
    /// Logs of the committed and the pending transactions.
    logs: LogBook,
}

/// Views resolved and checked, by address.
type CheckedViews = HashMap<Address, Vec<CheckedView>>;

/// A view resolved against its contract's ABI and checked for its Rust return type.
#[derive(Clone)]
struct CheckedView {
    signature: Arc<str>,
    /// The Rust return type's name.
    returns: &'static str,
    selector: Selector,
    inputs: Arc<[DynSolType]>,
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chain")
            .field("deployed", &self.deployed)
            .field("fuzzed", &self.fuzzed)
            .finish_non_exhaustive()
    }
}

impl Chain {
    /// A fresh chain: [`DEPLOYER`] and the [`SENDERS`] hold [`INITIAL_BALANCE`], the last
    /// sender is the attacker contract ([`ATTACKER_CONTRACT`], a contract that calls back into
    /// what it called, once, when called or paid), the block is
    /// [`GENESIS_NUMBER`] at [`GENESIS_TIMESTAMP`], nothing is deployed; foundry.toml's
    /// execution keys ([`Artifacts::chain_settings`]) replace these and the EVM's defaults.
    pub fn new(artifacts: Arc<Artifacts>) -> Chain {
        let settings = artifacts.chain_settings();
        let block = BlockEnv {
            number: U256::from(settings.block_number.unwrap_or(GENESIS_NUMBER)),
            timestamp: U256::from(settings.block_timestamp.unwrap_or(GENESIS_TIMESTAMP)),
            ..BlockEnv::default()
        };
        let mut funded = vec![DEPLOYER];
        funded.extend(SENDERS);
        let mut vm = Vm::new(&funded, INITIAL_BALANCE, block, settings);
        vm.install_attacker();
        // The attacker's code is part of the base state every reset returns to.
        vm.commit();
        Chain {
            vm: RefCell::new(vm),
            artifacts,
            deployed: Vec::new(),
            code_at: HashMap::new(),
            created: created::CreatedContracts::default(),
            fuzzed: Vec::new(),
            senders: SENDERS.to_vec(),
            trusted: vec![DEPLOYER],
            plan: FuzzPlan::default(),
            labels: HashMap::new(),
            checked_views: RefCell::default(),
            logs: LogBook::default(),
        }
    }

    /// The compiled contracts this chain deploys from.
    pub fn artifacts(&self) -> &Arc<Artifacts> {
        &self.artifacts
    }

    /// The account that deploys and sends [`Chain::call`]s by default.
    pub fn deployer(&self) -> Address {
        DEPLOYER
    }

    /// The senders of fuzzed transactions: [`SENDERS`] unless [`Chain::set_senders`] chose
    /// others.
    pub fn senders(&self) -> &[Address] {
        &self.senders
    }

    /// Chooses the senders of fuzzed transactions (in a setup function), deduplicated in
    /// order. They are not funded here: use [`Chain::set_balance`] and [`Chain::commit`] for
    /// accounts other than [`SENDERS`]. An empty list is a configuration error the campaign
    /// reports.
    pub fn set_senders(&mut self, senders: impl IntoIterator<Item = Address>) {
        self.senders.clear();
        for sender in senders {
            if !self.senders.contains(&sender) {
                self.senders.push(sender);
            }
        }
    }

    /// Trusts `account` (an owner, an admin: in a setup function): the vulnerability
    /// detectors treat every fuzzed sender as an attacker unless trusted, so a trusted
    /// sender's transactions cannot leak ether, self-destruct or delegate-call
    /// unsafely, and an account a trusted sender names in a call may be paid. [`DEPLOYER`]
    /// is always trusted.
    pub fn trust(&mut self, account: Address) {
        if !self.trusted.contains(&account) {
            self.trusted.push(account);
        }
    }

    /// The accounts the vulnerability detectors trust: [`DEPLOYER`] and those
    /// [`Chain::trust`] named, in order.
    pub fn trusted(&self) -> &[Address] {
        &self.trusted
    }

    /// Deploys contract `name` from [`DEPLOYER`] with constructor arguments `args` (a
    /// tuple: `()`, `(U256::from(100),)`, `(18u8, "Token")`; or `&[DynSolValue]`), and
    /// commits (pending state included: deploying is a setup step).
    ///
    /// Fails with the [`Artifacts::get`] error for an unknown name, [`Error::Abi`] when
    /// `args` do not fit the constructor, and [`Error::DeployFailed`] with the decoded
    /// reason when the constructor reverts.
    pub fn deploy(&mut self, name: &str, args: impl SolArgs) -> Result<Address> {
        self.deploy_with(name, args, TxOptions::default())
    }

    /// [`Chain::deploy`] with a sender and a value.
    pub fn deploy_with(
        &mut self,
        name: &str,
        args: impl SolArgs,
        options: TxOptions,
    ) -> Result<Address> {
        let artifact = Arc::clone(self.artifacts.get(name)?);
        let what = format!("the constructor of {}", artifact.name);
        let inputs = artifact
            .abi
            .constructor
            .as_ref()
            .map_or(&[][..], |c| &c.inputs[..]);
        let types = args::param_types(inputs, &what)?;
        let encoded = args::encode(&types, args.sol_values(), &what)?;
        self.deploy_encoded(artifact, encoded, options)
    }

    /// Runs `artifact`'s creation code with `encoded_args` appended, commits, records it.
    fn deploy_encoded(
        &mut self,
        artifact: Arc<ContractArtifact>,
        encoded_args: Vec<u8>,
        options: TxOptions,
    ) -> Result<Address> {
        let artifact = self.linked(artifact)?;
        let failed = |reason: String| Error::DeployFailed {
            contract: artifact.name.clone(),
            reason,
        };
        if !artifact.is_deployable() {
            return Err(failed(
                "it has no creation code (it is an interface or an abstract contract)".into(),
            ));
        }
        let mut initcode = artifact.creation_code.to_vec();
        initcode.extend_from_slice(&encoded_args);
        let sender = options.sender.unwrap_or(DEPLOYER);
        let result = self.vm.get_mut().run(
            sender,
            Target::Create,
            initcode.into(),
            options.value,
            false,
        )?;
        let outcome = TxOutcome::from_result(result, |data| {
            RevertReason::decode(data, self.decode_order(Some(&artifact)))
        });
        self.settle(&outcome);
        self.commit();
        match (outcome.status, outcome.created) {
            (TxStatus::Success, Some(address))
                if self.code(address).is_empty() && !artifact.runtime_code.is_empty() =>
            {
                // EIP-6780: a contract destroyed in the transaction that created it is gone.
                Err(failed(format!(
                    "its constructor self-destructed: no code is left at {address} to fuzz"
                )))
            }
            (TxStatus::Success, Some(address)) => {
                self.deployed.push((artifact.name.clone(), address));
                self.code_at.insert(address, artifact);
                Ok(address)
            }
            (TxStatus::Success, None) => Err(failed("no contract was created".into())),
            (status, _) => Err(failed(status.to_string())),
        }
    }

    /// The address of the most recent deployment of contract `name`.
    ///
    /// # Panics
    ///
    /// When nothing called `name` was deployed; the message lists what was. This is meant
    /// for invariant and setup code, where a typo should stop the test at once; use
    /// [`Chain::try_get`] to handle the case.
    pub fn get(&self, name: &str) -> Address {
        self.try_get(name).unwrap_or_else(|| {
            let names: Vec<&str> = self.deployed.iter().map(|(n, _)| n.as_str()).collect();
            panic!(
                "no contract named `{name}` was deployed on this chain; deployed: [{}]",
                names.join(", ")
            )
        })
    }

    /// The address of the most recent deployment of contract `name`, if any.
    pub fn try_get(&self, name: &str) -> Option<Address> {
        self.deployed
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|&(_, address)| address)
    }

    /// Every deployment, in order, as (contract name, address).
    pub fn deployed(&self) -> &[(String, Address)] {
        &self.deployed
    }

    /// The compiled contract deployed at `address` through this chain, or matched by its
    /// runtime code to a contract a transaction created there since the last reset.
    pub fn artifact_at(&self, address: Address) -> Option<&Arc<ContractArtifact>> {
        self.code_at
            .get(&address)
            .or_else(|| self.created.artifact_at(address))
    }

    /// Names `address` in reports and summaries (`alice@0x10000`), as forge-std's
    /// `vm.label` names it in traces: for senders and other accounts the chain did not
    /// deploy, or to tell apart two deployments of one contract. A later label replaces an
    /// earlier one, and a label replaces a deployed contract's name.
    pub fn label(&mut self, address: Address, name: impl Into<String>) {
        self.labels.insert(address, name.into());
    }

    /// The name reports show for `address`: its [`Chain::label`], else the name of the
    /// contract deployed there through this chain, else `deployer` for [`DEPLOYER`].
    /// Default senders have no name: their short addresses (`0x10000`) already read as one.
    pub fn label_of(&self, address: Address) -> Option<&str> {
        if let Some(name) = self.labels.get(&address) {
            return Some(name);
        }
        if let Some(artifact) = self.artifact_at(address) {
            return Some(&artifact.name);
        }
        (address == DEPLOYER).then_some("deployer")
    }

    /// Every named account (see [`Chain::label_of`]), for a report.
    pub fn labels(&self) -> Labels {
        let mut labels = Labels::default();
        let named = self.labels.keys().chain(self.code_at.keys());
        for address in named.chain(std::iter::once(&DEPLOYER)) {
            if let Some(name) = self.label_of(*address) {
                labels.insert(*address, name);
            }
        }
        labels
    }

    /// Marks `address` as a contract whose functions the fuzzer calls (once, in order).
    pub fn fuzz(&mut self, address: Address) {
        if !self.fuzzed.contains(&address) {
            self.fuzzed.push(address);
        }
    }

    /// Whether the fuzzer also calls the contracts its transactions create (a factory's
    /// pools, vaults, clones): each such contract is called with the functions of the
    /// compiled contract whose runtime code it runs (a minimal proxy: its implementation's)
    /// and named by it in reports. By default, as forge's invariant tests do, only when
    /// setup marked no contract with [`Chain::fuzz`] (forge: when `targetContracts()` is
    /// empty). harvey finds the contracts a fuzzed contract can create from its code (the
    /// creation code `new C()` embeds, and clones when it can clone); forge matches any
    /// created contract.
    pub fn fuzz_created(&mut self, on: bool) {
        self.plan.fuzz_created(on);
    }

    /// The contracts marked with [`Chain::fuzz`].
    pub fn fuzzed(&self) -> &[Address] {
        &self.fuzzed
    }

    /// Calls only `signatures` of the contract at `address` (`["deposit()",
    /// "withdraw(uint256)"]`, or selectors such as `"0x2e1a7d4d"`; `"receive()"` and
    /// `"fallback()"` name those). forge's
    /// `targetSelector`; like it, the contract is fuzzed even when [`Chain::fuzz`] chose
    /// others. Unlike it, signatures are checked at once: one the fuzzer cannot call (not in
    /// the ABI, or a view) is an [`Error::Config`] naming the contract and listing what it
    /// can call. A later call replaces the list; [`Chain::fuzz_except`] still applies.
    pub fn fuzz_only<S: AsRef<str>>(
        &mut self,
        address: Address,
        signatures: impl IntoIterator<Item = S>,
    ) -> Result<()> {
        let artifact = self.code_at.get(&address).map(Arc::as_ref);
        self.plan.only(address, artifact, signatures)
    }

    /// Never calls `signatures` of the contract at `address` (forge's `excludeSelector`),
    /// checked like [`Chain::fuzz_only`]'s; calls add up. It does not make the contract
    /// fuzzed.
    pub fn fuzz_except<S: AsRef<str>>(
        &mut self,
        address: Address,
        signatures: impl IntoIterator<Item = S>,
    ) -> Result<()> {
        let artifact = self.code_at.get(&address).map(Arc::as_ref);
        self.plan.except(address, artifact, signatures)
    }

    /// Where every `address` argument of a fuzzed call comes from, arrays and tuples
    /// included (default [`AddressArgs::Dictionary`]); e.g. [`AddressArgs::SendersAndContracts`]
    /// so that an invariant summing balances over those accounts sees every holder (the
    /// senders and contracts as they are when setup ends). forge
    /// has no such setting (its users pick actors in handlers). An empty
    /// [`AddressArgs::Only`] list is an [`Error::Config`].
    pub fn set_address_args(&mut self, args: AddressArgs) -> Result<()> {
        self.plan.set_address_args(args)
    }

    /// Keeps integer parameter `param` (a name, `"amount"`, or an index, `0`) of
    /// `signature` on the contract at `address` inside `range` (`1..=1_000_000`,
    /// `U256::ZERO..=cap`): what forge users write as `amount = bound(amount, lo, hi)` in a
    /// handler. Fuzzed values outside are mapped in as forge-std's `bound` maps them;
    /// input prediction clamps its proposals to the range, and shrinking simplifies toward
    /// the range's value nearest zero. Unlike a handler's `bound`, nothing outside the
    /// range is ever sent, and reports show the value that was sent. An unknown function or
    /// parameter, a parameter that is not `uint`/`int`, or ends outside its type or in the
    /// wrong order is an [`Error::Config`] saying what exists. A later bound of the same
    /// parameter replaces this one.
    pub fn bound<T: Into<BoundValue>>(
        &mut self,
        address: Address,
        signature: &str,
        param: impl Into<Param>,
        range: std::ops::RangeInclusive<T>,
    ) -> Result<()> {
        let artifact = self.code_at.get(&address).map(Arc::as_ref);
        self.plan
            .bound(address, artifact, signature, param.into(), range)
    }

    /// What setup declared about the fuzzed calls.
    pub(crate) fn fuzz_plan(&self) -> &FuzzPlan {
        &self.plan
    }

    /// Sets how far the block may move before a fuzzed call (the limits set, over those
    /// set before).
    pub(crate) fn set_delays(&mut self, delays: Delays) {
        self.plan.set_delays(delays);
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
        let result =
            self.vm
                .get_mut()
                .run(sender, Target::Call(to), calldata, options.value, false)?;
        let outcome = self.outcome(to, result);
        self.settle(&outcome);
        self.commit();
        Ok(outcome)
    }

    /// "`signature` on Name (address)": how errors name a call.
    fn describe_call(&self, to: Address, signature: &str) -> String {
        match self.label_of(to) {
            Some(label) => format!("`{signature}` on {label} ({to})"),
            None => format!("`{signature}` on {to}"),
        }
    }

    /// The calldata of `signature` on `to` with `args`: the selector and the arguments
    /// fitted to the parameter types of the function as the ABI of `to` declares it.
    fn calldata(&self, to: Address, signature: &str, args: impl SolArgs) -> Result<Bytes> {
        let function = self.resolve(to, signature)?;
        let what = format!("`{}`", function.signature());
        let types = args::param_types(&function.inputs, &what)?;
        let mut calldata = function.selector().to_vec();
        calldata.extend(args::encode(&types, args.sol_values(), &what)?);
        Ok(calldata.into())
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

    internal! {
        /// What the observer recorded during the last [`Chain::execute`].
        fn last_trace(&mut self) -> &Trace {
            self.vm.get_mut().trace()
        }
    }

    /// Records what a transaction run into the pending state left besides its state: its
    /// logs, the labels it gave with `vm.label`, and the contracts it created.
    fn settle(&mut self, outcome: &TxOutcome) {
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

    /// Turns on forge's cheatcodes at [`CHEATCODE_ADDRESS`] (`0x7109…DD12D`, forge-std's
    /// `vm`) for every later transaction, views included: the contracts can then use
    /// `vm.warp`, `vm.roll`, `vm.fee`, `vm.chainId`, `vm.getBlockTimestamp`,
    /// `vm.getBlockNumber`, `vm.deal`, `vm.label`, `vm.getLabel`, `vm.addr`, `vm.store`,
    /// `vm.load`, `vm.etch`, `vm.getNonce`, `vm.setNonce`, `vm.prank`, `vm.startPrank`,
    /// `vm.stopPrank`, `vm.assume`, `vm.expectRevert` (every form: data, reverter, count),
    /// `vm.expectEmit` (flags, emitter), `vm.broadcast`/`startBroadcast`/`stopBroadcast`
    /// (a prank of the broadcaster), `vm.getCode`/`getDeployedCode`, `vm.mockCall`/
    /// `mockCallRevert`/`clearMockedCalls`, `vm.snapshotState`/`revertToState`/
    /// `deleteStateSnapshot(s)` (and the deprecated names), `vm.computeCreateAddress`/
    /// `computeCreate2Address`, `vm.deriveKey`, `vm.rememberKey`,
    /// `vm.record`/`vm.accesses`, `vm.recordLogs`/`vm.getRecordedLogs`, `vm.toString`, `vm.sign`, `vm.envUint`/`envAddress`/
    /// `envBool`/`envString`/`envOr` (those four types) and the assertions `vm.assert*`,
    /// with forge's semantics and messages (failures revert with `Error(string)` where
    /// forge uses its `CheatcodeError(string)`: the same text). Any other forge
    /// cheatcode (forge 1.7.1's, or one in the ABI of a compiled `Vm`/`VmSafe` interface)
    /// reverts saying harvey does not support it; a selector no cheatcode has reverts as
    /// in forge.
    ///
    /// Enable them before deploying what uses them. A chain without them treats the
    /// address as an empty account, and runs unobserved transactions without any
    /// inspector (the fastest way); with them, every transaction runs through revm's
    /// inspector. Block and chain-id changes last until [`Chain::reset`] (or are kept by
    /// [`Chain::commit`]), pranks and broadcasts end with the sequence at [`Chain::reset`],
    /// and mocks, remembered keys and snapshots made before a commit last.
    pub fn enable_cheatcodes(&mut self) {
        let artifacts = Arc::clone(&self.artifacts);
        self.vm.get_mut().enable_cheatcodes(artifacts);
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

    /// Folds the pending state (and block, and logs) into the base state.
    pub fn commit(&mut self) {
        self.vm.get_mut().commit();
        self.logs.commit();
    }

    /// Drops the pending state and restores the base block: back to the last commit.
    pub fn reset(&mut self) {
        self.vm.get_mut().reset();
        self.logs.reset();
        self.created.clear();
    }

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
    /// Errors: [`Error::Call`] when the call reverts (with the decoded reason), when the
    /// function is not `view`/`pure` in the contract's ABI, or when there is no contract;
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
        let result = vm.run(
            VIEW_CALLER,
            Target::Call(address),
            calldata.into(),
            U256::ZERO,
            false,
        )?;
        let outcome = self.outcome(address, result);
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
    fn checked_view<T: SolReturns>(
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

    fn check_view(&self, address: Address, function: &Function, returns: &str) -> Result<()> {
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
    fn check_returns(&self, address: Address, function: &Function, returns: &str) -> Result<()> {
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

    /// `signature` resolved against the ABI of the contract at `to`, when known.
    fn resolve(&self, to: Address, signature: &str) -> Result<Function> {
        let contract = self
            .artifact_at(to)
            .map(|artifact| (artifact.name.as_str(), &artifact.abi));
        abi::resolve_function(signature, contract)
    }

    /// Decodes `result` of a call to `to`.
    fn outcome(&self, to: Address, result: revm::context::result::ExecutionResult) -> TxOutcome {
        let called = self.artifact_at(to).map(Arc::as_ref);
        TxOutcome::from_result(result, |data| {
            RevertReason::decode(data, self.decode_order(called))
        })
    }

    /// The artifacts to look custom errors up in: the called contract's first, then all.
    fn decode_order<'a>(
        &'a self,
        called: Option<&'a ContractArtifact>,
    ) -> impl Iterator<Item = &'a ContractArtifact> {
        called
            .into_iter()
            .chain(self.artifacts.contracts().map(Arc::as_ref))
    }

    /// The runtime code deployed at `address` in the current state (with its immutables
    /// filled in, unlike the artifact's), empty when there is none.
    pub fn code(&self, address: Address) -> Bytes {
        self.vm.borrow().code(address)
    }

    /// `address`'s balance (pending state).
    pub fn balance(&self, address: Address) -> U256 {
        self.vm.borrow().balance(address)
    }

    /// `address`'s storage at `slot` (pending state).
    pub fn storage(&self, address: Address, slot: U256) -> U256 {
        self.vm.borrow().storage(address, slot)
    }

    /// Sets `address`'s balance (pending state: [`Chain::commit`] to keep it past a reset).
    pub fn set_balance(&mut self, address: Address, balance: U256) {
        self.vm.get_mut().set_balance(address, balance);
    }

    /// Puts arbitrary runtime `code` at `address` in the pending state: the hostile-code
    /// tests run code no compiler wrote.
    #[cfg(test)]
    pub(crate) fn set_code(&mut self, address: Address, code: Bytes) {
        self.vm.get_mut().set_code(address, code);
    }

    /// Sets `address`'s nonce in the pending state: its next contract creation gets the
    /// address of that nonce (forge-std's `vm.setNonce`).
    pub fn set_nonce(&mut self, address: Address, nonce: u64) {
        self.vm.get_mut().set_nonce(address, nonce);
    }

    /// Sets `address`'s storage `slot` (pending state, like [`Chain::set_balance`]).
    pub fn set_storage(&mut self, address: Address, slot: U256, value: U256) {
        self.vm.get_mut().set_storage(address, slot, value);
    }

    /// `block.timestamp` of the next transaction.
    pub fn block_timestamp(&self) -> u64 {
        saturating_u64(self.vm.borrow().block().timestamp)
    }

    /// `block.number` of the next transaction.
    pub fn block_number(&self) -> u64 {
        saturating_u64(self.vm.borrow().block().number)
    }

    /// Moves `block.timestamp` forward by `seconds` (pending, like every block change):
    /// forge-std's `skip`.
    pub fn skip(&mut self, seconds: u64) {
        advance(self.vm.get_mut().block_mut(), Warp { seconds, blocks: 0 });
    }

    /// Moves `block.number` forward by `blocks`.
    pub fn skip_blocks(&mut self, blocks: u64) {
        advance(self.vm.get_mut().block_mut(), Warp { seconds: 0, blocks });
    }

    /// Sets `block.timestamp` to `timestamp`, forward or back: forge's `vm.warp`.
    pub fn warp_to(&mut self, timestamp: u64) {
        self.vm.get_mut().block_mut().timestamp = U256::from(timestamp);
    }

    /// Sets `block.number` to `number`, forward or back: forge's `vm.roll`.
    pub fn roll_to(&mut self, number: u64) {
        self.vm.get_mut().block_mut().number = U256::from(number);
    }
}

/// `output`, the return data of `signature`, decoded as `T`.
fn decode_returns<T: SolReturns>(output: &[u8], signature: &str) -> Result<T> {
    T::abi_decode_returns(output).map_err(|e| {
        Error::Abi(format!(
            "the return data of `{signature}` does not decode as {}: {e}",
            T::return_types()
        ))
    })
}

fn advance(block: &mut BlockEnv, warp: Warp) {
    block.timestamp = block.timestamp.saturating_add(U256::from(warp.seconds));
    block.number = block.number.saturating_add(U256::from(warp.blocks));
}

fn saturating_u64(value: U256) -> u64 {
    u64::try_from(value).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_is_send() {
        fn assert_send<T: Send>() {}
        assert_send::<Chain>();
    }

    #[test]
    fn accounts_are_distinct_and_documented() {
        assert_eq!(INITIAL_BALANCE, U256::from(10).pow(U256::from(24)));
        let mut all = vec![DEPLOYER, VIEW_CALLER];
        all.extend(SENDERS);
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 5);
    }

    #[test]
    fn warp_saturates() {
        let mut block = BlockEnv {
            timestamp: U256::MAX,
            ..BlockEnv::default()
        };
        advance(
            &mut block,
            Warp {
                seconds: 5,
                blocks: 2,
            },
        );
        assert_eq!(block.timestamp, U256::MAX);
        assert_eq!(block.number, U256::from(2));
        assert_eq!(saturating_u64(U256::MAX), u64::MAX);
    }
}
