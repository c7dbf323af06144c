//! Oracles: what counts as a bug after each transaction. The user's Rust invariants (a
//! `false`, an `Err` or a panic) and Solidity Panics from a configurable set of codes
//! (SWC-110). Reverts with `Error(string)` or custom errors are normal behaviour.

use std::panic::{AssertUnwindSafe, catch_unwind};

use alloy_primitives::{U256, keccak256};

use crate::chain::{Chain, PanicSet, RevertReason, TxOutcome, TxStatus};
use crate::observe::{StorageOp, Trace};
use crate::outcome::Violation;

/// The slot of the arbitrary-storage-write detector (SWC-124): fixed and arbitrary (a hash
/// no compiler's storage layout produces), the same in every campaign so that a saved
/// finding replays. A transaction that writes it can most likely write any slot.
pub(crate) fn arbitrary_slot() -> U256 {
    U256::from_be_bytes(keccak256(b"harvey: an arbitrary storage slot (SWC-124)").0)
}

/// A boxed invariant: `Ok` when it holds, `Err(message)` when not.
pub(crate) type CheckFn<'a> = Box<dyn Fn(&Chain) -> Result<(), String> + Sync + 'a>;

/// A named Rust invariant.
pub(crate) struct Invariant<'a> {
    pub(crate) name: String,
    pub(crate) check: CheckFn<'a>,
}

/// The oracles of one campaign.
pub(crate) struct Oracles<'a> {
    pub(crate) invariants: Vec<Invariant<'a>>,
    pub(crate) panics: PanicSet,
}

impl Oracles<'_> {
    /// The violation `outcome` shows by itself (a counted Panic), if any.
    pub(crate) fn check_outcome(&self, outcome: &TxOutcome) -> Option<Violation> {
        match &outcome.status {
            TxStatus::Revert(RevertReason::Panic(code)) if self.panics.contains(*code) => {
                Some(Violation::Panic { code: *code })
            }
            _ => None,
        }
    }

    /// An arbitrary storage write in `trace`: an SSTORE to [`arbitrary_slot`] (`slot` is
    /// that value, passed in so it is hashed once per campaign).
    pub(crate) fn check_trace(&self, trace: &Trace, slot: U256) -> Option<Violation> {
        trace
            .storage()
            .iter()
            .find(|s| s.op == StorageOp::Store && s.slot == slot)
            .map(|s| Violation::ArbitraryStorageWrite {
                contract: s.address,
                slot,
            })
    }

    /// The first invariant that does not hold on `chain`'s current state, if any. A panic
    /// inside an invariant is caught and reported as its violation.
    pub(crate) fn check_invariants(&self, chain: &Chain) -> Option<Violation> {
        self.invariants.iter().find_map(|invariant| {
            let result = catch_unwind(AssertUnwindSafe(|| (invariant.check)(chain)));
            let message = match result {
                Ok(Ok(())) => return None,
                Ok(Err(message)) => message,
                Err(payload) => format!("panicked: {}", panic_message(payload.as_ref())),
            };
            Some(Violation::Invariant {
                name: invariant.name.clone(),
                message,
            })
        })
    }
}

/// The text of a panic payload (`&str` or `String`, as `panic!` produces).
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a non-string panic payload".to_string()
    }
}

/// Turns what an invariant function returns into a check result: `bool` (`false` fails)
/// or `Result<(), E: Display>` (`Err` fails with its message).
pub trait IntoCheck {
    /// `Ok` when the invariant holds, otherwise the message to report.
    fn into_check(self) -> Result<(), String>;
}

impl IntoCheck for bool {
    fn into_check(self) -> Result<(), String> {
        if self {
            Ok(())
        } else {
            Err("returned false".to_string())
        }
    }
}

impl<E: std::fmt::Display> IntoCheck for Result<(), E> {
    fn into_check(self) -> Result<(), String> {
        self.map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_results_carry_messages() {
        assert_eq!(true.into_check(), Ok(()));
        assert_eq!(false.into_check(), Err("returned false".into()));
        let err: Result<(), String> = Err("short by 3 wei".into());
        assert_eq!(err.into_check(), Err("short by 3 wei".into()));
    }

    #[test]
    fn panic_payloads_become_messages() {
        let payload = catch_unwind(|| panic!("boom {}", 7)).unwrap_err();
        assert_eq!(panic_message(payload.as_ref()), "boom 7");
    }
}
