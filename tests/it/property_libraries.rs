//! Harnesses written against a property library in crytic/properties' style
//! (`contracts/properties/`): the library's helper, inherited from another file, emits
//! `AssertEqFail("Invalid: …, reason: …")` and then fails an `assert`. The violation is placed
//! at that `assert` in the helper's file, and the report shows what the helper and the
//! property logged, although the reverted transaction's receipt has none of it.

use harvey::Violation;
use harvey::chain::PanicCode;
use harvey::oracle::violations_of;
use harvey::prelude::*;

use crate::support::{campaign_on, chain, compiled_at, failure, project, repo, tx, uint};

const HELPERS: &str = include_str!("../../contracts/properties/PropertyAsserts.sol");

/// `contracts/properties/PropertyAsserts.sol:<line>` of the first `assert(false)` after
/// the line containing `anchor`.
fn helper_assert(anchor: &str) -> String {
    let lines: Vec<&str> = HELPERS.lines().collect();
    let start = lines.iter().position(|l| l.contains(anchor)).unwrap();
    let at = start
        + lines[start..]
            .iter()
            .position(|l| l.contains("assert(false)"))
            .unwrap();
    format!("contracts/properties/PropertyAsserts.sol:{}", at + 1)
}

#[test]
fn a_failed_helper_assertion_is_placed_at_the_helpers_assert() {
    let mut chain = chain();
    let harness = chain.deploy("AllowanceProperties", ()).unwrap();
    let spender = DynSolValue::Address(chain.senders()[1]);
    let call = |chain: &Chain, amount: u64| {
        tx(
            chain,
            harness,
            "test_approve_sets_allowance(address,uint256)",
            &[spender.clone(), uint(amount)],
        )
    };
    let ok = call(&chain, 4);
    assert_eq!(violations_of(&mut chain, &ok).unwrap(), []);
    chain.reset();
    let bad = call(&chain, 5);
    let found = violations_of(&mut chain, &bad).unwrap();
    let [Violation::Panic { code, place }] = found.as_slice() else {
        panic!("expected one failed assert: {found:?}");
    };
    assert_eq!(*code, PanicCode::Assert);
    assert_eq!(place.contract, "AllowanceProperties");
    assert_eq!(
        place.line.as_deref(),
        Some(helper_assert("emit AssertEqFail").as_str())
    );
}

#[test]
fn the_report_shows_what_the_property_library_logged() {
    let outcome = campaign_on(repo())
        .contract("AllowanceProperties")
        .seed(3)
        .runs(5_000)
        .run()
        .unwrap();
    let failure = failure(&outcome);
    let Violation::Panic { place, .. } = &failure.violation else {
        panic!("expected a failed assert: {failure:?}");
    };
    assert_eq!(
        place.line.as_deref(),
        Some(helper_assert("emit AssertEqFail").as_str())
    );
    // Shrunk to the boundary: an approval of 5 stored as 4.
    let logged = &failure.messages;
    assert_eq!(logged.len(), 3, "{logged:?}");
    assert!(
        logged[0].starts_with("LogAddress(\"spender\", 0x"),
        "{logged:?}"
    );
    assert_eq!(logged[1], "LogUint256(\"amount\", 5)");
    assert_eq!(
        logged[2],
        "AssertEqFail(\"Invalid: 4!=5, reason: Allowance not updated correctly\")"
    );
    let report = harvey::report::failure_report(failure, None);
    assert!(
        report.contains("  it logged (reverted frames included):\n    LogAddress(\"spender\", 0x")
            && report.contains(
                "    AssertEqFail(\"Invalid: 4!=5, reason: Allowance not updated correctly\")\n"
            ),
        "{report}"
    );
}

/// The helper's line holds with the optimizer too, compiled apart from the repository's
/// contracts. (Through the IR the place is the harness contract's line: see `places`.)
#[test]
fn the_helpers_line_holds_with_the_optimizer() {
    let harness = include_str!("../../contracts/properties/AllowanceProperties.sol");
    let dir = project(
        "optimizer = true\n",
        &[
            ("PropertyAsserts.sol", HELPERS),
            ("AllowanceProperties.sol", harness),
        ],
    );
    let mut chain = Chain::new(compiled_at(dir.path()).unwrap());
    let at = chain.deploy("AllowanceProperties", ()).unwrap();
    let spender = DynSolValue::Address(chain.senders()[1]);
    let bad = tx(
        &chain,
        at,
        "test_approve_sets_allowance(address,uint256)",
        &[spender, uint(5)],
    );
    let found = violations_of(&mut chain, &bad).unwrap();
    let [Violation::Panic { place, .. }] = found.as_slice() else {
        panic!("expected one failed assert: {found:?}");
    };
    let expected = helper_assert("emit AssertEqFail").replace("properties/", "");
    assert_eq!(place.line.as_deref(), Some(expected.as_str()));
}
