//! Rust properties (`#[harvey::property]`, `Campaign::property`) over
//! `contracts/stateless/RareInputs.sol`: each planted bug found through the property's
//! inputs (the contract's comparisons observed through the Rust code's calls), rejections,
//! shrinking, and what a property may not do. Witnesses: `rust_properties_witness.rs`.

use harvey::prelude::*;

use crate::support::{campaign_on, only_failure, refused, repo};

/// A campaign on `RareInputs`, seed 1.
fn rare<'a>() -> Campaign<'a> {
    campaign_on(repo()).contract("RareInputs").seed(1)
}

fn uint(value: &DynSolValue) -> U256 {
    value.as_uint().expect("a uint argument").0
}

/// `id` through `RareInputs`' encoding: what it encodes to, and what that decodes to.
fn round_trip(chain: &Chain, id: U256) -> harvey::Result<(U256, U256)> {
    let rare = chain.get("RareInputs");
    let encoded: U256 = chain.view(rare, "encode(uint256)", (id,))?;
    let back: U256 = chain.view(rare, "decode(uint256)", (encoded,))?;
    Ok((encoded, back))
}

/// Checks that `outcome` failed property `name` once, with one call of it.
fn failed(outcome: &Outcome, name: &str) -> Vec<DynSolValue> {
    let failure = only_failure(outcome);
    let Violation::Property { name: failed, .. } = &failure.violation else {
        panic!("{:?}", failure.violation);
    };
    assert_eq!(failed, name);
    assert_eq!(failure.calls.len(), 1, "{:?}", failure.calls);
    assert!(failure.calls[0].signature.starts_with(name));
    failure.calls[0].args.clone()
}

#[test]
fn an_offset_onto_a_multiple_of_2_pow_80_is_found_and_shrunk() {
    let outcome = rare()
        .runs(5_000)
        .property(
            "round_trip",
            &[("id", "uint256")],
            |chain: &mut Chain, args: &[DynSolValue]| {
                let id = uint(&args[0]);
                let (_, back) = round_trip(chain, id)?;
                harvey::ensure!(back == id, "{id} came back as {back}");
                Ok::<(), harvey::Error>(())
            },
        )
        .run()
        .unwrap();
    let args = failed(&outcome, "round_trip");
    // The report's calls of the case: the two views, with the failing id.
    let made: Vec<(&str, &str)> = (outcome.failures[0].case_calls.iter())
        .map(|c| (c.call.signature.as_str(), c.status.as_str()))
        .collect();
    assert_eq!(
        made,
        [
            ("encode(uint256)", "succeeded"),
            ("decode(uint256)", "succeeded")
        ]
    );
    assert_eq!(outcome.failures[0].case_calls[0].call.args, args);
    // Shrunk to the smallest id the planted bug takes: its high bits cleared one by one.
    assert_eq!(
        uint(&args[0]),
        (U256::from(1) << 80) - U256::from(0xbeef0042_u64)
    );
}

#[test]
fn a_byte_combination_of_three_inputs_is_found() {
    let outcome = rare()
        .runs(5_000)
        .property(
            "lanes_in_range",
            &[("tag", "bytes2"), ("port", "uint32"), ("peer", "address")],
            |chain: &mut Chain, args: &[DynSolValue]| {
                let rare = chain.get("RareInputs");
                let lane: U256 = chain
                    .view(rare, "lane(bytes2,uint32,address)", args)
                    .unwrap();
                lane < U256::from(32)
            },
        )
        .run()
        .unwrap();
    failed(&outcome, "lanes_in_range");
}

#[test]
fn a_product_behind_assumptions_is_found() {
    let outcome = rare()
        .runs(20_000)
        .property(
            "fees_are_charged",
            &[("amount", "uint256"), ("bps", "uint256")],
            |chain: &mut Chain, args: &[DynSolValue]| {
                let (amount, bps) = (uint(&args[0]), uint(&args[1]));
                harvey::assume!(
                    amount >= U256::from(10_000) && amount <= U256::from(10).pow(U256::from(20))
                );
                harvey::assume!(bps >= U256::from(1) && bps <= U256::from(1_000));
                let rare = chain.get("RareInputs");
                let fee: U256 = chain
                    .view(rare, "fee(uint256,uint256)", (amount, bps))
                    .unwrap();
                fee > U256::ZERO
            },
        )
        .run()
        .unwrap();
    let args = failed(&outcome, "fees_are_charged");
    assert_eq!(uint(&args[0]) * uint(&args[1]), U256::from(94_371_840));
    assert!(outcome.stats.rejected > 0, "{:?}", outcome.stats);
}

#[test]
fn a_loop_over_a_small_count_feeding_an_equality_is_found() {
    let outcome = rare()
        .runs(20_000)
        .property(
            "steps_add_up",
            &[("n", "uint8"), ("base", "uint32")],
            |chain: &mut Chain, args: &[DynSolValue]| {
                let (n, base) = (uint(&args[0]), uint(&args[1]));
                let rare = chain.get("RareInputs");
                let sum: U256 = chain.view(rare, "sumSteps(uint8,uint32)", args).unwrap();
                sum == n * base + n * n.saturating_sub(U256::from(1))
            },
        )
        .run()
        .unwrap();
    failed(&outcome, "steps_add_up");
}

/// Every case starts from setup's state, even one that committed; rejected cases count
/// toward no budget, and a property whose every case is rejected fails as "nothing was
/// tested".
#[test]
fn cases_start_fresh_and_rejections_are_no_cases() {
    let outcome = campaign_on(repo())
        .contract("Bank")
        .seed(1)
        .runs(300)
        .property(
            "starts_empty",
            &[("amount", "uint96")],
            |chain: &mut Chain, args: &[DynSolValue]| {
                let bank = chain.get("Bank");
                let before = chain.balance(bank);
                chain.set_balance(bank, uint(&args[0]) + U256::from(1));
                chain.commit();
                before.is_zero()
            },
        )
        .run()
        .unwrap();
    outcome.assert_passed();
    assert_eq!(outcome.stats.sequences, 300);

    let outcome = rare()
        .runs(100)
        .max_rejects(50)
        .property(
            "never",
            &[("x", "uint256")],
            |_: &mut Chain, _: &[DynSolValue]| {
                harvey::assume!(false);
                true
            },
        )
        .run()
        .unwrap();
    assert!(!outcome.passed());
    assert_eq!(outcome.stats.rejected_too_many, Some(50));
}

/// A property's parameter types are checked, and a property runs alone.
#[test]
fn a_property_is_refused_what_it_cannot_do() {
    let error = refused(rare().property(
        "odd",
        &[("x", "uint257")],
        |_: &mut Chain, _: &[DynSolValue]| true,
    ));
    assert!(
        error.contains("`uint257`, which is not a Solidity type"),
        "{error}"
    );
    let error = refused(rare().invariant("always", |_: &Chain| true).property(
        "p",
        &[("x", "uint8")],
        |_: &mut Chain, _: &[DynSolValue]| true,
    ));
    assert!(error.contains("runs in a campaign of its own"), "{error}");
}

/// `#[harvey::property]` as users write it: typed inputs decoded from the fuzzer's values.
/// The round trip holds for every id the encoding does not send to zero.
#[harvey::property(contract = "RareInputs", runs = 300, seed = 1)]
fn round_trips_unless_encoded_as_zero(
    chain: &mut Chain,
    id: U256,
    _tag: FixedBytes<2>,
    _peers: Vec<Address>,
) -> harvey::Result<()> {
    let (encoded, back) = round_trip(chain, id)?;
    harvey::ensure!(back == id || encoded.is_zero(), "{id} came back as {back}");
    Ok(())
}

/// The planted bug fails the macro's test with the property's name. The expected message
/// leaves out the inputs: a user's `HARVEY_*` variables may change the budget.
#[harvey::property(contract = "RareInputs", runs = 5_000, seed = 1)]
#[should_panic(expected = "property `round_trips` failed")]
fn round_trips(chain: &mut Chain, id: U256) -> bool {
    round_trip(chain, id).is_ok_and(|(_, back)| back == id)
}
