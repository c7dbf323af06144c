//! Witnesses for the planted bugs in `contracts/ether/` and the recorders in
//! `contracts/surface/`, by direct chain calls: the WETH leak is reached by a plain ether
//! transfer (empty calldata) and by nothing else, the wallet's hatch only by calldata that
//! matches no selector, and the recorders flag exactly the calls outside what a setup
//! allows (so a campaign that keeps them clean never made such a call).

use harvey::chain::{Tx, TxOutcome};
use harvey::prelude::*;

use crate::support::{chain, send};

/// Sends `calldata` with `value` from `from` to `to` as a raw transaction, and commits.
fn send_raw(
    chain: &mut Chain,
    from: Address,
    to: Address,
    calldata: &[u8],
    value: u64,
) -> TxOutcome {
    let outcome = chain
        .execute(&Tx {
            sender: from,
            to,
            calldata: Bytes::copy_from_slice(calldata),
            value: U256::from(value),
            warp: Default::default(),
        })
        .expect("the EVM accepts the transaction");
    chain.commit();
    outcome
}

/// Ether held by `weth` minus the sum of its holders' balances (the senders' and the
/// deployer's: nobody else received any here).
fn unbacked(chain: &Chain, weth: Address) -> U256 {
    let mut holders = chain.senders().to_vec();
    holders.push(chain.deployer());
    let sum = holders.iter().fold(U256::ZERO, |sum, holder| {
        sum + chain
            .view::<U256>(weth, "balanceOf(address)", (*holder,))
            .unwrap()
    });
    chain.balance(weth) - sum
}

#[test]
fn leaky_weth_leaks_on_a_plain_transfer_and_on_nothing_else() {
    for (name, leaks) in [("LeakyWETH", true), ("WETH", false)] {
        let mut chain = chain();
        let weth = chain.deploy(name, ()).unwrap();
        let [a, b, _] = [chain.senders()[0], chain.senders()[1], chain.senders()[2]];
        // Deposits, transfers and withdrawals keep every wei backed.
        assert!(send(&mut chain, a, weth, "deposit()", &[], U256::from(10)).is_success());
        let args = [DynSolValue::from(b), DynSolValue::from(U256::from(4))];
        assert!(
            send(
                &mut chain,
                a,
                weth,
                "transfer(address,uint256)",
                &args,
                U256::ZERO
            )
            .is_success()
        );
        let args = [DynSolValue::from(U256::from(3))];
        assert!(send(&mut chain, b, weth, "withdraw(uint256)", &args, U256::ZERO).is_success());
        assert_eq!(unbacked(&chain, weth), U256::ZERO, "{name}");
        // A plain transfer: WETH credits the sender, LeakyWETH keeps the ether unbacked.
        assert!(send_raw(&mut chain, b, weth, &[], 5).is_success());
        let expected = if leaks { U256::from(5) } else { U256::ZERO };
        assert_eq!(unbacked(&chain, weth), expected, "{name}");
        let credited: U256 = chain.view(weth, "balanceOf(address)", (b,)).unwrap();
        assert_eq!(credited, U256::from(if leaks { 1 } else { 6 }), "{name}");
    }
}

#[test]
fn the_wallet_hatch_opens_only_through_the_fallback_with_0xff() {
    let mut chain = chain();
    let wallet = chain.deploy("Wallet", ()).unwrap();
    let stranger = chain.senders()[1];
    let owner = |chain: &Chain| chain.view::<Address>(wallet, "owner()", ()).unwrap();
    assert_eq!(owner(&chain), chain.deployer());
    assert!(send(&mut chain, stranger, wallet, "ping()", &[], U256::ZERO).is_success());
    // Empty calldata and other unknown calldata reach the fallback, which leaves the owner.
    for calldata in [&[][..], &[0x00], &[0xfe, 0xff], &[1, 2, 3, 4, 5]] {
        assert!(send_raw(&mut chain, stranger, wallet, calldata, 0).is_success());
        assert_eq!(owner(&chain), chain.deployer(), "{calldata:?}");
    }
    let unknown: U256 = chain.view(wallet, "unknownCalls()", ()).unwrap();
    assert_eq!(unknown, U256::from(4));
    // The fallback is not payable.
    assert!(!send_raw(&mut chain, stranger, wallet, &[0x01], 1).is_success());
    // The hatch.
    assert!(send_raw(&mut chain, stranger, wallet, &[0xff], 0).is_success());
    assert_eq!(owner(&chain), stranger);
}

#[test]
fn the_recorder_flags_addresses_outside_its_list_anywhere_in_the_arguments() {
    let mut chain = chain();
    let ok = Address::with_last_byte(0xaa);
    let list = DynSolValue::Array(vec![DynSolValue::from(ok)]);
    let recorder = chain
        .deploy_with("Recorder", &[list], Default::default())
        .unwrap();
    let strayed = |chain: &Chain| chain.view::<bool>(recorder, "strayed()", ()).unwrap();
    let from = chain.deployer();
    let pair = |who: Address| DynSolValue::Tuple(vec![who.into(), U256::from(1).into()]);
    let allowed = [ok, recorder];
    for who in allowed {
        assert!(
            send(
                &mut chain,
                from,
                recorder,
                "one(address)",
                &[who.into()],
                U256::ZERO
            )
            .is_success()
        );
        let args = [
            DynSolValue::Array(vec![ok.into(), recorder.into()]),
            pair(who),
        ];
        assert!(
            send(
                &mut chain,
                from,
                recorder,
                "many(address[],(address,uint256))",
                &args,
                U256::ZERO
            )
            .is_success()
        );
    }
    assert!(!strayed(&chain));
    let other = Address::with_last_byte(0xbb);
    // Outside, in the struct only.
    let args = [DynSolValue::Array(vec![ok.into()]), pair(other)];
    assert!(
        send(
            &mut chain,
            from,
            recorder,
            "many(address[],(address,uint256))",
            &args,
            U256::ZERO
        )
        .is_success()
    );
    assert!(strayed(&chain));
}

#[test]
fn ranges_flag_calls_outside_100_to_1000_and_minus_5_to_5_and_over_fails_from_50() {
    let mut chain = chain();
    let ranges = chain.deploy("Ranges", ()).unwrap();
    let from = chain.deployer();
    let strayed = |chain: &Chain| chain.view::<bool>(ranges, "strayed()", ()).unwrap();
    let set = |amount: u64, delta: i64| {
        [
            DynSolValue::from(U256::from(amount)),
            DynSolValue::Int(I256::try_from(delta).unwrap(), 64),
        ]
    };
    for (amount, delta) in [(100, -5), (1000, 5), (500, 0)] {
        assert!(
            send(
                &mut chain,
                from,
                ranges,
                "set(uint256,int64)",
                &set(amount, delta),
                U256::ZERO
            )
            .is_success()
        );
    }
    assert!(!strayed(&chain));
    for (amount, delta) in [(99, 0), (1001, 0), (7, 0), (500, 6), (500, -6)] {
        let mut fresh = self::chain();
        let ranges = fresh.deploy("Ranges", ()).unwrap();
        assert!(
            send(
                &mut fresh,
                from,
                ranges,
                "set(uint256,int64)",
                &set(amount, delta),
                U256::ZERO
            )
            .is_success()
        );
        assert!(
            fresh.view::<bool>(ranges, "strayed()", ()).unwrap(),
            "{amount}, {delta}"
        );
    }
    let over = |chain: &mut Chain, amount: u64| {
        send(
            chain,
            from,
            ranges,
            "over(uint256)",
            &[U256::from(amount).into()],
            U256::ZERO,
        )
        .is_success()
    };
    assert!(over(&mut chain, 49));
    assert!(!over(&mut chain, 50));
}
