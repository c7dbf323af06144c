//! The transaction-order dependency detector: two consecutive transactions of different
//! senders, run the other way round from the state before the first, pay *both* senders
//! different amounts. Whoever gets in first then decides who is paid, and a front-runner
//! that sees the other transaction pending pays more gas to go first (SWC-114).
//!
//! ConFuzzius reports any two transactions of different senders where the second reads a
//! slot the first wrote; that holds for almost every pair of calls on shared state (two
//! deposits into one pool), so we take it only as the reason to look, and then run the
//! swap. Asking that both senders' receipts change keeps out orders that only decide
//! *when* one sender is paid (a buyer's purchase before or after the owner withdraws the
//! proceeds pays the owner now or later, and the buyer nothing either way) or whose
//! second transaction is refused either way round: a race for one payment (a reward, a
//! game's pot) moves it from one sender to the other. What the senders spend is not
//! counted: two buyers racing for one item pay for it in one order or the other, and get
//! the item for it. Orders that change token balances but no ether (ERC20 `approve`
//! front-run by `transferFrom`) are not reported, nor are pairs where one transaction names
//! the other's sender in its calldata: an owner transferring ownership to the account
//! whose `release()` follows decides who is paid by handing it over, not by a race.
//!
//! The swap replays the sequence up to the pair on the executor's chain, then the whole
//! sequence again to restore its state: a few transactions per check, and a pair of
//! functions is checked at most [`TRIES_PER_PAIR`] times unless it once showed a
//! dependency (so that shrinking and replays of a finding see it again).

use alloy_primitives::{Address, U256};

use super::{Moves, address_words, site_place, who};
use crate::chain::{Chain, Tx};
use crate::config::Detector;
use crate::hash::FastMap;
use crate::observe::{CallRecord, StorageOp, Trace};
use crate::outcome::Violation;

/// Swaps tried per pair of calls (sender, called account and selector, twice) that showed
/// no dependency, at most: a race needs the right state (a pot to win), which later
/// sequences reach, but a pair that never depends should not cost a replay per sequence.
pub(super) const TRIES_PER_PAIR: u32 = 32;

/// A pair of calls: the first transaction's sender, account and selector, then the
/// second's. The senders count: the attacker contract refuses `transfer`s, so its claims
/// in a race fail where an account's succeed.
type PairKey = ([Address; 2], Address, [u8; 4], Address, [u8; 4]);

/// What the last transaction of the running sequence (the one before the last of
/// `OrderWatch::ran` when the next is checked) did that the next one is checked against.
#[derive(Debug)]
struct Previous {
    /// The slots it wrote (account, slot).
    writes: Vec<(Address, U256)>,
    /// Per fuzzed sender (in `OrderWatch::senders` order), the wei it received.
    receipts: Vec<U256>,
    /// Where it paid a fuzzed sender: the instruction (or none: a selfdestruct's, or the
    /// transaction's own) and the payer.
    paid_at: Option<(Option<(Address, u32)>, Address)>,
}

/// The detector's memory: the running sequence's transactions, the last one's effects,
/// and the swaps tried per pair of functions.
#[derive(Debug, Default)]
pub(super) struct OrderWatch {
    /// The fuzzed senders: whose receipts are compared.
    senders: Vec<Address>,
    /// The running sequence's transactions that the EVM ran, in order (what a swap
    /// replays).
    ran: Vec<Tx>,
    /// The last transaction, when it succeeded.
    previous: Option<Previous>,
    /// Per pair of functions, the swaps that showed nothing (`u32::MAX`: one showed a
    /// dependency; always checked).
    tries: FastMap<PairKey, u32>,
}

/// The receipts of one transaction, and where the first payment to a sender was made.
struct Receipts {
    amounts: Vec<U256>,
    paid_at: Option<(Option<(Address, u32)>, Address)>,
}

impl OrderWatch {
    /// A watch comparing what `senders` receive.
    pub(super) fn new(senders: Vec<Address>) -> OrderWatch {
        OrderWatch {
            senders,
            ..OrderWatch::default()
        }
    }

    /// A new sequence starts from the post-setup state.
    pub(super) fn start(&mut self) {
        self.ran.clear();
        self.previous = None;
    }

    /// The transaction `tx` just ran on `chain`, with what it moved when it succeeded
    /// (`moves`; `None`: it reverted): a finding when it and the one before depend on
    /// their order. Leaves `chain` in the state after `tx` (replaying the sequence when it
    /// swapped), but its last trace may then be the replay's: callers read the trace
    /// before.
    pub(super) fn check(
        &mut self,
        chain: &mut Chain,
        tx: &Tx,
        moves: Option<&Moves>,
    ) -> Option<Violation> {
        self.ran.push(tx.clone());
        let trace = chain.last_trace();
        let receipts = match moves {
            Some(moves) => self.receipts(trace, moves),
            None => self.nothing_received(),
        };
        // Replaced below whatever happens: taken, not copied, for the swap.
        let previous = self.previous.take();
        let pair = previous
            .as_ref()
            .and_then(|first| Some((first, self.candidate(trace, first, tx, &receipts)?)));
        let finding = pair.and_then(|(first, key)| self.swap(chain, first, tx, &receipts, key));
        self.previous = moves.is_some().then(|| Previous {
            writes: writes(chain.last_trace()),
            receipts: receipts.amounts,
            paid_at: receipts.paid_at,
        });
        finding
    }

    /// The transaction the sequence ran before the last one.
    fn first_of_pair(&self) -> &Tx {
        &self.ran[self.ran.len() - 2]
    }

    /// The pair of the transaction before `tx` (which did what `first` says) and `tx`,
    /// when the two are worth swapping: other senders, neither naming the other, `tx`
    /// read a slot the first wrote, a sender was paid, and the pair has tries left.
    fn candidate(
        &self,
        trace: &Trace,
        first: &Previous,
        tx: &Tx,
        receipts: &Receipts,
    ) -> Option<PairKey> {
        let first_tx = self.first_of_pair();
        // One naming the other's sender hands something over (ownership, an allowance, a
        // payee): who is paid then follows from what was handed over, not from a race.
        let names = |a: &Tx, b: &Tx| address_words(&a.calldata).any(|word| word == b.sender);
        if first_tx.sender == tx.sender || names(first_tx, tx) || names(tx, first_tx) {
            return None;
        }
        let paid = |amounts: &[U256]| amounts.iter().any(|a| !a.is_zero());
        if !paid(&first.receipts) && !paid(&receipts.amounts) {
            return None;
        }
        let reads_a_write = trace.storage().iter().any(|access| {
            access.op == StorageOp::Load && first.writes.contains(&(access.address, access.slot))
        });
        if !reads_a_write {
            return None;
        }
        let key = (
            [first_tx.sender, tx.sender],
            first_tx.to,
            selector(first_tx),
            tx.to,
            selector(tx),
        );
        let tries = self.tries.get(&key).copied().unwrap_or(0);
        (tries < TRIES_PER_PAIR || tries == u32::MAX).then_some(key)
    }

    /// Runs `second` then `first` from the state before `first`, compares both senders'
    /// receipts with the order the sequence ran, and restores the state after `second`.
    fn swap(
        &mut self,
        chain: &mut Chain,
        first: &Previous,
        second: &Tx,
        receipts: &Receipts,
        key: PairKey,
    ) -> Option<Violation> {
        let prefix = self.ran.len() - 2;
        chain.reset();
        for tx in &self.ran[..prefix] {
            let _ = chain.execute(tx);
        }
        let first_tx = self.first_of_pair();
        let second_first = self.run(chain, second);
        let first_second = self.run(chain, first_tx);
        chain.reset();
        for tx in &self.ran {
            let _ = chain.execute(tx);
        }
        let first_sender = first_tx.sender;
        let index = |account: Address| self.senders.iter().position(|s| *s == account);
        let (a, b) = (index(first_sender)?, index(second.sender)?);
        let ran = |i: usize| first.receipts[i] + receipts.amounts[i];
        let swapped = |i: usize| second_first[i] + first_second[i];
        let tries = self.tries.entry(key).or_insert(0);
        if ran(a) == swapped(a) || ran(b) == swapped(b) {
            *tries = tries.saturating_add(1).min(u32::MAX - 1);
            return None;
        }
        *tries = u32::MAX;
        let (site, payer) = receipts.paid_at.or(first.paid_at)?;
        let (first_sender, second_sender) = (who(chain, first_sender), who(chain, second.sender));
        Some(Violation::Vulnerability {
            detector: Detector::TransactionOrder,
            place: site_place(chain, site, payer),
            explanation: format!(
                "{first_sender}'s transaction, then {second_sender}'s, paid them {} and {} \
                 wei; the other way round, {} and {}: whichever is mined first decides who \
                 is paid, and whoever sees the other pending can go first",
                ran(a),
                ran(b),
                swapped(a),
                swapped(b),
            ),
        })
    }

    /// What each sender received from `tx` run on `chain` now (nothing when the EVM
    /// refuses it or it reverts).
    fn run(&self, chain: &mut Chain, tx: &Tx) -> Vec<U256> {
        match chain.execute(tx) {
            Ok(outcome) if outcome.is_success() => {
                let trace = chain.last_trace();
                self.receipts(trace, &Moves::of(trace)).amounts
            }
            _ => self.nothing_received().amounts,
        }
    }

    /// No sender received anything.
    fn nothing_received(&self) -> Receipts {
        Receipts {
            amounts: vec![U256::ZERO; self.senders.len()],
            paid_at: None,
        }
    }

    /// The wei each sender received in a successful transaction's `trace`, which moved
    /// `moves`: payments that did not revert, nor did any frame around them; and
    /// selfdestructs that named it.
    fn receipts(&self, trace: &Trace, moves: &Moves) -> Receipts {
        let mut received = self.nothing_received();
        let calls = trace.calls();
        let settled = |call: &CallRecord| {
            let mut frame = Some(call);
            while let Some(call) = frame {
                if !call.succeeded {
                    return false;
                }
                frame = call.parent.and_then(|parent| calls.get(parent as usize));
            }
            true
        };
        let mut pay = |to: Address, value: U256, at: Option<(Address, u32)>, payer: Address| {
            if let Some(i) = self.senders.iter().position(|s| *s == to) {
                received.amounts[i] += value;
                received.paid_at.get_or_insert((at, payer));
            }
        };
        for call in moves.payments.iter().filter(|call| settled(call)) {
            pay(call.target, call.value, call.site, call.caller);
        }
        for destruct in &moves.destructs {
            pay(
                destruct.beneficiary,
                destruct.value,
                destruct.site,
                destruct.contract,
            );
        }
        received
    }
}

/// The slots a successful transaction's `trace` wrote.
fn writes(trace: &Trace) -> Vec<(Address, U256)> {
    let mut slots: Vec<(Address, U256)> = Vec::new();
    for access in trace.storage() {
        let slot = (access.address, access.slot);
        if access.op == StorageOp::Store && !slots.contains(&slot) {
            slots.push(slot);
        }
    }
    slots
}

/// The selector `tx` calls (zeros for a call without one: `receive` or `fallback`).
fn selector(tx: &Tx) -> [u8; 4] {
    tx.calldata
        .get(..4)
        .and_then(|s| s.try_into().ok())
        .unwrap_or_default()
}
