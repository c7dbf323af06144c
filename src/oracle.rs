//! Oracles: what counts as a bug after each transaction. The user's Rust invariants (a
//! `false`, an `Err` or a panic) and Solidity Panics from a configurable set of codes
//! (SWC-110). Reverts with `Error(string)` or custom errors are normal behaviour.

use std::panic::{AssertUnwindSafe, catch_unwind};

use alloy_primitives::{U256, keccak256};

use crate::chain::{Chain, PanicCode, RevertReason, TxOutcome, TxStatus};
use crate::error::Error;
use crate::observe::{StorageOp, Trace};
use crate::outcome::Violation;

/// The Panic codes a campaign reports as violations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PanicSet {
    codes: Vec<PanicCode>,
}

impl Default for PanicSet {
    /// A failed `assert` (0x01) only, as forge's `fail_on_assert` and Medusa count by
    /// default. Checked arithmetic (0x11) is how Solidity 0.8 code checks balances
    /// (`balanceOf[from] -= amount` reverts on an overdraft by design), so counting it by
    /// default turns correct tokens into failures; the other codes are opt-in by name too.
    fn default() -> Self {
        PanicSet::of([PanicCode::Assert])
    }
}

impl PanicSet {
    /// Exactly `codes`.
    pub fn of(codes: impl IntoIterator<Item = PanicCode>) -> PanicSet {
        let mut set = PanicSet { codes: Vec::new() };
        for code in codes {
            if !set.codes.contains(&code) {
                set.codes.push(code);
            }
        }
        set
    }

    /// Every named code ([`PanicCode::NAMED`]).
    pub fn all() -> PanicSet {
        PanicSet::of(PanicCode::NAMED)
    }

    /// No Panic counts (only invariants do).
    pub fn none() -> PanicSet {
        PanicSet { codes: Vec::new() }
    }

    /// Whether `code` counts as a violation.
    pub fn contains(&self, code: PanicCode) -> bool {
        self.codes.contains(&code)
    }

    /// The codes, in the order given.
    pub fn codes(&self) -> &[PanicCode] {
        &self.codes
    }
}

/// The names [`PanicSet`]'s parser accepts, for error messages.
fn panic_names() -> String {
    let names: Vec<&str> = PanicCode::NAMED.iter().filter_map(|c| c.name()).collect();
    format!("{}, a code such as 0x11, `all` or `none`", names.join(", "))
}

impl std::str::FromStr for PanicSet {
    type Err = Error;

    /// Comma-separated code names (`"assert,overflow"`, see [`PanicCode::name`]) or hex codes
    /// (`"0x01,0x11"`), `"all"`, or `"none"` (only invariants count).
    fn from_str(text: &str) -> Result<PanicSet, Error> {
        let mut codes = Vec::new();
        for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match name.to_ascii_lowercase().as_str() {
                "none" => {}
                "all" => codes.extend(PanicCode::NAMED),
                lower => codes.push(PanicCode::from_name(lower).ok_or_else(|| {
                    Error::Config(format!(
                        "`{name}` is not a Panic code: use {}",
                        panic_names()
                    ))
                })?),
            }
        }
        Ok(PanicSet::of(codes))
    }
}

impl std::fmt::Display for PanicSet {
    /// The set as [`PanicSet`]'s parser reads it (`none` when empty).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.codes.is_empty() {
            return f.write_str("none");
        }
        let names: Vec<String> = self
            .codes
            .iter()
            .map(|c| match c.name() {
                Some(name) => name.to_string(),
                None => format!("{:#x}", c.code()),
            })
            .collect();
        f.write_str(&names.join(","))
    }
}

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
    fn default_set_counts_failed_asserts_only() {
        let set = PanicSet::default();
        assert!(set.contains(PanicCode::Assert));
        assert!(!set.contains(PanicCode::ArithmeticOverflow));
        assert!(!PanicSet::none().contains(PanicCode::Assert));
        assert_eq!(PanicSet::all().codes().len(), PanicCode::NAMED.len());
    }

    #[test]
    fn sets_parse_from_names_codes_all_and_none() {
        let set: PanicSet = "assert, overflow,0x32".parse().unwrap();
        assert_eq!(
            set.codes(),
            [
                PanicCode::Assert,
                PanicCode::ArithmeticOverflow,
                PanicCode::ArrayOutOfBounds
            ]
        );
        assert_eq!(set.to_string(), "assert,overflow,out-of-bounds");
        assert_eq!("none".parse::<PanicSet>().unwrap(), PanicSet::none());
        assert_eq!("all".parse::<PanicSet>().unwrap(), PanicSet::all());
        assert_eq!(PanicSet::none().to_string(), "none");
        let odd: PanicSet = "0x99".parse().unwrap();
        assert_eq!(odd.to_string(), "0x99");
        for code in PanicCode::NAMED {
            let name = code.name().unwrap();
            assert_eq!(PanicCode::from_name(name), Some(code), "{name}");
        }
        let err = "assert,overflw"
            .parse::<PanicSet>()
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`overflw`") && err.contains("division-by-zero"),
            "{err}"
        );
    }

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
