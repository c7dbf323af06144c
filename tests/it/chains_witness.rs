//! Witnesses for the hard multi-transaction bugs of issue 15 (`contracts/chains/`): chains of
//! state-dependent exact equalities, and address arguments coupled to other transactions'
//! senders with amounts bounded by storage. Each is reached by direct calls, and only by
//! the sequence its comment describes. The campaigns that find them are in `chains`.

use alloy_dyn_abi::DynSolValue;
use harvey::prelude::*;

use crate::support::{assert_assert, chain, send, send_uint};

/// Sends `step(x)` for each of `xs` from the first sender; all but the last must succeed,
/// the last must fail the planted assertion.
fn chain_of_steps(contract: &str, xs: &[u64]) {
    let mut chain = chain();
    let at = chain.deploy(contract, ()).unwrap();
    let a = chain.senders()[0];
    let (last, rest) = xs.split_last().unwrap();
    for &x in rest {
        assert!(
            send_uint(&mut chain, a, at, "step(uint256)", x).is_success(),
            "{contract}: {x}"
        );
    }
    assert_assert(&send_uint(&mut chain, a, at, "step(uint256)", *last));
}

#[test]
fn a_linear_recurrence_asserts_on_its_fifth_step_and_a_wrong_step_resets_it() {
    let mut xs = vec![];
    let mut x = 11u64;
    for _ in 0..5 {
        x = 3 * x + 7;
        xs.push(x);
    }
    assert_eq!(xs, [40, 127, 388, 1171, 3520]);
    chain_of_steps("LinearChain", &xs);
    // A wrong step in between starts the chain over: the fifth right value passes.
    let mut chain = chain();
    let at = chain.deploy("LinearChain", ()).unwrap();
    let a = chain.senders()[0];
    for x in [40, 127, 5, 40, 127, 388, 1171] {
        assert!(send_uint(&mut chain, a, at, "step(uint256)", x).is_success());
    }
    let stage: U256 = chain.view(at, "stage()", ()).unwrap();
    assert_eq!(stage, U256::from(4));
}

#[test]
fn a_xor_recurrence_asserts_on_its_third_step() {
    let mut xs = vec![];
    let mut last = 0xfeedu64;
    for stage in 0..3 {
        last = (last ^ 0x5eed) + stage;
        xs.push(last);
    }
    chain_of_steps("XorChain", &xs);
}

#[test]
fn a_fibonacci_chain_needs_a_check_before_each_of_eight_steps() {
    let mut chain = chain();
    let at = chain.deploy("FibonacciChain", ()).unwrap();
    let a = chain.senders()[0];
    let (mut x, mut y) = (1u64, 2u64);
    for stage in 1..=8 {
        let next = x + y;
        assert!(send_uint(&mut chain, a, at, "check(uint256)", next).is_success());
        let outcome = send_uint(&mut chain, a, at, "step(uint256)", next);
        if stage < 8 {
            assert!(outcome.is_success(), "step {stage}");
        } else {
            assert_assert(&outcome);
        }
        (x, y) = (y, next);
    }
    // Without the check, the right value resets the chain.
    let mut chain = crate::support::chain();
    let at = chain.deploy("FibonacciChain", ()).unwrap();
    assert!(send_uint(&mut chain, a, at, "step(uint256)", 3).is_success());
    let stage: U256 = chain.view(at, "stage()", ()).unwrap();
    assert_eq!(stage, U256::ZERO);
}

#[test]
fn a_spender_using_up_a_whole_allowance_of_another_sender_asserts() {
    let mut chain = chain();
    let token = chain.deploy("AllowanceToken", ()).unwrap();
    let [owner, spender, receiver] = [chain.senders()[0], chain.senders()[1], chain.senders()[2]];
    assert!(send_uint(&mut chain, owner, token, "mint(uint256)", 5_000).is_success());
    let approve = [
        DynSolValue::Address(spender),
        DynSolValue::from(U256::from(3_000)),
    ];
    assert!(
        send(
            &mut chain,
            owner,
            token,
            "approve(address,uint256)",
            &approve,
            U256::ZERO
        )
        .is_success()
    );
    let transfer = |amount: u64| {
        vec![
            DynSolValue::Address(owner),
            DynSolValue::Address(receiver),
            DynSolValue::from(U256::from(amount)),
        ]
    };
    let signature = "transferFrom(address,address,uint256)";
    // Another sender than the spender, or more than allowed: reverted.
    assert!(
        !send(
            &mut chain,
            receiver,
            token,
            signature,
            &transfer(3_000),
            U256::ZERO
        )
        .is_success()
    );
    assert!(
        !send(
            &mut chain,
            spender,
            token,
            signature,
            &transfer(3_001),
            U256::ZERO
        )
        .is_success()
    );
    // Part of it is fine; the rest, exactly, is the bug.
    assert!(
        send(
            &mut chain,
            spender,
            token,
            signature,
            &transfer(1_000),
            U256::ZERO
        )
        .is_success()
    );
    assert_assert(&send(
        &mut chain,
        spender,
        token,
        signature,
        &transfer(2_000),
        U256::ZERO,
    ));
}

#[test]
fn a_spender_using_up_an_allowance_in_a_second_instalment_to_a_third_party_asserts() {
    let mut chain = chain();
    let token = chain.deploy("InstalmentToken", ()).unwrap();
    let [owner, spender, payee] = [chain.senders()[0], chain.senders()[1], chain.senders()[2]];
    let approve = |chain: &mut Chain, amount: u64| {
        let args = [
            DynSolValue::Address(spender),
            DynSolValue::from(U256::from(amount)),
        ];
        let signature = "approve(address,uint256)";
        assert!(send(chain, owner, token, signature, &args, U256::ZERO).is_success());
    };
    let transfer = |chain: &mut Chain, from: Address, to: Address, amount: u64| {
        let args = [
            DynSolValue::Address(owner),
            DynSolValue::Address(to),
            DynSolValue::from(U256::from(amount)),
        ];
        let signature = "transferFrom(address,address,uint256)";
        send(chain, from, token, signature, &args, U256::ZERO)
    };
    assert!(send_uint(&mut chain, owner, token, "mint(uint256)", 20_000).is_success());
    // The whole allowance at once is one instalment: no bug.
    approve(&mut chain, 3_000);
    assert!(transfer(&mut chain, spender, payee, 3_000).is_success());
    // Two instalments with an approval between them: the count starts over.
    approve(&mut chain, 3_000);
    assert!(transfer(&mut chain, spender, payee, 1_000).is_success());
    approve(&mut chain, 2_000);
    assert!(transfer(&mut chain, spender, payee, 2_000).is_success());
    // The rest of a second instalment, exactly, to the spender itself: not a third party.
    approve(&mut chain, 3_000);
    assert!(transfer(&mut chain, spender, payee, 1_000).is_success());
    assert!(transfer(&mut chain, spender, spender, 2_000).is_success());
    approve(&mut chain, 3_000);
    assert!(transfer(&mut chain, spender, payee, 1_000).is_success());
    // Over what is left, nothing, or the payee acting without an allowance: reverted.
    assert!(!transfer(&mut chain, spender, payee, 2_001).is_success());
    assert!(!transfer(&mut chain, spender, payee, 0).is_success());
    assert!(!transfer(&mut chain, payee, payee, 2_000).is_success());
    // The rest, exactly, to the third party: the bug.
    assert_assert(&transfer(&mut chain, spender, payee, 2_000));
}

#[test]
fn a_delegate_voting_a_voters_whole_weight_for_its_proposal_asserts() {
    let mut chain = chain();
    let at = chain.deploy("Delegation", ()).unwrap();
    let [voter, delegate, stranger] = [chain.senders()[0], chain.senders()[1], chain.senders()[2]];
    let register = [
        DynSolValue::from(U256::from(7)),
        DynSolValue::from(U256::from(50)),
    ];
    assert!(
        send(
            &mut chain,
            voter,
            at,
            "register(uint256,uint256)",
            &register,
            U256::ZERO
        )
        .is_success()
    );
    assert!(
        send(
            &mut chain,
            voter,
            at,
            "delegate(address)",
            &[DynSolValue::Address(delegate)],
            U256::ZERO
        )
        .is_success()
    );
    let vote = |proposal: u64, w: u64| {
        vec![
            DynSolValue::Address(voter),
            DynSolValue::from(U256::from(proposal)),
            DynSolValue::from(U256::from(w)),
        ]
    };
    let signature = "voteFor(address,uint256,uint256)";
    assert!(
        !send(
            &mut chain,
            stranger,
            at,
            signature,
            &vote(7, 50),
            U256::ZERO
        )
        .is_success()
    );
    assert!(
        send(
            &mut chain,
            delegate,
            at,
            signature,
            &vote(7, 49),
            U256::ZERO
        )
        .is_success()
    );
    assert!(
        send(
            &mut chain,
            delegate,
            at,
            signature,
            &vote(8, 50),
            U256::ZERO
        )
        .is_success()
    );
    assert_assert(&send(
        &mut chain,
        delegate,
        at,
        signature,
        &vote(7, 50),
        U256::ZERO,
    ));
}

#[test]
fn a_ladder_of_hashed_keys_asserts_on_its_fourth_step() {
    let mut chain = chain();
    let at = chain.deploy("Ladder", ()).unwrap();
    let a = chain.senders()[0];
    let climb = |chain: &mut Chain, k: U256, amount: U256| {
        let args = [DynSolValue::from(k), DynSolValue::from(amount)];
        send(chain, a, at, "climb(uint256,uint256)", &args, U256::ZERO)
    };
    for stage in 0..4u64 {
        let key: U256 = chain.view(at, "key()", ()).unwrap();
        let stored: U256 = chain.view(at, "rung(uint256)", (key,)).unwrap();
        let amount = stored + U256::from(stage);
        if stage == 1 {
            // The right key with a wrong amount starts over.
            assert!(climb(&mut chain, key, amount + U256::from(1)).is_success());
            let reset: U256 = chain.view(at, "stage()", ()).unwrap();
            assert_eq!(reset, U256::ZERO);
            return a_ladder_climbed_without_a_slip(chain, at, a);
        }
        assert!(climb(&mut chain, key, amount).is_success(), "step {stage}");
    }
}

/// Climbs the ladder from its start in four right steps; the fourth asserts.
fn a_ladder_climbed_without_a_slip(mut chain: Chain, at: Address, a: Address) {
    for stage in 0..4u64 {
        let key: U256 = chain.view(at, "key()", ()).unwrap();
        let stored: U256 = chain.view(at, "rung(uint256)", (key,)).unwrap();
        let args = [
            DynSolValue::from(key),
            DynSolValue::from(stored + U256::from(stage)),
        ];
        let outcome = send(
            &mut chain,
            a,
            at,
            "climb(uint256,uint256)",
            &args,
            U256::ZERO,
        );
        if stage < 3 {
            assert!(outcome.is_success(), "step {stage}");
        } else {
            assert_assert(&outcome);
        }
    }
}

#[test]
fn a_relayer_paying_a_third_party_a_whole_deposit_asserts() {
    let mut chain = chain();
    let at = chain.deploy("EscrowRelay", ()).unwrap();
    let [owner, relayer, payee] = [chain.senders()[0], chain.senders()[1], chain.senders()[2]];
    let deposit = 5_000_000u64;
    assert!(send_uint(&mut chain, owner, at, "deposit(uint256)", deposit).is_success());
    let authorise = [DynSolValue::Address(relayer)];
    assert!(
        send(
            &mut chain,
            owner,
            at,
            "authorise(address)",
            &authorise,
            U256::ZERO
        )
        .is_success()
    );
    let relay = |to: Address, amount: u64| {
        vec![
            DynSolValue::Address(owner),
            DynSolValue::Address(to),
            DynSolValue::from(U256::from(amount)),
        ]
    };
    let signature = "relay(address,address,uint256)";
    // Not the relayer, or more than the deposit: reverted; to the relayer itself: no bug.
    assert!(
        !send(
            &mut chain,
            payee,
            at,
            signature,
            &relay(payee, deposit),
            U256::ZERO
        )
        .is_success()
    );
    assert!(
        !send(
            &mut chain,
            relayer,
            at,
            signature,
            &relay(payee, deposit + 1),
            U256::ZERO
        )
        .is_success()
    );
    assert!(
        send(
            &mut chain,
            relayer,
            at,
            signature,
            &relay(relayer, 1),
            U256::ZERO
        )
        .is_success()
    );
    // The rest of the deposit, whole, to the third party.
    assert_assert(&send(
        &mut chain,
        relayer,
        at,
        signature,
        &relay(payee, deposit - 1),
        U256::ZERO,
    ));
}
