//! harvey against forge 1.7.1 on stateless properties (issue 41): the four rare-input shapes of
//! `tests/fixtures/forge-suites/test/Stateless.t.sol` (a modular condition after an offset, an
//! equality on a byte combination of three arguments, `bound`/`vm.assume` then a product, a
//! loop over a `uint8` count feeding an equality) as forge fuzz tests run by forge and by
//! harvey (`Campaign::fuzz_test`), and the same shapes as Rust properties over
//! `contracts/stateless/RareInputs.sol` (`Campaign::property`). Then what a property case
//! costs next to one fuzzed call of an invariant campaign on the same function.
//!
//! The same shapes as Echidna assertion-mode harnesses, run by harvey with their calls
//! independent (one call per case, as harvey runs them) and, for comparison, as sequences
//! of up to Echidna's 100 calls (`independent_calls = false`).
//!
//! Every tool gets the same fixed budget of cases; the table gives the median time to the
//! failure over the seeds (a seed that missed counts as slower than any that found it), the
//! cases run until then, and on how many seeds it was found. The bench panics unless each
//! failure timed is the planted bug: harvey's and forge's reasons are the test's own
//! assertion with the values only the planted branch gives, and a property's failing inputs
//! satisfy the planted condition.
//!
//! Run with `cargo bench --bench stateless` (`HARVEY_BENCH_SEEDS=n` for n seeds, default 5).
//! forge is installed from npm on first use; both use the repo's solc shim.

#[allow(dead_code)]
#[path = "peer/forge.rs"]
mod forge;
#[path = "support/forge_suites.rs"]
mod forge_suites;
#[path = "peer/install.rs"]
mod install;
#[path = "support/root.rs"]
mod root;
#[allow(dead_code)]
#[path = "support/timing.rs"]
mod timing;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use harvey::prelude::*;
use timing::{bench_seeds, censored_median, hits, short_commit, show};

/// Cases per run, for every tool.
const CASES: u64 = 100_000;
/// harvey's wall-clock limit per run (forge's runs are bounded by the cases alone).
const LIMIT: Duration = Duration::from_secs(60);

/// One shape: its forge fuzz test, and how a failure's reason shows the planted branch.
struct Shape {
    name: &'static str,
    test: &'static str,
    /// Whether an `assertion failed: …` reason can only come from the planted branch.
    planted: fn(&str) -> bool,
}

/// The numbers of an `assertion failed: A op B` reason.
fn operands(reason: &str) -> Option<(U256, U256)> {
    let text = reason.split("assertion failed: ").nth(1)?;
    let mut words = text.split_whitespace();
    let a = words.next()?.trim_matches('"').parse().ok()?;
    words.next()?;
    let b = words.next()?.trim_end_matches(['"', ')']).parse().ok()?;
    Some((a, b))
}

const SHAPES: [Shape; 4] = [
    Shape {
        name: "offset onto 2^96",
        test: "testFuzz_positionsRoundTrip",
        // Unplanted, `unpack(pack(id))` is `id`: any inequality is the zero packing.
        planted: |r| r.contains(" != "),
    },
    Shape {
        name: "bytes of 3 arguments",
        test: "testFuzz_routesStayInRange",
        planted: |r| r.contains("64 >= 64"),
    },
    Shape {
        name: "bound, assume, product",
        test: "testFuzz_interestAccrues",
        // Unplanted, the interest is at least 100 wei: owed equal to the principal is the
        // forgotten interest.
        planted: |r| r.contains(" <= ") && operands(r).is_some_and(|(a, b)| a == b),
    },
    Shape {
        name: "loop over a uint8",
        test: "testFuzz_trancheTotal",
        planted: |r| operands(r).is_some_and(|(a, b)| a + U256::from(1) == b),
    },
];

/// One run's result: time to the failure and cases until then, when found.
type Found = Option<(Duration, u64)>;

fn main() {
    let Some(seeds) = bench_seeds(5) else { return };
    let repo = root::harvey_root();
    // Compiled once here, for every campaign on it.
    let (fixture, _) = forge_suites::compiled_fixture();
    let forge = install::ensure_forge().unwrap_or_else(|e| panic!("{e}"));
    let project = forge_project(&forge, &fixture, repo);
    let commit = short_commit(repo);
    println!(
        "stateless properties at {commit}: {CASES} cases per run, harvey also stopped at {}s, seeds 1..={seeds}, 2 workers",
        LIMIT.as_secs()
    );
    println!(
        "| shape | forge 1.7.1 fuzz test | harvey, the same fuzz test | harvey, Rust property |"
    );
    println!("|---|---|---|---|");
    for (index, shape) in SHAPES.iter().enumerate() {
        let forge_runs: Vec<Found> = (1..=seeds).map(|s| forge_run(&project, shape, s)).collect();
        let harvey_runs: Vec<Found> = (1..=seeds)
            .map(|s| harvey_run(&fixture, shape, s))
            .collect();
        let property_runs: Vec<Found> = (1..=seeds).map(|s| property_run(repo, index, s)).collect();
        println!(
            "| {} | {} | {} | {} |",
            shape.name,
            cell(&forge_runs, seeds),
            cell(&harvey_runs, seeds),
            cell(&property_runs, seeds)
        );
    }
    println!(
        "\nthe same shapes as Echidna assertion-mode harnesses (test/configs/stateless), harvey with Echidna's sequence length (100):"
    );
    println!(
        "| shape | calls independent: one call per case | `independent_calls = false`: sequences |"
    );
    println!("|---|---|---|");
    for (index, shape) in SHAPES.iter().enumerate() {
        let runs = |independent: bool| -> Vec<Found> {
            (1..=seeds)
                .map(|s| harness_run(&fixture, index, s, independent))
                .collect()
        };
        println!(
            "| {} | {} | {} |",
            shape.name,
            cell(&runs(true), seeds),
            cell(&runs(false), seeds)
        );
    }
    cost_of_a_case(repo);
}

/// The Echidna assertion-mode harness of each shape, and its function.
const HARNESSES: [(&str, &str); 4] = [
    ("PositionsAssertions", "test_positionsRoundTrip"),
    ("RouterAssertions", "test_routesStayInRange"),
    ("InterestAssertions", "test_interestAccrues"),
    ("TrancheAssertions", "test_trancheTotal"),
];

/// harvey's campaign on the assertion-mode harness of shape `index` with `seed`, as Echidna
/// runs it (sequences of up to 100 calls), its independent calls run one per case or not.
/// Each harness function has one `assert`, which fails only on its shape's planted branch
/// (the witnesses in `tests/it/stateless_harnesses_witness.rs`): a Panic(0x01) in that
/// function, by one call, is the planted bug.
fn harness_run(fixture: &Path, index: usize, seed: u64, independent: bool) -> Found {
    let (harness, function) = HARNESSES[index];
    let outcome = Campaign::new(fixture)
        .forge_suite(harness)
        .independent_calls(independent)
        .depth(100)
        .seed(seed)
        .calls(CASES)
        .time(LIMIT)
        .run()
        .unwrap_or_else(|e| panic!("{harness}: {e}"));
    assert_eq!(outcome.stats.sequencing.independent_calls, independent);
    let failure = outcome.failures.first()?;
    let last = failure.calls.last().expect("a failure has a call");
    assert!(
        failure.violation.to_string().contains("Panic(0x01)")
            && failure.calls.len() == 1
            && (last.contract.as_str(), last.function_name()) == (harness, function),
        "harvey failed {harness} with something else than the planted bug: {} {:?}",
        failure.violation,
        failure.calls
    );
    Some((failure.found_after, failure.found_after_sequences))
}

/// `median time (median cases), found/seeds`.
fn cell(runs: &[Found], seeds: u64) -> String {
    let times: Vec<Option<Duration>> = runs.iter().map(|r| r.map(|(t, _)| t)).collect();
    let cases: Vec<Option<u64>> = runs.iter().map(|r| r.map(|(_, c)| c)).collect();
    let median_cases = censored_median(&cases).map_or("-".into(), |c| c.to_string());
    format!(
        "{} ({median_cases} cases), {}/{seeds}",
        show(censored_median(&times)),
        hits(&times)
    )
}

/// The forge-suites fixture copied for forge, with the repo's solc shim and offline.
fn forge_project(forge: &Path, fixture: &Path, repo: &Path) -> forge::ForgeProject {
    let dir = install::scratch().join("stateless");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for item in ["src", "test", "script", "remappings.txt"] {
        let status = Command::new("cp")
            .arg("-r")
            .arg(fixture.join(item))
            .arg(&dir)
            .status()
            .unwrap();
        assert!(status.success(), "copying {item}");
    }
    std::os::unix::fs::symlink(fixture.join("node_modules"), dir.join("node_modules")).unwrap();
    let toml = std::fs::read_to_string(fixture.join("foundry.toml")).unwrap();
    let shim = repo.join("tools/solc-shim/solc");
    std::fs::write(
        dir.join("foundry.toml"),
        format!(
            "{toml}solc = {:?}\noffline = true\n",
            shim.display().to_string()
        ),
    )
    .unwrap();
    forge::ForgeProject::build(forge, &dir).unwrap_or_else(|e| panic!("{e}"))
}

/// forge's fuzz test `shape.test` with `seed`: its reported duration and runs when it
/// failed with the planted bug.
fn forge_run(project: &forge::ForgeProject, shape: &Shape, seed: u64) -> Found {
    let _ = std::fs::remove_dir_all(project.dir().join("cache/fuzz"));
    let output = Command::new(forge_binary())
        .args([
            "test",
            "--json",
            "--match-contract",
            "^StatelessTest$",
            "--match-test",
        ])
        .arg(format!("^{}\\(", shape.test))
        .args([
            "--fuzz-runs",
            &CASES.to_string(),
            "--fuzz-seed",
            &seed.to_string(),
        ])
        .current_dir(project.dir())
        .output()
        .expect("forge runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let json: serde_json::Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("forge's --json output ({e}):\n{stdout}"));
    let result = json
        .as_object()
        .and_then(|suites| suites.values().next())
        .and_then(|suite| suite["test_results"].as_object())
        .and_then(|tests| tests.values().next())
        .unwrap_or_else(|| panic!("no test result:\n{stdout}"));
    if result["status"] != "Failure" {
        return None;
    }
    let reason = result["reason"].as_str().unwrap_or_default();
    assert!(
        (shape.planted)(reason),
        "forge failed {} with something else than the planted bug: {reason}",
        shape.test
    );
    let runs = result["kind"]["Fuzz"]["runs"].as_u64().unwrap_or(0);
    let duration = parse_duration(result["duration"].as_str().unwrap_or_default());
    Some((duration, runs))
}

/// forge's binary (installed by `forge_project` already).
fn forge_binary() -> PathBuf {
    install::ensure_forge().unwrap_or_else(|e| panic!("{e}"))
}

/// forge's `966ms 435µs 964ns`.
fn parse_duration(text: &str) -> Duration {
    let mut total = Duration::ZERO;
    for part in text.split_whitespace() {
        let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
        let value: u64 = digits.parse().unwrap_or(0);
        total += match &part[digits.len()..] {
            "s" => Duration::from_secs(value),
            "ms" => Duration::from_millis(value),
            "µs" => Duration::from_micros(value),
            "ns" => Duration::from_nanos(value),
            "m" => Duration::from_secs(60 * value),
            _ => Duration::ZERO,
        };
    }
    total
}

/// harvey's run of fuzz test `shape.test` with `seed`.
fn harvey_run(fixture: &Path, shape: &Shape, seed: u64) -> Found {
    let outcome = Campaign::new(fixture)
        .forge_suite("StatelessTest")
        .fuzz_test(shape.test)
        .fail_on_revert(true)
        .seed(seed)
        .calls(CASES)
        .time(LIMIT)
        .run()
        .unwrap_or_else(|e| panic!("{}: {e}", shape.test));
    let failure = outcome.failures.first()?;
    let Violation::Reverted { reason, .. } = &failure.violation else {
        panic!("{}: {:?}", shape.test, failure.violation);
    };
    assert!(
        (shape.planted)(reason) && failure.calls.len() == 1,
        "harvey failed {} with something else than the planted bug: {reason}",
        shape.test
    );
    Some((failure.found_after, failure.found_after_sequences))
}

fn uint(value: &DynSolValue) -> U256 {
    value.as_uint().map(|(v, _)| v).unwrap_or_default()
}

/// harvey's run of the Rust property of shape `index` with `seed`, over `RareInputs`; the
/// failing inputs are checked to satisfy the planted condition.
fn property_run(repo: &Path, index: usize, seed: u64) -> Found {
    let campaign = Campaign::new(repo)
        .contract("RareInputs")
        .seed(seed)
        .runs(CASES)
        .time(LIMIT);
    let view = |chain: &Chain, signature: &str, args: &[DynSolValue]| -> U256 {
        let rare = chain.get("RareInputs");
        chain
            .view(rare, signature, args)
            .expect("RareInputs' views succeed")
    };
    let (campaign, planted): (Campaign<'_>, fn(&[DynSolValue]) -> bool) = match index {
        0 => (
            campaign.property("round_trip", &[("id", "uint256")], move |chain, args| {
                let encoded = view(chain, "encode(uint256)", args);
                view(chain, "decode(uint256)", &[DynSolValue::Uint(encoded, 256)]) == uint(&args[0])
            }),
            |args| {
                let modulus: U256 = U256::from(1) << 80;
                (uint(&args[0]).wrapping_add(U256::from(0xbeef0042_u64)) % modulus).is_zero()
            },
        ),
        1 => (
            campaign.property(
                "lanes_in_range",
                &[("tag", "bytes2"), ("port", "uint32"), ("peer", "address")],
                move |chain, args| {
                    view(chain, "lane(bytes2,uint32,address)", args) < U256::from(32)
                },
            ),
            |args| {
                let tag = match &args[0] {
                    DynSolValue::FixedBytes(word, _) => u16::from_be_bytes([word[0], word[1]]),
                    _ => return false,
                };
                let port = uint(&args[1]).to::<u32>();
                let peer = args[2].as_address().unwrap_or_default();
                port > 70_000
                    && peer[19] == port as u8
                    && u32::from(tag) == ((port >> 8) & 0xff) + 0x11
            },
        ),
        2 => (
            campaign.property(
                "fees_are_charged",
                &[("amount", "uint256"), ("bps", "uint256")],
                move |chain, args| {
                    let (amount, bps) = (uint(&args[0]), uint(&args[1]));
                    harvey::assume!(
                        amount >= U256::from(10_000)
                            && amount <= U256::from(10).pow(U256::from(20))
                    );
                    harvey::assume!(bps >= U256::from(1) && bps <= U256::from(1_000));
                    view(chain, "fee(uint256,uint256)", args) > U256::ZERO
                },
            ),
            |args| uint(&args[0]) * uint(&args[1]) == U256::from(94_371_840),
        ),
        _ => (
            campaign.property(
                "steps_add_up",
                &[("n", "uint8"), ("base", "uint32")],
                move |chain, args| {
                    let (n, base) = (uint(&args[0]), uint(&args[1]));
                    view(chain, "sumSteps(uint8,uint32)", args)
                        == n * base + n * n.saturating_sub(U256::from(1))
                },
            ),
            |args| {
                let (n, base) = (uint(&args[0]), uint(&args[1]));
                n > U256::from(5)
                    && n * base + n * (n - U256::from(1)) == U256::from(4_294_967_313_u64)
            },
        ),
    };
    let outcome = campaign
        .run()
        .unwrap_or_else(|e| panic!("property {index}: {e}"));
    let failure = outcome.failures.first()?;
    assert!(
        matches!(failure.violation, Violation::Property { .. }) && planted(&failure.calls[0].args),
        "property {index} failed with something else than the planted bug: {:?} {:?}",
        failure.violation,
        failure.calls
    );
    Some((failure.found_after, failure.found_after_sequences))
}

/// What a property case costs next to a fuzzed call: a property that makes one `deposit`
/// call per case, against an invariant campaign fuzzing the same `Bank` (its calls are
/// `deposit`, `withdraw` and `transfer`), each for 20,000 cases or calls, time per case or
/// call.
fn cost_of_a_case(repo: &Path) {
    const RUNS: u64 = 20_000;
    let started = Instant::now();
    let invariant = Campaign::new(repo)
        .contract("Bank")
        .invariant("holds", |_: &Chain| true)
        .seed(1)
        .workers(1)
        .calls(RUNS)
        .run()
        .expect("the Bank campaign runs");
    let per_call = invariant.stats.elapsed / invariant.stats.transactions.max(1) as u32;
    let property = Campaign::new(repo)
        .contract("Bank")
        .seed(1)
        .workers(1)
        .runs(RUNS)
        .property("deposits", &[("amount", "uint64")], |chain, args| {
            let bank = chain.get("Bank");
            let options = TxOptions {
                sender: None,
                value: uint(&args[0]),
            };
            chain.call_with(bank, "deposit()", (), options).is_ok()
        })
        .run()
        .expect("the Bank property runs");
    let per_case = property.stats.elapsed / property.stats.sequences.max(1) as u32;
    println!(
        "\ncost of a property case (one `deposit` call) vs a fuzzed call of an invariant campaign on Bank, 1 worker, {RUNS} each: {:.1} µs vs {:.1} µs per call, {:.2}x ({:.1?} in all)",
        per_case.as_secs_f64() * 1e6,
        per_call.as_secs_f64() * 1e6,
        per_case.as_secs_f64() / per_call.as_secs_f64().max(1e-12),
        started.elapsed()
    );
}
