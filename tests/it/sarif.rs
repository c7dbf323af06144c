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

/// `genhtml` (Debian's `lcov` package, which `.ci/run` installs and then runs this with
/// `--ignored`) renders the tracefile two tests wrote: an index, and a page per source with
/// the hit counts.
#[test]
#[ignore = "needs genhtml (apt-get install lcov); .ci/run runs it"]
fn genhtml_renders_the_tracefile_of_several_tests() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("lcov.info");
    for (name, contract) in [
        ("genhtml::guarded", "Guarded"),
        ("genhtml::pools", "PoolFactory"),
    ] {
        campaign_on(repo())
            .name(name)
            .contract(contract)
            .seed(2)
            .runs(1_000)
            .fail_fast(false)
            .lcov(file.to_str().unwrap())
            .run()
            .unwrap();
    }
    let html = dir.path().join("html");
    // The records name the sources relative to the project's root.
    let rendered = std::process::Command::new("genhtml")
        .arg(&file)
        .arg("--output-directory")
        .arg(&html)
        .current_dir(repo())
        .output()
        .expect("genhtml runs (apt-get install lcov)");
    let said = String::from_utf8_lossy(&rendered.stderr);
    assert!(rendered.status.success(), "genhtml failed: {said}");
    let index = std::fs::read_to_string(html.join("index.html")).unwrap();
    assert!(
        index.contains("sequences") && index.contains("factories"),
        "{index}"
    );
    // genhtml drops the sources' common prefix (`contracts/`) from its pages' paths.
    let page = std::fs::read_to_string(html.join("sequences/Guarded.sol.gcov.html"))
        .expect("a page for Guarded.sol");
    // Line 18 ran more than once: shown covered, with its count (`<a name="18">…
    // <span class="lineCov">          5 : …`).
    let line = page
        .lines()
        .find(|l| l.contains("<a name=\"18\">"))
        .unwrap_or_default();
    let count: u64 = line
        .split("lineCov\">")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    assert!(
        count > 1,
        "line 18 not shown covered more than once: {line:?}"
    );
    assert!(html.join("factories/Pools.sol.gcov.html").is_file());
}

/// Line coverage as an lcov tracefile (`lcov = "file"`): the Solidity lines the campaign
/// executed are hit as often as they ran, lines it never could reach are not, the
/// contracts fuzzing created are mapped too, and tests merge into one file.
#[test]
fn line_coverage_goes_into_an_lcov_tracefile() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("lcov.info");
    let lcov = file.to_str().unwrap();
    for (name, contract) in [
        ("lcov::guarded", "Guarded"),
        ("lcov::escrow", "Escrow"),
        ("lcov::pools", "PoolFactory"),
    ] {
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
    // `lower`'s decrement runs, many times over 2,000 sequences; `probe`'s assertion
    // cannot (level never leaves 0..9).
    assert!(hit(18).is_some_and(|hits| hits > 1), "{guarded:?}");
    assert_eq!(hit(24), Some(0), "{guarded:?}");
    assert!(!record("lcov__escrow", "contracts/targets/Escrow.sol").is_empty());
    // The pools exist only in the sequences that created them: their `deposit` ran there.
    let pools = record("lcov__pools", "contracts/factories/Pools.sol");
    let hit = |line: u32| pools.iter().find(|(l, _)| *l == line).map(|(_, h)| *h);
    assert!(
        hit(11).is_some_and(|hits| hits > 0),
        "createPool: {pools:?}"
    );
    assert!(
        hit(31).is_some_and(|hits| hits > 0),
        "Pool.deposit: {pools:?}"
    );
}
