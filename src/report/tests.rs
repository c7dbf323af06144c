//! The report's, summary's and formatting helpers' unit tests.

use std::time::Duration;

use alloy_dyn_abi::DynSolValue;
use alloy_primitives::Address;

use super::failure::*;
use super::format::*;
use super::summary::*;
use crate::chain::{Labels, SENDERS, Warp};
use crate::outcome::{
    Call, Failure, Outcome, Place, Progress, ShrinkStats, Stats, Violation, Warps,
};
use crate::outcome::{FunctionStats, RevertCauses};
use alloy_primitives::{U256, address};

const VAULT: Address = address!("0x5FbDB2315678afecb367f032d93F642f64180aa3");
const TOKEN: Address = address!("0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512");

fn withdraw(sender: Address, args: Vec<DynSolValue>) -> Call {
    Call {
        sender,
        contract: "Vault".into(),
        address: VAULT,
        signature: "withdraw(uint256,address)".into(),
        params: vec!["amount".into(), String::new()],
        args,
        value: U256::ZERO,
        warp: Warp::default(),
        instance: None,
    }
}

fn labels() -> Labels {
    let mut labels = Labels::default();
    labels.insert(VAULT, "Vault");
    labels.insert(SENDERS[1], "alice");
    labels
}

#[test]
fn calls_render_like_solidity() {
    let mut call = withdraw(
        SENDERS[0],
        vec![
            DynSolValue::Uint(U256::from(7), 256),
            DynSolValue::Address(Address::with_last_byte(9)),
        ],
    );
    call.warp = Warp {
        seconds: 86_400,
        blocks: 7_200,
    };
    assert_eq!(
        render_call(&call, &Labels::default()),
        "0x10000 Vault.withdraw(amount: 7, 0x0000000000000000000000000000000000000009) \
         value: 0 warp: +1d (+7200 blocks)"
    );
}

#[test]
fn named_accounts_show_beside_their_short_address() {
    let call = withdraw(
        SENDERS[1],
        vec![
            DynSolValue::Uint(U256::from(7), 256),
            DynSolValue::Array(vec![
                DynSolValue::Address(VAULT),
                DynSolValue::Address(TOKEN),
            ]),
        ],
    );
    assert_eq!(
        render_call(&call, &labels()),
        "alice@0x20000 Vault.withdraw(amount: 7, [Vault@0x5FbD…0aa3, \
         0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512]) value: 0"
    );
    // An explicit label names the called contract, as in forge's traces.
    let mut relabelled = labels();
    relabelled.insert(VAULT, "vault");
    assert!(render_call(&call, &relabelled).contains(" vault.withdraw("));
    // Two deployments of one contract: the address tells them apart.
    let mut two = labels();
    two.insert(TOKEN, "Vault");
    let rendered = render_call(&call, &two);
    assert!(
        rendered.contains(" Vault@0x5FbD…0aa3.withdraw(")
            && rendered.contains("Vault@0xe7f1…0512]"),
        "{rendered}"
    );
}

#[test]
fn failure_reports_list_the_named_accounts_in_full() {
    let failure = Failure {
        violation: Violation::ArbitraryStorageWrite {
            contract: VAULT,
            slot: U256::from(1),
            place: Place {
                contract: "Vault".into(),
                pc: 0x1a2,
                line: None,
            },
        },
        calls: vec![withdraw(
            SENDERS[1],
            vec![
                DynSolValue::Uint(U256::from(7), 256),
                DynSolValue::Address(SENDERS[2]),
            ],
        )],
        last_status: "success".into(),
        messages: Vec::new(),
        seed: 3,
        found_len: 1,
        found_after: Duration::ZERO,
        found_after_sequences: 0,
        from_regression: false,
        regression_file: None,
        labels: labels(),
        shrink: None,
        warps: Warps::None,
        case_calls: Vec::new(),
    };
    let report = failure_report(&failure, None);
    // `Display` is the same report, for `println!("{failure}")`.
    assert_eq!(failure.to_string(), report);
    assert!(
        report.starts_with(&format!(
            "arbitrary storage write (SWC-124): Vault@{VAULT} wrote slot 0x1"
        )),
        "{report}"
    );
    assert!(
        report.contains(&format!(
            "Accounts:\n  alice  {}\n  Vault  {VAULT}\n",
            SENDERS[1]
        )),
        "{report}"
    );
    assert!(report.contains(&format!("{}", SENDERS[2])), "{report}");
    assert!(
        report.contains("at Vault, pc 0x1a2 (no source line)"),
        "{report}"
    );
    assert!(report.ends_with("Seed: 3\n"), "{report}");
}

#[test]
fn several_failures_are_reported_each_with_its_sequence_then_one_replay() {
    let failure = |line: &str, found_after_sequences| Failure {
        violation: Violation::Panic {
            code: crate::chain::PanicCode::Assert,
            place: Place {
                contract: "Maze".into(),
                pc: 0x40,
                line: Some(line.into()),
            },
        },
        calls: vec![withdraw(
            SENDERS[0],
            vec![DynSolValue::Uint(U256::from(7), 256)],
        )],
        last_status: "Panic(0x01): assert failed".into(),
        messages: vec![
            "LogUint256(\"amount\", 5)".into(),
            "AssertEqFail(\"Invalid: 4!=5, reason: Allowance not updated\")".into(),
        ],
        seed: 9,
        found_len: 1,
        found_after: Duration::from_millis(1_200),
        found_after_sequences,
        from_regression: false,
        regression_file: Some("harvey-regressions/maze.json".into()),
        labels: labels(),
        shrink: None,
        warps: Warps::None,
        case_calls: Vec::new(),
    };
    let failures = [
        failure("src/Maze.sol:12", 40),
        failure("src/Maze.sol:30", 4_312),
    ];
    let report = failures_report(&failures, Some("maze"));
    assert!(
        report.starts_with("2 distinct violations, in the order found:\n\n[1/2] "),
        "{report}"
    );
    assert!(
        report.contains("[2/2] Solidity Panic(0x01): assertion failed at src/Maze.sol:30 (Maze) (found after 4,312 sequences in 1.2s)\nCall sequence (1 call):\n"),
        "{report}"
    );
    // What the property library logged in the reverted call, below its status.
    assert!(
        report.contains(
            "  last call: Panic(0x01): assert failed\n  it logged (reverted frames included):\n    \
             LogUint256(\"amount\", 5)\n    \
             AssertEqFail(\"Invalid: 4!=5, reason: Allowance not updated\")\n"
        ),
        "{report}"
    );
    assert_eq!(
        report
            .matches("Replay: HARVEY_SEED=9 cargo test maze\n")
            .count(),
        1
    );
    assert_eq!(
        report
            .matches("Saved to harvey-regressions/maze.json")
            .count(),
        1
    );
    assert_eq!(
        failure_report(&failures[0], None),
        failures_report(&failures[..1], None)
    );
}

#[test]
fn summaries_name_their_test_and_accounts() {
    let stats = Stats {
        name: Some("vault::tests::solvent".into()),
        senders: SENDERS[..2].to_vec(),
        labels: labels(),
        functions: vec![FunctionStats {
            contract: "Vault".into(),
            address: Some(VAULT),
            signature: "deposit()".into(),
            calls: 10,
            reverts: 0,
            revert_causes: RevertCauses::default(),
        }],
        ..Stats::default()
    };
    let outcome = |stats: Stats, failures: Vec<Failure>| Outcome {
        failures,
        stats,
        warnings: Vec::new(),
        require_targets: false,
        untested: None,
    };
    let summary = super::summary(&outcome(stats.clone(), Vec::new()));
    assert!(
        summary.starts_with("harvey vault::tests::solvent: 0 sequences"),
        "{summary}"
    );
    assert!(
        summary.contains("  fuzzed: Vault@0x5FbD…0aa3; senders: 0x10000, alice@0x20000\n"),
        "{summary}"
    );
    assert!(summary.contains("    Vault.deposit()  "), "{summary}");
    assert!(!summary.contains("shrinking"), "{summary}");
    assert!(!summary.contains("violations"), "{summary}");
    let shrunk = Failure {
        violation: Violation::Invariant {
            name: "solvent".into(),
            message: "returned false".into(),
        },
        calls: Vec::new(),
        last_status: String::new(),
        messages: Vec::new(),
        seed: 0,
        found_len: 5,
        found_after: Duration::from_millis(1_500),
        found_after_sequences: 2_000,
        from_regression: false,
        regression_file: None,
        labels: labels(),
        shrink: Some(ShrinkStats {
            from: 5,
            to: 2,
            runs: 1_000,
            transactions: 2_345,
            time: Duration::from_millis(45),
            budget_runs: 1_000,
            budget_time: Duration::from_secs(10),
            exhausted: true,
        }),
        warps: Warps::None,
        case_calls: Vec::new(),
    };
    let replayed = Failure {
        from_regression: true,
        shrink: None,
        ..shrunk.clone()
    };
    let summary = super::summary(&outcome(stats, vec![replayed, shrunk]));
    assert!(
        summary.contains(
            "  violations: 2 distinct, in the order found\n    \
             1. replaying the regression file: invariant `solvent` violated: returned false\n    \
             2. in the post-setup state: invariant `solvent` violated: returned false\n       \
             shrinking: 5 → 2 calls in 1,000 runs (2,345 tx, 45ms; budget 1,000 runs, \
             10.0s): budget spent, the sequence may shrink further\n"
        ),
        "{summary}"
    );
}

#[test]
fn always_reverts_needs_enough_calls_to_mean_something() {
    let row = |calls| FunctionStats {
        contract: "Vault".into(),
        address: Some(VAULT),
        signature: "close()".into(),
        calls,
        reverts: calls,
        revert_causes: RevertCauses::default(),
    };
    let flagged = |calls| {
        summary(&Outcome {
            failures: Vec::new(),
            stats: Stats {
                functions: vec![row(calls)],
                ..Stats::default()
            },
            warnings: Vec::new(),
            require_targets: false,
            untested: None,
        })
        .contains("always reverts")
    };
    assert!(!flagged(0));
    assert!(!flagged(4));
    assert!(!flagged(crate::outcome::ALWAYS_REVERTS_AFTER - 1));
    assert!(flagged(crate::outcome::ALWAYS_REVERTS_AFTER));
}

#[test]
fn progress_lines_count_the_violations_found() {
    let progress = Progress {
        elapsed: Duration::from_secs(4),
        sequences: 12_000,
        transactions: 40_000,
        edges: 31,
        corpus: 9,
        violations: 2,
    };
    assert_eq!(
        progress_line("maze", &progress),
        "harvey maze: 4.0s | 12,000 sequences | 10,000 tx/s | 31 edges | corpus 9 | 2 violations"
    );
}

#[test]
fn numbers_and_times_are_readable() {
    assert_eq!(thousands(0), "0");
    assert_eq!(thousands(1_234_567), "1,234,567");
    assert_eq!(human_seconds(90_061), "1d 1h");
    assert_eq!(human_seconds(42), "42s");
    assert_eq!(duration(Duration::from_millis(850)), "850ms");
    assert_eq!(duration(Duration::from_secs(245)), "4m 05s");
    assert_eq!(short_address(VAULT), "0x5FbD…0aa3");
    assert_eq!(short_address(SENDERS[0]), "0x10000");
    assert_eq!(short_address(Address::ZERO), "0x0");
}

#[test]
fn a_counterexample_reads_as_forge_prints_it() {
    let call = withdraw(
        SENDERS[0],
        vec![
            DynSolValue::Uint(U256::from(7), 256),
            DynSolValue::Address(TOKEN),
        ],
    );
    assert_eq!(
        counterexample(&call),
        format!(
            "counterexample: calldata=0x00f714ce{:064x}{:0>64} args=[7, {TOKEN}]",
            7,
            alloy_primitives::hex::encode(TOKEN)
        )
    );
}

#[test]
fn a_failed_property_shows_its_inputs_by_name() {
    let case = Call {
        contract: String::new(),
        address: Address::ZERO,
        signature: "round_trips(uint256,address)".into(),
        params: vec!["id".into(), "to".into()],
        ..withdraw(
            SENDERS[0],
            vec![
                DynSolValue::Uint(U256::from(42), 256),
                DynSolValue::Address(TOKEN),
            ],
        )
    };
    let failure = Failure {
        violation: Violation::Property {
            name: "round_trips".into(),
            message: "returned false".into(),
        },
        calls: vec![case],
        last_status: "the property failed".into(),
        messages: Vec::new(),
        seed: 3,
        found_len: 1,
        found_after: Duration::from_millis(2),
        found_after_sequences: 17,
        from_regression: false,
        regression_file: None,
        labels: Labels::default(),
        shrink: None,
        warps: Warps::None,
        case_calls: vec![crate::outcome::CaseCall {
            call: withdraw(
                SENDERS[1],
                vec![
                    DynSolValue::Uint(U256::from(42), 256),
                    DynSolValue::Address(TOKEN),
                ],
            ),
            status: "reverted with Error(\"too much\")".into(),
        }],
    };
    let report = failure_report(&failure, Some("round_trips"));
    assert!(
        report.contains("property `round_trips` failed: returned false (found after 17"),
        "{report}"
    );
    assert!(
        report.contains(&format!("Inputs: round_trips(id: 42, to: {TOKEN})\n")),
        "{report}"
    );
    assert!(!report.contains("Call sequence"), "{report}");
    assert!(
        report.contains(&format!(
            "Calls the case made:\n  #1 0x20000 Vault.withdraw(amount: 42, {TOKEN}) value: 0 -> reverted with Error(\"too much\")\n"
        )),
        "{report}"
    );
    assert!(
        report.contains("Replay: HARVEY_SEED=3 cargo test round_trips"),
        "{report}"
    );
}

#[test]
fn the_coverage_line_counts_only_what_happened() {
    let outcome = |stats: Stats| Outcome {
        failures: Vec::new(),
        stats,
        warnings: Vec::new(),
        require_targets: false,
        untested: None,
    };
    let line = |stats: Stats| {
        let summary = super::summary(&outcome(stats));
        summary
            .lines()
            .find(|l| l.starts_with("  coverage:"))
            .unwrap()
            .to_string()
    };
    assert_eq!(
        line(Stats {
            edges: 7,
            corpus: 3,
            ..Stats::default()
        }),
        "  coverage: 7 edges, corpus: 3 paths"
    );
    assert_eq!(
        line(Stats {
            edges: 7,
            corpus: 3,
            guided: 1,
            novel: 2,
            conditioned: 3,
            unreverting: 4,
            replayed: 5,
            ..Stats::default()
        }),
        "  coverage: 7 edges, corpus: 3 paths, 1 run kept by invariant guidance, 2 runs kept \
         for a new state, 3 runs kept for what their last call's conditions read, 4 runs kept for a call that always reverted getting closer to \
         succeeding, 5 regression sequences replayed"
    );
    // One of each, in the singular.
    assert_eq!(
        line(Stats {
            edges: 7,
            corpus: 3,
            guided: 1,
            novel: 1,
            conditioned: 1,
            unreverting: 1,
            replayed: 1,
            ..Stats::default()
        }),
        "  coverage: 7 edges, corpus: 3 paths, 1 run kept by invariant guidance, 1 run kept for \
         a new state, 1 run kept for what its last call's conditions read, 1 run kept for a call \
         that always reverted getting closer to succeeding, 1 regression sequence replayed"
    );
}
