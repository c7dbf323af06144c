//! Vulnerability detectors: bug oracles that need no invariant (MuFuzz §IV-D, ConFuzzius
//! Appendix A), run after every transaction of a sequence on what the observer recorded.
//!
//! They rest on roles. Every fuzzed sender is an *attacker* unless setup trusted it
//! ([`Chain::trust`]; the deployer, and in a forge suite the test contract and forge's
//! sender, are trusted). A detector reports what a correct contract never lets an attacker
//! do:
//!
//! - **ether leak**: a transaction pays an attacker that no trusted sender named in its
//!   calldata (a CALL with value, or a SELFDESTRUCT's balance), and the attackers together
//!   now hold more ether than after setup: they took out more than they put in. ConFuzzius
//!   reports any payment to an attacker that never sent ether itself, which flags a
//!   correct WETH (one attacker deposits and hands the tokens to another, who withdraws);
//!   counting the attackers as one party does not, and still reports an attacker that
//!   deposited once and withdrew twice.
//! - **unprotected selfdestruct**: a SELFDESTRUCT runs in a successful transaction an
//!   attacker sent (ConFuzzius's definition), except in a contract that transaction
//!   created: init code that destroys its own contract (what a factory taking code runs)
//!   destroys nothing that was there.
//! - **unsafe delegatecall**: a DELEGATECALL (or CALLCODE) in a successful transaction an
//!   attacker sent goes to an address the attackers wrote in their calldata in this
//!   sequence (an argument now, or stored by an earlier call) that has no code or is an
//!   attacker. ConFuzzius reports any DELEGATECALL in an attacker's successful
//!   transaction, which flags every proxy; MuFuzz asks that the target come from the
//!   function's arguments; we ask that the attacker chose it and could put code there.
//! - **reentrancy**: in a successful transaction a contract's frame calls out, an attacker
//!   on the way calls back into the same contract (the attacker contract does: see
//!   `chain::ATTACKER_CONTRACT`), and after the re-entered call returned the outer frame
//!   writes a slot the re-entered call had read: the re-entered call ran on state the
//!   outer one was about to change (the DAO's `withdraw`). ConFuzzius suspects reentrancy
//!   from a CALL with more than 2,300 gas and an amount read from storage that is written
//!   after; MuFuzz from such a call in a function called repeatedly; we report only a
//!   re-entry that happened.
//! - **unhandled exception**: an inner call fails and its caller goes on without a JUMPI
//!   on its status (followed through copies, moves and arithmetic by the observer) and
//!   without storing or returning it, in a successful transaction (ConFuzzius's
//!   definition; MuFuzz's asks the same of every call of a chain of calls).
//! - **locked ether**: a contract accepts ether in a successful transaction, and its code
//!   has no instruction that can send ether (CALL, CALLCODE, DELEGATECALL, CREATE,
//!   CREATE2, SELFDESTRUCT; PUSH data skipped): ConFuzzius's definition.
//! - **integer overflow**, **block dependency**, **strict balance equality** and
//!   **`tx.origin` authorisation**: data flows the observer follows (`observe::taint`,
//!   only in transactions that ran a source) and [`flows`] reports: a wrapped result
//!   stored or sent uncompared; block data drawn on as randomness deciding or paying a
//!   payment; an equality with a balance deciding a branch; `tx.origin` compared with
//!   something other than `msg.sender` guarding a revert or a state change.
//! - **transaction-order dependency** ([`order`]): two consecutive transactions of
//!   different senders, swapped, pay both senders differently.
//!
//! What setup's own calls name is not seen: a sender setup made a payee is an attacker
//! unless setup also trusts it.

use alloy_primitives::{Address, U256};

use crate::bytecode::instructions;
use crate::chain::{ATTACKER_CONTRACT, Chain, Tx};
use crate::config::{Detector, DetectorSet};
use crate::hash::FastMap;
use crate::observe::{CallKind, CallRecord, FlowSet, SelfDestruct, Trace};
use crate::oracle::place_of;
use crate::outcome::{Place, Violation};
use crate::report;
use order::OrderWatch;
use reentry::StaleReentry;

mod flows;
mod order;
mod reentry;

/// Address-shaped words remembered from attackers' calldata per sequence, at most: an
/// attacker that passes more in one sequence has chosen enough targets.
const CHOSEN_ADDRESSES: usize = 64;

/// One executor's detectors: the roles, fixed after setup, and what the running sequence
/// showed so far.
pub(crate) struct Detectors {
    set: DetectorSet,
    /// The fuzzed senders setup did not trust, each with its balance after setup.
    attackers: Vec<(Address, U256)>,
    trusted: Vec<Address>,
    /// Attackers a trusted sender named in a call of the running sequence, or an attacker
    /// it had named did.
    named: Vec<Address>,
    /// Address-shaped words of the attackers' calldata in the running sequence.
    chosen: Vec<Address>,
    /// Per contract that accepted ether: whether its code can send ether out.
    can_send: FastMap<Address, bool>,
    /// The transaction-order detector's memory.
    order: OrderWatch,
    /// Per transaction of the last run (by index), whether the detectors other than the
    /// order's found nothing after it; only the transactions the running sequence repeats
    /// are kept ([`Detectors::start`]).
    quiet: Vec<bool>,
}

impl Detectors {
    /// The detectors of `set` on `chain` as setup left it.
    pub(crate) fn new(set: &DetectorSet, chain: &Chain) -> Detectors {
        let trusted = chain.trusted().to_vec();
        let attackers = chain
            .senders()
            .iter()
            .filter(|sender| !trusted.contains(sender))
            .map(|&attacker| (attacker, chain.balance(attacker)))
            .collect();
        Detectors {
            set: set.clone(),
            attackers,
            trusted,
            named: Vec::new(),
            chosen: Vec::new(),
            can_send: FastMap::default(),
            order: OrderWatch::new(chain.senders().to_vec()),
            quiet: Vec::new(),
        }
    }

    /// The data flows the observer must follow for these detectors.
    pub(crate) fn flows(&self) -> FlowSet {
        FlowSet {
            wraps: self.set.contains(Detector::IntegerOverflow),
            block: self.set.contains(Detector::BlockDependency),
            balance: self.set.contains(Detector::StrictBalanceEquality),
            origin: self.set.contains(Detector::TxOrigin),
        }
    }

    /// A new sequence starts from the post-setup state; its first `unchanged` transactions
    /// are the last run's, made in the same states (the executor's `RunStart::unchanged`).
    pub(crate) fn start(&mut self, unchanged: usize) {
        self.named.clear();
        self.chosen.clear();
        self.order.start();
        self.quiet.truncate(unchanged);
    }

    /// What transaction `index` of the sequence, `tx`, which just ran on `chain`, shows
    /// (`succeeded`: it did not revert), and notes what later transactions of the sequence
    /// need.
    ///
    /// A transaction the sequence repeats, after which the last run found nothing, finds
    /// nothing again: the detectors but the order's read only the transaction, its trace,
    /// the state after it, and what the sequence's earlier transactions (the same ones)
    /// noted. They are skipped then, but for what they note for later transactions. (The
    /// order detector counts its swaps per pair of calls, and runs every time.) Half of a
    /// campaign's transactions on `Bank` repeat their place.
    pub(crate) fn check(
        &mut self,
        chain: &mut Chain,
        index: usize,
        tx: &Tx,
        succeeded: bool,
    ) -> Vec<Violation> {
        if self.set.is_empty() {
            return Vec::new();
        }
        let order = self.set.contains(Detector::TransactionOrder);
        let quiet_before = self.quiet.get(index) == Some(&true);
        // A reverted transaction paid nothing, named nothing and stored nothing.
        let moves = (succeeded && (order || !quiet_before)).then(|| Moves::of(chain.last_trace()));
        let mut found = if quiet_before {
            if succeeded {
                self.note(tx, self.is_attacker(tx.sender));
            }
            #[cfg(all(debug_assertions, feature = "internals"))]
            self.check_quiet(chain, tx, succeeded);
            Vec::new()
        } else {
            self.findings(chain, tx, succeeded, moves.as_ref())
        };
        if self.quiet.len() <= index {
            self.quiet.resize(index + 1, false);
        }
        self.quiet[index] = found.is_empty();
        // Last: a swap replays the sequence, and the trace read is then the replay's.
        if order {
            found.extend(self.order.check(chain, tx, moves.as_ref()));
        }
        found
    }

    /// In harvey's own tests: that the detectors skipped after a repeated transaction
    /// (`tx`) find nothing, as they did after it in the last run.
    #[cfg(all(debug_assertions, feature = "internals"))]
    fn check_quiet(&mut self, chain: &mut Chain, tx: &Tx, succeeded: bool) {
        let moves = succeeded.then(|| Moves::of(chain.last_trace()));
        let found = self.findings(chain, tx, succeeded, moves.as_ref());
        assert!(
            found.is_empty(),
            "the detectors found {found:?} after a repeated transaction, after which they had found nothing"
        );
    }

    /// What the detectors but the order's find after `tx`, which just ran on `chain`
    /// (`succeeded`: it did not revert; then `moves` are what it moved).
    fn findings(
        &mut self,
        chain: &mut Chain,
        tx: &Tx,
        succeeded: bool,
        moves: Option<&Moves>,
    ) -> Vec<Violation> {
        let mut found = flows::findings(chain, succeeded);
        if let Some(moves) = moves {
            found.extend(self.check_success(chain, tx, moves));
        }
        found
    }

    /// What the successful transaction `tx` that just ran on `chain`, moving `moves`,
    /// shows, except for the flows and the order.
    fn check_success(&mut self, chain: &mut Chain, tx: &Tx, moves: &Moves) -> Vec<Violation> {
        let mut found = Vec::new();
        let attacker = self.is_attacker(tx.sender);
        self.note(tx, attacker);
        let trace = chain.last_trace();
        let stale = if self.set.contains(Detector::Reentrancy) {
            StaleReentry::find(trace, |account| self.is_attacker(account))
        } else {
            None
        };
        // The attacker contract's own calls back are not the contracts' under test.
        let unchecked = trace
            .unchecked_calls()
            .iter()
            .filter_map(|&index| trace.calls().get(index as usize).copied())
            .find(|call| call.site.is_some_and(|(code, _)| !self.is_attacker(code)))
            .filter(|_| self.set.contains(Detector::UnhandledException));
        let chain = &*chain;
        if self.set.contains(Detector::EtherLeak) {
            found.extend(self.ether_leak(chain, moves));
        }
        if attacker && self.set.contains(Detector::UnprotectedSelfdestruct) {
            found.extend(selfdestruct(chain, moves, tx.sender));
        }
        if attacker && self.set.contains(Detector::UnsafeDelegatecall) {
            found.extend(self.unsafe_delegatecall(chain, moves, tx.sender));
        }
        if !tx.value.is_zero() && self.set.contains(Detector::LockedEther) {
            found.extend(self.locked_ether(chain, tx));
        }
        if let Some(stale) = stale {
            found.push(stale.violation(chain));
        }
        if let Some(call) = unchecked {
            found.push(unhandled(chain, &call));
        }
        found
    }

    fn is_attacker(&self, account: Address) -> bool {
        self.attackers.iter().any(|(a, _)| *a == account)
    }

    /// Notes what `tx` (successful) tells about the attackers: whom a trusted sender
    /// named (or an attacker it had named: an owner transfers ownership to one account,
    /// which hands it on to another, and both were given what they take), which addresses
    /// an attacker chose.
    fn note(&mut self, tx: &Tx, attacker: bool) {
        let hands_over = self.trusted.contains(&tx.sender) || self.named.contains(&tx.sender);
        for word in address_words(&tx.calldata) {
            if hands_over && self.is_attacker(word) && !self.named.contains(&word) {
                self.named.push(word);
            }
            if attacker && self.chosen.len() < CHOSEN_ADDRESSES && !self.chosen.contains(&word) {
                self.chosen.push(word);
            }
        }
    }

    /// A payment to an attacker no trusted sender named, after which the attackers no
    /// trusted sender named hold more ether than after setup.
    fn ether_leak(&self, chain: &Chain, moves: &Moves) -> Option<Violation> {
        let unnamed = || {
            self.attackers
                .iter()
                .filter(|(attacker, _)| !self.named.contains(attacker))
        };
        let (payer, payee, site) = unnamed().find_map(|&(attacker, _)| {
            let call = moves.payments.iter().rev().find(|c| c.target == attacker);
            let destruct = moves
                .destructs
                .iter()
                .rev()
                .find(|d| d.beneficiary == attacker && !d.value.is_zero());
            match (call, destruct) {
                (Some(call), _) => Some((call.caller, attacker, call.site)),
                (None, Some(destruct)) => Some((destruct.contract, attacker, destruct.site)),
                (None, None) => None,
            }
        })?;
        let (before, now) = unnamed().fold((U256::ZERO, U256::ZERO), |(b, n), &(a, initial)| {
            (
                b.saturating_add(initial),
                n.saturating_add(chain.balance(a)),
            )
        });
        if now <= before {
            return None;
        }
        Some(Violation::Vulnerability {
            detector: Detector::EtherLeak,
            place: site_place(chain, site, payer),
            explanation: format!(
                "{} paid {}, an untrusted sender no trusted account named: the attackers now \
                 hold {} wei more than they had after setup",
                who(chain, payer),
                who(chain, payee),
                now - before
            ),
        })
    }

    /// A DELEGATECALL or CALLCODE to an address the attackers chose in this sequence.
    fn unsafe_delegatecall(
        &self,
        chain: &Chain,
        moves: &Moves,
        sender: Address,
    ) -> Option<Violation> {
        let call = moves.delegates.iter().find(|c| {
            self.chosen.contains(&c.code)
                && (self.is_attacker(c.code) || chain.code(c.code).is_empty())
        })?;
        Some(Violation::Vulnerability {
            detector: Detector::UnsafeDelegatecall,
            place: site_place(chain, call.site, call.target),
            explanation: format!(
                "{contract} delegate-called {}, an address {} (untrusted) passed in its \
                 calldata: code there would run with {contract}'s storage and balance",
                who(chain, call.code),
                who(chain, sender),
                contract = who(chain, call.target),
            ),
        })
    }

    /// The contract `tx` paid, when its code can never send ether out (judged once per
    /// contract).
    fn locked_ether(&mut self, chain: &Chain, tx: &Tx) -> Option<Violation> {
        let can_send = *self
            .can_send
            .entry(tx.to)
            .or_insert_with(|| can_send_ether(&chain.code(tx.to)));
        if can_send {
            return None;
        }
        let place = place_of(chain, tx.to, u32::MAX);
        Some(Violation::Vulnerability {
            detector: Detector::LockedEther,
            explanation: format!(
                "{} accepted {} wei from {}, and its code has no instruction that can send \
                 ether out: what it holds is locked for good",
                who(chain, tx.to),
                tx.value,
                who(chain, tx.sender)
            ),
            place,
        })
    }
}

/// A SELFDESTRUCT in the transaction `sender` (an attacker) sent.
fn selfdestruct(chain: &Chain, moves: &Moves, sender: Address) -> Option<Violation> {
    let destruct = moves.destructs.first()?;
    Some(Violation::Vulnerability {
        detector: Detector::UnprotectedSelfdestruct,
        place: site_place(chain, destruct.site, destruct.contract),
        explanation: format!(
            "{} (untrusted) made {} self-destruct, sending its {} wei to {}",
            who(chain, sender),
            who(chain, destruct.contract),
            destruct.value,
            who(chain, destruct.beneficiary)
        ),
    })
}

/// A call that failed without its caller noticing.
fn unhandled(chain: &Chain, call: &CallRecord) -> Violation {
    let (caller, callee) = match call.kind {
        // The callee's code ran for the caller's account.
        CallKind::DelegateCall | CallKind::CallCode => (call.target, call.code),
        _ => (call.caller, call.target),
    };
    Violation::Vulnerability {
        detector: Detector::UnhandledException,
        place: site_place(chain, call.site, caller),
        explanation: format!(
            "{}'s call to {} (value {} wei) failed, and it went on without branching on the \
             call's status: the failure went unnoticed",
            who(chain, caller),
            who(chain, callee),
            call.value
        ),
    }
}

/// What the detectors read of a transaction's trace, copied out of it (most transactions
/// move no ether and delegate nothing: nothing is allocated for them).
struct Moves {
    /// Inner CALLs and CALLCODEs that sent ether.
    payments: Vec<CallRecord>,
    /// DELEGATECALLs and CALLCODEs: the callee's code runs on the caller's account.
    delegates: Vec<CallRecord>,
    destructs: Vec<SelfDestruct>,
}

impl Moves {
    fn of(trace: &Trace) -> Moves {
        let inner = || trace.calls().iter().filter(|c| c.site.is_some());
        Moves {
            payments: inner()
                .filter(|c| {
                    !c.value.is_zero() && matches!(c.kind, CallKind::Call | CallKind::CallCode)
                })
                .copied()
                .collect(),
            delegates: inner()
                .filter(|c| matches!(c.kind, CallKind::DelegateCall | CallKind::CallCode))
                .copied()
                .collect(),
            // A contract created in this transaction held nothing before it, and what
            // destroys it is its creator's code (an attacker's init code, say): no
            // contract that was there is lost.
            destructs: (trace.selfdestructs().iter())
                .filter(|d| !created_in(trace, d.contract))
                .copied()
                .collect(),
        }
    }
}

/// Whether `trace`'s transaction created `account` (its creation ended with it).
fn created_in(trace: &Trace, account: Address) -> bool {
    trace
        .calls()
        .iter()
        .any(|c| matches!(c.kind, CallKind::Create | CallKind::Create2) && c.target == account)
}

/// An account as an explanation names it: `Vault@0xC588…9611`, `0x10000`, or the attacker
/// contract as such.
fn who(chain: &Chain, account: Address) -> String {
    if account == ATTACKER_CONTRACT {
        return format!("the attacker contract {}", report::short_address(account));
    }
    report::account(account, &chain.labels())
}

/// The place of the instruction at `site`, or of `fallback`'s code when none was recorded.
fn site_place(chain: &Chain, site: Option<(Address, u32)>, fallback: Address) -> Place {
    let (code, pc) = site.unwrap_or((fallback, u32::MAX));
    place_of(chain, code, pc)
}

/// The 32-byte words of `calldata`'s arguments (after the selector) that hold an address:
/// twelve zero bytes, then twenty not all zero.
fn address_words(calldata: &[u8]) -> impl Iterator<Item = Address> + '_ {
    calldata
        .get(4..)
        .unwrap_or_default()
        .chunks_exact(32)
        .filter(|word| word[..12].iter().all(|&b| b == 0) && word[12..].iter().any(|&b| b != 0))
        .map(|word| Address::from_slice(&word[12..]))
}

/// Whether `code` has an instruction that can send ether out: CALL, CALLCODE,
/// DELEGATECALL (the callee's code may send), CREATE, CREATE2 (an endowment) or
/// SELFDESTRUCT; PUSH data is skipped.
fn can_send_ether(code: &[u8]) -> bool {
    const SENDERS: [u8; 6] = [0xf0, 0xf1, 0xf2, 0xf4, 0xf5, 0xff];
    instructions(code).any(|i| SENDERS.contains(&i.opcode))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_that_can_send_ether_is_told_by_its_instructions_not_its_push_data() {
        // PUSH1 0xf1, STOP: the CALL byte is data.
        assert!(!can_send_ether(&[0x60, 0xf1, 0x00]));
        // PUSH2 0x0000, CALL.
        assert!(can_send_ether(&[0x61, 0, 0, 0xf1]));
        assert!(can_send_ether(&[0xff]));
        assert!(can_send_ether(&[0x5b, 0xf4]));
        // A PUSH32 whose data runs past the end.
        assert!(!can_send_ether(&[0x7f, 0xf1, 0xf1]));
        assert!(!can_send_ether(&[]));
    }

    #[test]
    fn address_words_are_the_arguments_shaped_like_an_address() {
        let someone = Address::repeat_byte(0x11);
        let mut calldata = vec![0xa9, 0x05, 0x9c, 0xbb];
        calldata.extend([0u8; 12]);
        calldata.extend(someone.as_slice());
        // An amount (high bytes set) and a zero word are not addresses.
        calldata.extend(U256::MAX.to_be_bytes::<32>());
        calldata.extend([0u8; 32]);
        assert_eq!(address_words(&calldata).collect::<Vec<_>>(), [someone]);
        assert_eq!(address_words(&[1, 2]).count(), 0);
    }
}
