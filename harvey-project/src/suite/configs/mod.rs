//! Echidna's and Medusa's config files, read as those tools read them: what an echidna
//! yaml or a medusa.json means for the harness it is run with ([`HarnessConfig`]), and which
//! config belongs to which harness ([`configs_of`], [`medusa_targets`]).
//!
//! Neither tool finds a config by itself the way forge finds foundry.toml: Echidna reads
//! only the file `--config` names, Medusa `./medusa.json` or `--config`. harvey therefore
//! follows a rule a user can predict (the book's "Echidna and Medusa configs"):
//!
//! 1. a `--config <file>` on a line of the harness's own source that runs `echidna` or
//!    `medusa` (the command a harness's comment tells its reader to run);
//! 2. for Echidna, `<Contract>.yaml` (or `.yml`) beside the harness's file, else
//!    `echidna.yaml` (`echidna.yml`, `echidna.config.yaml`, `echidna.config.yml`) in the
//!    harness's directory or the nearest directory above it within the project;
//! 3. for Medusa, every medusa config in the project (a JSON file with a `fuzzing` object)
//!    whose `fuzzing.targetContracts` names the harness.
//!
//! The attribute's `config = "file"` names one explicitly, and wins.

mod echidna;
mod medusa;
mod values;

use std::path::{Path, PathBuf};

use alloy_primitives::{Address, U256};

use crate::error::{Error, Result};
use crate::project::{Artifacts, ContractArtifact};

/// Echidna's and Medusa's default most seconds between two calls (`maxTimeDelay`,
/// `blockTimestampDelayMax`): a week.
pub(crate) const DEFAULT_TIME_DELAY: u64 = 604_800;
/// Their default most blocks between two calls (`maxBlockDelay`, `blockNumberDelayMax`).
pub(crate) const DEFAULT_BLOCK_DELAY: u64 = 60_480;

/// What Echidna does with a harness no config names: its defaults, the meaning of an empty
/// yaml (deployer `0x30000`, senders `0x10000`..`0x30000`, properties probed from `0x10000`,
/// accounts holding `0xffffffff` wei). Medusa's deployer and senders are the same.
pub(crate) fn echidna_defaults() -> Meaning {
    let (meaning, _) = echidna::read("").unwrap_or_else(|e| unreachable!("an empty yaml: {e}"));
    meaning
}

/// Which tool a config file is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// An echidna yaml.
    Echidna,
    /// A medusa.json.
    Medusa,
}

impl Tool {
    /// The tool's name as its users write it.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Echidna => "Echidna",
            Tool::Medusa => "Medusa",
        }
    }
}

/// Which of a harness's functions the fuzzer calls: Echidna's `filterFunctions` with
/// `filterBlacklist`, Medusa's `targetFunctionSignatures`/`excludeFunctionSignatures`. Each
/// entry is `Contract.f(uint256)`, as both tools write them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FunctionFilter {
    /// Every function.
    All,
    /// Only these.
    Only(Vec<String>),
    /// All but these.
    Except(Vec<String>),
}

impl FunctionFilter {
    /// The signatures of `contract`'s functions among the filter's entries (`Contract.f(..)`),
    /// without the contract's name.
    pub fn entries_of(&self, contract: &str) -> Vec<String> {
        let entries = match self {
            FunctionFilter::All => return Vec::new(),
            FunctionFilter::Only(entries) | FunctionFilter::Except(entries) => entries,
        };
        entries
            .iter()
            .filter_map(|entry| entry.strip_prefix(contract)?.strip_prefix('.'))
            .map(str::to_string)
            .collect()
    }
}

/// What a config means for the campaign of its harness, in harvey's terms. Two configs
/// that mean the same (an echidna yaml and a medusa.json saying the same things) make one
/// test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meaning {
    /// The senders of fuzzed calls (`sender`, `senderAddresses`).
    pub senders: Vec<Address>,
    /// The sender of the property checks (Echidna's `psender`, Medusa's first sender).
    pub property_sender: Address,
    /// Who deploys the harness (`deployer`, `deployerAddress`).
    pub deployer: Address,
    /// The balance the deployer and the senders start with (Echidna's `balanceAddr`,
    /// Medusa's 2^128 - 1).
    pub account_balance: U256,
    /// Wei sent with the harness's creation (`balanceContract`, `targetContractsBalances`).
    pub harness_balance: U256,
    /// Whether the contracts the harness deployed are fuzzed too (`allContracts`,
    /// `testAllContracts`).
    pub all_contracts: bool,
    /// Name prefixes of property functions (`prefix`, `propertyTesting.testPrefixes`);
    /// functions with one are never fuzzed, in any mode.
    pub prefixes: Vec<String>,
    /// Name prefixes of tests harvey does not run (Medusa's optimization tests): never
    /// fuzzed either.
    pub unrun_prefixes: Vec<String>,
    /// Whether property functions are checked (Echidna's property mode; Medusa's
    /// `propertyTesting.enabled`).
    pub properties: bool,
    /// The Panic codes a fuzzed call of the harness may not end in (assertion mode; empty
    /// when off): Echidna's 0x01, Medusa's `panicCodeConfig`.
    pub panics: Vec<u8>,
    /// Whether an `AssertionFailed(..)` event is a failure (Echidna's assertion mode).
    pub assertion_events: bool,
    /// Whether view and pure functions are fuzzed too (Echidna's `excludeViewPure: false`,
    /// its default; Medusa's `testViewMethods`). Only assertion testing calls them: no call
    /// of one can change what a property reads.
    pub view_methods: bool,
    /// Most calls per sequence (`seqLen`, `callSequenceLength`).
    pub depth: u64,
    /// The campaign's calls budget (`testLimit`; `None`: no limit).
    pub calls: Option<u64>,
    /// The campaign's time budget in seconds (`timeout`; `None`: no limit).
    pub seconds: Option<u64>,
    /// Most seconds the block time moves before a call.
    pub max_time_delay: u64,
    /// Most blocks the block number moves before a call.
    pub max_block_delay: u64,
    /// Which functions are called.
    pub functions: FunctionFilter,
    /// Whether the first failure ends the campaign (`stopOnFail`, `stopOnFailedTest`).
    pub stop_on_failure: bool,
    /// The seed (Echidna's `seed`).
    pub seed: Option<u64>,
}

/// An Echidna or Medusa config file, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HarnessConfig {
    /// The tool it is for.
    pub tool: Tool,
    /// The file, relative to the project's root.
    pub file: PathBuf,
    /// What it means.
    pub meaning: Meaning,
    /// The keys it sets that harvey does not honour, each with why: warnings.
    pub ignored: Vec<String>,
    /// Medusa's `targetContracts` (empty for Echidna, whose command line names the
    /// contract).
    pub targets: Vec<String>,
    /// Medusa's `targetContractsBalances`, by the index of `targets`.
    balances: Vec<U256>,
    /// Whether the config names its harness (a command in the harness's source, a yaml of
    /// the harness's name or in its directory, a medusa.json's `targetContracts`) rather
    /// than applying to it from a directory above: only a named harness without property
    /// functions is listed as an assertion-mode suite.
    pub names_harness: bool,
}

impl HarnessConfig {
    /// Reads the config at `file` (relative to `root`, or absolute): an echidna yaml
    /// (`.yaml`/`.yml`) or a medusa.json (`.json`). Errors say which file and what is wrong.
    pub fn read(root: &Path, file: &Path) -> Result<HarnessConfig, String> {
        let path = root.join(file);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read the config {}: {e}", path.display()))?;
        let relative = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
        let shown = relative.display().to_string();
        let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let read = match extension {
            "yaml" | "yml" => echidna::read(&text).map(|(meaning, ignored)| HarnessConfig {
                tool: Tool::Echidna,
                file: relative,
                meaning,
                ignored,
                targets: Vec::new(),
                balances: Vec::new(),
                names_harness: true,
            }),
            "json" => medusa::read(&text).map(|read| HarnessConfig {
                tool: Tool::Medusa,
                file: relative,
                meaning: read.meaning,
                ignored: read.ignored,
                targets: read.targets,
                balances: read.balances,
                names_harness: true,
            }),
            _ => {
                Err("expected an echidna config (.yaml or .yml) or a medusa config (.json)".into())
            }
        };
        read.map_err(|reason| format!("{shown}: {reason}"))
    }

    /// The config as Medusa would run `harness` with it: its `targetContractsBalances`
    /// entry for the harness sent with the creation. Echidna configs are unchanged.
    pub fn for_harness(mut self, harness: &str) -> HarnessConfig {
        if self.tool == Tool::Medusa {
            self.meaning.harness_balance = medusa::balance_of(&self, harness);
        }
        self
    }

    /// The campaign settings the config sets, as `(setting, text)` pairs for
    /// `harvey_settings`' parsers: `depth`, `calls`, `time`, the delays, `fail_fast`,
    /// `seed` and `panics`.
    pub fn settings(&self) -> Vec<(&'static str, String)> {
        let meaning = &self.meaning;
        let mut pairs = vec![
            ("depth", meaning.depth.to_string()),
            ("max_time_delay", meaning.max_time_delay.to_string()),
            ("max_block_delay", meaning.max_block_delay.to_string()),
            ("fail_fast", meaning.stop_on_failure.to_string()),
        ];
        if let Some(calls) = meaning.calls {
            pairs.push(("calls", calls.to_string()));
        }
        if let Some(seconds) = meaning.seconds {
            pairs.push(("time", format!("{seconds}s")));
        }
        if let Some(seed) = meaning.seed {
            pairs.push(("seed", seed.to_string()));
        }
        let panics = harvey_settings::PANIC_NAMES
            .iter()
            .filter(|(code, _)| meaning.panics.contains(code))
            .map(|(_, name)| *name)
            .collect::<Vec<_>>();
        pairs.push((
            "panics",
            if panics.is_empty() {
                "none".into()
            } else {
                panics.join(",")
            },
        ));
        pairs
    }
}

/// The configs harness `test` of `artifacts` runs with by the module's rule, each read for
/// it, one per meaning (configs that mean the same count as one); `medusa` is the project's
/// medusa configs ([`medusa_configs`]). None for a forge test contract, which runs as forge
/// runs it.
pub(crate) fn candidates(
    artifacts: &Artifacts,
    test: &ContractArtifact,
    medusa: &[HarnessConfig],
) -> Result<Vec<HarnessConfig>> {
    if test.abi.function("IS_TEST").is_some() {
        return Ok(Vec::new());
    }
    let source = test
        .sources
        .iter()
        .find(|file| file.path == test.source_path)
        .map_or("", |file| &*file.content);
    let found = configs_of(
        artifacts.root(),
        &test.name,
        source,
        &test.source_path,
        medusa,
    )
    .map_err(|reason| Error::Suite {
        suite: test.name.clone(),
        reason,
    })?;
    let mut distinct: Vec<HarnessConfig> = Vec::new();
    for config in found {
        if !distinct.iter().any(|known| known.meaning == config.meaning) {
            distinct.push(config);
        }
    }
    Ok(distinct)
}

/// The config suite `name` of `artifacts` runs with: `explicit` (the attribute's
/// `config = "file"`, relative to the project's root) when given, else the one config the
/// module's rule finds (several that mean the same count as one). Several that differ are
/// an error naming them, for the attribute to choose.
pub fn chosen(
    artifacts: &Artifacts,
    name: &str,
    explicit: Option<&Path>,
) -> Result<Option<HarnessConfig>> {
    let test = artifacts.get(name)?;
    if let Some(file) = explicit {
        return HarnessConfig::read(artifacts.root(), file)
            .map(|config| Some(config.for_harness(&test.name)))
            .map_err(|reason| Error::Suite {
                suite: test.name.clone(),
                reason,
            });
    }
    let mut found = candidates(artifacts, test, &medusa_configs(artifacts.root())?)?;
    match found.len() {
        0 | 1 => Ok(found.pop()),
        _ => Err(Error::Suite {
            suite: test.name.clone(),
            reason: format!(
                "it has configs that mean different things: {}; name the one to run with `config = \"<file>\"` (one test per config)",
                found
                    .iter()
                    .map(|c| format!("{} ({})", c.file.display(), c.tool.name()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }),
    }
}

/// The Echidna file names rule 2 looks for in a directory, after `<Contract>.yaml|yml`.
const ECHIDNA_NAMES: [&str; 4] = [
    "echidna.yaml",
    "echidna.yml",
    "echidna.config.yaml",
    "echidna.config.yml",
];

/// The configs that belong to harness `contract`, defined in `source` (its text) at
/// `source_path` (relative to `root`), by the module's rule: the `--config` files its source
/// names for `echidna` or `medusa`, else the nearest echidna config, plus the medusa configs
/// among `medusa` that name it. Each is read for the harness; a config that cannot be read
/// is an error.
pub(crate) fn configs_of(
    root: &Path,
    contract: &str,
    source: &str,
    source_path: &Path,
    medusa: &[HarnessConfig],
) -> Result<Vec<HarnessConfig>, String> {
    let commanded = commanded_configs(source);
    let mut found = Vec::new();
    for file in &commanded {
        found.push(HarnessConfig::read(root, file)?.for_harness(contract));
    }
    if !found.iter().any(|c| c.tool == Tool::Echidna)
        && let Some(file) = nearest_echidna_config(root, contract, source_path)
    {
        let mut config = HarnessConfig::read(root, &file)?;
        config.names_harness = file.parent() == source_path.parent();
        found.push(config);
    }
    if !found.iter().any(|c| c.tool == Tool::Medusa) {
        for config in medusa
            .iter()
            .filter(|c| c.targets.iter().any(|t| t == contract))
        {
            found.push(config.clone().for_harness(contract));
        }
    }
    Ok(found)
}

/// The files given to `--config` on the lines of `source` that mention `echidna` or
/// `medusa` (`// echidna --config test/X.yaml ./ --contract X`), in order, once each.
fn commanded_configs(source: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    for line in source.lines() {
        if !line.contains("echidna") && !line.contains("medusa") {
            continue;
        }
        let mut words = line.split_whitespace();
        while let Some(word) = words.next() {
            let file = match word.strip_prefix("--config=") {
                Some(file) => Some(file),
                None if word == "--config" => words.next(),
                None => None,
            };
            if let Some(file) = file.map(|f| f.trim_matches(|c| c == '"' || c == '\'')) {
                let file = PathBuf::from(file.strip_prefix("./").unwrap_or(file));
                if !files.contains(&file) {
                    files.push(file);
                }
            }
        }
    }
    files
}

/// Rule 2: `<contract>.yaml|yml` beside `source_path`, else an `echidna.yaml` (or one of
/// [`ECHIDNA_NAMES`]) in its directory or the nearest one above it within `root`.
fn nearest_echidna_config(root: &Path, contract: &str, source_path: &Path) -> Option<PathBuf> {
    let directory = source_path.parent().unwrap_or(Path::new(""));
    for extension in ["yaml", "yml"] {
        let own = directory.join(format!("{contract}.{extension}"));
        if root.join(&own).is_file() {
            return Some(own);
        }
    }
    let mut directory = Some(directory);
    while let Some(here) = directory {
        for name in ECHIDNA_NAMES {
            if root.join(here).join(name).is_file() {
                return Some(here.join(name));
            }
        }
        directory = here.parent();
    }
    None
}

/// Directories never searched for medusa configs: dependencies, build output, caches.
const NOT_SEARCHED: [&str; 8] = [
    "lib",
    "node_modules",
    "out",
    "cache",
    "target",
    "broadcast",
    "crytic-export",
    ".git",
];

/// The medusa configs of the project at `root`: every JSON file (outside dependencies, build
/// output and hidden directories, [`NOT_SEARCHED`]) that holds a `fuzzing` object with
/// `targetContracts`. Files that are not medusa configs are passed over; a medusa config
/// that cannot be read is an error naming it.
pub(crate) fn medusa_configs(root: &Path) -> Result<Vec<HarnessConfig>> {
    let mut found = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(directory) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&directory) else {
            continue;
        };
        let mut entries: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                if !name.starts_with('.') && !NOT_SEARCHED.contains(&name) {
                    pending.push(path);
                }
            } else if name.ends_with(".json") && medusa::looks_like_a_config(&path) {
                let relative = path.strip_prefix(root).unwrap_or(&path);
                found.push(HarnessConfig::read(root, relative).map_err(Error::Config)?);
            }
        }
    }
    found.sort_by(|a, b| a.file.cmp(&b.file));
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_in_a_harness_comment_names_its_configs() {
        let source = "// run with:\r\n// echidna --config test/01/Basic.yaml ./ --contract Basic\r\n\
                      // medusa --config=./test/01/BasicMedusa.json fuzz\n\
                      // forge test --config nothing.toml\n\
                      // echidna --config test/01/Basic.yaml ./ --contract Basic\n";
        assert_eq!(
            commanded_configs(source),
            vec![
                PathBuf::from("test/01/Basic.yaml"),
                PathBuf::from("test/01/BasicMedusa.json")
            ]
        );
    }

    #[test]
    fn the_nearest_echidna_config_is_the_harness_own_then_the_directory_s_then_above() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("test/fuzz");
        std::fs::create_dir_all(&dir).unwrap();
        let source = Path::new("test/fuzz/Harness.sol");
        assert_eq!(nearest_echidna_config(root.path(), "Harness", source), None);
        std::fs::write(root.path().join("echidna.yaml"), "").unwrap();
        assert_eq!(
            nearest_echidna_config(root.path(), "Harness", source),
            Some(PathBuf::from("echidna.yaml"))
        );
        std::fs::write(dir.join("echidna.config.yml"), "").unwrap();
        assert_eq!(
            nearest_echidna_config(root.path(), "Harness", source),
            Some(PathBuf::from("test/fuzz/echidna.config.yml"))
        );
        std::fs::write(dir.join("Harness.yml"), "").unwrap();
        assert_eq!(
            nearest_echidna_config(root.path(), "Harness", source),
            Some(PathBuf::from("test/fuzz/Harness.yml"))
        );
        assert_eq!(
            nearest_echidna_config(root.path(), "Other", source),
            Some(PathBuf::from("test/fuzz/echidna.config.yml"))
        );
    }

    #[test]
    fn a_config_s_limits_and_mode_become_settings() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("e.yaml"),
            "testMode: assertion\nseqLen: 7\ntestLimit: 900\ntimeout: 30\nseed: 5\n",
        )
        .unwrap();
        let echidna = HarnessConfig::read(dir.path(), Path::new("e.yaml")).unwrap();
        assert_eq!(
            echidna.settings(),
            [
                ("depth", "7"),
                ("max_time_delay", "604800"),
                ("max_block_delay", "60480"),
                ("fail_fast", "false"),
                ("calls", "900"),
                ("time", "30s"),
                ("seed", "5"),
                ("panics", "assert"),
            ]
            .map(|(k, v)| (k, v.to_string()))
        );
        std::fs::write(
            dir.path().join("medusa.json"),
            r#"{"fuzzing": {"targetContracts": ["A", "B"], "targetContractsBalances": ["1", "2"],
                "testing": {"assertionTesting": {"enabled": false}}}}"#,
        )
        .unwrap();
        let medusa = HarnessConfig::read(dir.path(), Path::new("medusa.json")).unwrap();
        let settings = medusa.settings();
        // Medusa's unlimited budget leaves harvey's; no assertion testing counts no Panic.
        assert!(!settings.iter().any(|(k, _)| *k == "calls" || *k == "time"));
        assert!(settings.contains(&("panics", "none".to_string())));
        assert_eq!(
            medusa.clone().for_harness("B").meaning.harness_balance,
            U256::from(2)
        );
        assert_eq!(medusa.for_harness("C").meaning.harness_balance, U256::ZERO);
        let wrong = HarnessConfig::read(dir.path(), Path::new("missing.yaml")).unwrap_err();
        assert!(wrong.contains("missing.yaml"), "{wrong}");
    }

    #[test]
    fn a_filter_gives_each_contract_its_own_entries() {
        let filter = FunctionFilter::Except(vec![
            "Harness.f(uint256)".into(),
            "Token.transfer(address,uint256)".into(),
            "g()".into(),
        ]);
        assert_eq!(filter.entries_of("Harness"), vec!["f(uint256)"]);
        assert_eq!(
            filter.entries_of("Token"),
            vec!["transfer(address,uint256)"]
        );
        assert!(filter.entries_of("Tok").is_empty());
        assert!(FunctionFilter::All.entries_of("Harness").is_empty());
    }
}
