//! `broadcast`, `startBroadcast` and `stopBroadcast` (no argument, a signer address, or a
//! private key) as forge runs them in tests: nothing is sent anywhere; they are a prank of
//! the broadcaster, which becomes both `msg.sender` and `tx.origin` of the calls and
//! creations the broadcasting frame makes (forge simulates the broadcaster as an EOA sending
//! each one). `broadcast` covers the next call or creation only; `startBroadcast` lasts until
//! `stopBroadcast`.
//!
//! The broadcaster, as in forge: the address or the key's address when given; with no
//! argument the one remembered wallet (`vm.rememberKey`, or the key of an earlier keyed
//! broadcast) when there is exactly one, else `tx.origin` of the running transaction, which in
//! a forge suite is forge's default sender `0x1804c8AB1F12E6bbf3894d4083f33e07309d1f38`
//! (it sends `setUp()` and every fuzzed call's invariant check). Each non-static call
//! broadcast raises the broadcaster's nonce, as forge does for the transaction it records
//! (a creation raises it by itself), so addresses derived from the nonce match forge's.
//!
//! Where harvey differs: `new X{salt: s}()` under a broadcast is a CREATE2 of the
//! broadcasting contract, where forge routes it through its CREATE2 deployer
//! `0x4e59b44847b379578588920ca78fbf26c0b4956c` (the created address differs).

use alloy_primitives::Address;
use revm::context::JournalTr;
use revm::context_interface::journaled_state::account::JournaledAccountTr;
use revm::handler::MainnetContext;

use super::{Answer, fail};
use crate::chain::db::Db;

/// The broadcast in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::chain) struct Broadcast {
    /// The broadcaster: `msg.sender` and `tx.origin` of the broadcast calls.
    origin: Address,
    /// The frame that started it (`msg.sender` of the cheatcode call).
    caller: Address,
    /// `tx.origin` when it started, restored after each broadcast call.
    saved_origin: Address,
    /// Journal depth of the frame that started it.
    depth: usize,
    /// `vm.broadcast`: the next call or creation only.
    single: bool,
}

/// What a broadcast does to a call or creation about to start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::chain) enum Applied {
    /// Not broadcast.
    No,
    /// Sent by the broadcaster (`tx.origin` is set already).
    From(Address),
    /// Refused with forge's message (a static call under a single `broadcast`).
    Refused(&'static str),
}

/// Starts a broadcast from the frame at `depth` (called by `caller`) as `origin`, or forge's
/// error when a prank of that frame or another broadcast is in force.
pub(super) fn start(
    slot: &mut Option<Broadcast>,
    context: &MainnetContext<Db>,
    caller: Address,
    depth: usize,
    origin: Address,
    single: bool,
    pranked: bool,
) -> Answer {
    if pranked {
        return Err(fail(
            "you have an active prank; broadcasting and pranks are not compatible",
        ));
    }
    if slot.is_some() {
        return Err(fail("a broadcast is active already"));
    }
    *slot = Some(Broadcast {
        origin,
        caller,
        saved_origin: context.tx.caller,
        depth,
        single,
    });
    Ok(Vec::new())
}

/// `vm.stopBroadcast`, forge's error when none is in force.
pub(super) fn stop(slot: &mut Option<Broadcast>) -> Answer {
    match slot.take() {
        Some(_) => Ok(Vec::new()),
        None => Err(fail("no broadcast in progress to stop")),
    }
}

/// A call (`create == false`, `is_static` for a STATICCALL) or creation by `caller` from the
/// frame at `depth` is about to start: its sender under the broadcast in `slot`, with
/// `tx.origin` set and the broadcaster's nonce raised for a non-static call.
pub(in crate::chain) fn apply(
    slot: &Option<Broadcast>,
    context: &mut MainnetContext<Db>,
    depth: usize,
    caller: Address,
    create: bool,
    is_static: bool,
) -> Applied {
    let Some(broadcast) = slot.as_ref() else {
        return Applied::No;
    };
    if broadcast.depth != depth || broadcast.caller != caller {
        return Applied::No;
    }
    if is_static && broadcast.single {
        return Applied::Refused(
            "`staticcall`s are not allowed after `broadcast`; use `startBroadcast` instead",
        );
    }
    context.tx.caller = broadcast.origin;
    // A static call is no transaction: forge records none and leaves the nonce.
    if !create && !is_static {
        let Ok(mut account) = context.journaled_state.load_account_mut(broadcast.origin);
        let nonce = account.data.nonce();
        account.data.set_nonce(nonce.saturating_add(1));
    }
    Applied::From(broadcast.origin)
}

/// A call or creation from the frame at `depth` ended: the `tx.origin` to restore when the
/// broadcast was started by that frame, and a single `broadcast` is over.
pub(in crate::chain) fn end(slot: &mut Option<Broadcast>, depth: usize) -> Option<Address> {
    let broadcast = slot.as_ref().filter(|b| b.depth == depth)?;
    let restore = broadcast.saved_origin;
    if broadcast.single {
        *slot = None;
    }
    Some(restore)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::address;
    use alloy_sol_types::{Revert, SolError};

    const SCRIPT: Address = address!("0x00000000000000000000000000000000000000aa");
    const DEPLOYER: Address = address!("0x1804c8AB1F12E6bbf3894d4083f33e07309d1f38");

    fn context() -> MainnetContext<Db> {
        use revm::context::Context;
        use revm::handler::MainContext;
        let mut context = Context::mainnet().with_db(Db::default());
        context.tx.caller = address!("0x00000000000000000000000000000000000000ff");
        context
    }

    fn message(answer: Answer) -> String {
        Revert::abi_decode(&answer.unwrap_err()).unwrap().reason
    }

    #[test]
    fn a_single_broadcast_covers_the_next_call_of_its_frame() {
        let mut context = context();
        let mut slot = None;
        start(&mut slot, &context, SCRIPT, 1, DEPLOYER, true, false).unwrap();
        assert_eq!(
            message(start(&mut slot, &context, SCRIPT, 1, DEPLOYER, true, false)),
            "a broadcast is active already"
        );
        let other = address!("0x00000000000000000000000000000000000000bb");
        assert_eq!(
            apply(&slot, &mut context, 1, other, false, false),
            Applied::No
        );
        assert_eq!(
            apply(&slot, &mut context, 2, SCRIPT, false, false),
            Applied::No
        );
        assert!(matches!(
            apply(&slot, &mut context, 1, SCRIPT, false, true),
            Applied::Refused(_)
        ));
        assert_eq!(
            apply(&slot, &mut context, 1, SCRIPT, false, false),
            Applied::From(DEPLOYER)
        );
        assert_eq!(context.tx.caller, DEPLOYER);
        let Ok(account) = context.journaled_state.load_account(DEPLOYER);
        assert_eq!(
            account.data.info.nonce, 1,
            "a broadcast call is a transaction"
        );
        assert_eq!(end(&mut slot, 2), None, "deeper frames end first");
        assert_eq!(
            end(&mut slot, 1),
            Some(address!("0x00000000000000000000000000000000000000ff"))
        );
        assert_eq!(slot, None);
        assert_eq!(message(stop(&mut slot)), "no broadcast in progress to stop");
    }

    #[test]
    fn start_broadcast_lasts_until_stopped_and_refuses_a_prank() {
        let mut context = context();
        let mut slot = None;
        assert_eq!(
            message(start(&mut slot, &context, SCRIPT, 1, DEPLOYER, false, true)),
            "you have an active prank; broadcasting and pranks are not compatible"
        );
        start(&mut slot, &context, SCRIPT, 1, DEPLOYER, false, false).unwrap();
        for _ in 0..2 {
            assert_eq!(
                apply(&slot, &mut context, 1, SCRIPT, true, false),
                Applied::From(DEPLOYER)
            );
            end(&mut slot, 1);
        }
        assert_eq!(
            apply(&slot, &mut context, 1, SCRIPT, false, true),
            Applied::From(DEPLOYER),
            "a view call is sent from the broadcaster too"
        );
        assert!(stop(&mut slot).is_ok());
        assert_eq!(slot, None);
    }
}
