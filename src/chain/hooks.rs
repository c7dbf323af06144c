//! The inspector every inspected transaction runs under: the [`Observer`] (when the chain
//! observes the transaction) and the [`Cheatcodes`] (when the chain enabled them), in one
//! revm `Inspector` for the chain's concrete context, since cheatcodes change the block,
//! the config and the transaction.

use alloy_primitives::Address;
use revm::Inspector;
use revm::bytecode::opcode;
use revm::context::JournalTr;
use revm::handler::MainnetContext;
use revm::interpreter::interpreter::EthInterpreter;
use revm::interpreter::interpreter_types::{InputsTr, Jumps};
use revm::interpreter::{
    CallInputs, CallOutcome, CreateInputs, CreateOutcome, Interpreter, InterpreterResult,
};

use super::cheatcodes::{CHEATCODE_ADDRESS, CONSOLE_ADDRESS, Cheatcodes, expect};
use super::vm::Db;
use crate::observe::Observer;

/// The observer and the cheatcodes, for one chain.
pub(super) struct Hooks {
    pub(super) observer: Observer,
    /// Whether the running transaction is observed.
    pub(super) observing: bool,
    /// The cheatcodes, once enabled.
    pub(super) cheats: Option<Box<Cheatcodes>>,
    /// Contracts created by the inspected transactions since the chain last took them (a
    /// transaction runs without the inspector only when neither observed nor with
    /// cheatcodes: then nothing is recorded).
    pub(super) created: Vec<Address>,
    /// For each open frame, the length of `created` when it started: a frame that fails
    /// takes its creations back.
    frames: Vec<usize>,
}

impl Hooks {
    pub(super) fn new() -> Hooks {
        Hooks {
            observer: Observer::default(),
            observing: false,
            cheats: None,
            created: Vec::new(),
            frames: Vec::new(),
        }
    }

    /// A frame ended, successfully or not.
    fn leave(&mut self, ok: bool) {
        if let Some(start) = self.frames.pop() {
            if !ok {
                self.created.truncate(start);
            }
        }
    }
}

impl Inspector<MainnetContext<Db>, EthInterpreter> for Hooks {
    #[inline]
    fn step(&mut self, interp: &mut Interpreter<EthInterpreter>, context: &mut MainnetContext<Db>) {
        if self.observing {
            self.observer.step(interp, context);
        }
        if let Some(cheats) = self.cheats.as_deref_mut().filter(|c| c.accesses.is_some()) {
            let op = interp.bytecode.opcode();
            if op == opcode::SLOAD || op == opcode::SSTORE {
                if let Some(&slot) = interp.stack.data().last() {
                    let account = interp.input.target_address();
                    cheats.record_access(account, slot, op == opcode::SSTORE);
                }
            }
        }
    }

    #[inline]
    fn step_end(
        &mut self,
        interp: &mut Interpreter<EthInterpreter>,
        context: &mut MainnetContext<Db>,
    ) {
        if self.observing {
            self.observer.step_end(interp, context);
        }
    }

    fn call(
        &mut self,
        context: &mut MainnetContext<Db>,
        inputs: &mut CallInputs,
    ) -> Option<CallOutcome> {
        // revm calls `call_end` even for a call answered here, so both hooks stay paired.
        self.frames.push(self.created.len());
        if let Some(cheats) = self.cheats.as_deref_mut() {
            if inputs.target_address == CHEATCODE_ADDRESS {
                return Some(cheats.apply(context, inputs));
            }
            if inputs.target_address != CONSOLE_ADDRESS {
                if let Some(sender) = pranked(cheats, context, inputs.caller) {
                    inputs.caller = sender;
                }
            }
        }
        if self.observing {
            self.observer.call(context, inputs);
        }
        None
    }

    fn call_end(
        &mut self,
        context: &mut MainnetContext<Db>,
        inputs: &CallInputs,
        outcome: &mut CallOutcome,
    ) {
        if self.observing {
            self.observer.call_end(context, inputs, outcome);
        }
        self.leave(outcome.result.is_ok());
        if self.cheats.is_none() {
            return;
        }
        let pranked =
            inputs.target_address != CHEATCODE_ADDRESS && inputs.target_address != CONSOLE_ADDRESS;
        if let Some(cheats) = self.cheats.as_deref_mut().filter(|_| pranked) {
            frame_returned(cheats, context, &mut outcome.result, None);
        }
    }

    fn create(
        &mut self,
        context: &mut MainnetContext<Db>,
        inputs: &mut CreateInputs,
    ) -> Option<CreateOutcome> {
        self.frames.push(self.created.len());
        if let Some(cheats) = self.cheats.as_deref_mut() {
            if let Some(sender) = pranked(cheats, context, inputs.caller()) {
                inputs.set_call(sender);
            }
        }
        if self.observing {
            self.observer.create(context, inputs);
        }
        None
    }

    fn create_end(
        &mut self,
        context: &mut MainnetContext<Db>,
        inputs: &CreateInputs,
        outcome: &mut CreateOutcome,
    ) {
        if self.observing {
            self.observer.create_end(context, inputs, outcome);
        }
        let ok = outcome.result.is_ok();
        self.leave(ok);
        if let (true, Some(address)) = (ok, outcome.address) {
            self.created.push(address);
        }
        if let Some(cheats) = self.cheats.as_deref_mut() {
            frame_returned(
                cheats,
                context,
                &mut outcome.result,
                Some(&mut outcome.address),
            );
        }
    }

    fn log(&mut self, context: &mut MainnetContext<Db>, log: alloy_primitives::Log) {
        if let Some(cheats) = self.cheats.as_deref_mut() {
            cheats.record_log(&log);
        }
        if self.observing {
            self.observer.log(context, log);
        }
    }

    fn selfdestruct(&mut self, contract: Address, target: Address, value: alloy_primitives::U256) {
        if self.observing {
            <Observer as Inspector<MainnetContext<Db>, EthInterpreter>>::selfdestruct(
                &mut self.observer,
                contract,
                target,
                value,
            );
        }
    }
}

/// The sender a prank of the running frame gives `caller`'s next call or creation, setting
/// `tx.origin` too when the prank has one.
fn pranked(
    cheats: &mut Cheatcodes,
    context: &mut MainnetContext<Db>,
    caller: Address,
) -> Option<Address> {
    if cheats.pranks.is_empty() {
        return None;
    }
    let depth = context.journaled_state.depth();
    let (sender, origin) = cheats.pranks.apply(depth, caller)?;
    if let Some(origin) = origin {
        context.tx.caller = origin;
    }
    Some(sender)
}

/// A call or creation of the running frame returned: the prank that applied to it ends
/// (restoring `tx.origin`), and an armed `expectRevert` settles on its `result` (and on the
/// `created` address of a creation).
fn frame_returned(
    cheats: &mut Cheatcodes,
    context: &mut MainnetContext<Db>,
    result: &mut InterpreterResult,
    created: Option<&mut Option<Address>>,
) {
    let depth = context.journaled_state.depth();
    if !cheats.pranks.is_empty() {
        if let Some(origin) = cheats.pranks.end(depth) {
            context.tx.caller = origin;
        }
    }
    expect::settle(
        &mut cheats.expected_revert,
        depth,
        &mut result.result,
        &mut result.output,
        created,
    );
}
