//! forge's cheatcodes: calls to [`CHEATCODE_ADDRESS`] answered by harvey instead of by code,
//! so that existing Foundry suites (forge-std's `Test`, handlers using `vm.prank`,
//! `vm.warp`, ...) run on harvey's chain.
//!
//! [`Cheatcodes`] is the state (pranks, broadcasts, mocks, expectations, snapshots, labels,
//! the cheatcodes a suite called that harvey lacks); [`Cheatcodes::apply`] decodes one call
//! to the cheatcode address and runs it against the EVM context (`scripting` dispatches the
//! scripting and testing ones). The handlers live by topic:
//! `env` (block, chain and accounts), `prank`, `broadcast`, `keys`, `code` (artifacts),
//! `mock`, `expect` (reverts), `emit`, `snapshot`, `vars`, `assert`; `signatures` names
//! every forge 1.7.1 cheatcode. The inspector that routes calls here is `chain::hooks`.
//!
//! Differences from forge, on purpose: failures revert with `Error(string)` (forge uses its
//! own `CheatcodeError(string)`, which every tool decodes to the same text), and a cheatcode
//! that is a real forge cheatcode (forge 1.7.1's, or in the ABI of a compiled `Vm`/`VmSafe`)
//! but that harvey does not implement reverts saying so, rather than as an unknown selector.

mod assert;
pub(super) mod broadcast;
mod code;
pub(super) mod emit;
mod env;
pub(super) mod expect;
mod keys;
pub(super) mod mock;
mod prank;
mod scripting;
mod signatures;
mod snapshot;
mod vars;

use std::collections::HashMap;
use std::sync::Arc;

use alloy_primitives::{Address, B256, Bytes, Selector, U256, address, hex};
use alloy_sol_types::{Revert, SolCall, SolError, SolInterface, SolValue, sol};
use revm::handler::MainnetContext;
use revm::interpreter::{CallInputs, CallOutcome, Gas, InstructionResult, InterpreterResult};

use super::db::Db;
use crate::project::Artifacts;
pub(super) use prank::Pranks;

/// The deterministic CREATE2 deployer forge installs: `vm.computeCreate2Address` without a
/// deployer, and the account forge's invariant fuzzing never targets.
pub(crate) const CREATE2_DEPLOYER: Address = address!("0x4e59b44847b379578588920ca78fbf26c0b4956c");

/// Where forge (and forge-std's `vm`) expects the cheatcodes: `address(uint160(uint256(
/// keccak256("hevm cheat code"))))`.
pub const CHEATCODE_ADDRESS: Address = address!("0x7109709ECfa91a80626fF3989D68f67F5b1DD12D");

/// Hardhat's and forge-std's `console.log` address. Calls there are not calls for the
/// purposes of pranks (forge skips them too); the account has no code, so they succeed.
pub const CONSOLE_ADDRESS: Address = address!("0x000000000000000000636F6e736F6c652e6c6f67");

/// The storage slot of [`CHEATCODE_ADDRESS`] that holds forge's global failure flag:
/// `bytes32("failed")`, written by forge-std's `fail()` and read by `failed()`.
pub(super) const FAILED_SLOT: U256 = U256::from_be_bytes(hex!(
    "6661696c65640000000000000000000000000000000000000000000000000000"
));

/// The revert data of `vm.assume(false)`: forge's raw magic bytes (not ABI-encoded).
const MAGIC_ASSUME: &[u8] = b"FOUNDRY::ASSUME";

internal! {
    /// Whether `output` (a call's revert data) is `vm.assume(false)` rejecting the input.
    fn is_assume_rejection(output: &[u8]) -> bool {
        output == MAGIC_ASSUME
    }
}

internal! {
    /// A forge cheatcode a suite called that harvey does not implement.
    #[derive(Debug, Clone, PartialEq, Eq)]
    struct UnsupportedCheatcode {
        /// Its signature, `"ffi(string[])"`.
        pub signature: String,
        /// The account that called it.
        pub caller: Address,
        /// Where the call was made, when seen.
        pub site: Option<CallSite>,
    }
}

internal! {
    /// A CALL instruction to the cheatcode address.
    #[derive(Debug, Clone, PartialEq, Eq)]
    struct CallSite {
        /// The address of the code that ran it.
        pub code: Address,
        /// Its pc.
        pub pc: u32,
        /// That code (a contract its failed transaction created is gone from the chain).
        pub bytecode: Bytes,
    }
}

sol! {
    /// The cheatcodes harvey implements, as forge-std 1.9.7's `Vm.sol` declares them.
    #[allow(missing_docs)]
    interface Vm {
        function warp(uint256 newTimestamp) external;
        function roll(uint256 newHeight) external;
        function fee(uint256 newBasefee) external;
        function chainId(uint256 newChainId) external;
        function getBlockTimestamp() external view returns (uint256 timestamp);
        function getBlockNumber() external view returns (uint256 height);
        function deal(address account, uint256 newBalance) external;
        function label(address account, string calldata newLabel) external;
        function getLabel(address account) external view returns (string memory currentLabel);
        function addr(uint256 privateKey) external pure returns (address keyAddr);
        function store(address target, bytes32 slot, bytes32 value) external;
        function load(address target, bytes32 slot) external view returns (bytes32 data);
        function etch(address target, bytes calldata newRuntimeBytecode) external;
        function getNonce(address account) external view returns (uint64 nonce);
        function setNonce(address account, uint64 newNonce) external;
        function prank(address msgSender) external;
        function prank(address msgSender, address txOrigin) external;
        function startPrank(address msgSender) external;
        function startPrank(address msgSender, address txOrigin) external;
        function stopPrank() external;
        function assume(bool condition) external pure;
        function record() external;
        #[derive(Debug)]
        struct Log {
            bytes32[] topics;
            bytes data;
            address emitter;
        }
        function recordLogs() external;
        function getRecordedLogs() external returns (Log[] memory logs);
        function envUint(string calldata name) external view returns (uint256 value);
        function envAddress(string calldata name) external view returns (address value);
        function envBool(string calldata name) external view returns (bool value);
        function envString(string calldata name) external view returns (string memory value);
        function envOr(string calldata name, uint256 defaultValue) external view returns (uint256 value);
        function envOr(string calldata name, address defaultValue) external view returns (address value);
        function envOr(string calldata name, bool defaultValue) external view returns (bool value);
        function envOr(string calldata name, string calldata defaultValue) external view returns (string memory value);
        function sign(uint256 privateKey, bytes32 digest) external pure returns (uint8 v, bytes32 r, bytes32 s);
        function expectRevert() external;
        function expectRevert(bytes4 revertData) external;
        function expectRevert(bytes calldata revertData) external;
        function accesses(address target) external returns (bytes32[] memory readSlots, bytes32[] memory writeSlots);
        function toString(address value) external pure returns (string memory stringifiedValue);
        function toString(bytes calldata value) external pure returns (string memory stringifiedValue);
        function toString(bytes32 value) external pure returns (string memory stringifiedValue);
        function toString(bool value) external pure returns (string memory stringifiedValue);
        function toString(uint256 value) external pure returns (string memory stringifiedValue);
        function toString(int256 value) external pure returns (string memory stringifiedValue);
        function broadcast() external;
        function broadcast(address signer) external;
        function broadcast(uint256 privateKey) external;
        function startBroadcast() external;
        function startBroadcast(address signer) external;
        function startBroadcast(uint256 privateKey) external;
        function stopBroadcast() external;
        function rememberKey(uint256 privateKey) external returns (address keyAddr);
        function deriveKey(string calldata mnemonic, uint32 index) external pure returns (uint256 privateKey);
        function deriveKey(string calldata mnemonic, string calldata derivationPath, uint32 index) external pure returns (uint256 privateKey);
        function deriveKey(string calldata mnemonic, uint32 index, string calldata language) external pure returns (uint256 privateKey);
        function deriveKey(string calldata mnemonic, string calldata derivationPath, uint32 index, string calldata language) external pure returns (uint256 privateKey);
        function computeCreateAddress(address deployer, uint256 nonce) external pure returns (address);
        function computeCreate2Address(bytes32 salt, bytes32 initCodeHash, address deployer) external pure returns (address);
        function computeCreate2Address(bytes32 salt, bytes32 initCodeHash) external pure returns (address);
        function getCode(string calldata artifactPath) external view returns (bytes memory creationBytecode);
        function getDeployedCode(string calldata artifactPath) external view returns (bytes memory runtimeBytecode);
        function expectRevert(bytes4 revertData, address reverter, uint64 count) external;
        function expectRevert(bytes calldata revertData, address reverter, uint64 count) external;
        function expectRevert(address reverter) external;
        function expectRevert(bytes4 revertData, address reverter) external;
        function expectRevert(bytes calldata revertData, address reverter) external;
        function expectRevert(uint64 count) external;
        function expectRevert(bytes4 revertData, uint64 count) external;
        function expectRevert(bytes calldata revertData, uint64 count) external;
        function expectRevert(address reverter, uint64 count) external;
        function expectEmit(bool checkTopic1, bool checkTopic2, bool checkTopic3, bool checkData) external;
        function expectEmit(bool checkTopic1, bool checkTopic2, bool checkTopic3, bool checkData, address emitter) external;
        function expectEmit() external;
        function expectEmit(address emitter) external;
        function mockCall(address callee, bytes calldata data, bytes calldata returnData) external;
        function mockCall(address callee, uint256 msgValue, bytes calldata data, bytes calldata returnData) external;
        function mockCall(address callee, bytes4 data, bytes calldata returnData) external;
        function mockCall(address callee, uint256 msgValue, bytes4 data, bytes calldata returnData) external;
        function mockCallRevert(address callee, bytes calldata data, bytes calldata revertData) external;
        function mockCallRevert(address callee, uint256 msgValue, bytes calldata data, bytes calldata revertData) external;
        function mockCallRevert(address callee, bytes4 data, bytes calldata revertData) external;
        function mockCallRevert(address callee, uint256 msgValue, bytes4 data, bytes calldata revertData) external;
        function clearMockedCalls() external;
        function snapshotState() external returns (uint256 snapshotId);
        function snapshot() external returns (uint256 snapshotId);
        function revertToState(uint256 snapshotId) external returns (bool success);
        function revertTo(uint256 snapshotId) external returns (bool success);
        function revertToStateAndDelete(uint256 snapshotId) external returns (bool success);
        function revertToAndDelete(uint256 snapshotId) external returns (bool success);
        function deleteStateSnapshot(uint256 snapshotId) external returns (bool success);
        function deleteStateSnapshots() external;
    }
}

/// What a cheatcode handler returns: ABI-encoded return data, or revert data.
type Answer = std::result::Result<Vec<u8>, Vec<u8>>;

/// A failing cheatcode's revert data: `Error(message)`.
pub(super) fn fail(message: impl Into<String>) -> Vec<u8> {
    Revert::from(message.into()).abi_encode()
}

/// The return data of `vm.toString`: `text` ABI-encoded.
fn shown(text: String) -> Vec<u8> {
    Vm::toString_0Call::abi_encode_returns(&text)
}

/// What cheatcodes set up that lasts beyond a sequence when set up in `setUp()` (kept by
/// [`Cheatcodes::commit`], put back by [`Cheatcodes::reset`]).
#[derive(Debug, Clone, Default)]
struct Lasting {
    /// `vm.mockCall`s.
    mocks: mock::Mocks,
    /// Keys remembered with `vm.rememberKey` and keyed broadcasts.
    wallets: keys::Wallets,
    /// `vm.snapshotState`s.
    snapshots: snapshot::Snapshots,
}

/// The cheatcodes' state on one chain.
#[derive(Debug, Clone, Default)]
pub(super) struct Cheatcodes {
    /// Signatures of forge's cheatcodes by selector (from the compiled `Vm`/`VmSafe`
    /// interfaces), to tell an unsupported cheatcode from an unknown selector.
    known: HashMap<Selector, String>,
    /// The project's compiled contracts, for `vm.getCode`.
    artifacts: Option<Arc<Artifacts>>,
    /// The broadcast in force.
    pub(super) broadcast: Option<broadcast::Broadcast>,
    /// Mocks, wallets and snapshots in force.
    lasting: Lasting,
    /// [`Cheatcodes::lasting`] as committed.
    base: Lasting,
    /// The armed `vm.expectEmit`s.
    pub(super) expected_emits: emit::ExpectedEmits,
    /// The latest CALL to the cheatcode address, to place an unsupported cheatcode's call.
    pub(super) call_site: Option<CallSite>,
    /// The comparison the assertion just answered made, until the hooks hand it to the
    /// observer.
    pub(super) decision: Option<assert::Decision>,
    /// Active pranks (per sequence: [`Cheatcodes::reset`] clears them).
    pub(super) pranks: Pranks,
    /// Labels given with `vm.label`; the chain merges them after each transaction.
    labels: HashMap<Address, String>,
    /// Labels given since the chain last took them.
    new_labels: Vec<(Address, String)>,
    /// The first unsupported cheatcode called since the chain last took it.
    unsupported: Option<UnsupportedCheatcode>,
    /// Storage slots read and written since `vm.record()`, by account; `None` when not
    /// recording.
    pub(super) accesses: Option<HashMap<Address, Accesses>>,
    /// The armed `vm.expectRevert`.
    pub(super) expected_revert: Option<expect::ExpectedRevert>,
    /// Logs emitted since `vm.recordLogs()` (taken by `vm.getRecordedLogs()`); `None` when
    /// not recording.
    recorded_logs: Option<Vec<Vm::Log>>,
    /// The most any cheatcode called since the last take could change ([`Effect`]).
    touched: Effect,
}

/// What a cheatcode call can change that an invariant's probe reads, least first: the
/// engine skips an invariant only while nothing it read can have changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(in crate::chain) enum Effect {
    /// Nothing beyond the call it answers: assertions, `assume`, labels, conversions,
    /// keys and addresses computed, the artifacts' code, environment variables; pranks and
    /// expectations too, whose state in force the chain checks by itself
    /// ([`Cheatcodes::in_force`]).
    #[default]
    Pure,
    /// Reads state (`load`, `getNonce`, the block's number or timestamp, a label): a
    /// probe calling it reads what no storage write shows.
    Reads,
    /// The block or chain environment (`warp`, `roll`, `fee`, `chainId`): changes only
    /// what probes that read the environment read, and those are checked every time.
    Environment,
    /// Anything else: storage, balances, code, nonces, mocks, snapshots, broadcasts,
    /// recording; and cheatcodes harvey does not know.
    Writes,
}

/// What cheatcode `call` can change ([`Effect`]).
fn effect(call: &Vm::VmCalls) -> Effect {
    use Vm::VmCalls as C;
    match call {
        C::prank_0(_)
        | C::prank_1(_)
        | C::startPrank_0(_)
        | C::startPrank_1(_)
        | C::stopPrank(_)
        | C::assume(_)
        | C::label(_)
        | C::expectRevert_0(_)
        | C::expectRevert_1(_)
        | C::expectRevert_2(_)
        | C::expectRevert_3(_)
        | C::expectRevert_4(_)
        | C::expectRevert_5(_)
        | C::expectRevert_6(_)
        | C::expectRevert_7(_)
        | C::expectRevert_8(_)
        | C::expectRevert_9(_)
        | C::expectRevert_10(_)
        | C::expectRevert_11(_)
        | C::expectEmit_0(_)
        | C::expectEmit_1(_)
        | C::expectEmit_2(_)
        | C::expectEmit_3(_)
        | C::envUint(_)
        | C::envAddress(_)
        | C::envBool(_)
        | C::envString(_)
        | C::envOr_0(_)
        | C::envOr_1(_)
        | C::envOr_2(_)
        | C::envOr_3(_)
        | C::toString_0(_)
        | C::toString_1(_)
        | C::toString_2(_)
        | C::toString_3(_)
        | C::toString_4(_)
        | C::toString_5(_)
        | C::addr(_)
        | C::sign(_)
        | C::deriveKey_0(_)
        | C::deriveKey_1(_)
        | C::deriveKey_2(_)
        | C::deriveKey_3(_)
        | C::computeCreateAddress(_)
        | C::computeCreate2Address_0(_)
        | C::computeCreate2Address_1(_)
        | C::getCode(_)
        | C::getDeployedCode(_) => Effect::Pure,
        C::load(_)
        | C::getNonce(_)
        | C::getLabel(_)
        | C::getBlockNumber(_)
        | C::getBlockTimestamp(_) => Effect::Reads,
        C::warp(_) | C::roll(_) | C::fee(_) | C::chainId(_) => Effect::Environment,
        _ => Effect::Writes,
    }
}

/// The storage slots one account's code read and wrote since `vm.record()`, in order (an
/// SSTORE counts as a read and a write, as in forge).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Accesses {
    reads: Vec<B256>,
    writes: Vec<B256>,
}

impl Cheatcodes {
    /// The most the cheatcodes called since the last take could change, and a new count.
    pub(in crate::chain) fn take_touched(&mut self) -> Effect {
        std::mem::take(&mut self.touched)
    }

    /// Puts back what [`Cheatcodes::take_touched`] took (a probe's calls kept apart).
    pub(in crate::chain) fn restore_touched(&mut self, touched: Effect) {
        self.touched = touched;
    }

    /// Whether cheatcode state is in force that changes what a call does (a prank, an
    /// armed expectation, a broadcast, recording): then a probe's answer depends on more
    /// than storage.
    pub(in crate::chain) fn in_force(&self) -> bool {
        !self.pranks.is_empty()
            || self.expected_revert.is_some()
            || !self.expected_emits.is_empty()
            || self.broadcast.is_some()
            || self.accesses.is_some()
            || self.recorded_logs.is_some()
    }

    /// Records an SLOAD (`write == false`) or SSTORE of `slot` by `account`'s storage, when
    /// recording.
    pub(in crate::chain) fn record_access(&mut self, account: Address, slot: U256, write: bool) {
        if let Some(accesses) = self.accesses.as_mut() {
            let entry = accesses.entry(account).or_default();
            entry.reads.push(slot.into());
            if write {
                entry.writes.push(slot.into());
            }
        }
    }
}

impl Cheatcodes {
    /// Records a log as it is emitted, when `vm.recordLogs()` is on (as forge, whatever
    /// becomes of the frame that emitted it).
    pub(in crate::chain) fn record_log(&mut self, log: &alloy_primitives::Log) {
        if let Some(logs) = self.recorded_logs.as_mut() {
            logs.push(Vm::Log {
                topics: log.topics().to_vec(),
                data: log.data.data.clone(),
                emitter: log.address,
            });
        }
    }

    /// Cheatcodes over the project's `artifacts`, knowing the signatures of its compiled
    /// `Vm`/`VmSafe` interfaces.
    pub(super) fn new(artifacts: Arc<Artifacts>) -> Cheatcodes {
        let known = artifacts
            .contracts()
            .filter(|artifact| artifact.name == "Vm" || artifact.name == "VmSafe")
            .flat_map(|artifact| artifact.abi.functions())
            .map(|function| (function.selector(), function.signature()))
            .collect();
        Cheatcodes {
            known,
            artifacts: Some(artifacts),
            ..Cheatcodes::default()
        }
    }

    /// The mocked answer to a call, if mocks are in force and one matches.
    pub(in crate::chain) fn mocked(
        &self,
        callee: Address,
        calldata: &[u8],
        value: Option<U256>,
    ) -> Option<&mock::Answer> {
        if self.lasting.mocks.is_empty() {
            return None;
        }
        self.lasting.mocks.find(callee, calldata, value)
    }

    /// Runs the cheatcode `inputs` calls (a call to [`CHEATCODE_ADDRESS`]) and returns
    /// its outcome: it costs no gas beyond the call's.
    pub(super) fn apply(
        &mut self,
        context: &mut MainnetContext<Db>,
        inputs: &CallInputs,
    ) -> CallOutcome {
        let data = inputs.input.bytes(context);
        let answer = self.dispatch(context, inputs, &data);
        let (result, output) = match answer {
            Ok(output) => (InstructionResult::Return, output),
            Err(output) => (InstructionResult::Revert, output),
        };
        CallOutcome::new(
            InterpreterResult::new(result, Bytes::from(output), Gas::new(inputs.gas_limit)),
            inputs.return_memory_offset.clone(),
        )
    }

    fn dispatch(
        &mut self,
        context: &mut MainnetContext<Db>,
        inputs: &CallInputs,
        data: &[u8],
    ) -> Answer {
        let Some(selector) = data.get(..4).map(Selector::from_slice) else {
            self.touched = Effect::Writes;
            return Err(self.unknown(data));
        };
        if let Some(asserted) = assert::run(selector, data) {
            self.decision = asserted.decision;
            return asserted.answer;
        }
        if !Vm::VmCalls::valid_selector(selector.0) {
            self.touched = Effect::Writes;
            let known = self.known.get(&selector).cloned();
            let signature =
                known.or_else(|| signatures::forge_signature(selector).map(String::from));
            return Err(match signature {
                Some(signature) => self.unsupported(signature, inputs.caller),
                None => self.unknown(data),
            });
        }
        let call = Vm::VmCalls::abi_decode(data).map_err(|e| {
            self.touched = Effect::Writes;
            fail(e.to_string())
        })?;
        self.touched = self.touched.max(effect(&call));
        self.run(context, inputs, call)
    }

    /// The revert of a selector no cheatcode has: forge's message.
    fn unknown(&self, data: &[u8]) -> Vec<u8> {
        let mut selector = [0u8; 4];
        let len = data.len().min(4);
        selector[..len].copy_from_slice(&data[..len]);
        fail(format!(
            "unknown cheatcode with selector 0x{}; you may have a mismatch between the `Vm` interface (likely in `forge-std`) and the `forge` version",
            hex::encode(selector)
        ))
    }

    /// Records a real forge cheatcode harvey lacks, and the revert that says so.
    fn unsupported(&mut self, signature: String, caller: Address) -> Vec<u8> {
        let message = format!(
            "harvey does not support the cheatcode `{signature}` (called by {caller}); remove the call or run this suite with forge"
        );
        let site = self.call_site.take().filter(|site| site.code == caller);
        self.unsupported.get_or_insert(UnsupportedCheatcode {
            signature,
            caller,
            site,
        });
        fail(message)
    }

    fn run(
        &mut self,
        context: &mut MainnetContext<Db>,
        inputs: &CallInputs,
        call: Vm::VmCalls,
    ) -> Answer {
        use Vm::VmCalls as C;
        let depth = context.journaled_state.inner.depth;
        let prank = matches!(
            call,
            C::prank_0(_) | C::prank_1(_) | C::startPrank_0(_) | C::startPrank_1(_)
        );
        if prank && self.broadcast.is_some() {
            return Err(fail(
                "cannot `prank` for a broadcasted transaction; pass the desired `tx.origin` into the `broadcast` cheatcode call",
            ));
        }
        match call {
            C::prank_0(c) => self
                .pranks
                .start(context, inputs, depth, c.msgSender, None, true),
            C::prank_1(c) => {
                self.pranks
                    .start(context, inputs, depth, c.msgSender, Some(c.txOrigin), true)
            }
            C::startPrank_0(c) => {
                self.pranks
                    .start(context, inputs, depth, c.msgSender, None, false)
            }
            C::startPrank_1(c) => {
                self.pranks
                    .start(context, inputs, depth, c.msgSender, Some(c.txOrigin), false)
            }
            C::stopPrank(_) => {
                self.pranks.stop(depth);
                Ok(Vec::new())
            }
            C::assume(c) => {
                if c.condition {
                    Ok(Vec::new())
                } else {
                    Err(MAGIC_ASSUME.to_vec())
                }
            }
            C::label(c) => {
                self.labels.insert(c.account, c.newLabel.clone());
                self.new_labels.push((c.account, c.newLabel));
                Ok(Vec::new())
            }
            C::getLabel(c) => {
                let label = self
                    .labels
                    .get(&c.account)
                    .cloned()
                    .unwrap_or_else(|| format!("unlabeled:{}", c.account));
                Ok(Vm::getLabelCall::abi_encode_returns(&label))
            }
            C::expectRevert_0(_) => self.expect_revert(depth, None, None, 1),
            C::expectRevert_1(c) => self.expect_revert(depth, Some(c.revertData.into()), None, 1),
            C::expectRevert_2(c) => self.expect_revert(depth, Some(c.revertData), None, 1),
            C::envUint(c) => vars::read::<U256>(&c.name, None).map(|v| v.abi_encode()),
            C::envAddress(c) => vars::read::<Address>(&c.name, None).map(|v| v.abi_encode()),
            C::envBool(c) => vars::read::<bool>(&c.name, None).map(|v| v.abi_encode()),
            C::envString(c) => vars::read::<String>(&c.name, None).map(|v| v.abi_encode()),
            C::envOr_0(c) => vars::read(&c.name, Some(c.defaultValue)).map(|v| v.abi_encode()),
            C::envOr_1(c) => vars::read(&c.name, Some(c.defaultValue)).map(|v| v.abi_encode()),
            C::envOr_2(c) => vars::read(&c.name, Some(c.defaultValue)).map(|v| v.abi_encode()),
            C::envOr_3(c) => vars::read(&c.name, Some(c.defaultValue)).map(|v| v.abi_encode()),
            C::record(_) => {
                self.accesses = Some(HashMap::new());
                Ok(Vec::new())
            }
            C::recordLogs(_) => {
                self.recorded_logs = Some(Vec::new());
                Ok(Vec::new())
            }
            C::getRecordedLogs(_) => {
                let logs = self.recorded_logs.as_mut().map(std::mem::take);
                Ok(Vm::getRecordedLogsCall::abi_encode_returns(
                    &logs.unwrap_or_default(),
                ))
            }
            C::accesses(c) => {
                let found = self
                    .accesses
                    .as_ref()
                    .and_then(|all| all.get(&c.target))
                    .cloned()
                    .unwrap_or_default();
                Ok(Vm::accessesCall::abi_encode_returns(&Vm::accessesReturn {
                    readSlots: found.reads,
                    writeSlots: found.writes,
                }))
            }
            C::toString_0(c) => Ok(shown(c.value.to_checksum(None))),
            C::toString_1(c) => Ok(shown(hex::encode_prefixed(&c.value))),
            C::toString_2(c) => Ok(shown(c.value.to_string())),
            C::toString_3(c) => Ok(shown(c.value.to_string())),
            C::toString_4(c) => Ok(shown(c.value.to_string())),
            C::toString_5(c) => Ok(shown(c.value.to_string())),
            other => self.run_script_and_test(context, inputs, depth, other),
        }
    }
}

impl Cheatcodes {
    /// The labels given since the last take, oldest first.
    pub(super) fn take_labels(&mut self) -> Vec<(Address, String)> {
        std::mem::take(&mut self.new_labels)
    }

    /// The first unsupported cheatcode called since the last take.
    pub(super) fn take_unsupported(&mut self) -> Option<UnsupportedCheatcode> {
        self.unsupported.take()
    }

    /// Ends a sequence: forgets what applies to the next calls (pranks, broadcasts,
    /// recording, expectations) and puts mocks, wallets and snapshots back as committed.
    pub(super) fn reset(&mut self) {
        self.pranks = Pranks::default();
        self.broadcast = None;
        self.accesses = None;
        self.expected_revert = None;
        self.expected_emits = emit::ExpectedEmits::default();
        self.recorded_logs = None;
        self.lasting = self.base.clone();
    }

    /// Keeps the mocks, wallets and snapshots in force for every later sequence (what
    /// `setUp()` set up).
    pub(super) fn commit(&mut self) {
        self.base = self.lasting.clone();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::keccak256;

    #[test]
    fn addresses_and_slots_are_forges() {
        let hashed = keccak256("hevm cheat code");
        assert_eq!(CHEATCODE_ADDRESS, Address::from_slice(&hashed[12..]));
        assert_eq!(&FAILED_SLOT.to_be_bytes::<32>()[..6], b"failed");
        assert!(is_assume_rejection(b"FOUNDRY::ASSUME"));
        assert!(!is_assume_rejection(b"FOUNDRY::ASSUME2"));
    }

    #[test]
    fn cheatcodes_are_told_apart_by_what_an_invariant_s_probe_could_see_change() {
        let decoded = |call: Vec<u8>| Vm::VmCalls::abi_decode(&call).unwrap();
        let who = Address::repeat_byte(7);
        let prank = decoded(Vm::prank_0Call { msgSender: who }.abi_encode());
        let warp = decoded(
            Vm::warpCall {
                newTimestamp: U256::from(9),
            }
            .abi_encode(),
        );
        let load = decoded(
            Vm::loadCall {
                target: who,
                slot: B256::ZERO,
            }
            .abi_encode(),
        );
        let deal = decoded(
            Vm::dealCall {
                account: who,
                newBalance: U256::from(1),
            }
            .abi_encode(),
        );
        assert_eq!(effect(&prank), Effect::Pure);
        assert_eq!(effect(&load), Effect::Reads);
        assert_eq!(effect(&warp), Effect::Environment);
        assert_eq!(effect(&deal), Effect::Writes);
        assert!(Effect::Pure < Effect::Reads && Effect::Environment < Effect::Writes);
    }

    #[test]
    fn selectors_are_forge_stds() {
        // Selectors from forge-std 1.9.7's Vm.sol.
        assert_eq!(Vm::warpCall::SELECTOR, hex!("e5d6bf02"));
        assert_eq!(Vm::prank_0Call::SELECTOR, hex!("ca669fa7"));
        assert_eq!(Vm::startPrank_1Call::SELECTOR, hex!("45b56078"));
        assert_eq!(Vm::assumeCall::SELECTOR, hex!("4c63e562"));
        assert_eq!(Vm::labelCall::SELECTOR, hex!("c657c718"));
    }

    #[test]
    fn unknown_and_unsupported_messages() {
        let abi = alloy_json_abi::JsonAbi::parse([
            "function ffi(string[] calldata) external returns (bytes memory)",
        ])
        .unwrap();
        let ffi = abi.functions().next().unwrap().selector();
        let mut cheats = Cheatcodes {
            known: [(ffi, "ffi(string[])".to_string())].into(),
            ..Cheatcodes::default()
        };
        assert_eq!(
            cheats.known.get(&ffi).map(String::as_str),
            Some("ffi(string[])")
        );
        let revert = cheats.unsupported("ffi(string[])".into(), Address::ZERO);
        let message = Revert::abi_decode(&revert).unwrap().reason;
        assert!(message.starts_with("harvey does not support the cheatcode `ffi(string[])`"));
        assert_eq!(
            cheats.take_unsupported().map(|u| u.signature),
            Some("ffi(string[])".into())
        );
        assert_eq!(cheats.take_unsupported(), None);
        let unknown = Revert::abi_decode(&cheats.unknown(&hex!("b32e2421"))).unwrap();
        assert!(
            unknown
                .reason
                .starts_with("unknown cheatcode with selector 0xb32e2421; ")
        );
    }
}
