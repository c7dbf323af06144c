//! What the fuzzer can call on a contract: its state-changing functions, `receive()` and
//! `fallback()`. The one definition, shared by the campaign's surface and by the setup's
//! checks of selected functions.

use alloy_json_abi::{Function, JsonAbi, StateMutability};

/// One thing the fuzzer can call on a contract.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Callable<'a> {
    /// A state-changing ABI function.
    Function(&'a Function),
    /// The contract's `receive()`.
    Receive,
    /// The contract's `fallback()`, payable or not.
    Fallback { payable: bool },
}

impl Callable<'_> {
    /// How setup and reports name it: `name(types)`, `receive()`, `fallback()`.
    pub(crate) fn signature(&self) -> String {
        match self {
            Callable::Function(function) => function.signature(),
            Callable::Receive => "receive()".into(),
            Callable::Fallback { .. } => "fallback()".into(),
        }
    }
}

/// Whether `function` may change state: it is neither `view` nor `pure`.
pub(crate) fn changes_state(function: &Function) -> bool {
    !matches!(
        function.state_mutability,
        StateMutability::View | StateMutability::Pure
    )
}

/// What the fuzzer can call on a contract with `abi`, in order: its state-changing
/// functions (view and pure ones cannot change state, so calling them finds nothing an
/// invariant could see), or every function with `views` (a forge fuzz test may be `view`
/// or `pure`: its own assertions are the check), then `receive()`, then `fallback()`. The
/// one definition of "callable" for building surfaces and checking setup's selections.
pub(crate) fn callable(abi: &JsonAbi, views: bool) -> impl Iterator<Item = Callable<'_>> {
    abi.functions()
        .filter(move |f| views || changes_state(f))
        .map(Callable::Function)
        .chain(abi.receive.as_ref().map(|_| Callable::Receive))
        .chain(abi.fallback.as_ref().map(|f| Callable::Fallback {
            payable: f.state_mutability == StateMutability::Payable,
        }))
}
