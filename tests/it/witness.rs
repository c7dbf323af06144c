//! Witnesses for the planted bugs in `contracts/bugs/`: each bug is reached by direct calls
//! (so a campaign that finds it only has to find those calls), and every other path is
//! shown to behave, so the bug is the only thing a campaign can report. `Bank` is correct
//! and its invariants hold along a scripted run.

use std::collections::HashMap;

use alloy_dyn_abi::DynSolValue;
use harvey::chain::{PanicCode, RevertReason, TxOutcome, TxStatus};
use harvey::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::support::{deployed, send, uint};

/// The key `TwoStep.arm` compares against.
const MAGIC: u64 = 0xC0FFEE;

/// A fresh chain with contract `name` deployed (no constructor arguments).
struct Deployed {
    chain: Chain,
    at: Address,
}

impl Deployed {
    fn new(name: &str) -> Deployed {
        let (chain, at) = deployed(name);
        Deployed { chain, at }
    }

    /// Default sender number `i`.
    fn sender(&self, i: usize) -> Address {
        self.chain.senders()[i]
    }

    /// Calls `signature` from `from` with no ether, committing; the outcome is returned
    /// whether or not the call reverted.
    fn send(&mut self, from: Address, signature: &str, args: &[DynSolValue]) -> TxOutcome {
        self.send_value(from, U256::ZERO, signature, args)
    }

    /// [`Deployed::send`] with `value` wei attached.
    fn send_value(
        &mut self,
        from: Address,
        value: U256,
        signature: &str,
        args: &[DynSolValue],
    ) -> TxOutcome {
        send(&mut self.chain, from, self.at, signature, args, value)
    }

    /// Reads a view function with arguments `args` (a tuple).
    fn read<T: harvey::chain::SolReturns>(
        &self,
        signature: &str,
        args: impl harvey::chain::SolArgs,
    ) -> T {
        self.chain
            .view(self.at, signature, args)
            .unwrap_or_else(|e| panic!("viewing {signature}: {e}"))
    }
}

fn assert_success(outcome: &TxOutcome, what: &str) {
    assert!(outcome.is_success(), "{what}: {}", outcome.status);
}

/// Asserts that `outcome` is a Solidity `Panic(code)` and returns the named code.
fn assert_panic(outcome: &TxOutcome, code: u64) -> PanicCode {
    match outcome.status {
        TxStatus::Revert(RevertReason::Panic(found)) => {
            assert_eq!(found.code(), U256::from(code), "wrong Panic: {found}");
            found
        }
        ref other => panic!("expected Panic(0x{code:02x}), got: {other}"),
    }
}

// ------------------------------------------------------------------ TwoStep

/// Runs `calls` (signature, argument) on a fresh `TwoStep` from the first sender, all of
/// which must succeed, then `fire()`.
fn fire_after(calls: &[(&str, Option<u64>)]) -> TxOutcome {
    let mut two = Deployed::new("TwoStep");
    let a = two.sender(0);
    for &(signature, arg) in calls {
        let args: Vec<DynSolValue> = arg.into_iter().map(uint).collect();
        let outcome = two.send(a, signature, &args);
        assert_success(&outcome, signature);
    }
    two.send(a, "fire()", &[])
}

#[test]
fn two_step_fires_an_assert_panic_after_arming_with_the_magic_key() {
    let outcome = fire_after(&[("arm(uint256)", Some(MAGIC))]);
    let code = assert_panic(&outcome, 0x01);
    assert_eq!(code, PanicCode::Assert);
    assert!(outcome.revert_reason().is_some_and(RevertReason::is_assert));
}

#[test]
fn two_step_fires_cleanly_unless_armed_with_the_magic_key() {
    let unarmed: &[&[(&str, Option<u64>)]] = &[
        &[],
        &[("arm(uint256)", Some(0))],
        &[("arm(uint256)", Some(MAGIC - 1))],
        &[("arm(uint256)", Some(MAGIC + 1))],
        &[("arm(uint256)", Some(MAGIC)), ("disarm()", None)],
        &[("fire()", None), ("disarm()", None)],
    ];
    for calls in unarmed {
        assert_success(&fire_after(calls), &format!("fire() after {calls:?}"));
    }
}

#[test]
fn two_step_counts_only_shots_that_did_not_revert() {
    let mut two = Deployed::new("TwoStep");
    let a = two.sender(0);
    assert_success(&two.send(a, "fire()", &[]), "fire()");
    assert_success(&two.send(a, "arm(uint256)", &[uint(MAGIC)]), "arm");
    assert!(two.read::<bool>("armed()", ()));
    assert_panic(&two.send(a, "fire()", &[]), 0x01);
    assert_eq!(two.read::<U256>("shots()", ()), U256::from(1));
}

// ------------------------------------------------------------------ Seats

/// The invariant `Seats` should keep: the first seat is the founder's, or empty.
fn seats_invariant(seats: &Deployed) -> bool {
    let first: Address = seats.read("first()", ());
    first == seats.read::<Address>("founder()", ()) || first == Address::ZERO
}

/// Runs `(sender index, signature)` calls on a fresh `Seats`, checking that every call
/// succeeds; returns the contract and whether the invariant held after every call.
fn run_seats(calls: &[(usize, &str)]) -> (Deployed, bool) {
    let mut seats = Deployed::new("Seats");
    let mut held = true;
    for &(who, signature) in calls {
        let sender = seats.sender(who);
        assert_success(&seats.send(sender, signature, &[]), signature);
        held &= seats_invariant(&seats);
    }
    (seats, held)
}

#[test]
fn seats_second_taker_promotes_themselves_past_the_founder() {
    let (seats, held) = run_seats(&[(0, "take()"), (1, "take()"), (1, "promote()")]);
    assert!(!held);
    let (a, b) = (seats.sender(0), seats.sender(1));
    assert_eq!(seats.read::<Address>("founder()", ()), a);
    assert_eq!(seats.read::<Address>("first()", ()), b);
    assert!(!seats_invariant(&seats));
}

#[test]
fn seats_founder_promoting_keeps_the_invariant() {
    let (seats, held) = run_seats(&[(0, "take()"), (1, "take()"), (0, "promote()")]);
    assert!(held);
    assert_eq!(seats.read::<Address>("first()", ()), seats.sender(0));
}

/// Every sequence of `len` calls drawn from `alphabet`.
fn sequences<T: Copy>(alphabet: &[T], len: usize) -> Vec<Vec<T>> {
    (0..len).fold(vec![Vec::new()], |prefixes, _| {
        prefixes
            .iter()
            .flat_map(|prefix| {
                alphabet.iter().map(move |&item| {
                    let mut longer = prefix.clone();
                    longer.push(item);
                    longer
                })
            })
            .collect()
    })
}

#[test]
fn seats_cannot_be_broken_by_a_single_sender() {
    let calls = [(0, "take()"), (0, "leave()"), (0, "promote()")];
    for sequence in sequences(&calls, 4) {
        assert!(run_seats(&sequence).1, "broken by {sequence:?}");
    }
}

#[test]
fn seats_needs_at_least_three_calls_from_two_senders() {
    let calls: Vec<(usize, &str)> = [0, 1]
        .into_iter()
        .flat_map(|who| [(who, "take()"), (who, "leave()"), (who, "promote()")])
        .collect();
    for sequence in sequences(&calls, 2) {
        assert!(run_seats(&sequence).1, "broken by {sequence:?}");
    }
}

// ------------------------------------------------------------------ Rewards

/// A `Rewards` call.
#[derive(Debug, Clone, Copy)]
enum Reward {
    Earn(u8),
    Spend(U256),
}

impl Reward {
    fn send(self, rewards: &mut Deployed, from: Address) -> TxOutcome {
        match self {
            Reward::Earn(amount) => rewards.send(
                from,
                "earn(uint8)",
                &[DynSolValue::Uint(U256::from(amount), 8)],
            ),
            Reward::Spend(amount) => {
                rewards.send(from, "spend(uint256)", &[DynSolValue::from(amount)])
            }
        }
    }
}

#[test]
fn rewards_spending_anothers_points_wraps_and_the_next_earn_overflows() {
    let mut rewards = Deployed::new("Rewards");
    let (a, b) = (rewards.sender(0), rewards.sender(1));
    assert_success(&Reward::Earn(10).send(&mut rewards, a), "earn by A");
    assert_success(
        &Reward::Spend(U256::from(5)).send(&mut rewards, b),
        "spend by B",
    );
    let wrapped = U256::ZERO.wrapping_sub(U256::from(5));
    assert_eq!(rewards.read::<U256>("points(address)", (b,)), wrapped);
    let code = assert_panic(&Reward::Earn(5).send(&mut rewards, b), 0x11);
    assert_eq!(code, PanicCode::ArithmeticOverflow);
}

#[test]
fn rewards_calls_other_than_that_overflow_never_revert() {
    use Reward::*;
    let mut rewards = Deployed::new("Rewards");
    let (a, b) = (rewards.sender(0), rewards.sender(1));
    let calls = [
        (a, Spend(U256::ZERO)),
        (a, Spend(U256::MAX)),
        (a, Earn(0)),
        (a, Earn(u8::MAX)),
        (a, Spend(U256::from(256))),
        (a, Spend(U256::from(255))),
        (b, Earn(7)),
        (b, Spend(U256::MAX)),
        (b, Spend(U256::from(8))),
        (b, Spend(U256::from(7))),
        (a, Earn(1)),
        (b, Spend(U256::from(1))),
    ];
    for (from, call) in calls {
        assert_success(&call.send(&mut rewards, from), &format!("{call:?}"));
    }
    assert_eq!(rewards.read::<U256>("total()", ()), U256::ZERO);
}

/// Random calls against a model of `Rewards`: each call succeeds, except an `earn` that
/// overflows the sender's (possibly wrapped) points, which panics with 0x11.
#[test]
fn rewards_reverts_exactly_when_earn_overflows() {
    let mut rewards = Deployed::new("Rewards");
    let senders: Vec<Address> = rewards.chain.senders().to_vec();
    let mut points: HashMap<Address, U256> = HashMap::new();
    let mut total = U256::ZERO;
    let mut overflows = 0;
    let mut rng = StdRng::seed_from_u64(7);
    for _ in 0..300 {
        let from = senders[rng.random_range(0..senders.len())];
        let call = if rng.random_bool(0.5) {
            Reward::Earn(rng.random())
        } else {
            Reward::Spend(match rng.random_range(0..4) {
                0 => U256::ZERO,
                1 => U256::MAX,
                _ => U256::from(rng.random_range(0..=300u64)),
            })
        };
        let outcome = call.send(&mut rewards, from);
        let mine = points.entry(from).or_default();
        match call {
            Reward::Earn(amount) => match mine.checked_add(U256::from(amount)) {
                Some(sum) => {
                    assert_success(&outcome, &format!("{call:?}"));
                    *mine = sum;
                    total += U256::from(amount);
                }
                None => {
                    assert_panic(&outcome, 0x11);
                    overflows += 1;
                }
            },
            Reward::Spend(amount) => {
                assert_success(&outcome, &format!("{call:?}"));
                if !amount.is_zero() && amount <= total {
                    *mine = mine.wrapping_sub(amount);
                    total -= amount;
                }
            }
        }
        assert_eq!(rewards.read::<U256>("total()", ()), total);
        assert_eq!(rewards.read::<U256>("points(address)", (from,)), *mine);
    }
    assert!(overflows > 0, "the random run never reached the overflow");
}

// ------------------------------------------------------------------ Bank

/// What the script does, from sender `from` (an index into the senders).
#[derive(Debug, Clone, Copy)]
enum BankCall {
    Deposit { from: usize, wei: u64 },
    Withdraw { from: usize, wei: u64 },
    Transfer { from: usize, to: usize, wei: u64 },
}

/// Panics unless the sender balances add up to `total()` and the bank holds exactly
/// `total()` wei.
fn assert_bank_invariants(bank: &Deployed, after: &str) {
    let total: U256 = bank.read("total()", ());
    let sum = bank
        .chain
        .senders()
        .iter()
        .map(|&s| bank.read::<U256>("balanceOf(address)", (s,)))
        .fold(U256::ZERO, |acc, x| acc + x);
    assert_eq!(sum, total, "sum of balances != total() after {after}");
    assert_eq!(
        bank.chain.balance(bank.at),
        total,
        "ether held != total() after {after}"
    );
}

#[test]
fn bank_balances_add_up_after_every_call() {
    use BankCall::*;
    let script = [
        Deposit { from: 0, wei: 100 },
        Deposit { from: 1, wei: 50 },
        Deposit { from: 0, wei: 0 },
        Transfer {
            from: 0,
            to: 1,
            wei: 30,
        },
        Transfer {
            from: 1,
            to: 1,
            wei: 80,
        },
        Transfer {
            from: 1,
            to: 2,
            wei: 81,
        },
        Transfer {
            from: 2,
            to: 0,
            wei: 1,
        },
        Withdraw { from: 0, wei: 71 },
        Withdraw { from: 0, wei: 70 },
        Withdraw { from: 2, wei: 5 },
        Deposit { from: 2, wei: 5 },
        Transfer {
            from: 2,
            to: 2,
            wei: 5,
        },
        Withdraw { from: 1, wei: 80 },
        Withdraw { from: 2, wei: 5 },
        Transfer {
            from: 0,
            to: 2,
            wei: 0,
        },
        Withdraw { from: 1, wei: 0 },
    ];
    let mut bank = Deployed::new("Bank");
    assert_bank_invariants(&bank, "deployment");
    for call in script {
        let outcome = match call {
            Deposit { from, wei } => {
                let sender = bank.sender(from);
                bank.send_value(sender, U256::from(wei), "deposit()", &[])
            }
            Withdraw { from, wei } => {
                let sender = bank.sender(from);
                bank.send(sender, "withdraw(uint256)", &[uint(wei)])
            }
            Transfer { from, to, wei } => {
                let (sender, to) = (bank.sender(from), bank.sender(to));
                bank.send(
                    sender,
                    "transfer(address,uint256)",
                    &[DynSolValue::from(to), uint(wei)],
                )
            }
        };
        let what = format!("{call:?}");
        assert_success(&outcome, &what);
        assert_bank_invariants(&bank, &what);
    }
    assert_eq!(bank.read::<U256>("total()", ()), U256::ZERO);
}
