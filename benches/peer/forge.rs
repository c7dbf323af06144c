//! Foundry's forge 1.7.1 as the peer fuzzer: installed from npm into the bench's scratch
//! directory under the cargo target directory, given a generated project (same sources or
//! generated ones, same shim solc, harvey's three sender addresses: harvey's third holds its
//! attacker contract, which calls back once when called or paid, forge's are plain
//! accounts), and timed to the first invariant violation (vs_forge) or run with each
//! invariant's failure timed as forge announces it (the maze bench).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::install::scratch;

/// One planted bug as forge sees it: the Solidity invariant body, whether a revert fails
/// the run, and the failure reason that is the bug.
pub(crate) struct ForgeCase {
    /// The contract's name.
    pub(crate) contract: &'static str,
    /// Its directory under `contracts/`.
    pub(crate) dir: &'static str,
    /// Statements of `invariant_holds()`; `target` is the deployed contract.
    pub(crate) invariant_body: &'static str,
    /// forge's `fail_on_revert`: true only where the bug is a Panic other than a failed
    /// `assert` (forge 1.7.1 fails on a failed `assert` in a target call without it), since
    /// it makes any revert a failure: `Pipeline`'s `mirror + 7` overflowing, say.
    pub(crate) fail_on_revert: bool,
    /// The failure reason forge must print for the bug (`panic: assertion failed (0x01)`,
    /// the invariant's `require` message): a failure with another reason is not the bug.
    pub(crate) reason: &'static str,
}

/// A generated, compiled forge project for one case.
pub(crate) struct ForgeProject {
    forge: PathBuf,
    dir: PathBuf,
}

/// One forge run to the first violation.
pub(crate) struct ForgeRun {
    /// The failing invariant, when forge reported one.
    pub(crate) failure: Option<InvariantResult>,
    /// The suite time forge reports (`finished in …`): fuzzing without process start.
    pub(crate) reported: Option<Duration>,
    /// Wall-clock time of the whole `forge test` process.
    pub(crate) wall: Duration,
}

/// Writes the forge project for `case`, fuzzing sequences of up to `depth` calls, under the
/// scratch directory's `forge-projects/` and compiles it once (untimed).
pub(crate) fn prepare(
    root: &Path,
    forge: &Path,
    case: &ForgeCase,
    budget: Duration,
    depth: u32,
) -> Result<ForgeProject, String> {
    let source = root
        .join("contracts")
        .join(case.dir)
        .join(format!("{}.sol", case.contract));
    let text =
        std::fs::read_to_string(&source).map_err(|e| format!("{}: {e}", source.display()))?;
    let invariant = format!(
        "    function invariant_holds() public view {{\n        {}\n    }}\n",
        case.invariant_body
    );
    let settings = Invariant {
        depth,
        fail_on_revert: case.fail_on_revert,
        timeout: budget,
    };
    write_project(
        root,
        forge,
        &format!("{}-depth{depth}", case.contract),
        &[(case.contract.to_string(), text)],
        &test_contract(case.contract, &invariant),
        &settings,
    )
}

/// The `[invariant]` settings of a generated project.
pub(crate) struct Invariant {
    /// Calls per sequence.
    pub(crate) depth: u32,
    /// Whether a reverting call fails the run.
    pub(crate) fail_on_revert: bool,
    /// Wall-clock limit of each invariant's campaign (`FOUNDRY_INVARIANT_TIMEOUT` overrides
    /// it per run).
    pub(crate) timeout: Duration,
}

/// Writes a forge project `name` under the scratch directory's `forge-projects/`: `sources`
/// (contract name, Solidity) under `src/`, `test` (the test contract of
/// [`test_contract`]) under `test/`, and a foundry.toml with `settings`; then compiles it
/// once (untimed).
pub(crate) fn write_project(
    root: &Path,
    forge: &Path,
    name: &str,
    sources: &[(String, String)],
    test: &str,
    settings: &Invariant,
) -> Result<ForgeProject, String> {
    let dir = scratch().join("forge-projects").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["src", "test"] {
        std::fs::create_dir_all(dir.join(sub)).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let write = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text).map_err(|e| format!("{name}: {e}"))
    };
    for (contract, text) in sources {
        write(&format!("src/{contract}.sol"), text)?;
    }
    write("foundry.toml", &foundry_toml(root, settings))?;
    write(&format!("test/{name}.t.sol"), test)?;
    ForgeProject::build(forge, &dir)
}

impl ForgeProject {
    /// The project's directory.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// The forge project at `dir` (a generated one, or a materialised public suite),
    /// compiled once with `forge build` (untimed) so that the timed runs only fuzz.
    pub(crate) fn build(forge: &Path, dir: &Path) -> Result<ForgeProject, String> {
        let output = Command::new(forge)
            .arg("build")
            .current_dir(dir)
            .output()
            .map_err(|e| format!("forge could not run: {e}"))?;
        if !output.status.success() {
            return Err(format!(
                "forge build failed in {}:\n{}{}",
                dir.display(),
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        Ok(ForgeProject {
            forge: forge.to_path_buf(),
            dir: dir.to_path_buf(),
        })
    }
}

/// `forge test --fuzz-seed <seed>` in `project`, from scratch: forge replays persisted
/// failures first, so they are deleted.
pub(crate) fn test_command(project: &ForgeProject, seed: u64) -> Command {
    let _ = std::fs::remove_dir_all(project.dir.join("cache/invariant"));
    let mut command = Command::new(&project.forge);
    command
        .args(["test", "--fuzz-seed", &seed.to_string()])
        .current_dir(&project.dir);
    command
}

/// Runs forge's invariant fuzzer with `seed` until the first violation or its budget.
pub(crate) fn time_to_violation(project: &ForgeProject, seed: u64) -> Result<ForgeRun, String> {
    let run = run_invariants(test_command(project, seed))?;
    Ok(ForgeRun {
        // A failing invariant, not a failing setUp: the invariant's run summary is printed.
        failure: run
            .results
            .into_iter()
            .find(|r| r.failed && r.name == "invariant_holds"),
        reported: run.reported,
        wall: run.wall,
    })
}

/// What forge's text output says of one invariant test.
pub(crate) struct InvariantResult {
    /// The `invariant_*` function, without `()`.
    pub(crate) name: String,
    /// Whether it failed (`[FAIL…]`), rather than passed.
    pub(crate) failed: bool,
    /// The reason of a failure as forge prints it (`assertion failed`, `panic: division or
    /// modulo by zero (0x12)`, a revert reason), `None` for a pass or a bare `[FAIL]`.
    pub(crate) reason: Option<String>,
    /// The calls forge counts for it (`calls: N` of its run summary; forge 1.7.1 counts
    /// the calls of completed runs, so a campaign that failed in its first run says 0).
    pub(crate) calls: u64,
    /// The runs (sequences) forge counts for it (`runs: N`: completed runs, as `calls`).
    pub(crate) runs: u64,
    /// The calls of the failing sequence as found (`[Sequence] (original: N, …)`), for a
    /// failure that prints its sequence.
    pub(crate) sequence: Option<u64>,
}

impl InvariantResult {
    /// The calls forge ran up to and including the violation: the completed runs' calls
    /// and the failing sequence's.
    pub(crate) fn calls_to_failure(&self) -> u64 {
        self.calls + self.sequence.unwrap_or(0)
    }
}

/// One `forge test` run of invariant tests.
pub(crate) struct InvariantsRun {
    /// Each invariant test with a run summary `(runs: …, calls: …, reverts: …)`.
    pub(crate) results: Vec<InvariantResult>,
    /// The suite time forge reports (`finished in …`): fuzzing without process start.
    pub(crate) reported: Option<Duration>,
    /// Wall-clock time of the whole `forge test` process.
    pub(crate) wall: Duration,
}

/// Runs `command` (a [`test_command`], narrowed as the caller likes) to its end and reads
/// its text results; an error when it printed no invariant result (a failing setUp, a
/// compile error).
pub(crate) fn run_invariants(mut command: Command) -> Result<InvariantsRun, String> {
    let start = Instant::now();
    let output = command
        .output()
        .map_err(|e| format!("forge could not run: {e}"))?;
    let wall = start.elapsed();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let results = invariant_results(&stdout);
    if results.is_empty() {
        return Err(format!(
            "forge test gave no invariant result:\n{stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(InvariantsRun {
        results,
        reported: reported_time(&stdout),
        wall,
    })
}

/// The invariant results of forge's text output: `[PASS] invariant_a() (runs: 2000, calls:
/// 50000, reverts: 3)`, or `[FAIL: reason]` with the summary on a following line (forge
/// breaks the line after a failure's reason).
fn invariant_results(stdout: &str) -> Vec<InvariantResult> {
    let mut failed = false;
    let mut reason = None;
    let mut sequence = None;
    let mut results = Vec::new();
    for line in stdout.lines() {
        let line = line.trim();
        if line.starts_with("[PASS]") {
            failed = false;
            reason = None;
            sequence = None;
        } else if let Some(rest) = line.strip_prefix("[FAIL") {
            failed = true;
            reason = rest
                .strip_prefix(": ")
                .and_then(|r| r.split_once(']').map(|(r, _)| r.to_string()));
            sequence = None;
        } else if let Some(rest) = line.strip_prefix("[Sequence] (original: ") {
            sequence = leading_number(rest);
        }
        let Some((head, summary)) = line.split_once(" (runs: ") else {
            continue;
        };
        let Some(name) = head.split_whitespace().last() else {
            continue;
        };
        let calls = summary
            .split("calls: ")
            .nth(1)
            .and_then(leading_number)
            .unwrap_or(0);
        results.push(InvariantResult {
            name: name.trim_end_matches("()").to_string(),
            failed,
            reason: reason.clone(),
            calls,
            runs: leading_number(summary).unwrap_or(0),
            sequence: sequence.take(),
        });
    }
    results
}

/// The number `text` starts with.
fn leading_number(text: &str) -> Option<u64> {
    text.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// A `forge test --json` run, its failure events timed as they arrived.
pub(crate) struct StreamedRun {
    /// Each invariant forge announced broken while fuzzing (forge 1.7.1 prints a JSON
    /// `"event":"failure"` line on stderr the moment an invariant's campaign fails), with
    /// the time since the process started; only those before the limit.
    pub(crate) events: Vec<(String, Duration)>,
    /// The failing tests of the final result (forge prints it at the end), without `()`;
    /// empty when the run was killed.
    pub(crate) failed: Vec<String>,
    /// Wall-clock time of the process, at most the limit (plus the time to kill it).
    pub(crate) wall: Duration,
    /// Whether it was killed at the limit.
    pub(crate) killed: bool,
}

/// Runs `command` (a [`test_command`]) with `--json`, recording forge's failure events as
/// they arrive on stderr, and kills it if it is still running after `limit`.
pub(crate) fn run_streamed(mut command: Command, limit: Duration) -> Result<StreamedRun, String> {
    command
        .arg("--json")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = command
        .spawn()
        .map_err(|e| format!("forge could not run: {e}"))?;
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let results = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let (lines, arrived) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if lines.send((line, start.elapsed())).is_err() {
                break;
            }
        }
    });
    let mut events = Vec::new();
    let mut other = String::new();
    let mut killed = false;
    loop {
        let line = if killed {
            arrived.recv().map_err(|_| RecvTimeoutError::Disconnected)
        } else {
            arrived.recv_timeout(limit.saturating_sub(start.elapsed()))
        };
        match line {
            Ok((line, at)) => match failure_event(&line) {
                Some(invariant) if at <= limit => events.push((invariant, at)),
                Some(_) => {}
                None => {
                    other.push_str(&line);
                    other.push('\n');
                }
            },
            Err(RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                killed = true;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    let status = child.wait().map_err(|e| format!("forge: {e}"))?;
    let wall = start.elapsed();
    let stdout = results.join().expect("the reader thread does not panic");
    if killed {
        return Ok(StreamedRun {
            events,
            failed: Vec::new(),
            wall,
            killed,
        });
    }
    let failed = failed_tests(&stdout)
        .ok_or_else(|| format!("forge test gave no JSON result ({status}):\n{stdout}{other}"))?;
    if failed.iter().any(|t| t == "setUp") {
        return Err(format!("forge's setUp failed:\n{stdout}{other}"));
    }
    Ok(StreamedRun {
        events,
        failed,
        wall,
        killed,
    })
}

/// The invariant of a `{"event":"failure","invariant":"invariant_3",…}` line.
fn failure_event(line: &str) -> Option<String> {
    let event: serde_json::Value = serde_json::from_str(line).ok()?;
    (event["event"] == "failure").then(|| event["invariant"].as_str().map(String::from))?
}

/// The failing tests of `forge test --json`'s result (suite → `test_results` → test →
/// `status`), without `()`.
fn failed_tests(stdout: &str) -> Option<Vec<String>> {
    let result: serde_json::Value = serde_json::from_str(stdout.trim()).ok()?;
    let mut failed = Vec::new();
    for suite in result.as_object()?.values() {
        for (test, outcome) in suite["test_results"].as_object()? {
            if outcome["status"] == "Failure" {
                failed.push(test.trim_end_matches("()").to_string());
            }
        }
    }
    Some(failed)
}

/// Parses `finished in 2.46ms` (or `µs`, `s`) from forge's suite result line.
fn reported_time(stdout: &str) -> Option<Duration> {
    let line = stdout.lines().find(|l| l.contains("Suite result"))?;
    let text = line
        .split("finished in ")
        .nth(1)?
        .split_whitespace()
        .next()?;
    let (number, scale) = if let Some(n) = text.strip_suffix("µs") {
        (n, 1e-6)
    } else if let Some(n) = text.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = text.strip_suffix("ns") {
        (n, 1e-9)
    } else {
        (text.strip_suffix('s')?, 1.0)
    };
    number
        .parse::<f64>()
        .ok()
        .map(|v| Duration::from_secs_f64(v * scale))
}

/// Same solc (the repo's shim), offline, the same depth as harvey's campaign, no shrinking
/// (so the time is time-to-violation), and a wall-clock limit per invariant.
fn foundry_toml(root: &Path, settings: &Invariant) -> String {
    format!(
        "[profile.default]\nsrc = \"src\"\ntest = \"test\"\nout = \"out\"\nlibs = []\n\
         solc = \"{}\"\noffline = true\n\n[invariant]\nruns = 1000000\ndepth = {}\n\
         fail_on_revert = {}\nshrink_run_limit = 0\ntimeout = {}\n",
        root.join("tools/solc-shim/solc").display(),
        settings.depth,
        settings.fail_on_revert,
        settings.timeout.as_secs()
    )
}

/// A forge test contract without forge-std for contract `name` (deployed in `setUp` as
/// `target`, the only target contract), fuzzed from the three sender addresses harvey uses
/// (plain accounts here; harvey's third holds its attacker contract), with
/// `invariants` (Solidity functions) as its body.
pub(crate) fn test_contract(name: &str, invariants: &str) -> String {
    format!(
        r#"// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {{{name}}} from "../src/{name}.sol";

contract {name}Invariants {{
    bool public IS_TEST = true;
    {name} internal target;

    function setUp() public {{
        target = new {name}();
    }}

    function targetContracts() public view returns (address[] memory list) {{
        list = new address[](1);
        list[0] = address(target);
    }}

    function targetSenders() public pure returns (address[] memory list) {{
        list = new address[](3);
        list[0] = address(0x10000);
        list[1] = address(0x20000);
        list[2] = address(0x30000);
    }}

{invariants}}}
"#
    )
}
