//! An echidna yaml, read as Echidna 2.2 reads it (`lib/Echidna/Config.hs`): every key with
//! Echidna's default where the file gives none, and a warning for each key set that harvey
//! does not honour.

use alloy_primitives::{Address, U256, address};
use yaml_rust2::{Yaml, YamlLoader};

use super::values::{address as read_address, integer, small};
use super::{DEFAULT_BLOCK_DELAY, DEFAULT_TIME_DELAY, FunctionFilter, Meaning};

/// Echidna's default senders (`sender`).
const SENDERS: [Address; 3] = [
    address!("0x0000000000000000000000000000000000010000"),
    address!("0x0000000000000000000000000000000000020000"),
    address!("0x0000000000000000000000000000000000030000"),
];

/// Echidna's default `deployer`.
const DEPLOYER: Address = address!("0x0000000000000000000000000000000000030000");

/// Echidna's default `psender`: the sender of property calls.
const PROPERTY_SENDER: Address = address!("0x0000000000000000000000000000000000010000");

/// Keys harvey replaces with its own equivalent (workers, shrinking, corpus, coverage
/// output, compilation, the interface): set or not, they change nothing harvey finds.
const HARVEY_OWN: [&str; 22] = [
    "workers",
    "shrinkLimit",
    "corpusDir",
    "coverage",
    "coverageFormats",
    "coverageDir",
    "coverageExcludes",
    "format",
    "quiet",
    "cryticArgs",
    "solcArgs",
    "mutConsts",
    "dictFreq",
    "disableSlither",
    "server",
    "projectName",
    "estimateGas",
    "symExec",
    "symExecConcolic",
    "symExecTimeout",
    "symExecNSolvers",
    "symExecMaxIters",
];

/// Keys Echidna knows whose meaning harvey does not reproduce, with why.
const NOT_HONOURED: [(&str, &str); 18] = [
    (
        "contractAddr",
        "the harness is deployed at the deployer's CREATE address, not a fixed one",
    ),
    (
        "codeSize",
        "harvey's code size limit is foundry.toml's (none for suites)",
    ),
    (
        "maxValue",
        "harvey sends payable functions values of its own choosing",
    ),
    ("maxGasprice", "harvey's calls have a gas price of 0"),
    ("propMaxGas", "property calls get foundry.toml's gas limit"),
    ("testMaxGas", "fuzzed calls get foundry.toml's gas limit"),
    (
        "deployContracts",
        "deploy them in the harness's constructor",
    ),
    (
        "deployBytecodes",
        "deploy them in the harness's constructor",
    ),
    ("solcLibs", "libraries are linked as foundry links them"),
    ("rpcUrl", "harvey does not fork a chain"),
    ("rpcBlock", "harvey does not fork a chain"),
    ("etherscanApiKey", "harvey does not fork a chain"),
    ("initialize", "harvey does not read Etheno files"),
    ("allowFFI", "harvey has no `ffi` cheatcode"),
    (
        "testDestruction",
        "harvey's self-destruct detector is the `detectors` setting",
    ),
    ("allEvents", "harvey's report shows the events it needs"),
    ("disableOnchainSources", "harvey does not fork a chain"),
    (
        "symExecTargets",
        "harvey's solver step chooses its own targets",
    ),
];

/// The meaning of the echidna yaml `text`, and a warning per key harvey does not honour.
pub(super) fn read(text: &str) -> Result<(Meaning, Vec<String>), String> {
    let documents = YamlLoader::load_from_str(text).map_err(|e| {
        let marker = e.marker();
        format!(
            "not valid YAML at line {}, column {}: {}",
            marker.line(),
            marker.col() + 1,
            e.info()
        )
    })?;
    let empty = yaml_rust2::yaml::Hash::new();
    let keys = match documents.first() {
        None | Some(Yaml::Null) => &empty,
        Some(Yaml::Hash(keys)) => keys,
        Some(_) => return Err("expected a mapping of Echidna's keys".into()),
    };
    let mut meaning = Meaning {
        senders: SENDERS.to_vec(),
        property_sender: PROPERTY_SENDER,
        deployer: DEPLOYER,
        account_balance: U256::from(0xffff_ffffu64),
        harness_balance: U256::ZERO,
        all_contracts: false,
        prefixes: vec!["echidna_".into()],
        unrun_prefixes: Vec::new(),
        properties: true,
        panics: Vec::new(),
        assertion_events: false,
        view_methods: true,
        depth: 100,
        calls: Some(50_000),
        seconds: None,
        max_time_delay: DEFAULT_TIME_DELAY,
        max_block_delay: DEFAULT_BLOCK_DELAY,
        functions: FunctionFilter::All,
        stop_on_failure: false,
        seed: None,
    };
    let mut ignored = Vec::new();
    let mut filter: Vec<String> = Vec::new();
    let mut blacklist = true;
    for (key, value) in keys {
        let Some(key) = key.as_str() else {
            return Err(format!("a key is not a name: {key:?}"));
        };
        if matches!(value, Yaml::Null) {
            continue; // Echidna's default, as Echidna reads `null`.
        }
        let bad = |reason: String| format!("`{key}`: {reason}");
        match key {
            "testMode" => {
                let mode = string(value).map_err(bad)?;
                match mode.as_str() {
                    "property" => {}
                    "assertion" => {
                        meaning.properties = false;
                        meaning.panics = vec![0x01];
                        meaning.assertion_events = true;
                    }
                    "overflow" => {
                        meaning.properties = false;
                        meaning.panics = vec![0x11];
                    }
                    "optimization" | "exploration" | "dapptest" | "foundry" => {
                        return Err(bad(format!(
                            "harvey does not run Echidna's {mode} mode (it runs property, assertion and overflow modes; run a forge test contract with #[harvey::forge_suite] directly)"
                        )));
                    }
                    other => return Err(bad(format!("unknown test mode `{other}`"))),
                }
            }
            "testLimit" => meaning.calls = Some(number(value).and_then(fits).map_err(bad)?),
            "seqLen" => meaning.depth = number(value).and_then(fits).map_err(bad)?.max(1),
            "timeout" => meaning.seconds = Some(number(value).and_then(fits).map_err(bad)?),
            "seed" => meaning.seed = Some(number(value).and_then(fits).map_err(bad)?),
            "stopOnFail" => meaning.stop_on_failure = boolean(value).map_err(bad)?,
            "sender" => {
                meaning.senders = list(value)
                    .map_err(bad)?
                    .iter()
                    .map(|v| string(v).and_then(|s| read_address(&s)))
                    .collect::<Result<_, _>>()
                    .map_err(bad)?;
                if meaning.senders.is_empty() {
                    return Err(bad("no senders".into()));
                }
            }
            "psender" => {
                meaning.property_sender = read_address(&string(value).map_err(bad)?).map_err(bad)?
            }
            "deployer" => {
                meaning.deployer = read_address(&string(value).map_err(bad)?).map_err(bad)?
            }
            "balanceAddr" => meaning.account_balance = number(value).map_err(bad)?,
            "balanceContract" => meaning.harness_balance = number(value).map_err(bad)?,
            "prefix" => meaning.prefixes = vec![string(value).map_err(bad)?],
            "excludeViewPure" => meaning.view_methods = !boolean(value).map_err(bad)?,
            "allContracts" | "multi-abi" => meaning.all_contracts = boolean(value).map_err(bad)?,
            "maxTimeDelay" => meaning.max_time_delay = number(value).and_then(fits).map_err(bad)?,
            "maxBlockDelay" => {
                meaning.max_block_delay = number(value).and_then(fits).map_err(bad)?
            }
            "filterFunctions" => {
                filter = list(value)
                    .map_err(bad)?
                    .iter()
                    .map(string)
                    .collect::<Result<_, _>>()
                    .map_err(bad)?
            }
            "filterBlacklist" => blacklist = boolean(value).map_err(bad)?,
            key if HARVEY_OWN.contains(&key) || key.starts_with("symExec") => {}
            key => match NOT_HONOURED.iter().find(|(name, _)| *name == key) {
                Some((_, why)) => ignored.push(format!("`{key}` is not honoured: {why}")),
                None => ignored.push(format!(
                    "`{key}` is not an Echidna key, and is ignored (Echidna warns \"unused option\")"
                )),
            },
        }
    }
    // Echidna sets both delays to 0 when either is 0 (`level`).
    if meaning.max_time_delay == 0 || meaning.max_block_delay == 0 {
        meaning.max_time_delay = 0;
        meaning.max_block_delay = 0;
    }
    meaning.functions = match (blacklist, filter.is_empty()) {
        (true, true) => FunctionFilter::All,
        (true, false) => FunctionFilter::Except(filter),
        (false, _) => FunctionFilter::Only(filter),
    };
    Ok((meaning, ignored))
}

/// A YAML string.
fn string(value: &Yaml) -> Result<String, String> {
    match value {
        Yaml::String(text) => Ok(text.clone()),
        other => Err(format!("expected a string, found {}", shown(other))),
    }
}

/// A YAML number (Echidna rejects quoted numbers), exactly: decimal, hex, scientific.
fn number(value: &Yaml) -> Result<U256, String> {
    match value {
        Yaml::Integer(n) => u64::try_from(*n)
            .map(U256::from)
            .map_err(|_| format!("{n} is negative")),
        Yaml::Real(text) => integer(text),
        // yaml-rust2 keeps hex too long for an i64 as a string; Echidna reads it as a number.
        Yaml::String(text) if text.starts_with("0x") => integer(text),
        other => Err(format!("expected a number, found {}", shown(other))),
    }
}

/// A number that fits a `u64`.
fn fits(value: U256) -> Result<u64, String> {
    small(&value.to_string())
}

/// A YAML boolean.
fn boolean(value: &Yaml) -> Result<bool, String> {
    value
        .as_bool()
        .ok_or_else(|| format!("expected true or false, found {}", shown(value)))
}

/// A YAML list.
fn list(value: &Yaml) -> Result<&[Yaml], String> {
    value
        .as_vec()
        .map(Vec::as_slice)
        .ok_or_else(|| format!("expected a list, found {}", shown(value)))
}

/// A value as the user wrote it, for errors.
fn shown(value: &Yaml) -> String {
    match value {
        Yaml::String(s) => format!("\"{s}\""),
        Yaml::Integer(n) => n.to_string(),
        Yaml::Real(r) => r.clone(),
        Yaml::Boolean(b) => b.to_string(),
        Yaml::Array(_) => "a list".into(),
        Yaml::Hash(_) => "a mapping".into(),
        _ => "nothing".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_echidna_s() {
        let (meaning, ignored) = read("# nothing set\n").unwrap();
        assert_eq!(meaning.senders, SENDERS.to_vec());
        assert_eq!(meaning.deployer, DEPLOYER);
        assert_eq!(meaning.prefixes, vec!["echidna_".to_string()]);
        assert_eq!((meaning.depth, meaning.calls), (100, Some(50_000)));
        assert!(meaning.properties && meaning.panics.is_empty());
        assert!(ignored.is_empty());
    }

    #[test]
    fn view_and_pure_functions_are_called_unless_excluded() {
        assert!(read("").unwrap().0.view_methods);
        let (meaning, ignored) = read("excludeViewPure: true\n").unwrap();
        assert!(!meaning.view_methods);
        assert!(ignored.is_empty(), "{ignored:?}");
    }

    #[test]
    fn a_challenge_config_reads_as_echidna_reads_it() {
        let text = "# 1010 ether\r\nbalanceContract: 1010e18\r\nallContracts: true\r\n\
                    sender: [\"0x1337000000000000000000000000000000000000\", \"20000\"]\r\n\
                    corpusDir: \"./coverage\"\r\nprefix: \"invariant_\"\r\n\
                    cryticArgs: [\"--foundry-compile-all\"]\r\ntestMode: assertion\r\n\
                    seqLen: 10\r\ntestLimit: 10000000\r\nfilterFunctions: [\"H.f(uint256)\"]\r\n\
                    filterBlacklist: false\r\ncontractAddr: \"0x10\"\r\nmaxBlockDelay: 0\r\n\
                    deployer: \"0x41\"\r\nmisspelt: 1\r\n";
        let (meaning, ignored) = read(text).unwrap();
        assert_eq!(
            meaning.harness_balance,
            U256::from(1010u64) * U256::from(10u64).pow(U256::from(18))
        );
        assert!(meaning.all_contracts);
        assert_eq!(meaning.senders.len(), 2);
        assert_eq!(meaning.senders[1], SENDERS[1]);
        assert_eq!(meaning.prefixes, vec!["invariant_".to_string()]);
        assert!(!meaning.properties);
        assert_eq!(meaning.panics, vec![0x01]);
        assert!(meaning.assertion_events);
        assert_eq!((meaning.depth, meaning.calls), (10, Some(10_000_000)));
        assert_eq!(
            meaning.functions,
            FunctionFilter::Only(vec!["H.f(uint256)".into()])
        );
        assert_eq!((meaning.max_time_delay, meaning.max_block_delay), (0, 0));
        assert_eq!(
            meaning.deployer,
            address!("0x0000000000000000000000000000000000000041")
        );
        assert_eq!(ignored.len(), 2, "{ignored:?}");
        assert!(ignored[0].contains("contractAddr"));
        assert!(ignored[1].contains("misspelt"));
    }

    #[test]
    fn wrong_values_are_errors_naming_the_key() {
        for (text, expected) in [
            ("sender: [0x10000]", "`sender`: expected a string"),
            ("testLimit: \"100\"", "`testLimit`: expected a number"),
            ("testMode: optimization", "optimization mode"),
            ("testMode: fuzz", "unknown test mode"),
            ("balanceContract: 1.5", "not a whole number"),
            ("sender: []", "no senders"),
            ("a: [b", "not valid YAML at line"),
            ("- a", "expected a mapping"),
        ] {
            let error = read(text).unwrap_err();
            assert!(error.contains(expected), "{text}: {error}");
        }
    }
}
