//! Witnesses for the vulnerabilities planted for the detectors (`contracts/detectors/`,
//! issue 16): each is reachable by direct calls from an untrusted sender, and its corrected
//! twin refuses the same calls.

use harvey::chain::{Chain, TxOptions};
use harvey::prelude::*;

use crate::support::{ETHER, chain, ether, send, uint};

/// `name` deployed by the deployer with `value` wei, and an untrusted sender.
fn funded(name: &str, value: U256) -> (Chain, Address, Address) {
    let mut chain = chain();
    let options = TxOptions {
        sender: None,
        value,
    };
    let at = chain.deploy_with(name, (), options).unwrap();
    let attacker = chain.senders()[1];
    (chain, at, attacker)
}

#[test]
fn anyone_withdraws_from_the_leaky_vault_and_no_one_from_the_safe_one() {
    let (mut chain, at, attacker) = funded("LeakyVault", ether(1));
    let before = chain.balance(attacker);
    let out = send(
        &mut chain,
        attacker,
        at,
        "withdraw(uint256)",
        &[DynSolValue::Uint(ether(1), 256)],
        U256::ZERO,
    );
    assert!(out.is_success(), "{out:?}");
    assert_eq!(chain.balance(attacker), before + ether(1));
    let (mut chain, at, attacker) = funded("SafeVault", ether(1));
    let out = send(
        &mut chain,
        attacker,
        at,
        "withdraw(uint256)",
        &[uint(1)],
        U256::ZERO,
    );
    assert!(!out.is_success());
}

#[test]
fn wrapped_ether_handed_to_another_sender_is_withdrawn_by_it() {
    let (mut chain, at, b) = funded("WrappedEther", U256::ZERO);
    // Two accounts (the third sender, the attacker contract, refuses `transfer`s).
    let a = chain.senders()[0];
    assert!(send(&mut chain, a, at, "deposit()", &[], U256::from(500)).is_success());
    let to_b = [DynSolValue::Address(b), uint(500)];
    assert!(
        send(
            &mut chain,
            a,
            at,
            "transfer(address,uint256)",
            &to_b,
            U256::ZERO
        )
        .is_success()
    );
    let before = chain.balance(b);
    assert!(
        send(
            &mut chain,
            b,
            at,
            "withdraw(uint256)",
            &[uint(500)],
            U256::ZERO
        )
        .is_success()
    );
    assert_eq!(chain.balance(b), before + U256::from(500));
}

#[test]
fn anyone_closes_the_closable_and_only_the_owner_the_owned_one() {
    let (mut chain, at, attacker) = funded("Closable", ether(2));
    let before = chain.balance(attacker);
    assert!(send(&mut chain, attacker, at, "close()", &[], U256::ZERO).is_success());
    assert_eq!(chain.balance(attacker), before + ether(2));
    let (mut chain, at, attacker) = funded("OwnedClosable", ether(2));
    assert!(!send(&mut chain, attacker, at, "close()", &[], U256::ZERO).is_success());
    let owner = chain.deployer();
    assert!(send(&mut chain, owner, at, "close()", &[], U256::ZERO).is_success());
}

#[test]
fn the_open_forwarder_delegates_to_any_address_and_the_upgradeable_to_any_set_one() {
    let (mut chain, at, attacker) = funded("OpenForwarder", U256::ZERO);
    let anywhere = Address::repeat_byte(0x5a);
    let args = [
        DynSolValue::Address(anywhere),
        DynSolValue::Bytes(vec![1, 2, 3, 4]),
    ];
    assert!(
        send(
            &mut chain,
            attacker,
            at,
            "forward(address,bytes)",
            &args,
            U256::ZERO
        )
        .is_success()
    );

    let mut chain = crate::support::chain();
    let counter = chain.deploy("CallCounter", ()).unwrap();
    let open = chain.deploy("OpenUpgradeable", (counter,)).unwrap();
    let attacker = chain.senders()[1];
    assert!(send(&mut chain, attacker, open, "run()", &[], U256::ZERO).is_success());
    let next = [DynSolValue::Address(anywhere)];
    assert!(
        send(
            &mut chain,
            attacker,
            open,
            "upgrade(address)",
            &next,
            U256::ZERO
        )
        .is_success()
    );
    assert!(send(&mut chain, attacker, open, "run()", &[], U256::ZERO).is_success());
    let implementation: Address = chain.view(open, "implementation()", ()).unwrap();
    assert_eq!(implementation, anywhere);

    let owned = chain.deploy("OwnedUpgradeable", (counter,)).unwrap();
    assert!(
        !send(
            &mut chain,
            attacker,
            owned,
            "upgrade(address)",
            &next,
            U256::ZERO
        )
        .is_success()
    );
}

#[test]
fn the_piggy_bank_takes_ether_and_has_no_way_to_give_it_back() {
    let (mut chain, at, saver) = funded("PiggyBank", U256::ZERO);
    assert!(send(&mut chain, saver, at, "save()", &[], ether(1)).is_success());
    assert_eq!(chain.balance(at), ether(1));
    let functions: Vec<String> = chain
        .artifacts()
        .get("PiggyBank")
        .unwrap()
        .abi
        .functions()
        .map(|f| f.name.clone())
        .collect();
    assert_eq!(functions, ["save", "saved"]);
    let (mut chain, at, saver) = funded("OpenPiggyBank", U256::ZERO);
    assert!(send(&mut chain, saver, at, "save()", &[], ether(1)).is_success());
    let before = chain.balance(saver);
    assert!(send(&mut chain, saver, at, "takeBack()", &[], U256::ZERO).is_success());
    assert_eq!(chain.balance(saver), before + ether(1));
}

#[test]
fn the_attacker_contract_withdraws_twice_from_the_reentrant_bank_and_once_from_the_checked_one() {
    use harvey::chain::ATTACKER_CONTRACT;
    for (name, paid) in [("ReentrantBank", 2), ("CheckedBank", 1)] {
        let (mut chain, at, user) = funded(name, U256::ZERO);
        assert!(send(&mut chain, user, at, "deposit()", &[], ether(1)).is_success());
        let attacker = ATTACKER_CONTRACT;
        assert!(send(&mut chain, attacker, at, "deposit()", &[], ether(1)).is_success());
        let before = chain.balance(attacker);
        let out = send(&mut chain, attacker, at, "withdraw()", &[], U256::ZERO);
        assert!(out.is_success(), "{name}: {out:?}");
        assert_eq!(chain.balance(attacker), before + ether(paid), "{name}");
        assert_eq!(chain.balance(at), ether(2 - paid), "{name}");
    }
}

#[test]
fn the_attacker_contract_re_enters_with_the_calldata_of_its_transaction_arguments_included() {
    use harvey::chain::ATTACKER_CONTRACT;
    let (mut chain, at, user) = funded("ReentrantPartialBank", U256::ZERO);
    assert!(send(&mut chain, user, at, "deposit()", &[], ether(1)).is_success());
    assert!(
        send(
            &mut chain,
            ATTACKER_CONTRACT,
            at,
            "deposit()",
            &[],
            ether(1)
        )
        .is_success()
    );
    let before = chain.balance(ATTACKER_CONTRACT);
    // 36 bytes of calldata: stored the long way, read back whole by the re-entry.
    let amount = [DynSolValue::Uint(ether(1), 256)];
    let out = send(
        &mut chain,
        ATTACKER_CONTRACT,
        at,
        "withdraw(uint256)",
        &amount,
        U256::ZERO,
    );
    assert!(out.is_success(), "{out:?}");
    assert_eq!(chain.balance(ATTACKER_CONTRACT), before + ether(2));
    // Disarmed after its transaction: no re-entry left for a later payer.
    assert_eq!(chain.storage(ATTACKER_CONTRACT, U256::from(1)), U256::ZERO);
}

#[test]
fn a_refused_send_leaves_the_attacker_contract_unpaid_yet_marked_paid_unless_checked() {
    use harvey::chain::ATTACKER_CONTRACT;
    for (name, pays_out) in [("UncheckedPayout", true), ("CheckedPayout", false)] {
        let (mut chain, at, _) = funded(name, U256::ZERO);
        let deposit = send(
            &mut chain,
            ATTACKER_CONTRACT,
            at,
            "deposit()",
            &[],
            ether(1),
        );
        assert!(deposit.is_success());
        let before = chain.balance(ATTACKER_CONTRACT);
        let out = send(
            &mut chain,
            ATTACKER_CONTRACT,
            at,
            "payOut()",
            &[],
            U256::ZERO,
        );
        assert_eq!(out.is_success(), pays_out, "{name}: {out:?}");
        // The stipend payment was refused either way: nothing reached the payee.
        assert_eq!(chain.balance(ATTACKER_CONTRACT), before, "{name}");
        assert_eq!(chain.balance(at), ether(1), "{name}");
        let owed: U256 = chain
            .view(at, "owed(address)", (ATTACKER_CONTRACT,))
            .unwrap();
        let expected = if pays_out { U256::ZERO } else { ether(1) };
        assert_eq!(owed, expected, "{name}");
    }
}

#[test]
fn an_empty_sender_sending_one_unchecked_token_holds_2_to_the_256_minus_1_and_not_a_checked_one() {
    let (mut chain, at, attacker) = funded("UncheckedToken", U256::ZERO);
    let someone = chain.senders()[0];
    let one_token = [DynSolValue::Address(someone), uint(1)];
    let signature = "transfer(address,uint256)";
    let out = send(&mut chain, attacker, at, signature, &one_token, U256::ZERO);
    assert!(out.is_success(), "{out:?}");
    let balance = |chain: &Chain, holder: Address| -> U256 {
        chain.view(at, "balanceOf(address)", (holder,)).unwrap()
    };
    assert_eq!(balance(&chain, attacker), U256::MAX);
    assert_eq!(balance(&chain, someone), U256::from(1));
    // Minted from nothing: the supply did not move.
    let supply: U256 = chain.view(at, "totalSupply()", ()).unwrap();
    assert_eq!(supply, U256::from(1_000));

    let (mut chain, at, attacker) = funded("CheckedToken", U256::ZERO);
    let out = send(&mut chain, attacker, at, signature, &one_token, U256::ZERO);
    assert!(!out.is_success(), "{out:?}");
    assert_eq!(balance(&chain, attacker), U256::ZERO);
}

/// A raffle ticket: 0.01 ether.
const TICKET: u64 = ETHER / 100;

/// Raffle `name` deployed, its two players `senders()[0]` and `senders()[1]` entered with
/// `enter` and `picks[i]` as arguments, and drawn `seconds` after: the index of the player
/// paid the pot.
fn raffle_winner(name: &str, enter: &str, picks: [&[DynSolValue]; 2], seconds: u64) -> usize {
    let (mut chain, at, _) = funded(name, U256::ZERO);
    let players = [chain.senders()[0], chain.senders()[1]];
    for (player, pick) in players.into_iter().zip(picks) {
        let out = send(&mut chain, player, at, enter, pick, U256::from(TICKET));
        assert!(out.is_success(), "{name}: {out:?}");
    }
    let before = players.map(|p| chain.balance(p));
    chain.skip(seconds);
    let out = chain.try_call(at, "draw()", ()).unwrap();
    assert!(out.is_success(), "{name}: {out:?}");
    let pot = U256::from(2 * TICKET);
    let paid: Vec<usize> = (0..2)
        .filter(|&i| chain.balance(players[i]) == before[i] + pot)
        .collect();
    assert_eq!(paid.len(), 1, "{name}: one player paid the pot");
    paid[0]
}

/// Same players, same entries, only the draw's `block.timestamp` differs: with the block
/// raffle both players win at one timestamp or another (which one is chosen by whoever
/// produces the block), with the pick raffle the picks alone decide.
#[test]
fn the_block_raffle_pays_whoever_the_timestamp_favours_and_the_pick_raffle_ignores_it() {
    let seconds = 0..16;
    let winners: Vec<usize> = seconds
        .clone()
        .map(|s| raffle_winner("BlockRaffle", "enter()", [&[], &[]], s))
        .collect();
    assert!(
        winners.contains(&0) && winners.contains(&1),
        "winners by timestamp: {winners:?}"
    );

    // Picks 1 and 2: 1 ^ 2 = 3, odd, the second player.
    let winners: Vec<usize> = seconds
        .map(|s| raffle_winner("PickRaffle", "enter(uint256)", [&[uint(1)], &[uint(2)]], s))
        .collect();
    assert!(winners.iter().all(|&w| w == 1), "{winners:?}");
}

/// One wei put in by an untrusted sender first: the backers' exact ether then overshoots
/// the goal, and since contributions only add, `balance == GOAL` never holds again.
#[test]
fn a_wei_put_in_first_keeps_the_exact_goal_from_ever_being_reached_and_not_the_at_least_one() {
    for (name, reachable) in [("ExactGoal", false), ("AtLeastGoal", true)] {
        let (mut chain, at, griefer) = funded(name, U256::ZERO);
        let backer = chain.senders()[0];
        let wei = send(&mut chain, griefer, at, "contribute()", &[], U256::from(1));
        assert!(wei.is_success(), "{name}: {wei:?}");
        for total in 1..=3 {
            let out = send(&mut chain, backer, at, "contribute()", &[], ether(1));
            assert!(out.is_success(), "{name}: {out:?}");
            assert_eq!(chain.balance(at), ether(total) + U256::from(1), "{name}");
            let reached: bool = chain.view(at, "reached()", ()).unwrap();
            assert_eq!(reached, reachable, "{name} after {total} ether");
        }
    }
}

/// The owner (the deployer) calls a contract an attacker deployed (`Airdrop`, in
/// `TxOrigin.sol`), which asks the wallet to pay the attacker: `tx.origin` is the owner.
#[test]
fn a_contract_the_owner_calls_empties_the_origin_wallet_and_not_the_sender_wallet() {
    for (name, emptied) in [("OriginWallet", true), ("SenderWallet", false)] {
        let (mut chain, wallet, attacker) = funded(name, ether(1));
        let options = TxOptions {
            sender: Some(attacker),
            value: U256::ZERO,
        };
        let airdrop = chain.deploy_with("Airdrop", (), options).unwrap();
        let before = chain.balance(attacker);
        let owner = chain.deployer();
        let claim = [DynSolValue::Address(wallet)];
        let out = send(
            &mut chain,
            owner,
            airdrop,
            "claim(address)",
            &claim,
            U256::ZERO,
        );
        assert_eq!(out.is_success(), emptied, "{name}: {out:?}");
        let taken = if emptied { ether(1) } else { U256::ZERO };
        assert_eq!(chain.balance(attacker), before + taken, "{name}");
        assert_eq!(chain.balance(wallet), ether(1) - taken, "{name}");
    }
    // The corrected wallet still pays its owner's own withdrawals.
    let (mut chain, wallet, _) = funded("SenderWallet", ether(1));
    let owner = chain.deployer();
    let to_owner = [
        DynSolValue::Address(owner),
        DynSolValue::Uint(ether(1), 256),
    ];
    let signature = "withdraw(address,uint256)";
    assert!(send(&mut chain, owner, wallet, signature, &to_owner, U256::ZERO).is_success());
    assert_eq!(chain.balance(wallet), U256::ZERO);
}

/// Two solvers' claims from the funded bounty `name`, in the order `solvers`: what each
/// was paid.
fn bounty_payouts(name: &str, solvers: [usize; 2]) -> [U256; 2] {
    let (mut chain, at, _) = funded(name, ether(1));
    let accounts = [chain.senders()[0], chain.senders()[1]];
    let before = accounts.map(|a| chain.balance(a));
    for solver in solvers {
        // The second claim of the race reverts: only the balances say who won.
        send(
            &mut chain,
            accounts[solver],
            at,
            "claim(uint256)",
            &[uint(42)],
            U256::ZERO,
        );
    }
    [0, 1].map(|i| chain.balance(accounts[i]) - before[i])
}

#[test]
fn the_race_bounty_pays_whoever_claims_first_and_the_shared_one_pays_both_either_way() {
    assert_eq!(bounty_payouts("RaceBounty", [0, 1]), [ether(1), U256::ZERO]);
    assert_eq!(bounty_payouts("RaceBounty", [1, 0]), [U256::ZERO, ether(1)]);
    let reward = ether(1) / U256::from(10);
    for order in [[0, 1], [1, 0]] {
        assert_eq!(bounty_payouts("SharedBounty", order), [reward, reward]);
    }
}
