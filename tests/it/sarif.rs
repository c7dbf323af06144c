//! SARIF for GitHub code scanning (`sarif = "file"`, issue 17): several campaigns running in
//! parallel add their findings to one file — violations at their Solidity line (a Rust
//! invariant's at its test), unreached target lines as warnings — and Microsoft's SARIF
//! multitool accepts it under the SARIF schema and GitHub's rules.

use std::path::{Path, PathBuf};

use harvey::prelude::*;
use serde_json::Value;

use crate::support::{campaign_on, few_visits, founder_keeps_the_first_seat, npm_install, repo};

/// The validator fixture (Microsoft's multitool from npm, installed on first use).
fn multitool() -> PathBuf {
    let fixture = repo().join("tests/fixtures/sarif-validator");
    npm_install(&fixture);
    fixture.join("node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool")
}

/// The results of `log`'s one run.
fn results(log: &Value) -> &Vec<Value> {
    log["runs"][0]["results"].as_array().expect("results")
}

fn location(result: &Value) -> (String, u64) {
    let physical = &result["locations"][0]["physicalLocation"];
    (
        physical["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .to_string(),
        physical["region"]["startLine"].as_u64().unwrap(),
    )
}

#[test]
fn parallel_campaigns_write_one_sarif_file_that_github_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("harvey.sarif");
    let sarif = file.to_str().unwrap();
    let invariant_line = line!();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            campaign_on(repo())
                .name("sarif::hive")
                .contract("Hive")
                .invariant("few visits", few_visits)
                .panics("assert,division-by-zero".parse().unwrap())
                .fail_fast(false)
                .seed(11)
                .runs(1_000)
                .sarif(sarif)
                .test_location(file!(), invariant_line)
                .run()
                .unwrap()
        });
        scope.spawn(|| {
            campaign_on(repo())
                .name("sarif::seats")
                .contract("Seats")
                .invariant("founder keeps the first seat", |chain: &Chain| {
                    founder_keeps_the_first_seat(chain).unwrap()
                })
                .seed(1)
                .sarif(sarif)
                .test_location(file!(), invariant_line)
                .run()
                .unwrap()
        });
        scope.spawn(|| {
            let targets = "contracts/sequences/Guarded.sol:18,contracts/sequences/Guarded.sol:24";
            campaign_on(repo())
                .name("sarif::guarded")
                .contract("Guarded")
                .targets(targets.parse().unwrap())
                .seed(2)
                .runs(3_000)
                .sarif(sarif)
                .run()
                .unwrap()
        });
    });
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let of = |test: &str| -> Vec<&Value> {
        results(&log)
            .iter()
            .filter(|r| r["properties"]["test"] == test)
            .collect()
    };
    // Hive: its Panics at their lines in Hive.sol, its invariant at the test.
    let hive = of("sarif::hive");
    assert!(hive.len() >= 2, "{hive:?}");
    assert!(
        hive.iter()
            .any(|r| r["ruleId"] == "harvey/panic" && location(r).0 == "contracts/bugs/Hive.sol"),
        "{hive:?}"
    );
    let seats = of("sarif::seats");
    assert_eq!(seats.len(), 1, "{seats:?}");
    assert_eq!(seats[0]["ruleId"], "harvey/invariant");
    assert_eq!(
        location(seats[0]),
        ("tests/it/sarif.rs".to_string(), u64::from(invariant_line))
    );
    let text = seats[0]["message"]["text"].as_str().unwrap();
    assert!(
        text.contains("Replay: HARVEY_SEED=1 cargo test sarif::seats"),
        "{text}"
    );
    // Guarded: the unreachable probe line is a warning; the reached one is not there.
    let guarded = of("sarif::guarded");
    assert_eq!(guarded.len(), 1, "{guarded:?}");
    assert_eq!(guarded[0]["level"], "warning");
    assert_eq!(
        location(guarded[0]),
        ("contracts/sequences/Guarded.sol".to_string(), 24)
    );
    validate(&file, dir.path());
}

/// Runs the multitool's validation (the SARIF schema's rules and GitHub's) on `file`:
/// nothing at error level.
fn validate(file: &Path, dir: &Path) {
    let report = dir.join("validation.sarif");
    let output = std::process::Command::new(multitool())
        .args([
            "validate",
            "--rule-kind",
            "Gh;Sarif",
            "--log",
            "ForceOverwrite",
            "--output",
        ])
        .arg(&report)
        .arg(file)
        .output()
        .expect("run the SARIF multitool");
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{said}");
    let validation: Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let errors: Vec<&Value> = results(&validation)
        .iter()
        .filter(|r| r["level"] == "error")
        .collect();
    assert!(errors.is_empty(), "{said}");
}

/// Line coverage as an lcov tracefile (`lcov = "file"`): the Solidity lines the campaign
/// executed are hit, lines it never could reach are not, and tests merge into one file.
#[test]
fn line_coverage_goes_into_an_lcov_tracefile() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("lcov.info");
    let lcov = file.to_str().unwrap();
    for (name, contract) in [("lcov::guarded", "Guarded"), ("lcov::escrow", "Escrow")] {
        let outcome = campaign_on(repo())
            .name(name)
            .contract(contract)
            .seed(2)
            .runs(2_000)
            .fail_fast(false)
            .lcov(lcov)
            .run()
            .unwrap();
        assert!(outcome.stats.lines.is_some());
    }
    let text = std::fs::read_to_string(&file).unwrap();
    let record = |test: &str, source: &str| -> Vec<(u32, u32)> {
        let start = text
            .find(&format!("TN:{test}\nSF:{source}\n"))
            .unwrap_or_else(|| panic!("no record of {source} for {test}:\n{text}"));
        text[start..]
            .lines()
            .take_while(|line| *line != "end_of_record")
            .filter_map(|line| line.strip_prefix("DA:"))
            .map(|da| {
                let (line, hits) = da.split_once(',').unwrap();
                (line.parse().unwrap(), hits.parse().unwrap())
            })
            .collect()
    };
    let guarded = record("lcov__guarded", "contracts/sequences/Guarded.sol");
    let hit = |line: u32| guarded.iter().find(|(l, _)| *l == line).map(|(_, h)| *h);
    // `lower`'s decrement runs; `probe`'s assertion cannot (level never leaves 0..9).
    assert_eq!(hit(18), Some(1), "{guarded:?}");
    assert_eq!(hit(24), Some(0), "{guarded:?}");
    assert!(!record("lcov__escrow", "contracts/targets/Escrow.sol").is_empty());
}
