//! The one revm `Evm` a chain owns, and the only code in `chain` that drives it: building
//! it, running transactions (observed or not), committing or dropping the journal, and
//! reading and writing state without disturbing the next transaction.

use alloy_primitives::{Address, Bytes, U256};

use super::attacker::{self, ATTACKER_CONTRACT};
use revm::context::result::{EVMError, ExecutionResult, InvalidTransaction};
use revm::context::{BlockEnv, Context, ContextSetters, ContextTr, JournalTr, TxEnv};
use revm::context_interface::journaled_state::account::JournaledAccountTr;
use revm::handler::MainnetHandler;
use revm::inspector::InspectorHandler;
use revm::primitives::TxKind;
use revm::primitives::hardfork::SpecId;
use revm::state::AccountInfo;
use revm::{DatabaseCommit, DatabaseRef, ExecuteEvm, InspectEvm, MainBuilder, MainContext};

use super::cheatcodes::{CHEATCODE_ADDRESS, Cheatcodes, Effect, FAILED_SLOT, UnsupportedCheatcode};
use super::db::Db;
use super::hooks::Hooks;
use super::keccak;
use super::reads::Reads;
use super::sparse::{Evm, Sparse};
use crate::observe::{FlowSet, Observer, Trace};
use crate::project::ChainSettings;
use crate::{Error, Result};

/// The chain id every transaction and `block.chainid` carry (anvil's, so contracts that
/// special-case mainnet behave like on a local test chain).
pub const CHAIN_ID: u64 = 31_337;

/// Gas limit of every transaction: just under Osaka's per-transaction cap of 2^24
/// (EIP-7825), so that a transaction is never rejected for asking too much.
pub const TX_GAS_LIMIT: u64 = 16_000_000;

/// What revm rejects a transaction with (the in-memory database cannot fail).
type EvmError = EVMError<std::convert::Infallible, InvalidTransaction>;

/// What the transaction to run is: a call or a creation.
pub(super) enum Target {
    Call(Address),
    Create,
}

/// The EVM with its committed base block.
pub(super) struct Vm {
    evm: Evm,
    /// The block env `reset` restores (pending warps are dropped with the journal).
    base_block: BlockEnv,
    /// The chain id `reset` restores (`vm.chainId` changes it outside the journal).
    base_chain_id: u64,
    /// Gas of every transaction.
    gas_limit: u64,
    /// Whether [`ATTACKER_CONTRACT`] holds the attacker contract, armed before each
    /// transaction it sends.
    attacker: bool,
    /// Whether a Rust property case is running: every transaction is observed, its record
    /// added to the case's one trace.
    case: bool,
    /// The observer of invariant checks, once turned on ([`Vm::observe_checks`]): during
    /// the checks it takes the transaction observer's place, so that the transaction's
    /// trace stays as the transaction left it.
    checks: Option<Box<Observer>>,
    /// Whether invariant checks are being observed now: every call runs observed, its
    /// record added to the checks' one trace.
    checking: bool,
    /// Whether inspected transactions run revm's own loop, the hooks called around every
    /// instruction, instead of the sparse loop (`sparse`): what the tests compare it with.
    every_instruction: bool,
}

// Why `Vm` (and so `Chain`) is `Send`: the engine does not need it (each worker builds its
// own chain inside its thread), but `Chain` is documented as `Send` so that a user can set a
// chain up on one thread and use it on another (the `chain_is_send` unit test and the
// `chain::chain_moves_across_threads` integration test hold it to that).
//
// SAFETY: revm 43's `Evm` is !Send for exactly two reasons, and neither lets two threads
// touch the same data:
// - `LocalContext::shared_memory_buffer` is an `Rc<RefCell<Vec<u8>>>` whose clones are the
//   `SharedMemory` of the interpreter frames on the `Evm`'s frame stack. Every clone is
//   owned by this `Evm`; `Vm` never clones it or hands it (or a frame) out, so moving the
//   `Vm` moves every owner of the `Rc` together and its reference count is never touched by
//   two threads.
// - `ExtBytecode::instruction_pointer` is a `*const u8` into the same frame's `base:
//   Bytecode`, whose bytes live in a reference-counted immutable heap buffer (`Bytes`) that
//   moving the frame does not move, and which is only read.
// Everything else in the `Evm` (the `CacheDB`, the journal, the `Hooks`) is `Send`. A revm
// upgrade must check this list again: the compiler names the !Send fields when this impl is
// removed and `Chain` is asserted `Send`.
unsafe impl Send for Vm {}

impl Vm {
    /// A fresh chain state: `accounts` funded with `balance`, the block at `block`,
    /// executing as `settings` say (already validated: an `evm_version` solc knows, which
    /// compiling checked).
    pub(super) fn new(
        accounts: &[Address],
        balance: U256,
        block: BlockEnv,
        settings: &ChainSettings,
    ) -> Vm {
        let mut db = Db::default();
        for &account in accounts {
            db.insert_account_info(account, AccountInfo::from_balance(balance));
        }
        let gas_limit = settings.gas_limit.unwrap_or(TX_GAS_LIMIT);
        let chain_id = settings.chain_id.unwrap_or(CHAIN_ID);
        let spec = settings
            .evm_version
            .as_deref()
            .and_then(spec_of)
            .unwrap_or_default();
        let mut evm = Context::mainnet()
            .with_db(db)
            .with_block(block.clone())
            .modify_cfg_chained(|cfg| {
                cfg.set_spec_and_mainnet_gas_params(spec);
                // The fuzzer replays transactions from the same senders in any order.
                cfg.disable_nonce_check = true;
                // The attacker contract sends transactions, like an account with a
                // delegation (EIP-7702) would.
                cfg.disable_eip3607 = true;
                cfg.chain_id = chain_id;
                // As forge's tests: no EIP-170 limit unless foundry.toml sets one (the
                // compiler and `forge build --sizes` are where size is checked).
                cfg.limit_contract_code_size = Some(settings.code_size_limit.unwrap_or(usize::MAX));
                if settings.gas_limit.is_some() {
                    // As forge: a configured gas limit is not capped by EIP-7825.
                    cfg.tx_gas_limit_cap = Some(gas_limit);
                }
            })
            .build_mainnet_with_inspector(Hooks::new());
        keccak::install(&mut evm.instruction);
        Vm {
            evm,
            base_block: block,
            base_chain_id: chain_id,
            gas_limit,
            attacker: false,
            case: false,
            checks: None,
            checking: false,
            every_instruction: false,
        }
    }

    /// Puts the attacker contract at [`ATTACKER_CONTRACT`]: from now on it is armed before
    /// each transaction it sends (see `attacker`).
    pub(super) fn install_attacker(&mut self) {
        self.set_code(ATTACKER_CONTRACT, attacker::CODE.clone());
        self.attacker = true;
    }

    /// Starts (`on`) or ends a Rust property case: from its start, every transaction runs
    /// under the observer and adds to one trace, which starts empty.
    pub(super) fn set_case(&mut self, on: bool) {
        if on {
            self.evm.inspector.observer.clear();
        }
        self.case = on;
    }

    /// Whether a Rust property case is running.
    pub(super) fn in_case(&self) -> bool {
        self.case
    }

    /// Runs one transaction into the pending state. `observe` runs it under the observer
    /// (clearing the previous trace first); otherwise the observer and its trace are left
    /// alone.
    pub(super) fn run(
        &mut self,
        sender: Address,
        target: Target,
        data: Bytes,
        value: U256,
        observe: bool,
    ) -> Result<ExecutionResult> {
        let armed = self.attacker && sender == ATTACKER_CONTRACT;
        if armed {
            if let Target::Call(to) = target {
                self.set_storages(ATTACKER_CONTRACT, attacker::arming(to, &data));
            }
        }
        let tx = TxEnv {
            caller: sender,
            kind: match target {
                Target::Call(to) => TxKind::Call(to),
                Target::Create => TxKind::Create,
            },
            data,
            value,
            gas_limit: self.gas_limit,
            chain_id: Some(self.evm.ctx.cfg.chain_id),
            ..TxEnv::default()
        };
        let result = if observe || self.case || self.checking {
            // A property case's calls add to one trace, as do the invariant checks'.
            if self.case || self.checking {
                self.evm.inspector.observer.start_transaction();
            } else {
                self.evm.inspector.observer.clear();
            }
            self.evm.inspector.observing = true;
            let result = self.inspect(tx);
            self.evm.inspector.observing = false;
            result
        } else if self.evm.inspector.cheats.is_some() || self.evm.inspector.reads.is_some() {
            self.inspect(tx)
        } else {
            // No hook to run: revm's uninspected path is the fastest.
            self.evm.transact_one(tx)
        };
        if armed {
            // Only this transaction's target may be re-entered, not a later payer.
            self.set_storages(ATTACKER_CONTRACT, [attacker::disarming()]);
        }
        result.map_err(|e| rejected(sender, value, e))
    }

    /// Runs `tx` under the hooks, with the sparse loop unless every instruction is to be
    /// inspected.
    fn inspect(&mut self, tx: TxEnv) -> std::result::Result<ExecutionResult, EvmError> {
        if self.every_instruction {
            return self.evm.inspect_one_tx(tx);
        }
        self.evm.set_tx(tx);
        self.evm.inspector.prepare();
        MainnetHandler::default().inspect_run(&mut Sparse(&mut self.evm))
    }

    /// Makes inspected transactions run revm's own inspected loop (`on`), the hooks called
    /// around every instruction, or the sparse loop (the default).
    #[cfg(feature = "internals")]
    pub(super) fn inspect_every_instruction(&mut self, on: bool) {
        self.every_instruction = on;
    }

    /// Runs one unobserved call in the pending state, reads forge's global failure flag,
    /// and puts the pending state (accounts, storage, warmth, block, chain id, pranks) back
    /// as it was: forge discards the state of its invariant calls.
    pub(super) fn probe(
        &mut self,
        sender: Address,
        to: Address,
        data: Bytes,
    ) -> Result<(ExecutionResult, bool)> {
        let state = self.evm.ctx.journaled_state.inner.state.clone();
        let block = self.evm.ctx.block.clone();
        let chain_id = self.evm.ctx.cfg.chain_id;
        let pranks = self.evm.inspector.cheats.as_ref().map(|c| c.pranks.clone());
        let created = self.evm.inspector.created.len();
        // While reads are recorded: what the transaction before called stays apart from
        // what the probe calls (which makes its reads volatile beyond pure cheatcodes).
        let recording = self.evm.inspector.reads.is_some();
        let touched_before = match self.evm.inspector.cheats.as_deref_mut() {
            Some(cheats) if recording => {
                let in_force = cheats.in_force();
                let touched = cheats.take_touched();
                if let Some(reads) = self.evm.inspector.reads.as_mut() {
                    reads.volatile |= in_force;
                }
                Some(touched)
            }
            _ => None,
        };
        let result = self.run(sender, Target::Call(to), data, U256::ZERO, false);
        let failed = !self.storage(CHEATCODE_ADDRESS, FAILED_SLOT).is_zero();
        if let (Some(cheats), Some(before)) =
            (self.evm.inspector.cheats.as_deref_mut(), touched_before)
        {
            let during = cheats.take_touched();
            if let Some(reads) = self.evm.inspector.reads.as_mut() {
                reads.volatile |= during > Effect::Pure;
                reads.slots.push((CHEATCODE_ADDRESS, FAILED_SLOT));
            }
            // Nothing of the probe's stays; what the transaction called still counts.
            cheats.restore_touched(before.max(during));
        }
        self.evm.ctx.journaled_state.inner.state = state;
        self.evm.ctx.block = block;
        self.evm.ctx.cfg.chain_id = chain_id;
        if let (Some(cheats), Some(pranks)) = (self.evm.inspector.cheats.as_mut(), pranks) {
            cheats.pranks = pranks;
        }
        self.evm.inspector.created.truncate(created);
        Ok((result?, failed))
    }

    /// Starts recording what probes read ([`Reads`]), afresh.
    pub(super) fn record_reads(&mut self) {
        self.evm.inspector.reads = Some(Reads::default());
    }

    /// What probes read since recording started, and stops recording; `None` when not
    /// recording.
    pub(super) fn take_reads(&mut self) -> Option<Reads> {
        self.evm.inspector.reads.take()
    }

    /// Whether the transactions since the last take may have changed what an invariant's
    /// probe reads beyond the storage they wrote: they called a cheatcode that writes
    /// state, or left cheatcode state in force (a prank, an expectation).
    pub(super) fn take_disturbance(&mut self) -> bool {
        self.evm
            .inspector
            .cheats
            .as_deref_mut()
            .is_some_and(|cheats| cheats.take_touched() == Effect::Writes || cheats.in_force())
    }

    /// Turns the cheatcodes on for every later transaction, over the project's `artifacts`
    /// (`vm.getCode`; its compiled `Vm` interfaces name cheatcodes harvey lacks). The
    /// cheatcode address gets forge's one-byte code, so that Solidity's code-size check
    /// before a call passes.
    pub(super) fn enable_cheatcodes(
        &mut self,
        artifacts: std::sync::Arc<crate::project::Artifacts>,
    ) {
        if self.evm.inspector.cheats.is_none() {
            self.evm.inspector.cheats = Some(Box::new(Cheatcodes::new(artifacts)));
        }
        // As forge: `vm.fee` may raise the base fee above the transactions' gas price of 0.
        self.evm.ctx.cfg.disable_base_fee = true;
        let code = revm::bytecode::Bytecode::new_raw(Bytes::from_static(&[0]));
        let db = &mut self.evm.ctx.journaled_state.database;
        db.insert_account_info(CHEATCODE_ADDRESS, AccountInfo::from_bytecode(code));
    }

    /// Contracts created by inspected transactions since the last take, in creation order.
    pub(super) fn take_created(&mut self) -> Vec<Address> {
        std::mem::take(&mut self.evm.inspector.created)
    }

    /// Labels given with `vm.label` since the last take.
    pub(super) fn take_labels(&mut self) -> Vec<(Address, String)> {
        self.evm
            .inspector
            .cheats
            .as_mut()
            .map(|c| c.take_labels())
            .unwrap_or_default()
    }

    /// The first unsupported cheatcode called since the last take.
    pub(super) fn take_unsupported(&mut self) -> Option<UnsupportedCheatcode> {
        self.evm.inspector.cheats.as_mut()?.take_unsupported()
    }

    /// Writes the pending state into the base state; the current block becomes the base.
    pub(super) fn commit(&mut self) {
        let state = self.evm.finalize();
        self.evm.ctx.journaled_state.database.commit(state);
        self.base_block = self.evm.ctx.block.clone();
        self.base_chain_id = self.evm.ctx.cfg.chain_id;
        if let Some(cheats) = self.evm.inspector.cheats.as_mut() {
            cheats.commit();
        }
    }

    /// Drops the pending state and restores the base block.
    pub(super) fn reset(&mut self) {
        drop(self.evm.finalize());
        self.evm.ctx.block = self.base_block.clone();
        self.evm.ctx.cfg.chain_id = self.base_chain_id;
        if let Some(cheats) = self.evm.inspector.cheats.as_mut() {
            cheats.reset();
        }
    }

    /// The target blocks observed transactions watch for ([`Trace::target_hits`]).
    pub(super) fn watch_targets(&mut self, targets: Vec<(Address, Vec<usize>)>) {
        self.evm.inspector.observer.watch_targets(targets);
    }

    /// Whether observed transactions record their frame's pcs ([`Trace::path`]).
    pub(super) fn record_path(&mut self, on: bool) {
        self.evm.inspector.observer.record_path(on);
    }

    /// Whether observed transactions follow their frame symbolically
    /// ([`Trace::path_condition`]).
    #[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
    pub(super) fn record_path_condition(&mut self, on: bool) {
        self.evm.inspector.observer.record_path_condition(on);
    }

    /// Forces JUMPIs of the followed frame ([`crate::observe::Observer::force_branches`]).
    #[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
    pub(super) fn force_branches(&mut self, forced: Vec<(usize, bool)>) {
        self.evm.inspector.observer.force_branches(forced);
    }

    /// Whether observed transactions record data decisions (see [`crate::observe`]).
    pub(super) fn record_data_decisions(&mut self, on: bool) {
        self.evm.inspector.observer.record_data_decisions(on);
    }

    /// Whether observed transactions record the blocks they enter ([`Trace::blocks`]).
    pub(super) fn record_blocks(&mut self, on: bool) {
        self.evm.inspector.observer.record_blocks(on);
    }

    /// Which data flows observed transactions follow ([`Trace::flows`]).
    pub(super) fn follow_flows(&mut self, flows: FlowSet) {
        self.evm.inspector.observer.follow_flows(flows);
    }

    /// The observer's record of the last observed transaction.
    pub(super) fn trace(&self) -> &Trace {
        self.evm.inspector.observer.trace()
    }

    /// Whether the invariant checks between [`Vm::start_checks`] and [`Vm::end_checks`]
    /// run observed, into a trace of their own.
    pub(super) fn observe_checks(&mut self, on: bool) {
        self.checks = on.then(Box::default);
    }

    /// Invariant checks start: when they are observed, their observer takes the
    /// transaction observer's place, with an empty trace.
    pub(super) fn start_checks(&mut self) {
        if let Some(checks) = self.checks.as_deref_mut() {
            std::mem::swap(&mut self.evm.inspector.observer, checks);
            self.evm.inspector.observer.clear();
            self.checking = true;
        }
    }

    /// Invariant checks end: the transaction's observer (and trace) is back.
    pub(super) fn end_checks(&mut self) {
        if let Some(checks) = self.checks.as_deref_mut().filter(|_| self.checking) {
            std::mem::swap(&mut self.evm.inspector.observer, checks);
            self.checking = false;
        }
    }

    /// What the last observed invariant checks did; `None` unless checks are observed.
    pub(super) fn checks_trace(&self) -> Option<&Trace> {
        self.checks.as_deref().map(Observer::trace)
    }

    pub(super) fn block(&self) -> &BlockEnv {
        &self.evm.ctx.block
    }

    pub(super) fn block_mut(&mut self) -> &mut BlockEnv {
        &mut self.evm.ctx.block
    }

    /// `address`'s balance in the pending state.
    pub(super) fn balance(&self, address: Address) -> U256 {
        let journal = self.evm.ctx.journal_ref();
        match journal.evm_state().get(&address) {
            Some(account) => account.info.balance,
            None => journal
                .db()
                .basic_ref(address)
                .ok()
                .flatten()
                .map_or(U256::ZERO, |info| info.balance),
        }
    }

    /// `address`'s storage at `slot` in the pending state. Reads only: loading through the
    /// journal would warm the slot for the next transaction and change its gas.
    pub(super) fn storage(&self, address: Address, slot: U256) -> U256 {
        let journal = self.evm.ctx.journal_ref();
        if let Some(account) = journal.evm_state().get(&address) {
            if let Some(value) = account.storage.get(&slot) {
                return value.present_value();
            }
            if account.is_created() {
                // Created in the pending state: nothing in the base belongs to it.
                return U256::ZERO;
            }
        }
        journal
            .db()
            .storage_ref(address, slot)
            .unwrap_or(U256::ZERO)
    }

    /// The values of `address`'s committed storage slots (in no particular order; nonzero
    /// values only). The pending state is not read: call it after a commit.
    pub(super) fn committed_storage(&self, address: Address) -> Vec<U256> {
        let db = self.evm.ctx.journal_ref().db();
        db.cache
            .accounts
            .get(&address)
            .map_or_else(Vec::new, |account| {
                account
                    .storage
                    .values()
                    .copied()
                    .filter(|value| !value.is_zero())
                    .collect()
            })
    }

    /// The runtime code of every committed account that has code.
    pub(super) fn committed_codes(&self) -> Vec<Bytes> {
        let db = self.evm.ctx.journal_ref().db();
        db.cache
            .accounts
            .values()
            .filter_map(|account| account.info.code.as_ref())
            .map(|code| code.original_bytes())
            .filter(|code| !code.is_empty())
            .collect()
    }

    /// The runtime code at `address` in the pending state (empty for none).
    pub(super) fn code(&self, address: Address) -> Bytes {
        let journal = self.evm.ctx.journal_ref();
        if let Some(code) = journal
            .evm_state()
            .get(&address)
            .and_then(|account| account.info.code.as_ref())
        {
            return code.original_bytes();
        }
        let db = journal.db();
        let Some(info) = db.basic_ref(address).ok().flatten() else {
            return Bytes::new();
        };
        let code = match info.code {
            Some(code) => code,
            None => db.code_by_hash_ref(info.code_hash).unwrap_or_default(),
        };
        code.original_bytes()
    }

    pub(super) fn has_code(&self, address: Address) -> bool {
        let journal = self.evm.ctx.journal_ref();
        match journal.evm_state().get(&address) {
            Some(account) => !account.info.is_empty_code_hash(),
            None => journal
                .db()
                .basic_ref(address)
                .ok()
                .flatten()
                .is_some_and(|info| !info.is_empty_code_hash()),
        }
    }

    /// Puts `code` at `address` in the pending state (as `vm.etch` does), unanalysed: the
    /// attacker contract, and code no compiler wrote in tests.
    pub(super) fn set_code(&mut self, address: Address, code: Bytes) {
        let journal = &mut self.evm.ctx.journaled_state;
        let Ok(_) = journal.load_account(address);
        journal.touch_account(address);
        journal.set_code(address, revm::bytecode::Bytecode::new_raw(code));
        journal.commit_tx();
    }

    /// Sets `address`'s balance in the pending state.
    pub(super) fn set_balance(&mut self, address: Address, balance: U256) {
        let journal = &mut self.evm.ctx.journaled_state;
        // The database is an in-memory `CacheDB<EmptyDB>`: loading cannot fail.
        let Ok(mut account) = journal.load_account_mut(address);
        account.data.set_balance(balance);
        // Close this edit like a transaction, so it warms nothing for the next one.
        journal.commit_tx();
    }

    /// Sets `address`'s storage `slot` in the pending state.
    pub(super) fn set_storage(&mut self, address: Address, slot: U256, value: U256) {
        self.set_storages(address, [(slot, value)]);
    }

    /// Sets several of `address`'s storage slots in the pending state, committed once.
    fn set_storages(&mut self, address: Address, writes: impl IntoIterator<Item = (U256, U256)>) {
        let journal = &mut self.evm.ctx.journaled_state;
        let Ok(mut account) = journal.load_account_mut(address);
        account.data.touch();
        for (slot, value) in writes {
            // Only a database error could fail the store, and this database has none.
            let _ = account.data.sstore(slot, value, false);
        }
        journal.commit_tx();
    }

    /// Sets `address`'s nonce in the pending state (the address of its next creation).
    pub(super) fn set_nonce(&mut self, address: Address, nonce: u64) {
        let journal = &mut self.evm.ctx.journaled_state;
        let Ok(mut account) = journal.load_account_mut(address);
        account.data.set_nonce(nonce);
        journal.commit_tx();
    }
}

/// The hardfork solc's `evm_version` name stands for (`paris` is the Merge).
fn spec_of(evm_version: &str) -> Option<SpecId> {
    Some(match evm_version.to_ascii_lowercase().as_str() {
        "homestead" => SpecId::HOMESTEAD,
        "tangerinewhistle" => SpecId::TANGERINE,
        "spuriousdragon" => SpecId::SPURIOUS_DRAGON,
        "byzantium" => SpecId::BYZANTIUM,
        "constantinople" | "petersburg" => SpecId::PETERSBURG,
        "istanbul" => SpecId::ISTANBUL,
        "berlin" => SpecId::BERLIN,
        "london" => SpecId::LONDON,
        "paris" => SpecId::MERGE,
        "shanghai" => SpecId::SHANGHAI,
        "cancun" => SpecId::CANCUN,
        "prague" => SpecId::PRAGUE,
        "osaka" => SpecId::OSAKA,
        _ => return None,
    })
}

/// A transaction the EVM refused to run, as a harness error.
fn rejected(sender: Address, value: U256, error: EvmError) -> Error {
    match error {
        EVMError::Transaction(InvalidTransaction::LackOfFundForMaxFee { balance, .. }) => {
            Error::Evm(format!(
                "{sender} cannot send {value} wei: its balance is {balance} wei (fund it with Chain::set_balance)"
            ))
        }
        other => Error::Evm(other.to_string()),
    }
}
