//! `cargo harvey init` end to end, with the built binary on copies of harvey's Foundry
//! fixtures: the acceptance test (init, init again, then `cargo test` in the copy reports the
//! suite's planted bug), the suites it lists on the forge-suites fixture, and its errors.
//!
//! Every child process runs without the user's `HARVEY_*` variables (and `FOUNDRY_PROFILE`),
//! with the repo's solc shim as `HARVEY_SOLC`: the fixtures pin no compiler, as a stock
//! Foundry repository pins none.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

/// harvey's repository.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A fixture of `tests/fixtures`, its npm dependencies installed.
fn fixture(name: &str) -> PathBuf {
    let dir = repo().join("tests/fixtures").join(name);
    let status = Command::new(dir.join("npm-install")).status().unwrap();
    assert!(status.success(), "{name}/npm-install failed");
    dir
}

/// Copies the project at `from` to `to`, without what builds leave (`out`, `cache`,
/// `target`) and npm's lock.
fn copy_project(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if ["out", "cache", "target", ".install.lock"].contains(&name.to_str().unwrap_or("")) {
            continue;
        }
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            copy_project(&entry.path(), &to.join(&name));
        } else if kind.is_file() {
            std::fs::copy(entry.path(), to.join(&name)).unwrap();
        }
    }
}

/// `program` with the environment every child gets here: no `HARVEY_*` variable of the
/// user's, no `FOUNDRY_PROFILE`, the repo's solc shim as `HARVEY_SOLC`.
fn command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut command = Command::new(program);
    for (name, _) in std::env::vars_os() {
        let text = name.to_string_lossy();
        if text.starts_with("HARVEY_") || text == "FOUNDRY_PROFILE" {
            command.env_remove(&name);
        }
    }
    command.env("HARVEY_SOLC", repo().join("tools/solc-shim/solc"));
    command
}

/// `cargo-harvey` with `args`, as cargo runs it (`harvey` first) or directly.
fn cargo_harvey(args: &[&str], cwd: &Path) -> Output {
    command(env!("CARGO_BIN_EXE_cargo-harvey"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn both(output: &Output) -> String {
    format!(
        "status: {}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn read(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(path.as_ref())
        .unwrap_or_else(|e| panic!("{}: {e}", path.as_ref().display()))
}

/// The commented Rust invariant of a generated tests file, uncommented.
fn uncommented_example(tests: &str) -> String {
    let start = tests
        .find("// A Rust invariant over")
        .expect("the tests file has the commented example");
    tests[start..]
        .lines()
        .skip_while(|line| !line.starts_with("// use "))
        .map(|line| {
            line.strip_prefix("// ")
                .unwrap_or(line.trim_start_matches("//"))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The acceptance test of issue 31: `cargo harvey init` on a copy of a Foundry repository
/// with a handler suite (`LedgerInvariants`, a planted bug in `Ledger`), run twice (the second
/// run changes nothing), then `cargo test` in it fails naming the broken invariant. The
/// commented Rust invariant, uncommented into a second test file, compiles against harvey's
/// current API and passes.
///
/// The nested cargo builds in `<target>/init-e2e` (not this build's target directory, whose
/// lock the outer `cargo test` holds), kept between runs: the first run builds harvey and its
/// dependencies from cold (minutes), later ones only the copy's tests. It resolves
/// dependencies from harvey's own Cargo.lock, copied in, so that it builds the versions
/// harvey is tested with (already in cargo's download cache from harvey's own build, so
/// nothing new is fetched; the command itself does not pass `--offline`).
#[test]
fn init_then_cargo_test_reports_the_suite_s_planted_bug() {
    let temp = tempfile::tempdir().unwrap();
    let project = temp.path().join("ledger-repo");
    copy_project(&fixture("init-project"), &project);
    let harvey = format!("path={}", repo().display());

    // The first run writes the three files.
    let first = cargo_harvey(&["init", "--harvey", &harvey], &project);
    assert!(first.status.success(), "{}", both(&first));
    let said = stdout(&first);
    for line in [
        format!(
            "  created  Cargo.toml: package `ledger-repo`, harvey = {{ path = {:?} }}",
            repo().display().to_string()
        ),
        "  created  tests/harvey.rs: 2 suite tests (LedgerFuzzTest, LedgerInvariants), a commented Rust invariant over Ledger".into(),
        "  appended .gitignore: target/".into(),
    ] {
        assert!(said.contains(&line), "missing {line:?} in\n{said}");
    }
    let manifest: toml::Table = read(project.join("Cargo.toml")).parse().unwrap();
    assert_eq!(
        manifest["dev-dependencies"]["harvey"]["path"].as_str(),
        Some(repo().to_str().unwrap())
    );
    assert!(
        manifest["profile"]["dev"]["package"]["revm"]["opt-level"].as_integer() == Some(3),
        "{manifest}"
    );
    let tests = read(project.join("tests/harvey.rs"));
    assert!(
        tests.contains("#[harvey::forge_suite(\"LedgerInvariants\")]\nfn ledger_invariants() {}"),
        "{tests}"
    );
    assert!(
        tests.contains("#[harvey::forge_suite(\"LedgerFuzzTest\")]\nfn ledger_fuzz_test() {}"),
        "{tests}"
    );
    assert!(
        tests.contains("//     let ledger = chain.deploy(\"Ledger\", ())?;"),
        "{tests}"
    );
    assert!(read(project.join(".gitignore")).ends_with("/cache\ntarget/\n"));

    // The second run, as cargo runs it and with --root, changes nothing and says so.
    let files = ["Cargo.toml", "tests/harvey.rs", ".gitignore"];
    let before: Vec<String> = files.iter().map(|f| read(project.join(f))).collect();
    let root = project.display().to_string();
    let second = cargo_harvey(
        &["harvey", "init", "--root", &root, "--harvey", &harvey],
        temp.path(),
    );
    assert!(second.status.success(), "{}", both(&second));
    let said = stdout(&second);
    assert!(
        said.contains("Nothing changed: everything harvey needs is in place."),
        "{said}"
    );
    assert_eq!(said.matches("  skipped ").count(), 3, "{said}");
    let after: Vec<String> = files.iter().map(|f| read(project.join(f))).collect();
    assert_eq!(before, after);

    // The commented example, uncommented, is a second test file.
    std::fs::write(
        project.join("tests/example.rs"),
        uncommented_example(&tests),
    )
    .unwrap();
    std::fs::copy(repo().join("Cargo.lock"), project.join("Cargo.lock")).unwrap();

    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("init-e2e");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let started = Instant::now();
    let run = command(cargo)
        .args(["test", "--no-fail-fast"])
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(&project)
        .output()
        .unwrap();
    eprintln!(
        "init e2e: `cargo test` in the initialised copy took {:.1?} (target {})",
        started.elapsed(),
        target.display()
    );
    let output = both(&run);
    assert!(
        !run.status.success(),
        "the planted bug must fail the suite's test:\n{output}"
    );
    for expected in [
        "test ledger_invariants ... FAILED",
        "invariant_totalIsTheSumOfCredits",
        "the total is not the sum of the credits",
        // The fuzz test over the same bug fails; the one that holds does not.
        "test ledger_fuzz_test ... FAILED",
        "fuzz test testFuzz_closingEmptiesTheTotal failed",
        "closing left credit in the total",
        "test ledger_holds ... ok",
        "test every_suite_has_a_test ... ok",
    ] {
        assert!(
            output.contains(expected),
            "missing {expected:?} in\n{output}"
        );
    }

    assert!(
        !output.contains("testFuzz_partialWithdrawalKeepsTheRest failed"),
        "{output}"
    );

    // A suite added after init fails the guard init wrote, named with the test to add.
    std::fs::write(
        project.join("test/LaterProperties.sol"),
        "// SPDX-License-Identifier: MIT\npragma solidity ^0.8.20;\n\n\
         contract LaterProperties {\n    uint256 public bumps;\n\n    \
         function bump() public { bumps += 1; }\n\n    \
         function echidna_fewBumps() public view returns (bool) { return bumps < 1000; }\n}\n",
    )
    .unwrap();
    let guard = command(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["test", "--test", "harvey", "every_suite_has_a_test"])
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(&project)
        .output()
        .unwrap();
    let output = both(&guard);
    assert!(!guard.status.success(), "{output}");
    for expected in [
        "test every_suite_has_a_test ... FAILED",
        "`LaterProperties` (test/LaterProperties.sol): add",
        "#[harvey::forge_suite(\"LaterProperties\")]",
    ] {
        assert!(
            output.contains(expected),
            "missing {expected:?} in\n{output}"
        );
    }
}

/// On the forge-suites fixture (a stock Foundry layout with many suites), the tests file
/// names exactly the suites `#[harvey::forge_suite]` runs with invariants: forge suites and
/// Echidna/Medusa property contracts, and the harnesses Echidna and Medusa configs name (with
/// their configs, assertion mode included); not the abstract `VaultInvariants`, the
/// handlers, the assertion-mode contracts no config names, nor forge-std's contracts under
/// `node_modules`.
#[test]
fn init_lists_the_suites_the_macro_runs() {
    let temp = tempfile::tempdir().unwrap();
    let project = temp.path().join("forge-suites");
    copy_project(&fixture("forge-suites"), &project);
    let output = cargo_harvey(&["init", "--harvey", "version=0.1"], &project);
    assert!(output.status.success(), "{}", both(&output));
    let tests = read(project.join("tests/harvey.rs"));
    let mut named: Vec<&str> = tests
        .lines()
        .filter_map(|l| l.strip_prefix("#[harvey::forge_suite(\""))
        .map(|l| l.trim_end_matches("\")]"))
        .collect();
    named.sort();
    assert_eq!(
        named,
        [
            "AirdropEchidna\", config = \"test/configs/AirdropEchidna.yaml",
            "BankTest",
            "BoardExcludeTest",
            "BoardTargetsTest",
            "CappedPoolProperties",
            "ClockAssertions\", config = \"test/configs/stateless/echidna.yaml",
            "ClockProperties",
            "DeployedTreasuryTest",
            "DeskTest",
            "GaugeAssertions\", config = \"test/configs/assertion/echidna.yaml",
            "InterestAssertions\", config = \"test/configs/stateless/echidna.yaml",
            "LeakyVaultTest",
            "LendingSoundTest",
            "LendingTest",
            "LockProperties",
            "MintProperties",
            "PointsTest",
            "PoolProperties\", config = \"test/configs/medusa.json",
            "PositionsAssertions\", config = \"test/configs/stateless/echidna.yaml",
            "RefundEchidna\", config = \"test/configs/RefundEchidna.yaml",
            "RegistryTest",
            "RouterAssertions\", config = \"test/configs/stateless/echidna.yaml",
            "SetUpRevertTest",
            "SetUpUnsupportedTest",
            "StaleOracleTest",
            "StatelessEdgesTest",
            "StatelessSoundTest",
            "StatelessTest",
            "StatelessTestFailTest",
            "TokenTest",
            "TrancheAssertions\", config = \"test/configs/stateless/echidna.yaml",
            "UnsupportedCheatcodeTest",
            "VaultTest",
        ],
        "{tests}"
    );
    assert!(
        tests.contains(
            "an Echidna/Medusa property contract: echidna_under_cap, property_points_counted."
        ),
        "{tests}"
    );
    // The example is over a contract of src/, never a test, handler or script.
    let example = &tests[tests.find("// A Rust invariant over").unwrap()..];
    assert!(example.contains("(src/"), "{example}");
    let manifest = read(project.join("Cargo.toml"));
    assert!(
        manifest.contains("harvey = { version = \"0.1\" }"),
        "{manifest}"
    );
}

#[test]
fn a_directory_without_solidity_is_refused_and_nothing_written() {
    let temp = tempfile::tempdir().unwrap();
    let output = cargo_harvey(&["init"], temp.path());
    assert_eq!(output.status.code(), Some(1), "{}", both(&output));
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(
        error.contains("is not a Solidity project harvey can compile"),
        "{error}"
    );
    assert_eq!(std::fs::read_dir(temp.path()).unwrap().count(), 0);
}

#[test]
fn a_compile_error_is_shown_with_solc_s_place_and_nothing_written() {
    let temp = tempfile::tempdir().unwrap();
    let project = temp.path().join("broken");
    std::fs::create_dir_all(project.join("contracts")).unwrap();
    std::fs::write(
        project.join("contracts/Broken.sol"),
        "// SPDX-License-Identifier: MIT\npragma solidity ^0.8.20;\n\ncontract Broken {\n    function f() external { x = 1; }\n}\n",
    )
    .unwrap();
    let output = cargo_harvey(&["init"], &project);
    assert_eq!(output.status.code(), Some(1), "{}", both(&output));
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("harvey could not compile"), "{error}");
    assert!(error.contains("Broken.sol:5"), "{error}");
    assert!(error.contains("Nothing was written."), "{error}");
    for file in ["Cargo.toml", "tests", ".gitignore"] {
        assert!(!project.join(file).exists(), "{file} was written");
    }
}

#[test]
fn unknown_arguments_are_refused_with_the_usage_hint() {
    let temp = tempfile::tempdir().unwrap();
    let output = cargo_harvey(&["harvey", "init", "--force"], temp.path());
    assert_eq!(output.status.code(), Some(2), "{}", both(&output));
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("unknown argument `--force`"), "{error}");
    let help = cargo_harvey(&["harvey", "--help"], temp.path());
    assert!(help.status.success());
    assert!(stdout(&help).contains("Usage: cargo harvey init [--root DIR] [--harvey SPEC]"));
}
