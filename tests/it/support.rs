//! What several test modules share: the repository and its compiled `contracts/`, throwaway
//! projects compiled by the repo's solc shim, transactions and calls by signature, and the
//! checks on outcomes that more than one module makes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use alloy_dyn_abi::{DynSolValue, JsonAbiExt};
use alloy_json_abi::Function;
use harvey::chain::{RevertReason, Tx, TxOptions};
use harvey::prelude::*;
use harvey::project::{Artifacts, Environment, compiled_in};
use harvey::{Failure, Outcome, Violation};

/// One ether in wei.
pub(crate) const ETHER: u64 = 1_000_000_000_000_000_000;

/// `n` ether in wei.
pub(crate) fn ether(n: u64) -> U256 {
    U256::from(n) * U256::from(ETHER)
}

/// The repository root: the project whose `contracts/` the tests compile.
pub(crate) fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The process environment without the variables a user may have set for their own
/// projects (`HARVEY_SOLC`, `HARVEY_SKIP`, `FOUNDRY_PROFILE`): the tests' projects name their
/// compiler in foundry.toml and must compile the same whatever the user's shell says.
pub(crate) fn environment() -> Environment {
    Environment {
        harvey_solc: None,
        harvey_skip: None,
        foundry_profile: None,
        ..Environment::from_process()
    }
}

/// The repository's `contracts/`, compiled once per process (in [`environment`]; campaigns
/// that compile the same root later share this compilation).
pub(crate) fn artifacts() -> Arc<Artifacts> {
    compiled_at(repo()).expect("contracts/ compiles")
}

/// A campaign on the project at `root`, compiled first in [`environment`]: a campaign
/// compiles its root through the per-process memo, and the first compilation decides.
pub(crate) fn campaign_on<'a>(root: impl AsRef<Path>) -> Campaign<'a> {
    let root = root.as_ref();
    // A compile error is the campaign's to report, from the same memo.
    let _ = compiled_at(root);
    Campaign::new(root)
}

/// The artifacts of the project at `root`, compiled once per process in [`environment`].
pub(crate) fn compiled_at(root: &Path) -> harvey::Result<Arc<Artifacts>> {
    compiled_in(root, &environment())
}

/// `Seats`' invariant: the first seat stays the founder's (or empty). A second sender that
/// takes a seat and promotes itself breaks it.
pub(crate) fn founder_keeps_the_first_seat(chain: &Chain) -> harvey::Result<bool> {
    let seats = chain.get("Seats");
    let first: Address = chain.view(seats, "first()", ())?;
    let founder: Address = chain.view(seats, "founder()", ())?;
    Ok(first == founder || first == Address::ZERO)
}

/// A fresh chain over the repository's contracts.
pub(crate) fn chain() -> Chain {
    Chain::new(artifacts())
}

/// A fresh chain with the repository's contract `name` deployed (no constructor arguments).
pub(crate) fn deployed(name: &str) -> (Chain, Address) {
    let mut chain = chain();
    let at = chain
        .deploy(name, ())
        .unwrap_or_else(|e| panic!("deploying {name}: {e}"));
    (chain, at)
}

/// The repo's solc shim (solcjs from npm, installed on first use).
pub(crate) fn shim() -> PathBuf {
    repo().join("tools/solc-shim/solc")
}

/// A foundry.toml for sources in `contracts/`, no libraries, compiled by the shim, followed
/// by `keys`.
pub(crate) fn shim_toml(keys: &str) -> String {
    format!(
        "[profile.default]\nsrc = \"contracts\"\nlibs = []\nsolc = {:?}\n{keys}",
        shim().display().to_string()
    )
}

/// A throwaway project: [`shim_toml`] with `keys`, and `files` (name, text) under
/// `contracts/`.
pub(crate) fn project(keys: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("foundry.toml"), shim_toml(keys)).unwrap();
    std::fs::create_dir_all(dir.path().join("contracts")).unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join("contracts").join(name), text).unwrap();
    }
    dir
}

/// Runs `git args` in `dir`; panics with git's message unless it succeeds.
pub(crate) fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A git repository holding a project in `subdir` (`""` for the top level): [`shim_toml`]
/// and `files` (name, text) under `contracts/`, committed. Returns the repository and the
/// project root.
pub(crate) fn committed_project(
    subdir: &str,
    files: &[(&str, &str)],
) -> (tempfile::TempDir, PathBuf) {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path().join(subdir);
    std::fs::create_dir_all(root.join("contracts")).unwrap();
    std::fs::write(root.join("foundry.toml"), shim_toml("")).unwrap();
    std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
    for (name, text) in files {
        std::fs::write(root.join("contracts").join(name), text).unwrap();
    }
    git(repo.path(), &["init", "-q", "-b", "main"]);
    git(repo.path(), &["config", "user.name", "harvey tests"]);
    git(
        repo.path(),
        &["config", "user.email", "tests@harvey.invalid"],
    );
    git(repo.path(), &["config", "commit.gpgsign", "false"]);
    // Files are stored and compared byte for byte (CRLF ones too), whatever the user's
    // git configuration says.
    git(repo.path(), &["config", "core.autocrlf", "false"]);
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-q", "-m", "project"]);
    (repo, root)
}

/// A `uint256` argument.
pub(crate) fn uint(x: u64) -> DynSolValue {
    DynSolValue::from(U256::from(x))
}

/// The calldata of `signature` with `args`.
pub(crate) fn calldata(signature: &str, args: &[DynSolValue]) -> Bytes {
    Function::parse(signature)
        .expect("valid signature")
        .abi_encode_input(args)
        .expect("args fit")
        .into()
}

/// A transaction calling `signature` with `args` on `to` from the first default sender.
pub(crate) fn tx(chain: &Chain, to: Address, signature: &str, args: &[DynSolValue]) -> Tx {
    Tx {
        sender: chain.senders()[0],
        to,
        calldata: calldata(signature, args),
        ..Tx::default()
    }
}

/// Calls `signature` with `args` and `value` wei on `to` from `from`, committing; the outcome
/// is returned whether or not the call reverted (a call that cannot be made panics).
pub(crate) fn send(
    chain: &mut Chain,
    from: Address,
    to: Address,
    signature: &str,
    args: &[DynSolValue],
    value: U256,
) -> TxOutcome {
    let options = TxOptions {
        sender: Some(from),
        value,
    };
    chain
        .try_call_with(to, signature, args, options)
        .unwrap_or_else(|e| panic!("calling {signature}: {e}"))
}

/// Calls `signature`, which takes one `uint256`, with `amount` on `to` from `from`,
/// committing (see [`send`]).
pub(crate) fn send_uint(
    chain: &mut Chain,
    from: Address,
    to: Address,
    signature: &str,
    amount: u64,
) -> TxOutcome {
    send(chain, from, to, signature, &[uint(amount)], U256::ZERO)
}

/// `from` calls `signature` on `to` with `args`; whether it succeeded.
pub(crate) fn succeeds(
    chain: &mut Chain,
    from: Address,
    to: Address,
    signature: &str,
    args: impl harvey::chain::SolArgs,
) -> bool {
    let options = TxOptions {
        sender: Some(from),
        value: U256::ZERO,
    };
    chain
        .try_call_with(to, signature, args, options)
        .unwrap_or_else(|e| panic!("{signature}: {e}"))
        .is_success()
}

/// The address a successful call returned (a factory's new contract).
pub(crate) fn returned_address(outcome: &TxOutcome) -> Address {
    assert!(outcome.is_success(), "{outcome:?}");
    Address::from_slice(&outcome.output[12..32])
}

/// `Contract.function` of every call in `failure`'s sequence.
pub(crate) fn calls(failure: &Failure) -> Vec<String> {
    failure
        .calls
        .iter()
        .map(|c| format!("{}.{}", c.contract, c.function_name()))
        .collect()
}

/// Asserts that `outcome` is a failed `assert` (`Panic(0x01)`).
pub(crate) fn assert_assert(outcome: &TxOutcome) {
    assert_eq!(
        outcome.status,
        TxStatus::Revert(RevertReason::Panic(PanicCode::Assert)),
        "{outcome:?}"
    );
}

/// The Rust invariant of `Hive` (`contracts/bugs/Hive.sol`): visits stay below 3.
pub(crate) fn few_visits(chain: &Chain) -> bool {
    chain
        .view::<U256>(chain.get("Hive"), "visits()", ())
        .is_ok_and(|visits| visits < U256::from(3))
}

/// Asserts that `failure` is Panic `code` raised by `contract`'s code at `line`
/// (`file:line`).
pub(crate) fn assert_panic_at(failure: &Failure, code: PanicCode, line: &str, contract: &str) {
    match &failure.violation {
        Violation::Panic { code: found, place } => {
            assert_eq!(*found, code);
            assert_eq!(place.line.as_deref(), Some(line), "{place:?}");
            assert_eq!(place.contract, contract);
        }
        other => panic!("expected {code} at {line}, found {other}"),
    }
}

/// The campaign's failure; panics with its summary when it found none.
pub(crate) fn failure(outcome: &Outcome) -> &Failure {
    outcome.failure().unwrap_or_else(|| {
        panic!(
            "expected a violation; summary:\n{}",
            harvey::report::summary(outcome)
        )
    })
}

/// The campaign's one failure; panics with the report when there is not exactly one.
pub(crate) fn only_failure(outcome: &Outcome) -> &Failure {
    assert_eq!(
        outcome.failures.len(),
        1,
        "{}",
        harvey::report::failures_report(&outcome.failures, None)
    );
    &outcome.failures[0]
}

/// The error `campaign` is refused with; panics when it runs.
pub(crate) fn refused(campaign: Campaign<'_>) -> String {
    match campaign.run() {
        Ok(outcome) => panic!("the campaign ran:\n{outcome}"),
        Err(error) => error.to_string(),
    }
}

/// The messages of every `AssertionFailed(string)` the chain's logs hold.
pub(crate) fn assertion_events(chain: &Chain) -> Vec<String> {
    chain
        .events_of("AssertionFailed(string)")
        .unwrap()
        .into_iter()
        .map(|(_, values)| values[0].as_str().unwrap().to_string())
        .collect()
}

/// Runs the `npm-install` script of the fixture project at `fixture` (its npm dependencies,
/// installed on first use), failing the test when it fails.
pub(crate) fn npm_install(fixture: &Path) {
    let status = std::process::Command::new(fixture.join("npm-install"))
        .status()
        .expect("run the fixture's npm-install");
    assert!(
        status.success(),
        "npm install of {}'s dependencies failed",
        fixture.display()
    );
}
