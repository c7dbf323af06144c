//! harvey's vulnerability detectors on SmartBugs curated (github:smartbugs/smartbugs-curated,
//! 143 contracts labelled with their vulnerable lines and a DASP category): per category,
//! true positives, false negatives and false positives against the labels, with the fuzzing
//! budget per file, and the files that do not compile listed, not skipped silently.
//!
//! Run with `cargo bench --bench smartbugs` (`HARVEY_SMARTBUGS_TIME=s`, seconds of fuzzing
//! per file, default 5; `HARVEY_SMARTBUGS_ONLY=reentrancy,access_control` for some
//! categories). The dataset is read at the pinned commit below from a git directory under
//! `HARVEY_REAL_REPOS_MIRRORS` (default `/work/.mirror`) at
//! `smartbugs+smartbugs-curated/repo` (e.g. `git clone --bare
//! https://github.com/smartbugs/smartbugs-curated smartbugs+smartbugs-curated/repo`); nothing of
//! it is committed. Each file is compiled by the solcjs build of the version SmartBugs
//! compiled it with (`pragma` in its `vulnerabilities.json`, from npm through the repo's
//! `tools/solc-shim/solc-at`).
//!
//! Per file: every contract of the file with creation code is deployed by the deployer
//! (constructor arguments zero or empty, addresses the contract deployed before or the
//! deployer; a payable constructor gets 1 ether), each deployed contract is given 10 ether
//! more, and one campaign fuzzes them all (one worker, seed 1, default depth and
//! detectors, every distinct violation kept). A finding counts for the category its
//! detector reports: reentrancy for `reentrancy`; unhandled exception for
//! `unchecked_low_level_calls`; ether leak, unprotected selfdestruct, unsafe delegatecall,
//! `tx.origin` authorisation and arbitrary storage write for `access_control`; integer
//! overflow for `arithmetic`; block dependency for `bad_randomness` and
//! `time_manipulation`, which share a row; transaction-order dependency for
//! `front_running`. A labelled category with a finding of it in the file is a true
//! positive, without one a false negative; a finding of a category the file is not
//! labelled with is a false positive (SmartBugs labels are per file and category; the
//! line is not compared, since a fuzzer reports where the damage happens, not always the
//! labelled line). Findings with no SmartBugs category (locked ether, strict balance
//! equality) are listed apart.

#[path = "support/root.rs"]
mod root;
// Shared with benches that use all of it.
#[allow(dead_code)]
#[path = "support/repo.rs"]
mod repo;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use alloy_dyn_abi::{DynSolType, DynSolValue};
use harvey::chain::{Chain, TxOptions};
use harvey::prelude::*;
use harvey::{Detector, Violation};

/// The dataset's git directory under the mirrors, and the pinned commit.
const MIRROR: &str = "smartbugs+smartbugs-curated";
const COMMIT: &str = "230e649123477eff332742a59a1c7cc6dc286cab";

/// One labelled file of `vulnerabilities.json`.
struct Labelled {
    path: String,
    /// The solc version SmartBugs compiled it with.
    pragma: String,
    categories: Vec<String>,
}

/// What one file gave.
enum FileResult {
    /// The categories found, and findings with no SmartBugs category.
    Fuzzed {
        found: Vec<String>,
        unlabelled: Vec<String>,
    },
    /// It did not compile, or nothing in it could be deployed: why.
    NotRun(String),
}

fn budget() -> Duration {
    let secs = std::env::var("HARVEY_SMARTBUGS_TIME")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    Duration::from_secs(secs)
}

/// The labelled files, from `vulnerabilities.json`.
fn labelled(dataset: &Path) -> Vec<Labelled> {
    let text = std::fs::read_to_string(dataset.join("vulnerabilities.json"))
        .unwrap_or_else(|e| panic!("vulnerabilities.json: {e}"));
    let entries: serde_json::Value = serde_json::from_str(&text).expect("vulnerabilities.json");
    let mut files = Vec::new();
    for entry in entries.as_array().expect("a list of files") {
        let mut categories: Vec<String> = entry["vulnerabilities"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v["category"].as_str().map(row))
            .collect();
        categories.sort();
        categories.dedup();
        files.push(Labelled {
            path: entry["path"].as_str().unwrap_or_default().to_string(),
            pragma: entry["pragma"].as_str().unwrap_or_default().to_string(),
            categories,
        });
    }
    files
}

/// The row of the table a SmartBugs category counts in: its own, but bad randomness and
/// time manipulation share one, as block dependency (MuFuzz merges them so too), since
/// one detector answers both and a file labelled with one is often the other's case.
fn row(category: &str) -> String {
    match category {
        "bad_randomness" | "time_manipulation" => BLOCK_ROW.to_string(),
        other => other.to_string(),
    }
}

/// The row of bad randomness and time manipulation.
const BLOCK_ROW: &str = "bad_randomness+time_manipulation";

/// The SmartBugs category (its row, see [`row`]) a finding counts for, if any.
fn category(violation: &Violation) -> Option<&'static str> {
    match violation {
        Violation::Vulnerability { detector, .. } => match detector {
            Detector::Reentrancy => Some("reentrancy"),
            Detector::UnhandledException => Some("unchecked_low_level_calls"),
            Detector::EtherLeak
            | Detector::UnprotectedSelfdestruct
            | Detector::UnsafeDelegatecall
            | Detector::TxOrigin => Some("access_control"),
            Detector::IntegerOverflow => Some("arithmetic"),
            Detector::BlockDependency => Some(BLOCK_ROW),
            Detector::TransactionOrder => Some("front_running"),
            Detector::LockedEther | Detector::StrictBalanceEquality => None,
        },
        Violation::ArbitraryStorageWrite { .. } => Some("access_control"),
        _ => None,
    }
}

/// A project directory holding `file` alone, compiled by solcjs `version`.
fn project(scratch: &Path, dataset: &Path, file: &Labelled) -> std::io::Result<PathBuf> {
    let name = file.path.replace('/', "_").replace(".sol", "");
    let root = scratch.join(name);
    std::fs::create_dir_all(root.join("src"))?;
    let source = dataset.join(&file.path);
    let file_name = source.file_name().unwrap_or_default();
    std::fs::copy(&source, root.join("src").join(file_name))?;
    let shim = root::harvey_root().join("tools/solc-shim/solc-at");
    let wrapper = root.join(format!("solc-{}", file.pragma));
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nexec {} {} \"$@\"\n",
            shim.display(),
            file.pragma
        ),
    )?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755))?;
    std::fs::write(
        root.join("foundry.toml"),
        format!(
            "[profile.default]\nsrc = \"src\"\nlibs = []\nsolc = {:?}\n",
            wrapper.display().to_string()
        ),
    )?;
    Ok(root)
}

/// A value of `ty` to deploy with: zero, empty, or `address` (the contract deployed last,
/// else the deployer: the labelled files often pass a `Log` contract they declare).
fn zero(ty: &DynSolType, address: Address) -> Option<DynSolValue> {
    Some(match ty {
        DynSolType::Bool => DynSolValue::Bool(false),
        DynSolType::Int(bits) => DynSolValue::Int(I256::ZERO, *bits),
        DynSolType::Uint(bits) => DynSolValue::Uint(U256::ZERO, *bits),
        DynSolType::Address => DynSolValue::Address(address),
        DynSolType::FixedBytes(size) => DynSolValue::FixedBytes(B256::ZERO, *size),
        DynSolType::Bytes => DynSolValue::Bytes(Vec::new()),
        DynSolType::String => DynSolValue::String(String::new()),
        DynSolType::Array(_) => DynSolValue::Array(Vec::new()),
        DynSolType::FixedArray(inner, n) => {
            DynSolValue::FixedArray(vec![zero(inner, address)?; *n])
        }
        DynSolType::Tuple(inner) => DynSolValue::Tuple(
            inner
                .iter()
                .map(|t| zero(t, address))
                .collect::<Option<Vec<_>>>()?,
        ),
        _ => return None,
    })
}

/// Deploys every contract of `file_name` with creation code, funds each, and fuzzes them.
fn deploy_all(chain: &mut Chain, file_name: &str) -> harvey::Result<()> {
    let mut artifacts: Vec<_> = chain
        .artifacts()
        .contracts()
        .filter(|a| {
            !a.creation_code.is_empty()
                && a.source_path.file_name().and_then(|n| n.to_str()) == Some(file_name)
        })
        .cloned()
        .collect();
    // Contracts that take addresses last, so that they get one deployed before them.
    let addresses = |a: &harvey::project::ContractArtifact| {
        a.abi
            .constructor()
            .map_or(0, |c| c.inputs.iter().filter(|p| p.ty == "address").count())
    };
    artifacts.sort_by_key(|a| addresses(a));
    let mut last = chain.deployer();
    let mut deployed = 0;
    for artifact in artifacts {
        let constructor = artifact.abi.constructor();
        let args: Option<Vec<DynSolValue>> = constructor
            .map(|c| {
                c.inputs
                    .iter()
                    .map(|p| {
                        DynSolType::parse(&p.selector_type())
                            .ok()
                            .and_then(|t| zero(&t, last))
                    })
                    .collect()
            })
            .unwrap_or(Some(Vec::new()));
        let Some(args) = args else { continue };
        let payable = constructor
            .is_some_and(|c| c.state_mutability == alloy_json_abi::StateMutability::Payable);
        let options = TxOptions {
            sender: None,
            value: if payable {
                U256::from(10u64.pow(18))
            } else {
                U256::ZERO
            },
        };
        let Ok(at) = chain.deploy_with(&artifact.name, &args[..], options) else {
            continue;
        };
        last = at;
        let balance = chain.balance(at);
        chain.set_balance(at, balance + U256::from(10u64.pow(19)));
        chain.fuzz(at);
        deployed += 1;
    }
    chain.commit();
    if deployed == 0 {
        return Err(harvey::Error::Config(
            "nothing in the file could be deployed".into(),
        ));
    }
    Ok(())
}

/// Fuzzes one file.
fn run_file(scratch: &Path, dataset: &Path, file: &Labelled) -> FileResult {
    let root = match project(scratch, dataset, file) {
        Ok(root) => root,
        Err(e) => return FileResult::NotRun(format!("project: {e}")),
    };
    let file_name = Path::new(&file.path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string();
    let outcome = Campaign::new(&root)
        .setup(move |chain| deploy_all(chain, &file_name))
        .seed(1)
        .workers(1)
        .time(budget())
        .fail_fast(false)
        .run();
    match outcome {
        Err(e) => FileResult::NotRun(e.to_string().lines().next().unwrap_or_default().into()),
        Ok(outcome) => {
            let mut found = Vec::new();
            let mut unlabelled = Vec::new();
            for failure in &outcome.failures {
                match category(&failure.violation) {
                    Some(category) => found.push(category.to_string()),
                    None => unlabelled.push(failure.violation.to_string()),
                }
            }
            found.sort();
            found.dedup();
            FileResult::Fuzzed { found, unlabelled }
        }
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let scratch = std::env::temp_dir().join("harvey-smartbugs");
    let _ = std::fs::remove_dir_all(&scratch);
    let dataset = scratch.join("dataset");
    if let Err(e) = repo::materialise(MIRROR, COMMIT, &dataset) {
        eprintln!("{e}");
        return;
    }
    let only = std::env::var("HARVEY_SMARTBUGS_ONLY").ok();
    let files: Vec<Labelled> = labelled(&dataset)
        .into_iter()
        .filter(|f| {
            only.as_deref().is_none_or(|only| {
                only.split(',')
                    .any(|c| f.categories.iter().any(|l| l == c.trim()))
            })
        })
        .collect();
    // Per category: (labelled files, true positives, false negatives, false positives).
    let mut table: BTreeMap<String, [u32; 4]> = BTreeMap::new();
    let mut not_run = Vec::new();
    let mut unlabelled_findings = Vec::new();
    for file in &files {
        let result = run_file(&scratch, &dataset, file);
        match result {
            FileResult::NotRun(why) => {
                eprintln!("{}: not run: {why}", file.path);
                not_run.push(format!("{} ({}): {why}", file.path, file.pragma));
            }
            FileResult::Fuzzed { found, unlabelled } => {
                eprintln!(
                    "{}: labelled {:?}, found {:?}{}",
                    file.path,
                    file.categories,
                    found,
                    if unlabelled.is_empty() {
                        String::new()
                    } else {
                        format!(", also {unlabelled:?}")
                    }
                );
                for category in &file.categories {
                    let row = table.entry(category.clone()).or_default();
                    row[0] += 1;
                    if found.contains(category) {
                        row[1] += 1;
                    } else {
                        row[2] += 1;
                    }
                }
                for category in found.iter().filter(|c| !file.categories.contains(c)) {
                    table.entry(category.clone()).or_default()[3] += 1;
                }
                for finding in unlabelled {
                    unlabelled_findings.push(format!("{}: {finding}", file.path));
                }
            }
        }
    }
    println!(
        "\nSmartBugs curated @ {} — {} files, {} s of fuzzing each (one worker, seed 1)",
        &COMMIT[..7],
        files.len(),
        budget().as_secs()
    );
    println!("| category | files fuzzed | true positives | false negatives | false positives |");
    println!("|---|---:|---:|---:|---:|");
    for (category, [files, tp, fneg, fp]) in &table {
        println!("| {category} | {files} | {tp} | {fneg} | {fp} |");
    }
    println!("\nnot run ({}):", not_run.len());
    for line in &not_run {
        println!("- {line}");
    }
    println!(
        "\nfindings with no SmartBugs category ({}):",
        unlabelled_findings.len()
    );
    for line in &unlabelled_findings {
        println!("- {line}");
    }
}
