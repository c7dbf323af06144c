//! The one revm inspector a chain's EVM runs under: the [`Observer`] (when the transaction
//! is observed) and forge's cheatcodes (when the chain turned them on). A call to the
//! cheatcode address is answered here and never reaches the observer: it runs no code.

use alloy_primitives::{Address, U256};
use revm::Inspector;
use revm::context::{ContextTr, JournalTr};
use revm::interpreter::interpreter::EthInterpreter;
use revm::interpreter::{CallInputs, CallOutcome, CreateInputs, CreateOutcome, Interpreter};

use super::cheatcodes::{CHEATCODE_ADDRESS, CONSOLE_ADDRESS, Cheatcodes};
use super::vm::Ctx;
use crate::observe::Observer;

/// The observer and the cheatcodes, as one inspector.
#[derive(Debug, Default)]
pub(super) struct Hooks {
    pub(super) observer: Observer,
    /// Whether the running transaction is observed.
    pub(super) observing: bool,
    /// forge's cheatcodes, when on.
    pub(super) cheats: Option<Box<Cheatcodes>>,
    /// Per open frame (call or creation): the depth of the prank that applied to it.
    pranked: Vec<Option<usize>>,
}

impl Hooks {
    /// Forgets the frames of a transaction that ended early (an EVM error).
    pub(super) fn start_transaction(&mut self, observing: bool) {
        self.observing = observing;
        self.pranked.clear();
    }
}

impl Inspector<Ctx, EthInterpreter> for Hooks {
    #[inline]
    fn step(&mut self, interp: &mut Interpreter<EthInterpreter>, context: &mut Ctx) {
        if self.observing {
            self.observer.step(interp, context);
        }
    }

    #[inline]
    fn step_end(&mut self, interp: &mut Interpreter<EthInterpreter>, context: &mut Ctx) {
        if self.observing {
            self.observer.step_end(interp, context);
        }
    }

    fn call(&mut self, context: &mut Ctx, inputs: &mut CallInputs) -> Option<CallOutcome> {
        if let Some(cheats) = &mut self.cheats {
            if inputs.target_address == CHEATCODE_ADDRESS {
                return Some(cheats.answer(context, inputs));
            }
            let depth = context.journal_ref().depth();
            let sender = if inputs.target_address == CONSOLE_ADDRESS {
                None
            } else {
                cheats.pranked_sender(context, inputs.caller, depth)
            };
            if let Some(sender) = sender {
                inputs.caller = sender;
            }
            self.pranked.push(sender.map(|_| depth));
        }
        if self.observing {
            self.observer.call(context, inputs);
        }
        None
    }

    fn call_end(&mut self, context: &mut Ctx, inputs: &CallInputs, outcome: &mut CallOutcome) {
        if let Some(cheats) = &mut self.cheats {
            if inputs.target_address == CHEATCODE_ADDRESS {
                return;
            }
            if let Some(Some(depth)) = self.pranked.pop() {
                cheats.after_pranked(context, depth);
            }
        }
        if self.observing {
            self.observer.call_end(context, inputs, outcome);
        }
    }

    fn create(&mut self, context: &mut Ctx, inputs: &mut CreateInputs) -> Option<CreateOutcome> {
        if let Some(cheats) = &mut self.cheats {
            let depth = context.journal_ref().depth();
            let sender = cheats.pranked_sender(context, inputs.caller(), depth);
            if let Some(sender) = sender {
                *inputs = CreateInputs::new(
                    sender,
                    inputs.scheme(),
                    inputs.value(),
                    inputs.init_code().clone(),
                    inputs.gas_limit(),
                    inputs.reservoir(),
                );
            }
            self.pranked.push(sender.map(|_| depth));
        }
        if self.observing {
            self.observer.create(context, inputs);
        }
        None
    }

    fn create_end(
        &mut self,
        context: &mut Ctx,
        inputs: &CreateInputs,
        outcome: &mut CreateOutcome,
    ) {
        if let Some(cheats) = &mut self.cheats {
            if let Some(Some(depth)) = self.pranked.pop() {
                cheats.after_pranked(context, depth);
            }
            if let (true, Some(address)) = (outcome.result.is_ok(), outcome.address) {
                cheats.created(address);
            }
        }
        if self.observing {
            self.observer.create_end(context, inputs, outcome);
        }
    }

    fn selfdestruct(&mut self, contract: Address, target: Address, value: U256) {
        if self.observing {
            <Observer as Inspector<Ctx, EthInterpreter>>::selfdestruct(
                &mut self.observer,
                contract,
                target,
                value,
            );
        }
    }
}
