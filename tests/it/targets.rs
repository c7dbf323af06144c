//! Targets from git diffs and explicit lines, on a throwaway git repository compiled by the
//! repo's solc shim: which lines become targets, which pcs they carry, the errors and
//! warnings a user sees, and a `diff:` campaign that reaches what changed.

use std::path::{Path, PathBuf};

use harvey::Error;
use harvey::project::ContractArtifact;
use harvey::targets::{Resolved, Target, TargetSpec, resolve};

use crate::support::{campaign_on, committed_project, compiled_at};

/// A git repository holding a project in `subdir` (`""` for the top level) with `Vault.sol`
/// under `contracts/`, committed. Returns the repository and the project root.
fn repository(subdir: &str, vault: &str) -> (tempfile::TempDir, PathBuf) {
    committed_project(subdir, &[("Vault.sol", vault)])
}

const VAULT: &str = "// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

contract Vault {
    uint256 public total;
    uint256 public fee;
    mapping(address => uint256) public balances;

    function deposit(uint256 amount) external {
        // credit the sender
        balances[msg.sender] += amount;
        total += amount;
        fee = amount / 100;
    }

    function withdraw(uint256 amount) external {
        require(balances[msg.sender] >= amount, \"balance\");
        balances[msg.sender] -= amount;
        total -= amount;
    }
}
";

/// `VAULT` with a line added, one changed and one deleted.
const EDITED: &str = "// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

contract Vault {
    uint256 public total;
    uint256 public fee;
    mapping(address => uint256) public balances;

    function deposit(uint256 amount) external {
        // credit the sender
        require(amount > 0, \"zero\");
        balances[msg.sender] += amount;
        total += amount;
        fee = amount / 50;
    }

    function withdraw(uint256 amount) external {
        require(balances[msg.sender] >= amount, \"balance\");
        total -= amount;
    }
}
";

/// A new contract nobody has `git add`ed yet.
const EXTRA: &str = "// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

contract Extra {
    uint256 public count;

    function bump() external {
        count += 1;
    }
}
";

/// The 1-based line of `text` that contains `needle`.
fn line_of(text: &str, needle: &str) -> u32 {
    let index = text.lines().position(|l| l.contains(needle));
    index.unwrap_or_else(|| panic!("no line contains {needle:?}")) as u32 + 1
}

fn lines_of(resolved: &Resolved, file: &str, contract: &str) -> Vec<u32> {
    resolved
        .targets
        .iter()
        .filter(|t| t.file == Path::new(file) && t.contract == contract)
        .map(|t| t.line)
        .collect()
}

/// The pcs a target on `line` must carry, computed independently: the starts of the basic
/// blocks of every instruction whose source range is exactly that line.
fn expected_pcs(contract: &ContractArtifact, line: u32) -> Vec<usize> {
    let code = &contract.runtime_code;
    let mut starts = Vec::new();
    let (mut pc, mut after_end) = (0, true);
    while pc < code.len() {
        let op = code[pc];
        if after_end || op == 0x5b {
            starts.push(pc);
        }
        after_end = matches!(op, 0x00 | 0x56 | 0x57 | 0xf3 | 0xfd | 0xfe | 0xff);
        pc += 1 + if (0x60..=0x7f).contains(&op) {
            (op - 0x5f) as usize
        } else {
            0
        };
    }
    let mut pcs: Vec<usize> = contract
        .source_locations()
        .filter(|(_, loc)| loc.line == line && loc.end_line == line)
        .map(|(pc, _)| *starts.iter().rev().find(|&&s| s <= pc).unwrap())
        .collect();
    pcs.sort_unstable();
    pcs.dedup();
    pcs
}

fn target<'a>(resolved: &'a Resolved, contract: &str, line: u32) -> &'a Target {
    resolved
        .targets
        .iter()
        .find(|t| t.contract == contract && t.line == line)
        .unwrap_or_else(|| panic!("no target {contract} line {line} in {resolved:#?}"))
}

/// The project lives in `pkg/` below the git top level, so git's paths are not the
/// project's: added, changed and deleted lines, and an untracked file, become targets.
#[test]
fn diff_targets_added_changed_and_deleted_lines_and_untracked_files() {
    let (_repo, root) = repository("pkg", VAULT);
    std::fs::write(root.join("contracts/Vault.sol"), EDITED).unwrap();
    std::fs::write(root.join("contracts/Extra.sol"), EXTRA).unwrap();
    let artifacts = compiled_at(&root).unwrap();
    let spec: TargetSpec = "diff:HEAD".parse().unwrap();
    let resolved = resolve(&spec, &root, &artifacts).unwrap();
    assert!(resolved.warnings.is_empty(), "{:?}", resolved.warnings);

    let added = line_of(EDITED, "require(amount > 0");
    let changed = line_of(EDITED, "fee = amount / 50");
    // `balances[msg.sender] -= amount;` was deleted: the line after it is the target.
    let after_deleted = line_of(EDITED, "total -= amount");
    assert_eq!(
        lines_of(&resolved, "contracts/Vault.sol", "Vault"),
        vec![added, changed, after_deleted],
        "the enclosing function and contract ranges must not make other lines targets"
    );
    let vault = artifacts.get("Vault").unwrap();
    for line in [added, changed, after_deleted] {
        let found = target(&resolved, "Vault", line);
        assert!(!found.pcs.is_empty());
        assert_eq!(found.pcs, expected_pcs(vault, line), "line {line}");
        assert_eq!(found.to_string(), format!("contracts/Vault.sol:{line}"));
    }

    // A file git does not track yet is new throughout.
    let extra = lines_of(&resolved, "contracts/Extra.sol", "Extra");
    assert!(
        extra.contains(&line_of(EXTRA, "count += 1")),
        "untracked file not targeted: {extra:?}"
    );
    assert!(
        resolved
            .targets
            .iter()
            .all(|t| !t.pcs.is_empty() && t.pcs.windows(2).all(|w| w[0] < w[1]))
    );
}

/// A file with CRLF line breaks (checked out on Windows, or with `core.autocrlf`) and
/// multi-byte text above the changes: the lines git names are the lines the targets carry.
#[test]
fn diff_targets_in_a_crlf_file_with_multibyte_text_are_the_changed_lines() {
    let windows = |text: &str| {
        text.replace("// credit the sender", "// crédit — 日本語 ✓")
            .replace('\n', "\r\n")
    };
    let (_repo, root) = repository("", &windows(VAULT));
    let edited = windows(EDITED);
    std::fs::write(root.join("contracts/Vault.sol"), &edited).unwrap();
    let artifacts = compiled_at(&root).unwrap();
    let resolved = resolve(&"diff:HEAD".parse().unwrap(), &root, &artifacts).unwrap();
    assert!(resolved.warnings.is_empty(), "{:?}", resolved.warnings);
    let lines = [
        line_of(&edited, "require(amount > 0"),
        line_of(&edited, "fee = amount / 50"),
        line_of(&edited, "total -= amount"),
    ];
    assert_eq!(lines_of(&resolved, "contracts/Vault.sol", "Vault"), lines);
    let vault = artifacts.get("Vault").unwrap();
    for line in lines {
        assert_eq!(
            target(&resolved, "Vault", line).pcs,
            expected_pcs(vault, line)
        );
    }
}

#[test]
fn a_comment_only_change_targets_nothing_and_says_so() {
    let (_repo, root) = repository("", VAULT);
    let edited = VAULT.replace("// credit the sender", "// credit the caller");
    std::fs::write(root.join("contracts/Vault.sol"), edited).unwrap();
    let artifacts = compiled_at(&root).unwrap();
    let spec: TargetSpec = "diff:HEAD".parse().unwrap();
    let resolved = resolve(&spec, &root, &artifacts).unwrap();
    assert!(resolved.targets.is_empty(), "{:#?}", resolved.targets);
    assert_eq!(resolved.warnings.len(), 1, "{:?}", resolved.warnings);
    let warning = &resolved.warnings[0];
    assert!(
        warning.contains("untargeted") && warning.contains("contracts/Vault.sol"),
        "{warning}"
    );
}

#[test]
fn explicit_lines_map_like_diffs_and_warn_about_lines_without_code() {
    let (_repo, root) = repository("", VAULT);
    let artifacts = compiled_at(&root).unwrap();
    let fee = line_of(VAULT, "fee = amount / 100");
    let comment = line_of(VAULT, "// credit the sender");
    let text = format!(
        "contracts/Vault.sol:{fee},./contracts/Vault.sol:{comment},Vault.sol:{fee},contracts/Nope.sol:3"
    );
    let resolved = resolve(&text.parse().unwrap(), &root, &artifacts).unwrap();
    // The same line named twice (once by a suffix of its path) is one target.
    assert_eq!(resolved.targets.len(), 1, "{:#?}", resolved.targets);
    let found = &resolved.targets[0];
    assert_eq!((found.contract.as_str(), found.line), ("Vault", fee));
    assert_eq!(
        found.pcs,
        expected_pcs(artifacts.get("Vault").unwrap(), fee)
    );
    assert_eq!(resolved.warnings.len(), 2, "{:?}", resolved.warnings);
    assert!(
        resolved.warnings[0].contains(&format!("contracts/Vault.sol:{comment}`"))
            && resolved.warnings[0].contains("no code"),
        "{:?}",
        resolved.warnings
    );
    assert!(
        resolved.warnings[1].contains("contracts/Nope.sol")
            && resolved.warnings[1].contains("contracts/Vault.sol"),
        "{:?}",
        resolved.warnings
    );
}

#[test]
fn an_unchanged_tree_targets_nothing_and_says_so() {
    let (_repo, root) = repository("", VAULT);
    let artifacts = compiled_at(&root).unwrap();
    let resolved = resolve(&"diff:HEAD".parse().unwrap(), &root, &artifacts).unwrap();
    assert!(resolved.targets.is_empty(), "{:#?}", resolved.targets);
    assert_eq!(
        resolved.warnings,
        vec!["`diff:HEAD`: no Solidity file differs from `HEAD`; the campaign runs untargeted"]
    );
}

#[test]
fn an_unknown_revision_is_an_error_with_gits_message() {
    let (_repo, root) = repository("", VAULT);
    let artifacts = compiled_at(&root).unwrap();
    let spec: TargetSpec = "diff:no-such-branch".parse().unwrap();
    let err = resolve(&spec, &root, &artifacts).unwrap_err();
    assert!(matches!(err, Error::Targets(_)), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("no-such-branch") && text.contains("bad revision"),
        "{text}"
    );
}

#[test]
fn a_directory_outside_git_is_an_error() {
    let (_repo, root) = repository("", VAULT);
    let artifacts = compiled_at(&root).unwrap();
    let outside = tempfile::tempdir().unwrap();
    let spec: TargetSpec = "diff:HEAD".parse().unwrap();
    let err = resolve(&spec, outside.path(), &artifacts).unwrap_err();
    assert!(matches!(err, Error::Targets(_)), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("not inside a git repository"), "{text}");
    assert!(
        text.contains(&outside.path().display().to_string()),
        "{text}"
    );
}

/// Deleting a function's last statement leaves a `}` (no code) after the deletion point:
/// the statement before it stands for the removal instead.
#[test]
fn deleting_a_last_statement_targets_the_statement_before_it() {
    let (_repo, root) = repository("", VAULT);
    let edited = VAULT.replace("        fee = amount / 100;\n", "");
    std::fs::write(root.join("contracts/Vault.sol"), &edited).unwrap();
    let artifacts = compiled_at(&root).unwrap();
    let resolved = resolve(&"diff:HEAD".parse().unwrap(), &root, &artifacts).unwrap();
    assert!(resolved.warnings.is_empty(), "{:?}", resolved.warnings);
    assert_eq!(
        lines_of(&resolved, "contracts/Vault.sol", "Vault"),
        vec![line_of(&edited, "total += amount")]
    );
}

/// The whole pull-request flow: a branch added to a committed contract is the target of a
/// `diff:HEAD` campaign, which reaches it (the magic value comes from input prediction)
/// and names the call that did.
#[test]
fn a_diff_campaign_reaches_the_changed_lines() {
    let (_repo, root) = repository("", VAULT);
    let edited = VAULT.replace(
        "        fee = amount / 100;\n",
        "        fee = amount / 100;\n        if (amount == 424242) {\n            fee = 7;\n        }\n",
    );
    std::fs::write(root.join("contracts/Vault.sol"), &edited).unwrap();
    let outcome = campaign_on(&root)
        .contract("Vault")
        .seed(3)
        .runs(20_000)
        .targets("diff:HEAD".parse().unwrap())
        .stop_when_targets_reached(true)
        .run()
        .unwrap();
    let targets = &outcome.stats.targets;
    let expected: Vec<String> = ["if (amount == 424242)", "fee = 7"]
        .iter()
        .map(|needle| format!("contracts/Vault.sol:{}", line_of(&edited, needle)))
        .collect();
    let locations: Vec<&str> = targets.iter().map(|t| t.location.as_str()).collect();
    assert_eq!(locations, expected, "only the changed lines are targets");
    for target in targets {
        let reach = target
            .reached
            .as_ref()
            .unwrap_or_else(|| panic!("{} not reached", target.location));
        let last = reach.calls.last().expect("at least one call");
        assert_eq!(last.function_name(), "deposit", "{}", target.location);
    }
}

#[test]
fn a_diff_campaign_against_an_unknown_revision_fails_before_fuzzing() {
    let (_repo, root) = repository("", VAULT);
    let err = campaign_on(&root)
        .contract("Vault")
        .seed(1)
        .runs(10)
        .targets("diff:origin/nowhere".parse().unwrap())
        .run()
        .unwrap_err();
    assert!(matches!(err, Error::Targets(_)), "{err:?}");
    assert!(err.to_string().contains("origin/nowhere"), "{err}");
}
