//! The interpreter loop of inspected transactions. revm's inspected loop calls the
//! inspector before and after every instruction and looks for new logs after each; harvey's
//! hooks record a few kinds of instruction (jumps, comparisons, storage, calls, logs: see
//! [`Hooks::wants`]), and the rest only pay for the calls. So this loop runs the
//! instructions the hooks do not want as revm's uninspected loop does, and the others as its
//! inspected loop does, with the same hooks in the same order.
//!
//! revm lets an EVM run its frames its own way through [`InspectorEvmTr::inspect_frame_run`];
//! [`Sparse`] borrows the chain's `Evm` and replaces that one method, so calls, creations,
//! logs and everything else about a transaction stay revm's.

use revm::Inspector;
use revm::bytecode::opcode;
use revm::context::{ContextTr, FrameStack, JournalTr};
use revm::context_interface::journaled_state::entry::JournalEntry;
use revm::handler::evm::{ContextDbError, FrameInitResult, FrameTr};
use revm::handler::instructions::InstructionProvider;
use revm::handler::{EvmTr, FrameInitOrResult, ItemOrResult, MainnetContext, MainnetEvm};
use revm::inspector::handler::frame_end;
use revm::inspector::{InspectorEvmTr, JournalExt};
use revm::interpreter::instructions::{GasTable, InstructionTable};
use revm::interpreter::interpreter::EthInterpreter;
use revm::interpreter::interpreter_types::{Jumps, LoopControl};
use revm::interpreter::{InstructionResult, Interpreter, InterpreterAction};

use super::db::Db;
use super::hooks::{Hooks, Want};

/// The chain's revm `Evm`: mainnet's, with harvey's hooks as its inspector.
pub(super) type Evm = MainnetEvm<MainnetContext<Db>, Hooks>;

/// The chain's `Evm`, running inspected frames with the sparse loop.
pub(super) struct Sparse<'a>(pub(super) &'a mut Evm);

impl EvmTr for Sparse<'_> {
    type Context = <Evm as EvmTr>::Context;
    type Instructions = <Evm as EvmTr>::Instructions;
    type Precompiles = <Evm as EvmTr>::Precompiles;
    type Frame = <Evm as EvmTr>::Frame;

    #[inline]
    fn all(
        &self,
    ) -> (
        &Self::Context,
        &Self::Instructions,
        &Self::Precompiles,
        &FrameStack<Self::Frame>,
    ) {
        self.0.all()
    }

    #[inline]
    fn all_mut(
        &mut self,
    ) -> (
        &mut Self::Context,
        &mut Self::Instructions,
        &mut Self::Precompiles,
        &mut FrameStack<Self::Frame>,
    ) {
        self.0.all_mut()
    }

    #[inline]
    fn frame_init(
        &mut self,
        frame_input: <Self::Frame as FrameTr>::FrameInit,
    ) -> Result<FrameInitResult<'_, Self::Frame>, ContextDbError<Self::Context>> {
        self.0.frame_init(frame_input)
    }

    #[inline]
    fn frame_run(
        &mut self,
    ) -> Result<FrameInitOrResult<Self::Frame>, ContextDbError<Self::Context>> {
        self.0.frame_run()
    }

    #[inline]
    fn frame_return_result(
        &mut self,
        result: <Self::Frame as FrameTr>::FrameResult,
    ) -> Result<Option<<Self::Frame as FrameTr>::FrameResult>, ContextDbError<Self::Context>> {
        self.0.frame_return_result(result)
    }
}

impl InspectorEvmTr for Sparse<'_> {
    type Inspector = Hooks;

    fn all_inspector(
        &self,
    ) -> (
        &Self::Context,
        &Self::Instructions,
        &Self::Precompiles,
        &FrameStack<Self::Frame>,
        &Self::Inspector,
    ) {
        self.0.all_inspector()
    }

    fn all_mut_inspector(
        &mut self,
    ) -> (
        &mut Self::Context,
        &mut Self::Instructions,
        &mut Self::Precompiles,
        &mut FrameStack<Self::Frame>,
        &mut Self::Inspector,
    ) {
        self.0.all_mut_inspector()
    }

    /// revm's own, with [`run`] for its loop.
    fn inspect_frame_run(
        &mut self,
    ) -> Result<FrameInitOrResult<Self::Frame>, ContextDbError<Self::Context>> {
        let (ctx, hooks, frame, instructions) = self.ctx_inspector_frame_instructions();
        let action = run(
            ctx,
            &mut frame.interpreter,
            hooks,
            instructions.instruction_table(),
            instructions.gas_table(),
        );
        let mut result = frame.process_next_action(ctx, action);
        if let Ok(ItemOrResult::Result(frame_result)) = &mut result {
            let (ctx, hooks, frame) = self.ctx_inspector_frame();
            frame_end(ctx, hooks, &frame.input, frame_result);
            frame.set_finished(true);
        }
        result
    }
}

/// Runs `interp` until its frame stops or calls, calling `hooks` around the instructions
/// they want, and the first one (a frame's first instruction is a block start; and a
/// resumed frame's is inspected as before).
fn run(
    ctx: &mut MainnetContext<Db>,
    interp: &mut Interpreter<EthInterpreter>,
    hooks: &mut Hooks,
    table: &InstructionTable<EthInterpreter, MainnetContext<Db>>,
    gas: &GasTable,
) -> InterpreterAction {
    let mut journal_at = None;
    let mut skipped = 0u64;
    let mut first = true;
    // What the hooks want changes only when they are called: read at the start of each
    // run (after the frame hooks) and again after each call.
    let mut attention = hooks.attention();
    loop {
        let op = interp.bytecode.opcode();
        let want = if first {
            Want::Step
        } else {
            hooks.wants(attention, op)
        };
        // Two tests, not a `match`: that compiled to a jump table, an indirect jump
        // before every instruction.
        let hooked = want == Want::Step || (want != Want::Not && hooks.decide(want, interp));
        if !hooked {
            skipped += 1;
            if let Err(e) = interp.step(table, gas, ctx) {
                if interp.bytecode.action().is_none() {
                    interp.halt(e);
                }
                break;
            }
            continue;
        }
        first = false;
        hooks.step(interp, ctx);
        if interp.bytecode.is_end() {
            break;
        }
        if op == opcode::SELFDESTRUCT {
            // The one instruction whose journal entry the hooks read (revm's loop takes the
            // journal's length before every instruction, for this alone).
            journal_at = Some(ctx.journal().journal().len());
        }
        let logs_at = ctx.journal().logs().len();
        if let Err(e) = interp.step(table, gas, ctx) {
            if interp.bytecode.action().is_none() {
                interp.halt(e);
            }
        }
        if ctx.journal().logs().len() != logs_at {
            logged(interp, ctx, hooks, logs_at);
        }
        hooks.step_end(interp, ctx);
        attention = hooks.attention();
        if interp.bytecode.is_end() {
            break;
        }
    }
    hooks.count_steps(skipped);
    let action = interp.take_next_action();
    if let InterpreterAction::Return(result) = &action {
        if result.result == InstructionResult::SelfDestruct {
            if let Some(at) = journal_at {
                selfdestructed(ctx, hooks, at);
            }
        }
    }
    action
}

/// Hands the logs the last instruction journaled (from `from` on) to the hooks.
#[cold]
#[inline(never)]
fn logged(
    interp: &mut Interpreter<EthInterpreter>,
    ctx: &mut MainnetContext<Db>,
    hooks: &mut Hooks,
    from: usize,
) {
    let logs = ctx.journal().logs()[from..].to_vec();
    for log in logs {
        hooks.log_full(interp, ctx, log);
    }
}

/// Hands the hooks the selfdestruct the frame's last instruction journaled (from `from` on):
/// its contract, beneficiary and balance.
#[cold]
#[inline(never)]
fn selfdestructed(ctx: &mut MainnetContext<Db>, hooks: &mut Hooks, from: usize) {
    let entry = ctx.journal().journal().get(from..).and_then(<[_]>::last);
    if let Some(
        JournalEntry::AccountDestroyed {
            address: contract,
            target,
            had_balance: balance,
            ..
        }
        | JournalEntry::BalanceTransfer {
            from: contract,
            to: target,
            balance,
            ..
        },
    ) = entry
    {
        let (contract, target, balance) = (*contract, *target, *balance);
        <Hooks as Inspector<MainnetContext<Db>, EthInterpreter>>::selfdestruct(
            hooks, contract, target, balance,
        );
    }
}
