//! Foundry's forge 1.7.1 as the peer fuzzer: installed from npm into
//! the bench's scratch directory under the cargo target directory, given a generated project per contract (same sources, same
//! shim solc, same three senders), and timed to the first invariant violation.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::install::scratch;

/// One planted bug as forge sees it: the Solidity invariant body and whether a revert
/// (a Panic: the contracts revert for no other reason) fails the run.
pub(crate) struct ForgeCase {
    /// The contract's name.
    pub(crate) contract: &'static str,
    /// Its directory under `contracts/`.
    pub(crate) dir: &'static str,
    /// Statements of `invariant_holds()`; `target` is the deployed contract.
    pub(crate) invariant_body: &'static str,
    /// forge's `fail_on_revert`: true where the bug is a Panic rather than broken state.
    pub(crate) fail_on_revert: bool,
}

/// A generated, compiled forge project for one case.
pub(crate) struct ForgeProject {
    forge: PathBuf,
    dir: PathBuf,
}

/// One forge run to the first violation.
pub(crate) struct ForgeRun {
    /// Whether forge reported a failing invariant.
    pub(crate) found: bool,
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
    let dir = scratch()
        .join("forge-projects")
        .join(format!("{}-depth{depth}", case.contract));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["src", "test"] {
        std::fs::create_dir_all(dir.join(sub)).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let source = root
        .join("contracts")
        .join(case.dir)
        .join(format!("{}.sol", case.contract));
    std::fs::copy(
        &source,
        dir.join("src").join(format!("{}.sol", case.contract)),
    )
    .map_err(|e| format!("{}: {e}", source.display()))?;
    let write = |name: &str, text: String| {
        std::fs::write(dir.join(name), text).map_err(|e| format!("{name}: {e}"))
    };
    write("foundry.toml", foundry_toml(root, case, budget, depth))?;
    write(
        &format!("test/{}.t.sol", case.contract),
        test_contract(case),
    )?;
    let output = Command::new(forge)
        .arg("build")
        .current_dir(&dir)
        .output()
        .map_err(|e| format!("forge could not run: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "forge build failed for {}:\n{}{}",
            case.contract,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(ForgeProject {
        forge: forge.to_path_buf(),
        dir,
    })
}

/// Runs forge's invariant fuzzer with `seed` until the first violation or its budget.
pub(crate) fn time_to_violation(project: &ForgeProject, seed: u64) -> Result<ForgeRun, String> {
    // forge replays persisted failures first; every run must fuzz from scratch.
    let _ = std::fs::remove_dir_all(project.dir.join("cache/invariant"));
    let start = Instant::now();
    let output = Command::new(&project.forge)
        .args(["test", "--fuzz-seed", &seed.to_string()])
        .current_dir(&project.dir)
        .output()
        .map_err(|e| format!("forge could not run: {e}"))?;
    let wall = start.elapsed();
    let stdout = String::from_utf8_lossy(&output.stdout);
    // A failing invariant, not a failing setUp: the invariant's run summary is printed.
    let found = stdout.contains("[FAIL") && stdout.contains("invariant_holds() (runs:");
    if !found && !stdout.contains("[PASS") {
        return Err(format!(
            "forge test gave no result:\n{stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(ForgeRun {
        found,
        reported: reported_time(&stdout),
        wall,
    })
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
/// (so the time is time-to-violation), and the same wall-clock budget as harvey.
fn foundry_toml(root: &Path, case: &ForgeCase, budget: Duration, depth: u32) -> String {
    format!(
        "[profile.default]\nsrc = \"src\"\ntest = \"test\"\nout = \"out\"\nlibs = []\n\
         solc = \"{}\"\noffline = true\n\n[invariant]\nruns = 1000000\ndepth = {depth}\n\
         fail_on_revert = {}\nshrink_run_limit = 0\ntimeout = {}\n",
        root.join("tools/solc-shim/solc").display(),
        case.fail_on_revert,
        budget.as_secs()
    )
}

/// A forge invariant test without forge-std: the same three senders harvey uses.
fn test_contract(case: &ForgeCase) -> String {
    let name = case.contract;
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

    function invariant_holds() public view {{
        {body}
    }}
}}
"#,
        body = case.invariant_body
    )
}
