//! Oracles: what counts as a bug after each transaction. The user's Rust invariants (a
//! `false`, an `Err` or a panic), Solidity Panics from a configurable set of codes
//! (SWC-110), writes to an arbitrary storage slot (SWC-124) and `AssertionFailed(..)` events
//! (Echidna's and Medusa's assertion convention). Reverts with `Error(string)` or custom
//! errors are normal behaviour.
//!
//! Each violation names its place, so that a campaign tells its bugs apart: the instruction
//! that raised it and the user's source line (`place_of`).

use std::panic::{AssertUnwindSafe, catch_unwind};

use alloy_dyn_abi::{DynSolType, DynSolValue, EventExt};
use alloy_json_abi::Event;
use alloy_primitives::{Address, U256, keccak256};

use crate::chain::{
    Chain, PanicCode, RevertReason, SolDisplay, TxOutcome, TxStatus,
    UnsupportedCheatcode, is_assume_rejection,
};
use crate::config::{DetectorSet, PanicSet};
use crate::observe::{LogSite, RecentTransfers, RevertSite, StorageAccess, StorageOp, Trace};
use crate::outcome::{Place, Violation};
use crate::project::{Artifacts, ContractArtifact};

mod messages;
mod statement;
pub(crate) use messages::messages;

/// The slot of the arbitrary-storage-write detector (SWC-124): fixed and arbitrary (a hash
/// no compiler's storage layout produces), the same in every campaign so that a saved
/// finding replays. A transaction that writes it can most likely write any slot.
pub(crate) fn arbitrary_slot() -> U256 {
    U256::from_be_bytes(keccak256(b"harvey: an arbitrary storage slot (SWC-124)").0)
}

/// The name of the event Echidna's and Medusa's assertion mode treat as a failed assertion,
/// whatever its parameters.
const ASSERTION_EVENT: &str = "AssertionFailed";

/// A boxed invariant: `Ok` when it holds, `Err(message)` when not.
pub(crate) type CheckFn<'a> = Box<dyn Fn(&Chain) -> Result<(), String> + Sync + 'a>;

/// A named invariant: a Rust function of the chain, or a suite's invariant function.
pub(crate) struct Invariant<'a> {
    pub(crate) name: String,
    pub(crate) check: CheckFn<'a>,
    /// Whether the check reads the chain only through [`Chain::probe`]: then what it read
    /// can be recorded ([`Chain::record_reads`]) and the check skipped while none of it
    /// changes. A Rust invariant may read the chain any way, and is always checked.
    pub(crate) through_probes: bool,
}

/// A boxed property case: `Ok` when the property holds for the inputs, `Err(message)` when
/// not; it may call the chain.
pub(crate) type CaseFn<'a> =
    Box<dyn Fn(&mut Chain, &[DynSolValue]) -> Result<(), String> + Sync + 'a>;

/// A Rust property (`#[harvey::property]`): a function of typed inputs that must hold for
/// all of them, each case run on the post-setup state.
pub(crate) struct Property<'a> {
    pub(crate) name: String,
    /// Its inputs' names and ABI types, in order.
    pub(crate) params: Vec<(String, DynSolType)>,
    pub(crate) check: CaseFn<'a>,
}

/// How one property case ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CaseEnd {
    Held,
    /// `harvey::assume!` rejected the inputs: no case.
    Rejected,
    Failed(Violation),
}

thread_local! {
    /// Set by `harvey::assume!` in the property case running on this thread.
    static REJECTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Marks the property case running on this thread as rejected (`harvey::assume!`).
pub(crate) fn reject_case() {
    REJECTED.with(|rejected| rejected.set(true));
}

impl Property<'_> {
    /// Runs one case with `args` on `chain` (its calls observed as one run), a panic
    /// counting as a failure.
    pub(crate) fn run_case(&self, chain: &mut Chain, args: &[DynSolValue]) -> CaseEnd {
        REJECTED.with(|rejected| rejected.set(false));
        chain.set_case(true);
        let result = catch_unwind(AssertUnwindSafe(|| (self.check)(chain, args)));
        chain.set_case(false);
        if REJECTED.with(|rejected| rejected.replace(false)) {
            return CaseEnd::Rejected;
        }
        let message = match result {
            Ok(Ok(())) => return CaseEnd::Held,
            Ok(Err(message)) => message,
            Err(payload) => format!("panicked: {}", panic_message(payload.as_ref())),
        };
        CaseEnd::Failed(Violation::Property {
            name: self.name.clone(),
            message,
        })
    }
}

/// The oracles of one campaign.
pub(crate) struct Oracles<'a> {
    pub(crate) invariants: Vec<Invariant<'a>>,
    /// The Rust property whose cases the campaign runs, in place of transactions.
    property: Option<Property<'a>>,
    /// Invariants checked once, after the last transaction of each sequence (forge's
    /// `afterInvariant()`).
    finals: Vec<Invariant<'a>>,
    /// Whether a reverted transaction is a violation (`fail_on_revert`).
    fail_on_revert: bool,
    /// A contract whose own reverts are violations even without `fail_on_revert`: a forge
    /// fuzz test's test contract (forge fails a case whose revert the test raised itself,
    /// and with `fail_on_revert = false` ignores only those it bubbled up from a callee).
    own_reverts: Option<Address>,
    /// Whether a transaction reverting with a failed forge-std assertion (`assertion
    /// failed: ..`) is a violation, as in forge's invariant runs.
    forge_assertions: bool,
    panics: PanicSet,
    /// Every `AssertionFailed` event the project declares (one per parameter list).
    assertion_events: Vec<Event>,
    /// [`arbitrary_slot`], hashed once.
    arbitrary_slot: U256,
    /// The vulnerability detectors each executor runs (`crate::detect`).
    detectors: DetectorSet,
}

impl<'a> Oracles<'a> {
    /// The oracles of a campaign on `artifacts`: `invariants`, the Panics of `panics`, and
    /// the arbitrary-write and assertion-event detectors.
    pub(crate) fn new(
        invariants: Vec<Invariant<'a>>,
        panics: PanicSet,
        artifacts: &Artifacts,
    ) -> Oracles<'a> {
        let mut assertion_events: Vec<Event> = Vec::new();
        for artifact in artifacts.contracts() {
            for event in artifact.abi.events().filter(|e| e.name == ASSERTION_EVENT) {
                if !event.anonymous
                    && !assertion_events
                        .iter()
                        .any(|known| known.selector() == event.selector())
                {
                    assertion_events.push(event.clone());
                }
            }
        }
        Oracles {
            invariants,
            property: None,
            finals: Vec::new(),
            fail_on_revert: false,
            own_reverts: None,
            forge_assertions: false,
            panics,
            assertion_events,
            arbitrary_slot: arbitrary_slot(),
            detectors: DetectorSet::none(),
        }
    }

    /// Runs the vulnerability detectors of `set` after every transaction.
    pub(crate) fn with_detectors(mut self, set: DetectorSet) -> Self {
        self.detectors = set;
        self
    }

    /// The vulnerability detectors that run.
    pub(crate) fn detectors(&self) -> &DetectorSet {
        &self.detectors
    }

    /// Runs the cases of `property` in place of transactions.
    pub(crate) fn with_property(mut self, property: Option<Property<'a>>) -> Self {
        self.property = property;
        self
    }

    /// The Rust property the campaign runs, if it runs one.
    pub(crate) fn property(&self) -> Option<&Property<'a>> {
        self.property.as_ref()
    }

    /// Invariants checked after the last transaction of every sequence.
    pub(crate) fn with_finals(mut self, finals: Vec<Invariant<'a>>) -> Self {
        self.finals = finals;
        self
    }

    /// Makes every reverted transaction a violation (forge's `fail_on_revert`), except a
    /// rejected `vm.assume`.
    pub(crate) fn fail_on_revert(mut self, on: bool) -> Self {
        self.fail_on_revert = on;
        self
    }

    /// Makes every revert that `contract`'s own frame raised a violation, `fail_on_revert`
    /// or not (a forge fuzz test's test contract), except a rejected `vm.assume`.
    pub(crate) fn own_reverts(mut self, contract: Option<Address>) -> Self {
        self.own_reverts = contract;
        self
    }

    /// Stops counting `AssertionFailed(..)` events as violations (`on` false): a Medusa
    /// harness, or an Echidna one outside assertion mode, whose tool ignores them.
    pub(crate) fn count_assertion_events(mut self, on: bool) -> Self {
        if !on {
            self.assertion_events.clear();
        }
        self
    }

    /// Makes a transaction that reverts with a failed forge-std assertion (`assertion
    /// failed: ..`: `assertEq` in a handler) a violation, as forge counts it.
    pub(crate) fn forge_assertions(mut self, on: bool) -> Self {
        self.forge_assertions = on;
        self
    }

    /// Every violation the transaction that just ran on `chain` (ending in `outcome`) shows
    /// by itself, in this order: an unsupported cheatcode, an arbitrary storage write, a
    /// counted Panic (or, with `fail_on_revert`, any revert), assertion events. The
    /// invariants are the executor's to check after it (skipping those nothing changed).
    pub(crate) fn check(&self, chain: &mut Chain, outcome: &TxOutcome) -> Vec<Violation> {
        let unsupported = chain.take_unsupported();
        // What the trace shows first (copied out of it), then where with the chain's
        // artifacts.
        let trace = chain.last_trace();
        let write = self.arbitrary_write(trace);
        let panic = self.counted_panic(outcome).map(|code| {
            let origin = panic_origin(trace.reverts(), code.code());
            (code, origin)
        });
        let revert = match panic {
            // Where the revert began is looked up only when it may count: most reverts of
            // most campaigns do not.
            None if !outcome.is_success()
                && (self.own_reverts.is_some() || self.counts_revert(outcome)) =>
            {
                let origin = revert_origin(trace.reverts());
                let own = self.own_reverts.is_some_and(|own| {
                    origin.is_some_and(|o| o.code == own) && !is_assume_rejection(&outcome.output)
                });
                (own || self.counts_revert(outcome)).then_some(origin)
            }
            _ => None,
        };
        let unsupported = unsupported.map(|cheat| {
            // The caller bubbles the cheatcode's revert: its REVERT is the call's line.
            let site = trace
                .reverts()
                .iter()
                .find(|r| r.code == cheat.caller)
                .copied();
            (cheat, site)
        });
        let events = self.assertion_events(outcome, trace);
        let chain = &*chain;
        let mut found = Vec::new();
        if let Some((cheat, site)) = unsupported {
            let place = unsupported_place(chain, &cheat, site);
            found.push(Violation::UnsupportedCheatcode {
                cheatcode: cheat.signature,
                place,
            });
        }
        if let Some(write) = write {
            found.push(Violation::ArbitraryStorageWrite {
                contract: write.address,
                slot: self.arbitrary_slot,
                place: place_of(chain, write.code, write.pc),
            });
        }
        if let Some((code, origin)) = panic {
            // `None` is unreachable for a Panic the EVM reported (its data comes from a
            // REVERT the observer saw), but a report must not fail over it.
            let place = revert_place(chain, origin, Address::ZERO);
            found.push(Violation::Panic { code, place });
        }
        if let Some(origin) = revert {
            // `None` for a halt: no REVERT ran.
            let place = revert_place(chain, origin, Address::ZERO);
            found.push(Violation::Reverted {
                reason: outcome.status.to_string(),
                place,
            });
        }
        for (values, site, emitter) in events {
            let message = values
                .iter()
                .map(|v| SolDisplay(v).to_string())
                .collect::<Vec<_>>()
                .join(", ");
            let label = values
                .iter()
                .filter_map(DynSolValue::as_str)
                .collect::<Vec<_>>()
                .join(", ");
            let place = match site {
                Some(site) => raised_place(chain, site.code, site.pc, &site.transfers),
                None => unknown_place(chain, emitter, u32::MAX),
            };
            found.push(Violation::AssertionFailed {
                message,
                label,
                place,
            });
        }
        found
    }

    /// Whether `outcome` is a revert that counts: a failed forge-std assertion in a suite,
    /// or with `fail_on_revert` any revert or halt but a rejected `vm.assume` (forge
    /// discards those calls).
    fn counts_revert(&self, outcome: &TxOutcome) -> bool {
        match &outcome.status {
            TxStatus::Success => false,
            TxStatus::Revert(RevertReason::Error(message))
                if self.forge_assertions && message.starts_with("assertion failed") =>
            {
                true
            }
            _ => self.fail_on_revert && !is_assume_rejection(&outcome.output),
        }
    }

    /// The Panic `outcome` ended with, if the campaign counts its code.
    fn counted_panic(&self, outcome: &TxOutcome) -> Option<PanicCode> {
        match &outcome.status {
            TxStatus::Revert(RevertReason::Panic(code)) if self.panics.contains(*code) => {
                Some(*code)
            }
            _ => None,
        }
    }

    /// An SSTORE to [`arbitrary_slot`] in `trace`.
    fn arbitrary_write(&self, trace: &Trace) -> Option<StorageAccess> {
        trace
            .storage()
            .iter()
            .find(|s| s.op == StorageOp::Store && s.slot == self.arbitrary_slot)
            .copied()
    }

    /// The `AssertionFailed` events among `outcome`'s logs (a transaction that reverted has
    /// none): each one's arguments, the LOG instruction that emitted it (when the trace
    /// shows it) and the emitter.
    fn assertion_events(
        &self,
        outcome: &TxOutcome,
        trace: &Trace,
    ) -> Vec<(Vec<DynSolValue>, Option<LogSite>, Address)> {
        if self.assertion_events.is_empty() {
            return Vec::new();
        }
        let mut found = Vec::new();
        for (index, log) in outcome.logs.iter().enumerate() {
            let Some(topic0) = log.topics().first() else {
                continue;
            };
            let Some(event) = self
                .assertion_events
                .iter()
                .find(|e| e.selector() == *topic0)
            else {
                continue;
            };
            let values: Vec<DynSolValue> = match event.decode_log(&log.data) {
                Ok(decoded) => decoded.indexed.into_iter().chain(decoded.body).collect(),
                // Emitted with other indexing than declared: still a failed assertion.
                Err(_) => Vec::new(),
            };
            // The trace's LOG sites of this emitter and event, in order: as many of this
            // transaction's logs came before this one as sites before its own.
            let topic = U256::from_be_bytes(topic0.0);
            let earlier = outcome.logs[..index]
                .iter()
                .filter(|l| l.address == log.address && l.topics().first() == Some(topic0))
                .count();
            let site = trace
                .logs()
                .iter()
                .filter(|s| s.emitter == log.address && s.topic0 == topic)
                .nth(earlier)
                .cloned();
            found.push((values, site, log.address));
        }
        found
    }

    /// Every invariant that does not hold on `chain`'s current state. A panic inside an
    /// invariant is caught and reported as its violation.
    pub(crate) fn check_invariants(&self, chain: &Chain) -> Vec<Violation> {
        violated(&self.invariants, chain)
    }

    /// Whether there are final invariants ([`Oracles::with_finals`]).
    pub(crate) fn has_finals(&self) -> bool {
        !self.finals.is_empty()
    }

    /// The final invariants (`afterInvariant()`) that do not hold at the end of a sequence.
    pub(crate) fn check_end(&self, chain: &Chain) -> Vec<Violation> {
        violated(&self.finals, chain)
    }
}

/// The violations a campaign on `chain`'s artifacts that counts every Panic code and every
/// revert (`fail_on_revert`) sees in `tx`, run into the pending state: what harvey's own
/// tests check a witness's violation and place with, without a campaign. Only with the
/// `internals` feature, which nothing but those tests uses.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub fn violations_of(chain: &mut Chain, tx: &crate::chain::Tx) -> crate::Result<Vec<Violation>> {
    let oracles = Oracles::new(Vec::new(), PanicSet::all(), chain.artifacts()).fail_on_revert(true);
    let outcome = chain.execute(tx)?;
    Ok(oracles.check(chain, &outcome))
}

/// Those of `invariants` that do not hold on `chain`, a panic counting as a violation.
fn violated(invariants: &[Invariant<'_>], chain: &Chain) -> Vec<Violation> {
    invariants
        .iter()
        .filter_map(|invariant| invariant.violation(chain))
        .collect()
}

impl Invariant<'_> {
    /// The violation of this invariant on `chain`'s current state, if it does not hold; a
    /// panic inside it is its violation.
    pub(crate) fn violation(&self, chain: &Chain) -> Option<Violation> {
        let result = catch_unwind(AssertUnwindSafe(|| (self.check)(chain)));
        let message = match result {
            Ok(Ok(())) => return None,
            Ok(Err(message)) => message,
            Err(payload) => format!("panicked: {}", panic_message(payload.as_ref())),
        };
        Some(Violation::Invariant {
            name: self.name.clone(),
            message,
        })
    }
}

/// Where the revert a transaction ended with began: the innermost frame of the chain of
/// reverts its callers bubbled up. `None` for a halt.
fn revert_origin(reverts: &[RevertSite]) -> Option<RevertSite> {
    bubbled_from(reverts, |_| true)
}

/// The revert that raised the Panic `code` of a transaction: that of the innermost frame
/// whose revert its callers bubbled up with the same Panic.
fn panic_origin(reverts: &[RevertSite], code: U256) -> Option<RevertSite> {
    bubbled_from(reverts, |r| r.panic == Some(code))
}

/// The innermost revert of the chain that ends at the last revert `same` accepts: reverts
/// are recorded innermost first, so step down from it while the revert just before is a
/// direct callee's that `same` accepts too.
fn bubbled_from(reverts: &[RevertSite], same: impl Fn(&RevertSite) -> bool) -> Option<RevertSite> {
    let mut origin = reverts.iter().rposition(&same)?;
    while origin > 0
        && reverts[origin - 1].depth == reverts[origin].depth + 1
        && same(&reverts[origin - 1])
    {
        origin -= 1;
    }
    Some(reverts[origin])
}

/// The place of a revert `site` (with its frame's recent jumps), or of an unknown pc in
/// `fallback`'s code when the trace shows none.
fn revert_place(chain: &Chain, site: Option<RevertSite>, fallback: Address) -> Place {
    match site {
        Some(site) => raised_place(chain, site.code, site.pc, &site.transfers),
        None => unknown_place(chain, fallback, u32::MAX),
    }
}

/// Where `cheat` was called: its CALL instruction when the cheatcodes saw it, else the
/// calling frame's REVERT (`revert`, which bubbles the cheatcode's), else the caller.
pub(crate) fn unsupported_place(
    chain: &Chain,
    cheat: &UnsupportedCheatcode,
    revert: Option<RevertSite>,
) -> Place {
    match &cheat.site {
        // A contract a failed transaction created is gone from the chain: its code names it.
        Some(site) => match chain.artifact_at(site.code) {
            None => match chain.artifacts().by_runtime_code(&site.bytecode) {
                Some(artifact) => artifact_place(artifact, site.pc, None),
                None => place_of(chain, site.code, site.pc),
            },
            Some(_) => place_of(chain, site.code, site.pc),
        },
        None => revert_place(chain, revert, cheat.caller),
    }
}

/// The place of the instruction at `pc` in the code at `code`, with its own source line.
pub(crate) fn place_of(chain: &Chain, code: Address, pc: u32) -> Place {
    match chain.artifact_at(code) {
        Some(artifact) => artifact_place(artifact, pc, None),
        None => unknown_place(chain, code, pc),
    }
}

/// The place of the REVERT or LOG at `pc` in the code at `code`, with the line of the
/// statement that ran it, found from its frame's last `transfers` (`statement`): solc's
/// shared helpers and the code the optimizer shares between statements map elsewhere.
fn raised_place(chain: &Chain, code: Address, pc: u32, transfers: &RecentTransfers) -> Place {
    match chain.artifact_at(code) {
        Some(artifact) => artifact_place(artifact, pc, Some(transfers)),
        None => unknown_place(chain, code, pc),
    }
}

/// The place of the instruction at `pc` in `artifact`'s runtime code: the line of the
/// statement that ran it when its frame's `transfers` are known ([`raised_place`]), else
/// its own.
fn artifact_place(
    artifact: &ContractArtifact,
    pc: u32,
    transfers: Option<&RecentTransfers>,
) -> Place {
    let statement = transfers.and_then(|transfers| {
        statement::statement_pc(
            artifact,
            pc,
            &transfers.oldest_first(),
            transfers.since_frame_start(),
        )
    });
    let line = artifact
        .source_location(statement.unwrap_or(pc) as usize)
        .map(|location| format!("{}:{}", location.file.path.display(), location.line));
    Place {
        contract: artifact.name.clone(),
        pc,
        line,
    }
}

/// The place of the instruction at `pc` (`u32::MAX`: not recorded) in code no compiled
/// contract matches.
fn unknown_place(chain: &Chain, code: Address, pc: u32) -> Place {
    Place {
        contract: chain
            .label_of(code)
            .map_or_else(|| code.to_string(), str::to_string),
        pc,
        line: None,
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

/// Turns what an invariant function returns into a check result: `bool` (`false` fails),
/// `Result<(), E: Display>` (`Err` fails with its message), or `Result<bool, E: Display>`
/// (both fail: a check that reads views with `?` and ends in a comparison).
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

impl<E: std::fmt::Display> IntoCheck for Result<bool, E> {
    fn into_check(self) -> Result<(), String> {
        self.map_err(|e| e.to_string())?.into_check()
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

    fn site(depth: u32, pc: u32, panic: Option<u64>) -> RevertSite {
        RevertSite {
            code: Address::with_last_byte(depth as u8),
            pc,
            depth,
            panic: panic.map(U256::from),
            transfers: RecentTransfers::default(),
        }
    }

    #[test]
    fn a_panic_is_placed_where_the_innermost_frame_raised_it() {
        let code = U256::from(1);
        // The callee (depth 3) raised it, its callers bubbled it up.
        let bubbled = [
            site(3, 30, Some(1)),
            site(2, 20, Some(1)),
            site(1, 10, Some(1)),
        ];
        assert_eq!(panic_origin(&bubbled, code).map(|s| s.pc), Some(30));
        // A callee's Panic that was caught (try/catch) and followed by another call: the
        // transaction's own Panic is raised where the chain of equal reverts starts.
        let caught = [
            site(2, 40, Some(1)),
            site(2, 41, None),
            site(1, 10, Some(1)),
        ];
        assert_eq!(panic_origin(&caught, code).map(|s| s.pc), Some(10));
        // Another code further in is not this Panic's origin.
        let other = [site(2, 50, Some(0x11)), site(1, 10, Some(1))];
        assert_eq!(panic_origin(&other, code).map(|s| s.pc), Some(10));
        assert_eq!(panic_origin(&[site(1, 10, None)], code), None);
    }

    #[test]
    fn panic_payloads_become_messages() {
        let payload = catch_unwind(|| panic!("boom {}", 7)).unwrap_err();
        assert_eq!(panic_message(payload.as_ref()), "boom 7");
    }
}
