//! A medusa.json, read as Medusa 1.x reads it (`fuzzing/config/config.go`, defaults from
//! `config_defaults.go`): every key with Medusa's default where the file gives none, and a
//! warning for each key set that harvey does not honour. Medusa itself ignores unknown keys
//! silently; harvey names them.

use std::path::Path;

use alloy_primitives::{Address, U256, address};
use serde_json::{Map, Value};

use super::values::{address as read_address, integer};
use super::{DEFAULT_BLOCK_DELAY, DEFAULT_TIME_DELAY, FunctionFilter, HarnessConfig, Meaning};

/// Medusa's default `senderAddresses`.
const SENDERS: [Address; 3] = [
    address!("0x0000000000000000000000000000000000010000"),
    address!("0x0000000000000000000000000000000000020000"),
    address!("0x0000000000000000000000000000000000030000"),
];

/// Medusa's default `deployerAddress`.
const DEPLOYER: Address = address!("0x0000000000000000000000000000000000030000");

/// The Panic codes of `panicCodeConfig`'s keys, in Medusa's spelling.
const PANIC_KEYS: [(&str, u8); 10] = [
    ("failOnCompilerInsertedPanic", 0x00),
    ("failOnAssertion", 0x01),
    ("failOnArithmeticUnderflow", 0x11),
    ("failOnDivideByZero", 0x12),
    ("failOnEnumTypeConversionOutOfBounds", 0x21),
    ("failOnIncorrectStorageAccess", 0x22),
    ("failOnPopEmptyArray", 0x31),
    ("failOnOutOfBoundsArrayAccess", 0x32),
    ("failOnAllocateTooMuchMemory", 0x41),
    ("failOnCallUninitializedVariable", 0x51),
];

/// A medusa.json, read.
pub(super) struct Read {
    pub(super) meaning: Meaning,
    pub(super) ignored: Vec<String>,
    pub(super) targets: Vec<String>,
    pub(super) balances: Vec<U256>,
}

/// Whether the file at `path` is a medusa config: a JSON object whose `fuzzing` object has
/// `targetContracts`. Large files (build output) are not read.
pub(super) fn looks_like_a_config(path: &Path) -> bool {
    let small = std::fs::metadata(path).is_ok_and(|m| m.len() < 256 * 1024);
    small
        && std::fs::read_to_string(path)
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .is_some_and(|json| json["fuzzing"]["targetContracts"].is_array())
}

/// The value `config`'s `targetContractsBalances` gives `harness` (matched by index in
/// `targetContracts`), zero where none.
pub(super) fn balance_of(config: &HarnessConfig, harness: &str) -> U256 {
    config
        .targets
        .iter()
        .position(|t| t == harness)
        .and_then(|i| config.balances.get(i).copied())
        .unwrap_or(U256::ZERO)
}

/// The meaning of the medusa.json `text`.
pub(super) fn read(source: &str) -> Result<Read, String> {
    let json: Value = serde_json::from_str(source).map_err(|e| {
        format!(
            "not valid JSON at line {}, column {}: {e}",
            e.line(),
            e.column()
        )
    })?;
    let mut read = Read {
        meaning: Meaning {
            senders: SENDERS.to_vec(),
            property_sender: SENDERS[0],
            deployer: DEPLOYER,
            account_balance: U256::from(u128::MAX),
            harness_balance: U256::ZERO,
            all_contracts: false,
            prefixes: vec!["property_".into()],
            unrun_prefixes: Vec::new(),
            properties: true,
            panics: vec![0x01],
            assertion_events: false,
            view_methods: false,
            depth: 100,
            calls: None,
            seconds: None,
            max_time_delay: DEFAULT_TIME_DELAY,
            max_block_delay: DEFAULT_BLOCK_DELAY,
            functions: FunctionFilter::All,
            stop_on_failure: true,
            seed: None,
        },
        ignored: Vec::new(),
        targets: Vec::new(),
        balances: Vec::new(),
    };
    let top = object(&json, "the file")?;
    let mut assertions = true;
    let mut panics: Vec<u8> = read.meaning.panics.clone();
    let mut only: Vec<String> = Vec::new();
    let mut except: Vec<String> = Vec::new();
    let mut optimization = vec!["optimize_".to_string()];
    for (key, value) in top {
        match key.as_str() {
            "fuzzing" => {}
            "compilation" | "logging" | "slither" => continue,
            key => {
                unknown(&mut read.ignored, key);
                continue;
            }
        }
        for (key, value) in object(value, "fuzzing")? {
            let bad = |reason: String| format!("`fuzzing.{key}`: {reason}");
            let meaning = &mut read.meaning;
            match key.as_str() {
                "timeout" => meaning.seconds = Some(whole(value).map_err(bad)?).filter(|s| *s > 0),
                "testLimit" => meaning.calls = Some(whole(value).map_err(bad)?).filter(|c| *c > 0),
                "callSequenceLength" => meaning.depth = whole(value).map_err(bad)?.max(1),
                "targetContracts" => read.targets = strings(value).map_err(bad)?,
                "targetContractsBalances" => {
                    read.balances = strings(value)
                        .map_err(bad)?
                        .iter()
                        .map(|s| {
                            if s.is_empty() {
                                Ok(U256::ZERO)
                            } else {
                                integer(s)
                            }
                        })
                        .collect::<Result<_, _>>()
                        .map_err(bad)?
                }
                "deployerAddress" => {
                    meaning.deployer = read_address(&text(value).map_err(bad)?).map_err(bad)?
                }
                "senderAddresses" => {
                    meaning.senders = strings(value)
                        .map_err(bad)?
                        .iter()
                        .map(|s| read_address(s))
                        .collect::<Result<_, _>>()
                        .map_err(bad)?;
                    meaning.property_sender = *meaning
                        .senders
                        .first()
                        .ok_or_else(|| bad("no senders".into()))?;
                }
                "blockNumberDelayMax" => meaning.max_block_delay = whole(value).map_err(bad)?,
                "blockTimestampDelayMax" => meaning.max_time_delay = whole(value).map_err(bad)?,
                "predeployedContracts" | "constructorArgs" => {
                    if object(value, key).is_ok_and(|o| !o.is_empty()) {
                        read.ignored.push(format!(
                            "`fuzzing.{key}` is not honoured: deploy what the harness needs in its constructor"
                        ));
                    }
                }
                "testing" => {
                    for (key, value) in object(value, "fuzzing.testing")? {
                        let bad = |reason: String| format!("`fuzzing.testing.{key}`: {reason}");
                        match key.as_str() {
                            "stopOnFailedTest" => {
                                meaning.stop_on_failure = flag(value).map_err(bad)?
                            }
                            "testAllContracts" => {
                                meaning.all_contracts = flag(value).map_err(bad)?
                            }
                            "targetFunctionSignatures" => only = strings(value).map_err(bad)?,
                            "excludeFunctionSignatures" => except = strings(value).map_err(bad)?,
                            "testViewMethods" => meaning.view_methods = flag(value).map_err(bad)?,
                            "assertionTesting" => {
                                for (key, value) in object(value, "assertionTesting")? {
                                    let bad = |reason: String| {
                                        format!(
                                            "`fuzzing.testing.assertionTesting.{key}`: {reason}"
                                        )
                                    };
                                    match key.as_str() {
                                        "enabled" => assertions = flag(value).map_err(bad)?,
                                        "panicCodeConfig" => {
                                            panics = panic_codes(value, panics.clone())
                                                .map_err(bad)?
                                        }
                                        "assertionModes" | "testViewMethods" => read.ignored.push(format!(
                                            "`fuzzing.testing.assertionTesting.{key}` is an old spelling Medusa 1.x ignores; its default applies (Medusa 1.x reads `{}`)",
                                            if key == "assertionModes" {
                                                "fuzzing.testing.assertionTesting.panicCodeConfig"
                                            } else {
                                                "fuzzing.testing.testViewMethods"
                                            }
                                        )),
                                        key if key.starts_with('_') => {}
                                        key => unknown(&mut read.ignored, key),
                                    }
                                }
                            }
                            "propertyTesting" => {
                                for (key, value) in object(value, "propertyTesting")? {
                                    let bad = |reason: String| {
                                        format!("`fuzzing.testing.propertyTesting.{key}`: {reason}")
                                    };
                                    match key.as_str() {
                                        "enabled" => {
                                            meaning.properties = flag(value).map_err(bad)?
                                        }
                                        "testPrefixes" => {
                                            meaning.prefixes = strings(value).map_err(bad)?
                                        }
                                        key if key.starts_with('_') => {}
                                        key => unknown(&mut read.ignored, key),
                                    }
                                }
                            }
                            "optimizationTesting" => {
                                // Optimization tests are never failures; their prefixed
                                // functions are not fuzzed, as properties' are not.
                                optimization = strings(&value["testPrefixes"])
                                    .unwrap_or_else(|_| vec!["optimize_".into()]);
                            }
                            "stopOnFailedContractMatching"
                            | "stopOnNoTests"
                            | "traceAll"
                            | "verbosity" => {}
                            key if key.starts_with('_') => {}
                            key => unknown(&mut read.ignored, key),
                        }
                    }
                }
                "chainConfig" => {
                    if value["cheatCodes"]["enableFFI"] == Value::Bool(true) {
                        read.ignored.push(
                            "`fuzzing.chainConfig.cheatCodes.enableFFI` is not honoured: harvey has no `ffi` cheatcode".into(),
                        );
                    }
                    if value["forkConfig"]["forkModeEnabled"] == Value::Bool(true) {
                        read.ignored.push(
                            "`fuzzing.chainConfig.forkConfig` is not honoured: harvey does not fork a chain".into(),
                        );
                    }
                }
                // Replaced by harvey's own: workers, shrinking, corpus, coverage, gas limits.
                "workers"
                | "workerResetLimit"
                | "shrinkLimit"
                | "pruneFrequency"
                | "corpusDirectory"
                | "coverageEnabled"
                | "coverageFormats"
                | "coverageExclusions"
                | "revertReporterEnabled"
                | "blockGasLimit"
                | "transactionGasLimit" => {}
                key if key.starts_with('_') => {}
                key => unknown(&mut read.ignored, key),
            }
        }
    }
    if !only.is_empty() && !except.is_empty() {
        return Err(
            "`targetFunctionSignatures` and `excludeFunctionSignatures` are both set (Medusa rejects this too)"
                .into(),
        );
    }
    let meaning = &mut read.meaning;
    meaning.functions = match (only.is_empty(), except.is_empty()) {
        (false, _) => FunctionFilter::Only(only),
        (true, false) => FunctionFilter::Except(except),
        (true, true) => FunctionFilter::All,
    };
    meaning.panics = if assertions { panics } else { Vec::new() };
    meaning.unrun_prefixes = optimization;
    Ok(read)
}

/// A warning for a key Medusa does not know (it ignores it without a word).
fn unknown(ignored: &mut Vec<String>, key: &str) {
    ignored.push(format!(
        "`{key}` is not a Medusa key, and is ignored (Medusa ignores it silently)"
    ));
}

/// `panicCodeConfig`'s flags over `codes`.
fn panic_codes(value: &Value, mut codes: Vec<u8>) -> Result<Vec<u8>, String> {
    for (key, on) in object(value, "panicCodeConfig")? {
        let Some((_, code)) = PANIC_KEYS.iter().find(|(name, _)| name == key) else {
            continue;
        };
        codes.retain(|c| c != code);
        if flag(on).map_err(|e| format!("`{key}`: {e}"))? {
            codes.push(*code);
        }
    }
    codes.sort_unstable();
    Ok(codes)
}

/// A JSON object.
fn object<'a>(value: &'a Value, what: &str) -> Result<&'a Map<String, Value>, String> {
    value
        .as_object()
        .ok_or_else(|| format!("`{what}` must be an object"))
}

/// A JSON boolean.
fn flag(value: &Value) -> Result<bool, String> {
    value
        .as_bool()
        .ok_or_else(|| format!("expected true or false, found {value}"))
}

/// A JSON unsigned integer.
fn whole(value: &Value) -> Result<u64, String> {
    value
        .as_u64()
        .ok_or_else(|| format!("expected a whole number, found {value}"))
}

/// A JSON string.
fn text(value: &Value) -> Result<String, String> {
    value
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("expected a string, found {value}"))
}

/// A JSON list of strings.
fn strings(value: &Value) -> Result<Vec<String>, String> {
    value
        .as_array()
        .ok_or_else(|| format!("expected a list, found {value}"))?
        .iter()
        .map(text)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_medusa_s() {
        let read = read(r#"{"fuzzing": {"targetContracts": ["H"]}}"#).unwrap();
        let meaning = &read.meaning;
        assert_eq!(meaning.senders, SENDERS.to_vec());
        assert_eq!(meaning.deployer, DEPLOYER);
        assert_eq!(meaning.prefixes, vec!["property_".to_string()]);
        assert_eq!(meaning.unrun_prefixes, vec!["optimize_".to_string()]);
        assert!(meaning.properties);
        assert_eq!(meaning.panics, vec![0x01]);
        assert_eq!((meaning.calls, meaning.seconds), (None, None));
        assert!(meaning.stop_on_failure);
        assert_eq!(read.targets, vec!["H".to_string()]);
        assert!(read.ignored.is_empty());
    }

    #[test]
    fn a_challenge_config_reads_as_medusa_reads_it() {
        let text = r#"{
            "fuzzing": {
                "workers": 10, "_COMMENT": "x", "timeout": 10, "testLimit": 0,
                "callSequenceLength": 100, "targetContracts": ["A", "H"],
                "targetContractsBalances": ["", "0x36c090d0ca68880000"],
                "deployerAddress": "0x30000",
                "senderAddresses": ["0x1337000000000000000000000000000000000000"],
                "blockNumberDelayMax": 60480, "blockTimestampDelayMax": 604800,
                "testing": {
                    "stopOnFailedTest": false, "testAllContracts": true,
                    "assertionTesting": {
                        "enabled": true,
                        "panicCodeConfig": {"failOnAssertion": true, "failOnDivideByZero": true}
                    },
                    "propertyTesting": {"enabled": true, "testPrefixes": ["invariant_"]},
                    "optimizationTesting": {"enabled": false, "testPrefixes": ["optimize_"]},
                    "targetFunctionSignatures": [], "excludeFunctionSignatures": ["H.f()"],
                    "misspelt": true
                }
            },
            "compilation": {"platform": "crytic-compile"}
        }"#;
        let read = read(text).unwrap();
        let meaning = &read.meaning;
        assert_eq!(meaning.seconds, Some(10));
        assert_eq!(meaning.calls, None);
        assert_eq!(meaning.senders.len(), 1);
        assert_eq!(meaning.property_sender, meaning.senders[0]);
        assert!(meaning.all_contracts && !meaning.stop_on_failure);
        assert_eq!(meaning.panics, vec![0x01, 0x12]);
        assert_eq!(meaning.prefixes, vec!["invariant_".to_string()]);
        assert_eq!(
            meaning.functions,
            FunctionFilter::Except(vec!["H.f()".into()])
        );
        assert_eq!(read.balances[0], U256::ZERO);
        assert_eq!(
            read.balances[1],
            U256::from(1010u64) * U256::from(10u64).pow(U256::from(18))
        );
        assert_eq!(read.ignored.len(), 1);
        assert!(read.ignored[0].contains("misspelt"));
    }

    #[test]
    fn assertion_testing_off_counts_no_panic_and_old_spellings_are_named() {
        let read = read(
            r#"{"fuzzing": {"targetContracts": [], "testing": {"assertionTesting":
                {"enabled": false, "assertionModes": {"failOnAssertion": true},
                 "testViewMethods": true}}}}"#,
        )
        .unwrap();
        assert!(read.meaning.panics.is_empty());
        // Each old spelling is told its own new one.
        assert!(read.ignored[0].contains("assertionModes"));
        assert!(
            read.ignored[0].contains("reads `fuzzing.testing.assertionTesting.panicCodeConfig`")
        );
        assert!(read.ignored[1].contains("reads `fuzzing.testing.testViewMethods`"));
        // The old spelling leaves Medusa's default: view methods are not called.
        assert!(!read.meaning.view_methods);
    }

    #[test]
    fn test_view_methods_calls_view_and_pure_functions() {
        let read = read(
            r#"{"fuzzing": {"targetContracts": ["H"], "testing": {"testViewMethods": true}}}"#,
        )
        .unwrap();
        assert!(read.meaning.view_methods);
        assert!(read.ignored.is_empty(), "{:?}", read.ignored);
    }

    #[test]
    fn wrong_values_are_errors_naming_the_key() {
        for (text, expected) in [
            (r#"{"fuzzing": {"timeout": "10"}}"#, "`fuzzing.timeout`"),
            (
                r#"{"fuzzing": {"targetContractsBalances": [1]}}"#,
                "`fuzzing.targetContractsBalances`: expected a string",
            ),
            (r#"{"fuzzing": {"senderAddresses": []}}"#, "no senders"),
            (
                r#"{"fuzzing": {"testing": {"targetFunctionSignatures": ["A.f()"], "excludeFunctionSignatures": ["A.g()"]}}}"#,
                "both set",
            ),
            ("{\n\"fuzzing\": [}", "not valid JSON at line 2"),
        ] {
            let error = read(text).map(|_| ()).unwrap_err();
            assert!(error.contains(expected), "{text}: {error}");
        }
    }
}
