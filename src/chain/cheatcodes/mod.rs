//! forge's cheatcodes, answered at forge's address
//! ([`CHEATCODE_ADDRESS`]) for chains that turn them on
//! ([`Chain::enable_cheatcodes`](super::Chain::enable_cheatcodes)): what forge test contracts,
//! their `setUp()` and their handlers call through forge-std's `vm`.
//!
//! A call to the address is decoded against the table of implemented cheatcodes
//! (`table.rs`) and answered without running code; forge's semantics and messages are the
//! reference (`assert.rs` for the assertions). A selector the project's `Vm` interface
//! declares but harvey does not implement reverts, naming the cheatcode, and is recorded so
//! that the campaign reports it ([`UnsupportedCheatcode`]); any other selector reverts like
//! forge's unknown cheatcode.
//!
//! Implemented: `warp`, `roll`, `fee`, `chainId`, `deal`, `label`, `getLabel`, `store`,
//! `load`, `etch`, `getNonce`, `setNonce`, `prank`/`startPrank` (with an origin too),
//! `stopPrank`, `assume`, and every `assert*` of forge-std 1.9's `Vm`.

mod assert;
mod table;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use alloy_dyn_abi::{DynSolType, DynSolValue};
use alloy_primitives::{Address, B256, Bytes, Selector, U256, address};
use alloy_sol_types::{Revert, SolError};
use revm::bytecode::Bytecode;
use revm::context::{ContextTr, JournalTr};
use revm::context_interface::journaled_state::account::JournaledAccountTr;
use revm::interpreter::{CallInputs, CallOutcome, Gas, InstructionResult, InterpreterResult};

use super::vm::Ctx;
use crate::project::Artifacts;
use table::Known;

/// Where forge's cheatcodes live: `address(uint160(uint256(keccak256("hevm cheat code"))))`.
pub const CHEATCODE_ADDRESS: Address = address!("0x7109709ECfa91a80626fF3989D68f67F5b1DD12D");

/// Hardhat's `console.log` address, which forge-std's `console` (and its `bound`) call: a
/// call there never consumes a prank, as in forge.
pub const CONSOLE_ADDRESS: Address = address!("0x000000000000000000636F6e736F6c652e6c6f67");

/// forge's global failure flag: slot `bytes32("failed")` of [`CHEATCODE_ADDRESS`], which
/// forge-std's `fail()` sets.
pub(crate) const GLOBAL_FAIL_SLOT: U256 = U256::from_limbs([0, 0, 0, 0x6661_696c_6564_0000]);

/// What `vm.assume(false)` reverts with (forge's `MAGIC_ASSUME`, raw bytes).
const MAGIC_ASSUME: &[u8] = b"FOUNDRY::ASSUME";

/// Whether revert data is a rejected `vm.assume`: forge discards such calls.
pub(crate) fn is_assume_rejection(output: &[u8]) -> bool {
    output == MAGIC_ASSUME
}

/// A call to a forge cheatcode that harvey does not implement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnsupportedCheatcode {
    /// Its signature, as the project's `Vm` interface declares it.
    pub(crate) signature: String,
    /// The contract that called it.
    pub(crate) caller: Address,
}

/// A `vm.prank`/`vm.startPrank` waiting for, or applying to, the calls of one frame.
#[derive(Debug, Clone)]
struct Prank {
    /// The contract that called `vm.prank`: only its calls are pranked.
    prank_caller: Address,
    new_caller: Address,
    new_origin: Option<Address>,
    /// `tx.origin` while the pranked call runs is restored to this after it.
    old_origin: Address,
    /// `vm.prank`: applies to the next call only.
    single_call: bool,
    /// Whether it applied to a call yet.
    used: bool,
}

/// The cheatcodes' state on one chain.
#[derive(Debug)]
pub(super) struct Cheatcodes {
    known: HashMap<Selector, Known>,
    /// Every cheatcode of the project's `Vm` interfaces, by selector.
    forge: HashMap<Selector, String>,
    /// `vm.label` names.
    labels: HashMap<Address, String>,
    /// Labels given since the chain last took them (to name accounts in reports).
    new_labels: Vec<(Address, String)>,
    /// Pranks by the journal depth of the frame that made them.
    pranks: BTreeMap<usize, Prank>,
    /// The first unsupported cheatcode called since the last take.
    unsupported: Option<UnsupportedCheatcode>,
    /// Contracts created since the last take.
    created: Vec<Address>,
}

impl Cheatcodes {
    /// The cheatcodes for a chain of `artifacts` (whose `Vm` interfaces name the cheatcodes
    /// harvey does not implement).
    pub(super) fn new(artifacts: &Arc<Artifacts>) -> Cheatcodes {
        Cheatcodes {
            known: table::known(),
            forge: table::forge_cheatcodes(artifacts),
            labels: HashMap::new(),
            new_labels: Vec::new(),
            pranks: BTreeMap::new(),
            unsupported: None,
            created: Vec::new(),
        }
    }

    /// Forgets the state of a sequence (pranks): the chain went back to its base state.
    pub(super) fn reset(&mut self) {
        self.pranks.clear();
    }

    /// The `vm.label` names given since the last take, in order.
    pub(super) fn take_labels(&mut self) -> Vec<(Address, String)> {
        std::mem::take(&mut self.new_labels)
    }

    pub(super) fn take_unsupported(&mut self) -> Option<UnsupportedCheatcode> {
        self.unsupported.take()
    }

    pub(super) fn take_created(&mut self) -> Vec<Address> {
        std::mem::take(&mut self.created)
    }

    /// A contract creation ended: record the contract.
    pub(super) fn created(&mut self, address: Address) {
        self.created.push(address);
    }

    /// Answers a call to [`CHEATCODE_ADDRESS`].
    pub(super) fn answer(&mut self, ctx: &mut Ctx, inputs: &CallInputs) -> CallOutcome {
        let data = inputs.input.as_bytes(ctx).to_vec();
        let result = self.run(ctx, inputs.caller, &data);
        let (result, output) = match result {
            Ok(output) => (InstructionResult::Return, output),
            Err(Failure::Revert(output)) => (InstructionResult::Revert, output),
            Err(Failure::Message(message)) => (
                InstructionResult::Revert,
                Revert::from(message).abi_encode().into(),
            ),
        };
        CallOutcome::new(
            InterpreterResult {
                result,
                output,
                gas: Gas::new(inputs.gas_limit),
            },
            inputs.return_memory_offset.clone(),
        )
    }

    /// Runs the cheatcode `data` calls for `caller`.
    fn run(&mut self, ctx: &mut Ctx, caller: Address, data: &[u8]) -> Result<Bytes, Failure> {
        let Some(selector) = data.get(..4).map(Selector::from_slice) else {
            return Err(Failure::Message(
                "unknown cheatcode: calldata shorter than a selector".into(),
            ));
        };
        let Some(known) = self.known.get(&selector) else {
            return Err(match self.forge.get(&selector) {
                Some(signature) => {
                    let message = format!(
                        "harvey does not support the cheatcode `{signature}` (called by {caller})"
                    );
                    self.unsupported.get_or_insert(UnsupportedCheatcode {
                        signature: signature.clone(),
                        caller,
                    });
                    Failure::Message(message)
                }
                None => Failure::Message(format!(
                    "unknown cheatcode with selector {selector}; you may have a mismatch between the `Vm` interface (likely in `forge-std`) and the `forge` version"
                )),
            });
        };
        let name = known.name;
        let args = match DynSolType::Tuple(known.params.clone()).abi_decode_params(&data[4..]) {
            Ok(DynSolValue::Tuple(args)) => args,
            Ok(_) => Vec::new(),
            Err(e) => return Err(Failure::Message(format!("{name}: {e}"))),
        };
        if let Some(result) = assert::check(name, &args) {
            return result.map(|()| Bytes::new()).map_err(Failure::Message);
        }
        self.plain(ctx, caller, name, &args)
    }

    /// The cheatcodes that are not assertions.
    fn plain(
        &mut self,
        ctx: &mut Ctx,
        caller: Address,
        name: &str,
        args: &[DynSolValue],
    ) -> Result<Bytes, Failure> {
        let uint = |i: usize| args.get(i).and_then(DynSolValue::as_uint).map(|(v, _)| v);
        let addr = |i: usize| args.get(i).and_then(DynSolValue::as_address);
        let word = |i: usize| {
            args.get(i)
                .and_then(DynSolValue::as_fixed_bytes)
                .map(|(w, _)| U256::from_be_slice(w))
        };
        let nothing = Ok(Bytes::new());
        match (name, addr(0)) {
            ("warp", _) => {
                ctx.block.timestamp = uint(0).unwrap_or_default();
                nothing
            }
            ("roll", _) => {
                ctx.block.number = uint(0).unwrap_or_default();
                nothing
            }
            ("fee", _) => {
                ctx.block.basefee = uint(0).unwrap_or_default().saturating_to();
                nothing
            }
            ("chainId", _) => {
                let id = uint(0).unwrap_or_default();
                if id > U256::from(u64::MAX) {
                    return Err(Failure::Message("chain ID must be less than 2^64".into()));
                }
                ctx.cfg.chain_id = id.to();
                nothing
            }
            ("deal", Some(who)) => {
                let journal = ctx.journal_mut();
                let Ok(mut account) = journal.load_account_mut(who);
                account.data.set_balance(uint(1).unwrap_or_default());
                nothing
            }
            ("label", Some(who)) => {
                let label = args
                    .get(1)
                    .and_then(DynSolValue::as_str)
                    .unwrap_or_default();
                self.labels.insert(who, label.to_string());
                self.new_labels.push((who, label.to_string()));
                nothing
            }
            ("getLabel", Some(who)) => {
                let label = match self.labels.get(&who) {
                    Some(label) => label.clone(),
                    None => format!("unlabeled:{who}"),
                };
                Ok(DynSolValue::String(label).abi_encode_params().into())
            }
            ("store", Some(who)) => {
                let (slot, value) = (word(1).unwrap_or_default(), word(2).unwrap_or_default());
                let journal = ctx.journal_mut();
                let Ok(mut account) = journal.load_account_mut(who);
                account.data.touch();
                let _ = account.data.sstore(slot, value, false);
                nothing
            }
            ("load", Some(who)) => {
                let slot = word(1).unwrap_or_default();
                let journal = ctx.journal_mut();
                let _ = journal.load_account(who);
                let Ok(value) = journal.sload(who, slot);
                let value = B256::from(value.data);
                Ok(DynSolValue::FixedBytes(value, 32)
                    .abi_encode_params()
                    .into())
            }
            ("etch", Some(who)) => {
                let code = args
                    .get(1)
                    .and_then(DynSolValue::as_bytes)
                    .unwrap_or_default();
                let journal = ctx.journal_mut();
                let _ = journal.load_account(who);
                journal.set_code(who, Bytecode::new_raw(Bytes::copy_from_slice(code)));
                nothing
            }
            ("getNonce", Some(who)) => {
                let journal = ctx.journal_mut();
                let Ok(account) = journal.load_account(who);
                let nonce = U256::from(account.data.info.nonce);
                Ok(DynSolValue::Uint(nonce, 64).abi_encode_params().into())
            }
            ("setNonce", Some(who)) => {
                let nonce: u64 = uint(1).unwrap_or_default().saturating_to();
                let journal = ctx.journal_mut();
                let Ok(mut account) = journal.load_account_mut(who);
                if nonce < account.data.nonce() {
                    return Err(Failure::Message(format!(
                        "new nonce ({nonce}) must be strictly equal to or higher than the account's current nonce ({})",
                        account.data.nonce()
                    )));
                }
                account.data.set_nonce(nonce);
                nothing
            }
            ("prank" | "startPrank", Some(who)) => {
                self.start_prank(ctx, caller, who, addr(1), name == "prank")?;
                nothing
            }
            ("stopPrank", _) => {
                let depth = ctx.journal_ref().depth();
                self.pranks.remove(&depth);
                nothing
            }
            ("assume", _) => match args.first() {
                Some(DynSolValue::Bool(true)) => nothing,
                _ => Err(Failure::Revert(Bytes::from_static(MAGIC_ASSUME))),
            },
            _ => Err(Failure::Message(format!(
                "{name}: arguments that do not decode"
            ))),
        }
    }

    /// `vm.prank`/`vm.startPrank` from `caller`'s frame, with forge's rules for a prank
    /// already set there.
    fn start_prank(
        &mut self,
        ctx: &mut Ctx,
        caller: Address,
        new_caller: Address,
        new_origin: Option<Address>,
        single_call: bool,
    ) -> Result<(), Failure> {
        let depth = ctx.journal_ref().depth();
        if let Some(existing) = self.pranks.get(&depth) {
            if !existing.used {
                return Err(Failure::Message(
                    "cannot overwrite a prank until it is applied at least once".into(),
                ));
            }
            if single_call && !existing.single_call {
                return Err(Failure::Message(
                    "cannot override an ongoing prank with a single vm.prank; use vm.startPrank to override the current prank".into(),
                ));
            }
        }
        self.pranks.insert(
            depth,
            Prank {
                prank_caller: caller,
                new_caller,
                new_origin,
                old_origin: ctx.tx.caller,
                single_call,
                used: false,
            },
        );
        Ok(())
    }

    /// Before a call (or creation) from `caller` at journal depth `depth`: the sender it is
    /// made as, when a prank of that frame applies (setting `tx.origin` too if the prank
    /// has one).
    pub(super) fn pranked_sender(
        &mut self,
        ctx: &mut Ctx,
        caller: Address,
        depth: usize,
    ) -> Option<Address> {
        let prank = self.pranks.get_mut(&depth)?;
        if prank.prank_caller != caller {
            return None;
        }
        prank.used = true;
        if let Some(origin) = prank.new_origin {
            ctx.tx.caller = origin;
        }
        Some(prank.new_caller)
    }

    /// After a call (or creation) made at journal depth `depth` that a prank applied to:
    /// `tx.origin` back, and a single-call prank spent.
    pub(super) fn after_pranked(&mut self, ctx: &mut Ctx, depth: usize) {
        let Some(prank) = self.pranks.get(&depth) else {
            return;
        };
        if !prank.used {
            return;
        }
        if prank.new_origin.is_some() {
            ctx.tx.caller = prank.old_origin;
        }
        if prank.single_call {
            self.pranks.remove(&depth);
        }
    }
}

/// How a cheatcode failed: raw revert data, or a message (`Error(string)`).
enum Failure {
    Revert(Bytes),
    Message(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_failure_slot_is_bytes32_failed() {
        let mut expected = [0u8; 32];
        expected[..6].copy_from_slice(b"failed");
        assert_eq!(GLOBAL_FAIL_SLOT, U256::from_be_bytes(expected));
        assert!(is_assume_rejection(b"FOUNDRY::ASSUME"));
        assert!(!is_assume_rejection(b"FOUNDRY::ASSUM"));
    }
}
