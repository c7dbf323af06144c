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
    CallInputs, CallOutcome, CreateInputs, CreateOutcome, Gas, InstructionResult, Interpreter,
    InterpreterResult,
};

use super::cheatcodes::broadcast::{self, Applied};
use super::cheatcodes::{
    CHEATCODE_ADDRESS, CONSOLE_ADDRESS, CallSite, Cheatcodes, expect, fail, mock,
};
use super::db::Db;
use super::reads::{self, Reads};
use crate::observe::{Attention, Observer, opcode_table, wanted_by_a_note};

/// What the hooks want done at an instruction ([`Hooks::wants`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Want {
    /// Nothing: the instruction is only counted.
    Not,
    /// A JUMP whose transfer the observer notes ([`Hooks::decide`]), with nothing else to
    /// do: on `Bank`, a third of the instructions the hooks were called for, now at a
    /// fraction of a call's cost.
    Jump,
    /// A DUP or SWAP while a comparison's note waits, with nothing else to do: the note
    /// follows its slot ([`Hooks::decide`]).
    Note,
    /// An instruction the observer wants only when it starts a data flow (an addition
    /// that wraps, [`Hooks::decide`]): then `step` and `step_end`, otherwise nothing.
    IfFlowStarts,
    /// A call of `step` before it and of `step_end` after it.
    Step,
}

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
    /// What probes read, while the chain records it ([`Reads`]).
    pub(super) reads: Option<Reads>,
    /// Per [`Attention`] of the observer, per opcode: what the hooks want done at the
    /// instruction ([`Hooks::prepare`]). One lookup per instruction, where asking each
    /// part in turn took nine tests for every instruction the sparse loop skips.
    wanted: [[Want; 256]; 3],
    /// What `wanted` was last built from: whether the transaction was observed, the
    /// cheatcodes and the reads were on, and the observer's recorded opcodes. Rebuilding
    /// costs more than a transaction's worth of comparing, and these rarely change.
    built_from: Option<(bool, bool, bool, [bool; 256])>,
}

impl Hooks {
    pub(super) fn new() -> Hooks {
        Hooks {
            observer: Observer::default(),
            observing: false,
            cheats: None,
            created: Vec::new(),
            frames: Vec::new(),
            reads: None,
            wanted: [[Want::Step; 256]; 3],
            built_from: None,
        }
    }

    /// Makes [`Hooks::wants`] answer for the transaction about to run: what the observer
    /// records (when it observes the transaction), the cheatcodes and the probe reads. Their
    /// settings do not change while a transaction runs.
    pub(super) fn prepare(&mut self) {
        let observing = self.observing;
        let cheats = self.cheats.is_some();
        let reads = self.reads.is_some();
        let recorded = self.observer.recorded();
        let from = (observing, cheats, reads, *recorded);
        if self.built_from.as_ref() == Some(&from) {
            return;
        }
        // Only the observer looks at a JUMP, and then only to note its transfer.
        let jump_alone = observing
            && self.observer.jump_alone()
            && !(cheats && CHEATED[usize::from(opcode::JUMP)])
            && !(reads && reads::noted(opcode::JUMP));
        let step_if = |wanted: bool| if wanted { Want::Step } else { Want::Not };
        for (i, &recorded) in recorded.iter().enumerate() {
            let op = i as u8;
            let others = (cheats && CHEATED[i]) || (reads && reads::noted(op));
            let base = (observing && recorded) || others;
            self.wanted[Attention::Recorded as usize][i] = if op == opcode::JUMP && jump_alone {
                Want::Jump
            } else if observing && !others && self.observer.only_if_flow_starts(op) {
                Want::IfFlowStarts
            } else {
                step_if(base)
            };
            self.wanted[Attention::AllButPushes as usize][i] =
                if observing && !others && self.observer.moves_note_alone(op) {
                    Want::Note
                } else {
                    step_if(base || (observing && wanted_by_a_note(op)))
                };
            self.wanted[Attention::All as usize][i] = step_if(base || observing);
        }
        self.built_from = Some(from);
    }

    /// The observer's [`Attention`] now, when it observes ([`Attention::Recorded`] when
    /// not: then only the cheatcodes' and reads' instructions are wanted).
    #[inline]
    pub(super) fn attention(&self) -> Attention {
        if self.observing {
            self.observer.attention()
        } else {
            Attention::Recorded
        }
    }

    /// What the hooks want done before instruction `op` while the observer's attention is
    /// `attention` (as [`Hooks::prepare`] last set them): the sparse loop (`sparse`) runs
    /// the instructions they do not want without calling them.
    #[inline]
    pub(super) fn wants(&self, attention: Attention, op: u8) -> Want {
        self.wanted[attention as usize][usize::from(op)]
    }

    /// For the instruction about to run in `interp`, where [`Hooks::wants`] answered
    /// [`Want::Jump`], [`Want::Note`] or [`Want::IfFlowStarts`], whether the hooks are to
    /// be called: not for a JUMP, whose transfer the observer notes here as its `step`
    /// would have, nor for a DUP or SWAP, whose move of the waiting note it makes here; for
    /// an addition or product when it starts a data flow. (Out of line: the sparse loop
    /// keeps two plain tests for the instructions wanted or not.)
    #[inline(never)]
    pub(super) fn decide(&mut self, want: Want, interp: &Interpreter<EthInterpreter>) -> bool {
        match want {
            Want::Jump => {
                if let Some(&to) = interp.stack.data().last() {
                    self.observer.jumped(interp.bytecode.pc() as u32, to);
                }
                false
            }
            Want::Note => {
                self.observer
                    .note_moved(interp.bytecode.opcode(), interp.stack.len());
                false
            }
            Want::IfFlowStarts => self.observer.starts_flow(interp),
            Want::Step => true,
            Want::Not => false,
        }
    }

    /// Counts `n` instructions that ran without the hooks.
    #[inline]
    pub(super) fn count_steps(&mut self, n: u64) {
        if self.observing {
            self.observer.count_steps(n);
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
        let op = interp.bytecode.opcode();
        if let Some(reads) = self.reads.as_mut().filter(|_| reads::noted(op)) {
            reads.step(op, interp.stack.data(), interp.input.target_address());
        }
        let Some(cheats) = self.cheats.as_deref_mut() else {
            return;
        };
        if cheats.accesses.is_some() && (op == opcode::SLOAD || op == opcode::SSTORE) {
            if let Some(&slot) = interp.stack.data().last() {
                let account = interp.input.target_address();
                cheats.record_access(account, slot, op == opcode::SSTORE);
            }
        }
        if matches!(
            op,
            opcode::CALL | opcode::STATICCALL | opcode::DELEGATECALL | opcode::CALLCODE
        ) {
            // The callee is the second stack item of every call opcode.
            let stack = interp.stack.data();
            let callee = stack.len().checked_sub(2).map(|i| stack[i]);
            if callee == Some(CHEATCODE_ADDRESS.into_word().into()) {
                let code = interp.input.bytecode_address().copied();
                cheats.call_site = Some(CallSite {
                    code: code.unwrap_or_else(|| interp.input.target_address()),
                    pc: interp.bytecode.pc() as u32,
                    // A cheap clone: the code's bytes are reference-counted.
                    bytecode: interp.bytecode.original_bytes(),
                });
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
                let outcome = cheats.apply(context, inputs);
                if let Some(decided) = cheats.decision.take().filter(|_| self.observing) {
                    self.observer.record_decision(
                        decided.op,
                        decided.lhs,
                        decided.rhs,
                        decided.negations,
                    );
                }
                return Some(outcome);
            }
            if let Some(outcome) = mocked(cheats, context, inputs) {
                return Some(outcome);
            }
            if inputs.target_address != CONSOLE_ADDRESS {
                if let Some(sender) = pranked(cheats, context, inputs.caller) {
                    inputs.caller = sender;
                } else {
                    let depth = context.journaled_state.depth();
                    match broadcast::apply(
                        &cheats.broadcast,
                        context,
                        depth,
                        inputs.caller,
                        false,
                        inputs.is_static,
                    ) {
                        Applied::No => {}
                        Applied::From(sender) => inputs.caller = sender,
                        Applied::Refused(message) => {
                            return Some(answered(
                                inputs,
                                InstructionResult::Revert,
                                fail(message).into(),
                            ));
                        }
                    }
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
            let target = inputs.target_address;
            frame_returned(cheats, context, target, &mut outcome.result, None);
            if !cheats.expected_emits.is_empty() && !inputs.is_static {
                let depth = context.journaled_state.depth();
                let reverted = !outcome.result.is_ok();
                if let Some(error) = cheats.expected_emits.call_returned(depth, reverted) {
                    outcome.result.result = InstructionResult::Revert;
                    outcome.result.output = error.into();
                }
            }
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
            } else {
                let depth = context.journaled_state.depth();
                let caller = inputs.caller();
                if let Applied::From(sender) =
                    broadcast::apply(&cheats.broadcast, context, depth, caller, true, false)
                {
                    inputs.set_call(sender);
                }
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
            let target = outcome.address.unwrap_or_default();
            frame_returned(
                cheats,
                context,
                target,
                &mut outcome.result,
                Some(&mut outcome.address),
            );
        }
    }

    fn log(&mut self, context: &mut MainnetContext<Db>, log: alloy_primitives::Log) {
        if let Some(cheats) = self.cheats.as_deref_mut() {
            cheats.record_log(&log);
            if !cheats.expected_emits.is_empty() {
                cheats.expected_emits.saw(log.address, &log.data);
            }
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

/// Per opcode, whether the cheatcodes note it: storage accesses (`vm.accesses`), calls (a
/// cheatcode's call site) and what may journal a log (`vm.recordLogs`, `vm.expectEmit`):
/// the sparse loop hands the hooks the logs of the instructions it inspects only.
const CHEATED: [bool; 256] = opcode_table(&[
    opcode::SLOAD,
    opcode::SSTORE,
    opcode::CALL,
    opcode::CALLCODE,
    opcode::DELEGATECALL,
    opcode::STATICCALL,
    opcode::LOG0,
    opcode::LOG1,
    opcode::LOG2,
    opcode::LOG3,
    opcode::LOG4,
    opcode::SELFDESTRUCT,
]);

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

/// The outcome of `inputs` answered without running code.
fn answered(
    inputs: &CallInputs,
    result: InstructionResult,
    output: alloy_primitives::Bytes,
) -> CallOutcome {
    CallOutcome::new(
        InterpreterResult::new(result, output, Gas::new(inputs.gas_limit)),
        inputs.return_memory_offset.clone(),
    )
}

/// The answer of a `vm.mockCall` that matches `inputs`, if one does.
fn mocked(
    cheats: &Cheatcodes,
    context: &mut MainnetContext<Db>,
    inputs: &CallInputs,
) -> Option<CallOutcome> {
    let calldata = inputs.input.bytes(context);
    let answer = cheats
        .mocked(inputs.bytecode_address, &calldata, inputs.value.transfer())?
        .clone();
    let (result, output) = mock::answer(context, inputs, &answer);
    Some(answered(inputs, result, output))
}

/// A call or creation of `target` by the running frame returned: the prank or broadcast that
/// applied to it ends (restoring `tx.origin`), and an armed `expectRevert` settles on its
/// `result` (and on the `created` address of a creation).
fn frame_returned(
    cheats: &mut Cheatcodes,
    context: &mut MainnetContext<Db>,
    target: Address,
    result: &mut InterpreterResult,
    created: Option<&mut Option<Address>>,
) {
    let depth = context.journaled_state.depth();
    if !cheats.pranks.is_empty() {
        if let Some(origin) = cheats.pranks.end(depth) {
            context.tx.caller = origin;
        }
    }
    if let Some(origin) = broadcast::end(&mut cheats.broadcast, depth) {
        context.tx.caller = origin;
    }
    expect::settle(
        &mut cheats.expected_revert,
        depth,
        target,
        &mut result.result,
        &mut result.output,
        created,
    );
}
