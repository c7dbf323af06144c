//! harvey against forge 1.7.1 on public Foundry repositories, each on its own invariant
//! suite: for each repository and each planted bug (and the unpatched code, where every
//! violation is a false positive), whether each tool found a violation (k of N seeds) and
//! its median time to the first one.
//!
//! Run with `cargo bench --bench real_repos` (`HARVEY_BENCH_SEEDS=n`, default 5;
//! `HARVEY_REAL_REPOS_TIME=s`, seconds per campaign, default 20;
//! `HARVEY_REAL_REPOS_ONLY=weth` or `erc4626` for one repository). The same run without the
//! fat-LTO bench build: `cargo test --bench real_repos -- --bench` (this binary only drives
//! processes, its own speed does not matter).
//!
//! What it needs: node/npm (forge 1.7.1 from `@foundry-rs/forge-linux-amd64`, solcjs builds
//! from `solc`), and the repositories as git directories under `HARVEY_REAL_REPOS_MIRRORS`
//! (default `/work/.mirror`), one per repository at `<owner>+<name>/repo`, e.g. made with
//! `git clone --bare https://github.com/<owner>/<name> <owner>+<name>/repo`. Each
//! repository and its submodules are read at the commits pinned below.
//!
//! What it does, per repository:
//! 1. Materialises the repository and its submodules into a scratch directory under the
//!    target directory (`git archive <commit> | tar -x`; nothing is committed to harvey and
//!    nothing of harvey's is touched), once unpatched and once per planted bug (the repo's
//!    own `bugs/*.patch`, or bugs planted by this bench where the repo has none), and writes
//!    `remappings.txt` from `forge remappings` (neutral for forge, and needed by harvey
//!    until it infers remappings itself; `HARVEY_REAL_REPOS_REMAPPINGS=0` skips it).
//! 2. forge: runs the repo's own invariant suite with its own foundry.toml (`[invariant]`
//!    runs, depth, profile), offline, with a solcjs build of the compiler the sources pin,
//!    `--fuzz-seed 1..N`, failure persistence cleared, shrinking off and a timeout of the
//!    campaign budget per invariant (`FOUNDRY_INVARIANT_SHRINK_RUN_LIMIT=0`,
//!    `FOUNDRY_INVARIANT_TIMEOUT`); a bug is found when any invariant fails, at the smallest
//!    duration forge reports (`--json`) among the failed invariants.
//! 3. harvey: a Rust test crate in the unpatched copy (`Cargo.toml` with harvey as a path
//!    dev-dependency on this checkout, `tests/*.rs` from `benches/real_repos/`, invariants
//!    mirroring the repo's own), built once in cargo's dev profile (what `cargo test`
//!    gives a user) into this target directory, and run against each copy with seeds
//!    1..N, the same depth and the same budget, its vulnerability detectors off (forge has
//!    none); the time is `Failure::found_after`, and the bench panics if the violation is not
//!    one of the mirror's invariants.
//!
//! What differs between the tools is said per case in the table's notes: the repos'
//! Solidity handlers use cheatcodes harvey does not have, so harvey's mirrors fuzz the
//! contracts directly from its senders and replace ghost variables with logs; a harvey
//! miss whose case needs a feature harvey lacks is reported with that feature.

#[path = "peer/install.rs"]
mod install;
#[path = "support/repo.rs"]
mod repo;
#[path = "support/root.rs"]
mod root;
// Shared with benches that use all of it.
#[allow(dead_code)]
#[path = "support/timing.rs"]
mod timing;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use repo::run;
use timing::{bench_seeds, censored_median, hits, ratio, show};

/// A git tree to materialise: a repository at a pinned commit, into a directory of the copy.
struct Tree {
    /// `<owner>+<name>` under the mirrors directory.
    mirror: &'static str,
    /// The pinned commit.
    commit: &'static str,
    /// Where it goes in the copy (`""` for the repository itself; submodule paths).
    into: &'static str,
}

/// How a case changes the repository's code.
enum Change {
    /// None: the unpatched code, where any violation is a false positive.
    Unpatched,
    /// One of the repository's own patches (`bugs/bug1.patch`).
    RepoPatch(&'static str),
    /// A bug this bench plants: `from` replaced by `to` in `file` (exactly one occurrence).
    Replace {
        file: &'static str,
        from: &'static str,
        to: &'static str,
    },
}

/// One row of the table.
struct Case {
    /// Short name of the bug.
    name: &'static str,
    change: Change,
    /// What harvey needs for this case that it may not have yet, shown when harvey misses.
    harvey_needs: Option<&'static str>,
}

/// Which solc compiles the repository: the sources pin their version range.
enum Solc {
    /// harvey's shim over solcjs 0.8.28 (`tools/solc-shim/solc`).
    Shim,
    /// The same shim over another solcjs build from npm (`solc@<version>`).
    Npm(&'static str),
}

/// One repository: what to materialise, how forge runs its suite, which harvey test mirrors it.
struct Repo {
    name: &'static str,
    trees: &'static [Tree],
    /// Files left out of the copy (they need what the bench does not install).
    exclude: &'static [&'static str],
    solc: Solc,
    /// forge's `--match-contract`.
    forge_contract: &'static str,
    /// `FOUNDRY_PROFILE`, where the repo's Makefile sets one for that suite.
    forge_profile: Option<&'static str>,
    /// forge's `--no-match-test`: the suite's call summaries, which are not invariants.
    forge_skip: &'static str,
    /// The repo's `[invariant] depth`, used by both tools.
    depth: u32,
    /// The harvey test file under `benches/real_repos/` (also the `--test` name).
    harvey_test: &'static str,
    /// How harvey's mirror differs from the repo's suite, printed under the table.
    harvey_mirror: &'static str,
    /// The cases, the unpatched code first (its copy also holds the harvey test crate).
    cases: &'static [Case],
}

/// forge-std's own submodule.
const DS_TEST: &str = "dapphub+ds-test";

const REPOS: [Repo; 2] = [
    Repo {
        name: "weth-invariant-testing",
        trees: &[
            Tree {
                mirror: "horsefacts+weth-invariant-testing",
                commit: "652820729e1e37e5517edcd3cba60875dd32fd46",
                into: "",
            },
            Tree {
                mirror: "foundry-rs+forge-std",
                commit: "f8e700ed5d605f53f2194dc8df05a0bc3a7c1e43",
                into: "lib/forge-std",
            },
            Tree {
                mirror: DS_TEST,
                commit: "cd98eff28324bfac652e63a239a60632a761790b",
                into: "lib/forge-std/lib/ds-test",
            },
        ],
        // The symbolic test needs lib/halmos-cheatcodes, which neither tool uses here.
        exclude: &["test/WETH9.symbolic.t.sol"],
        solc: Solc::Shim,
        forge_contract: "WETH9Invariants",
        forge_profile: None,
        forge_skip: "callSummary",
        depth: 25,
        harvey_test: "weth",
        harvey_mirror: "harvey fuzzes WETH9 directly from its 3 senders (the repo's handler \
                        uses cheatcodes); ghost sums and actor sets come from Deposit, \
                        Withdrawal and Transfer logs",
        cases: &[
            Case {
                name: "none (false positives)",
                change: Change::Unpatched,
                harvey_needs: None,
            },
            Case {
                name: "bug1: deposit credits 1 wei",
                change: Change::RepoPatch("bugs/bug1.patch"),
                harvey_needs: None,
            },
            Case {
                name: "bug2: withdraw pays 1 wei",
                change: Change::RepoPatch("bugs/bug2.patch"),
                harvey_needs: None,
            },
            Case {
                name: "bug3: fallback does not deposit",
                change: Change::RepoPatch("bugs/bug3.patch"),
                harvey_needs: Some("plain ether sends / fallback() calls by the fuzzer"),
            },
            Case {
                name: "bug4: transferFrom unchecked, credits 1",
                change: Change::RepoPatch("bugs/bug4.patch"),
                harvey_needs: None,
            },
        ],
    },
    Repo {
        name: "invariant-examples (Basic4626Deposit)",
        trees: &[
            Tree {
                mirror: "lucas-manuel+invariant-examples",
                commit: "ecca083dbda5419c3a6c3d09555938350944ba82",
                into: "",
            },
            Tree {
                mirror: "foundry-rs+forge-std",
                commit: "405727dc7580aaaa6e5b626638dd37ff171beae3",
                into: "lib/forge-std",
            },
            Tree {
                mirror: DS_TEST,
                commit: "cd98eff28324bfac652e63a239a60632a761790b",
                into: "lib/forge-std/lib/ds-test",
            },
            Tree {
                mirror: "maple-labs+erc20",
                commit: "b2fd236e9a69a96d8eb3d5ac86e3260904d1d04b",
                into: "lib/erc20",
            },
        ],
        exclude: &[],
        // MockERC20 pins `pragma solidity 0.8.7`; npm's `solc@0.8.7` is mislabelled.
        solc: Solc::Npm("0.8.7-fixed"),
        forge_contract: "^BoundedInvariants$",
        forge_profile: Some("no_revert"),
        forge_skip: "call_summary",
        depth: 200,
        harvey_test: "erc4626",
        harvey_mirror: "harvey fuzzes the vault only (senders funded and approved in setup); \
                        the asset's donations need chain.fuzz_only (the asset's public burn \
                        would break invariant A); the vault emits no events, so C and D_E_F \
                        are bounds over the senders, not the suite's equalities over its LPs",
        // The repo plants no bugs (its unbounded suites show handler mistakes, not code
        // bugs); these two are planted here, one inside and one outside what the repo's
        // bounded handlers can reach.
        cases: &[
            Case {
                name: "none (false positives)",
                change: Change::Unpatched,
                harvey_needs: None,
            },
            Case {
                name: "planted: deposit credits one extra share",
                change: Change::Replace {
                    file: "src/Basic4626Deposit.sol",
                    from: "unchecked { balanceOf[receiver_] += shares_; }",
                    to: "unchecked { balanceOf[receiver_] += shares_ + 1; }",
                },
                harvey_needs: None,
            },
            Case {
                name: "planted: transfer balance check unchecked",
                change: Change::Replace {
                    file: "src/Basic4626Deposit.sol",
                    from: "balanceOf[msg.sender] -= amount_;",
                    to: "unchecked { balanceOf[msg.sender] -= amount_; }",
                },
                harvey_needs: None,
            },
        ],
    },
];

/// The harvey test files copied into every scratch crate's `tests/`.
const HARVEY_TESTS: [(&str, &str); 3] = [
    ("common/mod.rs", include_str!("real_repos/common.rs")),
    ("weth.rs", include_str!("real_repos/weth.rs")),
    ("erc4626.rs", include_str!("real_repos/erc4626.rs")),
];

/// One tool's results on one case: per seed, the time to the first violation (`None`: not
/// found), and which invariants it reported.
#[derive(Default)]
struct Results {
    times: Vec<Option<Duration>>,
    fired: BTreeSet<String>,
    /// Why the tool could not run the case, when it could not.
    blocked: Option<String>,
}

fn main() {
    let Some(seeds) = bench_seeds(5) else {
        return;
    };
    let budget = Duration::from_secs(
        std::env::var("HARVEY_REAL_REPOS_TIME")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(20),
    );
    let harvey_root = root::harvey_root();
    let forge = install::ensure_forge().unwrap_or_else(|e| panic!("{e}"));
    let mut rows = Vec::new();
    let only = std::env::var("HARVEY_REAL_REPOS_ONLY").ok();
    for repo in REPOS
        .iter()
        .filter(|r| only.as_deref().is_none_or(|o| o == r.harvey_test))
    {
        eprintln!("== {}", repo.name);
        match run_repo(harvey_root, &forge, repo, seeds, budget) {
            Ok(results) => rows.push((repo, results)),
            Err(e) => eprintln!("{}: skipped: {e}", repo.name),
        }
    }
    print_table(&rows, seeds, budget);
}

/// Everything for one repository: copies, compilers, then both tools on every case.
fn run_repo(
    harvey_root: &Path,
    forge: &Path,
    repo: &Repo,
    seeds: u64,
    budget: Duration,
) -> Result<Vec<(Results, Results)>, String> {
    let scratch = scratch().join(repo.harvey_test);
    let _ = std::fs::remove_dir_all(&scratch);
    let solc = solc_for(harvey_root, &repo.solc)?;
    let mut copies = Vec::new();
    for case in repo.cases {
        let dir = scratch.join(dir_name(case.name));
        materialise(repo, case, &dir)?;
        write_remappings(forge, &solc, &dir)?;
        copies.push(dir);
    }
    // The harvey crate lives in the unpatched copy, as a user's would; it fuzzes each copy.
    let crate_dir = &copies[0];
    let harvey_build = build_harvey_crate(harvey_root, crate_dir, repo);
    let mut results = Vec::new();
    for (case, dir) in repo.cases.iter().zip(&copies) {
        eprintln!("-- {} / {}", repo.name, case.name);
        let forge_results = run_forge(forge, &solc, repo, dir, seeds, budget);
        let harvey_results = match &harvey_build {
            Ok(()) => run_harvey(crate_dir, &solc, repo, dir, seeds, budget),
            Err(why) => Results {
                blocked: Some(why.clone()),
                ..Results::default()
            },
        };
        results.push((forge_results, harvey_results));
    }
    Ok(results)
}

/// This bench's scratch directory, beside `vs_forge`'s.
fn scratch() -> PathBuf {
    install::scratch().join("real-repos")
}

/// The copy's directory name: the case's name in lower-case words joined by `-`.
fn dir_name(case: &str) -> String {
    case.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect::<Vec<_>>()
        .join("-")
}

/// A fresh copy of `repo` with `case`'s change at `dir` (only ever a scratch directory).
fn materialise(repo: &Repo, case: &Case, dir: &Path) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(dir);
    for tree in repo.trees {
        repo::materialise(tree.mirror, tree.commit, &dir.join(tree.into))?;
    }
    for file in repo.exclude {
        std::fs::remove_file(dir.join(file)).map_err(|e| format!("{file}: {e}"))?;
    }
    match &case.change {
        Change::Unpatched => Ok(()),
        Change::RepoPatch(patch) => {
            // With a git dir and this work tree, `git apply` patches the copy (a bare
            // `git apply` inside harvey's checkout would apply to harvey, or skip).
            let git_dir = repo::git_dir(repo.trees[0].mirror);
            run(
                Command::new("git")
                    .arg(format!("--git-dir={}", git_dir.display()))
                    .arg(format!("--work-tree={}", dir.display()))
                    .current_dir(dir)
                    .args(["apply", patch]),
                &format!("git apply {patch}"),
            )
            .map(drop)
        }
        Change::Replace { file, from, to } => repo::replace_once(dir, file, from, to),
    }
}

/// The solc both tools use for `solc`: harvey's shim, or a copy of it over another solcjs
/// build (installed from npm by the shim on first use).
fn solc_for(harvey_root: &Path, solc: &Solc) -> Result<PathBuf, String> {
    let shim = harvey_root.join("tools/solc-shim");
    let Solc::Npm(version) = solc else {
        return Ok(shim.join("solc"));
    };
    let dir = scratch().join(format!("solc-{version}"));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for file in ["solc", "solc.js"] {
        std::fs::copy(shim.join(file), dir.join(file)).map_err(|e| format!("{file}: {e}"))?;
    }
    let package = format!(
        "{{\"name\":\"solc-{version}\",\"private\":true,\"dependencies\":{{\"solc\":\"{version}\"}}}}\n"
    );
    std::fs::write(dir.join("package.json"), package).map_err(|e| e.to_string())?;
    let solc = dir.join("solc");
    run(Command::new(&solc).arg("--version"), "solc --version").map(|_| solc)
}

/// forge's environment for a copy: the solc, offline, the repo's profile, and what makes
/// its time a time to violation.
fn forge_command(forge: &Path, solc: &Path, dir: &Path) -> Command {
    let mut command = Command::new(forge);
    command
        .current_dir(dir)
        .env("FOUNDRY_SOLC", solc)
        .env("FOUNDRY_OFFLINE", "true")
        .env_remove("FOUNDRY_PROFILE");
    command
}

/// `remappings.txt` from `forge remappings` (forge's own inferred ones).
fn write_remappings(forge: &Path, solc: &Path, dir: &Path) -> Result<(), String> {
    if std::env::var("HARVEY_REAL_REPOS_REMAPPINGS").is_ok_and(|v| v == "0")
        || dir.join("remappings.txt").exists()
    {
        return Ok(());
    }
    let remappings = run(
        forge_command(forge, solc, dir).arg("remappings"),
        "forge remappings",
    )?;
    std::fs::write(dir.join("remappings.txt"), remappings).map_err(|e| e.to_string())
}

/// The repo's suite under forge, seeds 1..=`seeds`.
fn run_forge(
    forge: &Path,
    solc: &Path,
    repo: &Repo,
    dir: &Path,
    seeds: u64,
    budget: Duration,
) -> Results {
    let mut results = Results::default();
    let mut build = forge_command(forge, solc, dir);
    if let Some(profile) = repo.forge_profile {
        build.env("FOUNDRY_PROFILE", profile);
    }
    if let Err(e) = run(build.arg("build"), "forge build") {
        results.blocked = Some(first_line(&e));
        return results;
    }
    for seed in 1..=seeds {
        // forge replays persisted failures first; every run must fuzz from scratch.
        let _ = std::fs::remove_dir_all(dir.join("cache/invariant"));
        let mut command = forge_command(forge, solc, dir);
        if let Some(profile) = repo.forge_profile {
            command.env("FOUNDRY_PROFILE", profile);
        }
        command
            .env("FOUNDRY_INVARIANT_SHRINK_RUN_LIMIT", "0")
            .env("FOUNDRY_INVARIANT_TIMEOUT", budget.as_secs().to_string())
            .args(["test", "--json", "--fuzz-seed", &seed.to_string()])
            .args(["--match-contract", repo.forge_contract])
            .args(["--no-match-test", repo.forge_skip])
            .stderr(Stdio::null());
        // A failing test makes forge exit non-zero: read the JSON either way.
        let stdout = match command.output() {
            Ok(output) => String::from_utf8_lossy(&output.stdout).into_owned(),
            Err(e) => {
                results.blocked = Some(format!("forge could not run: {e}"));
                return results;
            }
        };
        match forge_failures(&stdout) {
            Ok(failed) => {
                results.times.push(failed.iter().map(|(_, t)| *t).min());
                results
                    .fired
                    .extend(failed.into_iter().map(|(name, _)| name));
            }
            Err(e) => {
                results.blocked = Some(e);
                return results;
            }
        }
        eprintln!("   forge seed {seed}: {:?}", results.times.last());
    }
    results
}

/// The failed invariants in `forge test --json` output, with the durations forge reports.
fn forge_failures(stdout: &str) -> Result<Vec<(String, Duration)>, String> {
    let json: serde_json::Value = serde_json::from_str(stdout.trim())
        .map_err(|e| format!("forge gave no JSON result ({e}): {}", first_line(stdout)))?;
    let mut failed = Vec::new();
    let mut ran = 0;
    for suite in json.as_object().into_iter().flat_map(|s| s.values()) {
        let tests = suite["test_results"].as_object().into_iter().flatten();
        for (name, result) in tests {
            ran += 1;
            if result["status"] != "Failure" {
                continue;
            }
            if !name.starts_with("invariant") {
                let reason = result["reason"].as_str().unwrap_or("");
                return Err(format!("forge: {name} failed: {reason}"));
            }
            let duration = result["duration"].as_str().unwrap_or("");
            let time = forge_duration(duration)
                .ok_or_else(|| format!("forge: unreadable duration `{duration}`"))?;
            let short = name.trim_start_matches("invariant_").trim_end_matches("()");
            failed.push((short.to_string(), time));
        }
    }
    if ran == 0 {
        return Err("forge ran no test (does --match-contract match the suite?)".into());
    }
    Ok(failed)
}

/// forge's durations: `20s 27ms 50µs 107ns`, `1m 91ms 160µs 282ns`.
fn forge_duration(text: &str) -> Option<Duration> {
    let mut total = Duration::ZERO;
    for part in text.split_whitespace() {
        let digits = part.find(|c: char| !c.is_ascii_digit())?;
        let (number, unit) = part.split_at(digits);
        let n: u64 = number.parse().ok()?;
        total += match unit {
            "h" => Duration::from_secs(n * 3600),
            "m" => Duration::from_secs(n * 60),
            "s" => Duration::from_secs(n),
            "ms" => Duration::from_millis(n),
            "µs" | "us" => Duration::from_micros(n),
            "ns" => Duration::from_nanos(n),
            _ => return None,
        };
    }
    Some(total)
}

/// The scratch crate's `Cargo.toml`: harvey as a path dev-dependency, its own workspace
/// (the scratch directory sits inside harvey's target directory).
fn harvey_manifest(harvey_root: &Path, repo: &Repo) -> String {
    format!(
        "[package]\nname = \"{}-harvey\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
         publish = false\n\n[workspace]\n\n[dev-dependencies]\nharvey = {{ path = \"{}\" }}\n",
        repo.harvey_test,
        harvey_root.display()
    )
}

/// cargo for the scratch crate: harvey's own target directory, so that the dependencies
/// already compiled for harvey's tests are reused (with harvey's `Cargo.lock`).
fn cargo(crate_dir: &Path) -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| crate_dir.join("target"));
    command
        .current_dir(crate_dir)
        .env("CARGO_TARGET_DIR", target);
    // Whatever a developer has set must not change the campaigns.
    for (key, _) in std::env::vars() {
        if key.starts_with("HARVEY_") {
            command.env_remove(key);
        }
    }
    command
}

/// Writes the harvey test crate into the unpatched copy and builds its test (untimed).
fn build_harvey_crate(harvey_root: &Path, crate_dir: &Path, repo: &Repo) -> Result<(), String> {
    let write = |name: &str, text: &str| {
        let path = crate_dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    write("Cargo.toml", &harvey_manifest(harvey_root, repo))?;
    for (name, text) in HARVEY_TESTS {
        write(&format!("tests/{name}"), text)?;
    }
    std::fs::copy(harvey_root.join("Cargo.lock"), crate_dir.join("Cargo.lock"))
        .map_err(|e| format!("Cargo.lock: {e}"))?;
    eprintln!(
        "   building the harvey test crate in {}",
        crate_dir.display()
    );
    run(
        cargo(crate_dir).args(["test", "--no-run", "--test", repo.harvey_test]),
        "cargo test --no-run",
    )
    .map(drop)
    .map_err(|e| {
        let error = e
            .lines()
            .find(|l| l.starts_with("error"))
            .unwrap_or("see the build output");
        format!("the harvey test crate does not build against this harvey: {error}")
    })
}

/// harvey's mirror of the suite on the copy at `dir`, seeds 1..=`seeds`.
fn run_harvey(
    crate_dir: &Path,
    solc: &Path,
    repo: &Repo,
    dir: &Path,
    seeds: u64,
    budget: Duration,
) -> Results {
    let mut results = Results::default();
    let seed_list: Vec<String> = (1..=seeds).map(|s| s.to_string()).collect();
    let output = cargo(crate_dir)
        .args(["test", "--test", repo.harvey_test, "--", "--nocapture"])
        .env("HARVEY_SOLC", solc)
        .env("REAL_REPOS_ROOT", dir)
        .env("REAL_REPOS_SEEDS", seed_list.join(","))
        .env("REAL_REPOS_TIME_MS", budget.as_millis().to_string())
        .env("REAL_REPOS_DEPTH", repo.depth.to_string())
        .stderr(Stdio::null())
        .output();
    let stdout = match output {
        Ok(output) => String::from_utf8_lossy(&output.stdout).into_owned(),
        Err(e) => {
            results.blocked = Some(format!("cargo could not run: {e}"));
            return results;
        }
    };
    for line in stdout.lines().filter_map(|l| l.strip_prefix("real-repos ")) {
        let field = |key: &str| {
            line.split_whitespace()
                .find_map(|f| f.strip_prefix(key)?.strip_prefix('='))
        };
        if let Some(error) = line.split_once("error=").map(|(_, e)| e) {
            results.blocked = Some(format!("harvey: {error}"));
            return results;
        }
        let time = field("after_us")
            .and_then(|t| t.parse().ok())
            .map(Duration::from_micros);
        if let Some((_, violation)) = line.split_once("violation=") {
            assert!(
                violation.starts_with("Invariant {"),
                "{}: harvey's mirror reported `{violation}`, not one of its invariants; the bench \
                 times the suite's invariants",
                repo.name
            );
            results.fired.insert(violation_name(violation));
        }
        eprintln!("   harvey {line}");
        results.times.push(time);
    }
    if results.times.is_empty() {
        results.blocked = Some(format!(
            "harvey's test printed no result: {}",
            first_line(&stdout)
        ));
    }
    results
}

/// `Invariant { name: "solvencyBalances", .. }` → `solvencyBalances`; `Panic { code: .. }` as is.
fn violation_name(debug: &str) -> String {
    debug
        .split_once("name: \"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(name, _)| name.to_string())
        .unwrap_or_else(|| debug.chars().take(40).collect())
}

fn first_line(text: &str) -> String {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .chars()
        .take(200)
        .collect()
}

fn found(results: &Results, seeds: u64) -> String {
    if results.blocked.is_some() {
        return "cannot run".into();
    }
    format!("{}/{seeds}", hits(&results.times))
}

fn print_table(rows: &[(&Repo, Vec<(Results, Results)>)], seeds: u64, budget: Duration) {
    println!(
        "\nreal repositories: {seeds} seeds, {}s per campaign; on the unpatched code every \
         violation is a false positive; a miss counts as the budget in forge / harvey\n",
        budget.as_secs()
    );
    println!(
        "| repo | bug | forge found | forge median | harvey found | harvey median | forge / harvey | invariants broken (forge; harvey) |"
    );
    println!("|---|---|---|---:|---|---:|---:|---|");
    let mut notes = Vec::new();
    for (repo, results) in rows {
        for (case, (forge, harvey)) in repo.cases.iter().zip(results) {
            let (f, h) = (
                censored_median(&forge.times),
                censored_median(&harvey.times),
            );
            let join = |set: &BTreeSet<String>| {
                if set.is_empty() {
                    "—".to_string()
                } else {
                    set.iter().cloned().collect::<Vec<_>>().join(", ")
                }
            };
            println!(
                "| {} | {} | {} | {} | {} | {} | {} | {} / {} |",
                repo.name,
                case.name,
                found(forge, seeds),
                show(f),
                found(harvey, seeds),
                show(h),
                if f.is_some() || h.is_some() {
                    ratio(f, h, budget)
                } else {
                    "—".into()
                },
                join(&forge.fired),
                join(&harvey.fired)
            );
            for (tool, r) in [("forge", forge), ("harvey", harvey)] {
                if let Some(why) = &r.blocked {
                    notes.push(format!(
                        "{} / {}: {tool} cannot run: {why}",
                        repo.name, case.name
                    ));
                }
            }
            if let Some(needs) = case.harvey_needs {
                if hits(&harvey.times) == 0 {
                    notes.push(format!(
                        "{} / {}: harvey needs {needs}; a miss is expected until it has it",
                        repo.name, case.name
                    ));
                }
            }
        }
    }
    for (repo, _) in rows {
        notes.push(format!("{}: {}", repo.name, repo.harvey_mirror));
    }
    if std::env::var("HARVEY_REAL_REPOS_REMAPPINGS").is_ok_and(|v| v == "0") {
        notes.push("no remappings.txt written: both tools infer remappings".into());
    } else {
        notes.push("remappings.txt written from `forge remappings` in each copy".into());
    }
    for note in notes {
        println!("- {note}");
    }
}
