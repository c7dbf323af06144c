//! What a campaign calls and with what, as the setup declares it: plain ether transfers
//! (`receive()`) and unknown calldata (`fallback()`) find bugs nothing else reaches;
//! `fuzz_only`/`fuzz_except` choose the functions; `set_address_args` keeps address
//! arguments among those an invariant can enumerate; `bound` keeps integer parameters in
//! range through generation, mutation, prediction and shrinking.

use harvey::prelude::*;

use crate::support::{campaign_on, chain, failure, repo};

fn campaign<'a>() -> Campaign<'a> {
    campaign_on(repo()).seed(3).runs(30_000)
}

fn passed(outcome: &Outcome) {
    if let Some(failure) = outcome.failure() {
        panic!("{}", harvey::report::failure_report(failure, None));
    }
}

/// The signatures the campaign called, in surface order.
fn called(outcome: &Outcome) -> Vec<String> {
    outcome
        .stats
        .functions
        .iter()
        .map(|f| format!("{}.{}", f.contract, f.signature))
        .collect()
}

/// Holds when `contract`'s bool view `flag` is false.
fn not_set(chain: &Chain, contract: &str, flag: &str) -> std::result::Result<(), String> {
    match chain.view::<bool>(chain.get(contract), flag, ()) {
        Ok(false) => Ok(()),
        Ok(true) => Err(format!("{contract}.{flag} is set")),
        Err(e) => Err(e.to_string()),
    }
}

/// Every account that can hold WETH when address arguments are the senders and contracts.
fn holders(chain: &Chain) -> Vec<Address> {
    let mut holders = chain.senders().to_vec();
    holders.push(chain.deployer());
    holders.extend(chain.deployed().iter().map(|(_, address)| *address));
    holders
}

/// WETH's solvency, exactly: the ether it holds is the sum of its holders' balances.
fn solvent(chain: &Chain, weth: Address) -> std::result::Result<(), String> {
    let mut sum = U256::ZERO;
    for holder in holders(chain) {
        sum += chain
            .view::<U256>(weth, "balanceOf(address)", (holder,))
            .map_err(|e| e.to_string())?;
    }
    let held = chain.balance(weth);
    if held == sum {
        Ok(())
    } else {
        Err(format!("holds {held} wei, balances sum to {sum}"))
    }
}

/// A campaign on WETH-like contract `name` with the exact solvency invariant, address
/// arguments as `args`.
fn weth_campaign<'a>(name: &'static str, args: AddressArgs) -> Campaign<'a> {
    campaign()
        .setup(move |chain: &mut Chain| {
            let weth = chain.deploy(name, ())?;
            chain.set_address_args(args.clone())?;
            chain.fuzz(weth);
            Ok(())
        })
        .invariant("ether held == sum of balances", move |chain: &Chain| {
            solvent(chain, chain.get(name))
        })
}

#[test]
fn a_plain_ether_transfer_finds_the_receive_that_credits_nobody() {
    let outcome = weth_campaign("LeakyWETH", AddressArgs::SendersAndContracts)
        .run()
        .unwrap();
    let failure = failure(&outcome);
    assert_eq!(failure.calls.len(), 1, "{:?}", failure.calls);
    let call = &failure.calls[0];
    assert_eq!(call.signature, "receive()");
    assert!(call.args.is_empty());
    assert!(!call.value.is_zero());
    // Shrunk to the smallest leak.
    assert_eq!(call.value, U256::ONE);
    let rendered = harvey::report::render_call(call, &failure.labels);
    assert!(
        rendered.ends_with("LeakyWETH.receive() value: 1"),
        "{rendered}"
    );
    assert!(called(&outcome).contains(&"LeakyWETH.receive()".to_string()));
}

#[test]
fn correct_weth_passes_when_address_arguments_are_enumerable() {
    let outcome = weth_campaign("WETH", AddressArgs::SendersAndContracts)
        .runs(10_000)
        .run()
        .unwrap();
    passed(&outcome);
    let receive = outcome
        .stats
        .functions
        .iter()
        .find(|f| f.signature == "receive()")
        .expect("receive() is fuzzed");
    assert!(receive.calls > 100, "{receive:?}");
}

#[test]
fn without_the_restriction_a_transfer_to_an_unknown_address_breaks_the_exact_invariant() {
    // The false positive the restriction exists for: correct WETH, yet tokens went to an
    // address the invariant cannot enumerate.
    let outcome = weth_campaign("WETH", AddressArgs::Dictionary)
        .run()
        .unwrap();
    let failure = failure(&outcome);
    let last = failure.calls.last().unwrap();
    assert!(last.function_name().starts_with("transfer"), "{last:?}");
}

#[test]
fn calldata_matching_no_selector_finds_the_fallback_hatch() {
    let outcome = campaign()
        .contract("Wallet")
        .invariant("the deployer stays the owner", |chain: &Chain| {
            chain
                .view::<Address>(chain.get("Wallet"), "owner()", ())
                .is_ok_and(|owner| owner == chain.deployer())
        })
        .run()
        .unwrap();
    let failure = failure(&outcome);
    let call = failure.calls.last().unwrap();
    assert_eq!(call.signature, "fallback()");
    // Shrunk to the one byte that matters; never value for a non-payable fallback.
    assert_eq!(call.args, [DynSolValue::Bytes(vec![0xff])]);
    assert!(call.value.is_zero());
    let rendered = harvey::report::render_call(call, &failure.labels);
    assert!(
        rendered.contains("Wallet.fallback(calldata: 0xff)"),
        "{rendered}"
    );
}

#[test]
fn fuzz_only_and_fuzz_except_choose_the_called_functions() {
    let only = campaign()
        .runs(500)
        .setup(|chain: &mut Chain| {
            let weth = chain.deploy("WETH", ())?;
            // withdraw(uint256) by its selector, as forge's targetSelector takes it.
            chain.fuzz_only(weth, ["deposit()", "0x2e1a7d4d", "receive()"])?;
            Ok(())
        })
        .run()
        .unwrap();
    assert_eq!(
        called(&only),
        ["WETH.deposit()", "WETH.withdraw(uint256)", "WETH.receive()"]
    );
    assert!(only.stats.functions.iter().all(|f| f.calls > 0));
    let except = campaign()
        .runs(500)
        .setup(|chain: &mut Chain| {
            let weth = chain.deploy("WETH", ())?;
            // Spacing and `uint` are normalised as in Solidity.
            chain.fuzz_except(weth, ["transferFrom(address, address, uint)", "receive()"])?;
            chain.fuzz_except(weth, ["approve(address,uint256)"])?;
            Ok(())
        })
        .run()
        .unwrap();
    assert_eq!(
        called(&except),
        [
            "WETH.deposit()",
            "WETH.transfer(address,uint256)",
            "WETH.withdraw(uint256)"
        ]
    );
    // Only a contract selected; like forge's targetSelector, it is fuzzed although setup
    // fuzzes another one.
    let both = campaign()
        .runs(200)
        .setup(|chain: &mut Chain| {
            let wallet = chain.deploy("Wallet", ())?;
            let weth = chain.deploy("WETH", ())?;
            chain.fuzz(wallet);
            chain.fuzz_only(weth, ["deposit()"])?;
            chain.fuzz_except(wallet, ["fallback()"])?;
            Ok(())
        })
        .run()
        .unwrap();
    assert_eq!(called(&both), ["Wallet.ping()", "WETH.deposit()"]);
}

#[test]
fn an_unknown_or_view_signature_is_a_config_error_listing_what_can_be_called() {
    let error = |signatures: &'static [&'static str], only: bool| {
        let outcome = campaign().runs(10).setup(move |chain: &mut Chain| {
            let weth = chain.deploy("WETH", ())?;
            if only {
                chain.fuzz_only(weth, signatures.iter().copied())
            } else {
                chain.fuzz_except(weth, signatures.iter().copied())
            }
        });
        match outcome.run() {
            Err(e @ harvey::Error::Config(_)) => e.to_string(),
            other => panic!(
                "expected a config error, got {:?}",
                other.map(|o| o.passed())
            ),
        }
    };
    let unknown = error(&["deposit()", "withdraw(uint128)"], true);
    assert!(
        unknown.contains("`withdraw(uint128)` is not a function of it"),
        "{unknown}"
    );
    assert!(
        unknown.contains(
            "WETH can be called with approve(address,uint256), deposit(), transfer(address,uint256), \
             transferFrom(address,address,uint256), withdraw(uint256), receive()"
        ),
        "{unknown}"
    );
    let view = error(&["balanceOf(address)"], false);
    assert!(
        view.contains("`balanceOf(address)` is a view function"),
        "{view}"
    );
    let fallback = error(&["fallback()"], true);
    assert!(
        fallback.contains("`fallback()` is not a function of it"),
        "{fallback}"
    );
    assert!(error(&[], true).contains("fuzz_only on WETH got no signature"));
}

#[test]
fn address_arguments_stay_among_the_allowed_ones_in_arrays_and_structs_too() {
    let allowed = [Address::with_last_byte(0xaa), Address::with_last_byte(0xab)];
    let recorder = |args: AddressArgs, list: Vec<Address>| {
        campaign()
            .runs(5_000)
            .setup(move |chain: &mut Chain| {
                let list = DynSolValue::Array(list.iter().map(|a| (*a).into()).collect());
                chain.deploy_with("Recorder", &[list], Default::default())?;
                chain.set_address_args(args.clone())
            })
            .invariant("no address outside the list", |chain: &Chain| {
                not_set(chain, "Recorder", "strayed()")
            })
            .run()
            .unwrap()
    };
    let senders = harvey::chain::SENDERS.to_vec();
    let known = recorder(AddressArgs::SendersAndContracts, senders.clone());
    passed(&known);
    let only = recorder(AddressArgs::Only(allowed.to_vec()), allowed.to_vec());
    passed(&only);
    for outcome in [&known, &only] {
        assert!(outcome.stats.functions.iter().all(|f| f.calls > 1_000));
    }
    // The same campaigns without the restriction stray: the recorder can tell.
    let open = recorder(AddressArgs::Dictionary, senders);
    failure(&open);
    assert!(matches!(
        chain()
            .set_address_args(AddressArgs::Only(Vec::new())),
        Err(harvey::Error::Config(m)) if m.contains("empty list")
    ));
}

/// A campaign on `Ranges` calling only `signature`, with `amount` (and `delta`) bounded
/// when `bounded`, and `strayed()` as the invariant.
fn ranges(signature: &'static str, bounded: bool) -> Outcome {
    campaign()
        .runs(8_000)
        .setup(move |chain: &mut Chain| {
            let ranges = chain.deploy("Ranges", ())?;
            chain.fuzz_only(ranges, [signature])?;
            if bounded {
                chain.bound(ranges, "set(uint256,int64)", "amount", 100..=1_000)?;
                chain.bound(ranges, "set(uint256,int64)", 1, -5..=5)?;
                chain.bound(
                    ranges,
                    "over(uint256)",
                    "amount",
                    U256::from(100)..=U256::from(1_000),
                )?;
            }
            Ok(())
        })
        .invariant("never called outside the bounds", |chain: &Chain| {
            not_set(chain, "Ranges", "strayed()")
        })
        .run()
        .unwrap()
}

#[test]
fn bounded_parameters_are_never_called_outside_their_range() {
    let bounded = ranges("set(uint256,int64)", true);
    passed(&bounded);
    assert!(bounded.stats.functions[0].calls > 5_000);
    // Input prediction ran (and was clamped): it had comparisons to chase.
    assert!(
        bounded.stats.predictions.inputs > 0,
        "{:?}",
        bounded.stats.predictions
    );
    failure(&ranges("set(uint256,int64)", false));
}

#[test]
fn shrinking_simplifies_toward_the_low_end_of_the_bound_and_stops_there() {
    // assert(amount < 50): unbounded, the smallest failing amount is 50; bounded to
    // 100..=1000 it is 100, never below.
    let unbounded = ranges("over(uint256)", false);
    assert_eq!(
        failure(&unbounded).calls[0].args,
        [DynSolValue::from(U256::from(50))]
    );
    let bounded = ranges("over(uint256)", true);
    let failure = failure(&bounded);
    assert!(
        failure.violation.to_string().contains("0x01")
            || matches!(failure.violation, harvey::Violation::Panic { .. })
    );
    assert_eq!(failure.calls[0].args, [DynSolValue::from(U256::from(100))]);
}

#[test]
fn bounds_on_unknown_functions_parameters_or_types_are_config_errors_saying_what_exists() {
    let mut chain = chain();
    let ranges = chain.deploy("Ranges", ()).unwrap();
    let weth = chain.deploy("WETH", ()).unwrap();
    let message = |result: harvey::Result<()>| match result {
        Err(harvey::Error::Config(m)) => m,
        other => panic!("expected a config error, got {other:?}"),
    };
    let m = message(chain.bound(ranges, "set(uint256)", "amount", 0..=1));
    assert!(m.contains("`set(uint256)` is not a function of it: Ranges can be called with over(uint256), set(uint256,int64)"), "{m}");
    let m = message(chain.bound(ranges, "set(uint256,int64)", "amt", 0..=1));
    assert!(m.contains("Ranges.set(uint256,int64) has no parameter named `amt`; its parameters are 0: amount uint256, 1: delta int64"), "{m}");
    let m = message(chain.bound(ranges, "set(uint256,int64)", 2usize, 0..=1));
    assert!(m.contains("has no parameter 2"), "{m}");
    let m = message(chain.bound(weth, "transfer(address,uint256)", "dst", 0..=1));
    assert!(
        m.contains("bounds apply to uint and int parameters, and this one is address"),
        "{m}"
    );
    let m = message(chain.bound(ranges, "set(uint256,int64)", "amount", -1..=1));
    assert!(
        m.contains("an end lies outside the parameter's type"),
        "{m}"
    );
    let m = message(chain.bound(ranges, "set(uint256,int64)", "delta", 0..=u64::MAX));
    assert!(
        m.contains("an end lies outside the parameter's type"),
        "{m}"
    );
    let (lo, hi) = (5, 4);
    let m = message(chain.bound(ranges, "set(uint256,int64)", "amount", lo..=hi));
    assert!(m.contains("the low end is above the high end"), "{m}");
    let m = message(chain.bound(weth, "receive()", 0usize, 0..=1));
    assert!(
        m.contains("WETH.receive() has no parameters to bound"),
        "{m}"
    );
    let m = message(chain.bound(
        Address::with_last_byte(9),
        "set(uint256,int64)",
        0usize,
        0..=1,
    ));
    assert!(
        m.contains("holds no contract deployed through this chain"),
        "{m}"
    );
    assert!(
        chain
            .bound(ranges, "set(uint256,int64)", "delta", -5i64..=5)
            .is_ok()
    );
}
