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
//!   [`Chain::warp_to`], [`Chain::roll_to`], [`Chain::set_balance`] and [`Chain::set_storage`]
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
mod calls;
mod cheatcodes;
mod created;
mod db;
mod deal;
mod fuzz_plan;
mod fuzzing;
mod hooks;
mod independent;
mod keccak;
mod labels;
mod link;
mod logs;
mod outcome;
mod reads;
mod setup;
mod sparse;
mod views;
mod vm;

pub use abi::SolReturns;
pub use attacker::ATTACKER_CONTRACT;
pub(crate) use cheatcodes::CREATE2_DEPLOYER;
pub use cheatcodes::{CHEATCODE_ADDRESS, CONSOLE_ADDRESS};
pub use created::Created;
internal! {
    use cheatcodes::{UnsupportedCheatcode, is_assume_rejection};
}
pub use args::{SolArg, SolArgs};
pub use fuzz_plan::{AddressArgs, BoundValue, Param};
pub(crate) use fuzz_plan::{Delays, FuzzPlan};
pub use labels::Labels;
pub use outcome::{HaltReason, PanicCode, RevertReason, SolDisplay, TxOutcome, TxStatus};
pub(crate) use reads::Reads;
pub use vm::{CHAIN_ID, TX_GAS_LIMIT};

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use alloy_dyn_abi::DynSolType;
use alloy_json_abi::Function;
use alloy_primitives::{Address, Bytes, Selector, U256, address};
use revm::context::BlockEnv;

use crate::project::{Artifacts, ContractArtifact};
use crate::{Error, Result};
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
    /// The calls made through [`Chain::try_call_with`] and [`Chain::view`] while recording
    /// ([`Chain::record_calls`]): what a failing property case did, for its report.
    recorded: RefCell<Option<Vec<RecordedCall>>>,
}

/// A call recorded by [`Chain::record_calls`]: who sent what to whom, and how it ended.
#[derive(Debug, Clone)]
pub(crate) struct RecordedCall {
    pub(crate) sender: Address,
    pub(crate) to: Address,
    pub(crate) calldata: Bytes,
    pub(crate) value: U256,
    pub(crate) status: String,
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
            recorded: RefCell::default(),
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

    /// Folds the pending state (and block, and logs) into the base state. Inside a
    /// `#[harvey::property]` case it does nothing: every case starts from the state setup
    /// left.
    pub fn commit(&mut self) {
        if self.vm.get_mut().in_case() {
            return;
        }
        self.vm.get_mut().commit();
        self.logs.commit();
    }

    /// Drops the pending state and restores the base block: back to the last commit.
    pub fn reset(&mut self) {
        self.vm.get_mut().reset();
        self.logs.reset();
        self.created.clear();
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
