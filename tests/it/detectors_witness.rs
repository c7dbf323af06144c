//! Witnesses for the vulnerabilities planted for the detectors (`contracts/detectors/`,
//! issue 16): each is reachable by direct calls from an untrusted sender, and its corrected
//! twin refuses the same calls.

use harvey::chain::{Chain, TxOptions};
use harvey::prelude::*;

use crate::support::{chain, ether, send, uint};

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
