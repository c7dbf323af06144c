//! Regression files (`harvey-regressions/<test>.json`, meant to be committed): every failure
//! saved as a concrete, decoded call sequence keyed by contract name and function signature,
//! so it survives unrelated code edits and generator changes. Replayed before fuzzing: the
//! engine resolves each saved call against the fuzzed functions (`engine::replay`).

use std::path::{Path, PathBuf};

use alloy_dyn_abi::DynSolValue;
use alloy_primitives::{Address, U256, hex};
use serde::{Deserialize, Serialize};

use crate::chain::{SolDisplay, Warp};
use crate::outcome::Call;
use crate::output::file_lock::write_atomically;
use crate::{Error, Result};

/// The format version written into every file.
const FORMAT: u32 = 1;

/// A regression file's contents.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Contents {
    /// Format version: [`FORMAT`].
    harvey_regressions: u32,
    /// The test the failures belong to.
    test: String,
    failures: Vec<Entry>,
}

/// One saved failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Entry {
    /// What was violated, as the report said it (for people reading the file).
    pub(crate) violation: String,
    /// The seed of the campaign that found it.
    pub(crate) seed: u64,
    /// A hash of the settings that shape what counts as a failure and how calls are made
    /// (Panic codes, senders, fuzzed functions); informs, never blocks, a replay.
    pub(crate) settings: String,
    pub(crate) calls: Vec<StoredCall>,
}

/// One saved call: enough to rebuild it against the current ABI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StoredCall {
    sender: String,
    contract: String,
    /// `name(types)`: the key that survives code edits.
    function: String,
    /// ABI-encoded arguments (without selector), `0x…`.
    args: String,
    /// The arguments as Solidity would spell them (for people; ignored on replay).
    decoded: String,
    /// `msg.value` in wei, decimal.
    value: String,
    warp_seconds: u64,
    warp_blocks: u64,
    /// For a contract created during the sequence: which of its name, counted back from the
    /// newest ([`Call::instance`]). Absent for setup's contracts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    instance: Option<u8>,
}

/// A regression file on disk (possibly not yet existing).
#[derive(Debug, Clone)]
pub(crate) struct RegressionFile {
    path: PathBuf,
    contents: Contents,
}

impl RegressionFile {
    /// Reads `path`; a missing file is an empty one. A file that is not valid JSON in
    /// harvey's format is an error naming it (nothing is dropped or overwritten).
    pub(crate) fn load(path: &Path, test: &str) -> Result<RegressionFile> {
        let contents = match std::fs::read_to_string(path) {
            Ok(text) => {
                let contents: Contents =
                    serde_json::from_str(&text).map_err(|e| Error::RegressionFile {
                        path: path.to_path_buf(),
                        message: format!("not a harvey regression file ({e}); fix or delete it"),
                    })?;
                if contents.harvey_regressions != FORMAT {
                    return Err(Error::RegressionFile {
                        path: path.to_path_buf(),
                        message: format!(
                            "format version {} is not {FORMAT}, the one this harvey reads",
                            contents.harvey_regressions
                        ),
                    });
                }
                contents
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Contents {
                harvey_regressions: FORMAT,
                test: test.to_string(),
                failures: Vec::new(),
            },
            Err(e) => return Err(Error::io(path, &e)),
        };
        Ok(RegressionFile {
            path: path.to_path_buf(),
            contents,
        })
    }

    /// The file's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The saved failures, oldest first.
    pub(crate) fn entries(&self) -> &[Entry] {
        &self.contents.failures
    }

    /// Adds a failure unless the same call sequence is already saved; true when added.
    pub(crate) fn record(
        &mut self,
        violation: String,
        seed: u64,
        settings: String,
        calls: &[Call],
    ) -> bool {
        let calls: Vec<StoredCall> = calls.iter().map(store_call).collect();
        if self.contents.failures.iter().any(|e| e.calls == calls) {
            return false;
        }
        self.contents.failures.push(Entry {
            violation,
            seed,
            settings,
            calls,
        });
        true
    }

    /// Writes the file (creating its directory), atomically: a crash never leaves half a
    /// file behind.
    pub(crate) fn save(&self) -> Result<()> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, &e))?;
        }
        let mut text =
            serde_json::to_string_pretty(&self.contents).map_err(|e| Error::RegressionFile {
                path: self.path.clone(),
                message: e.to_string(),
            })?;
        text.push('\n');
        write_atomically(&self.path, &text)
    }
}

impl StoredCall {
    /// The contract's name.
    pub(crate) fn contract(&self) -> &str {
        &self.contract
    }

    /// The function's signature, `name(types)` (`receive()`, `fallback(bytes)` included).
    pub(crate) fn function(&self) -> &str {
        &self.function
    }

    /// The sender's address; `Err` says why it does not parse.
    pub(crate) fn sender(&self) -> std::result::Result<Address, String> {
        self.sender
            .parse()
            .map_err(|e| format!("sender `{}`: {e}", self.sender))
    }

    /// The ABI-encoded arguments (without selector); `Err` says why they are not hex.
    pub(crate) fn encoded_args(&self) -> std::result::Result<Vec<u8>, String> {
        hex::decode(&self.args).map_err(|e| format!("arguments `{}`: {e}", self.args))
    }

    /// `msg.value`; `Err` says why it does not parse.
    pub(crate) fn value(&self) -> std::result::Result<U256, String> {
        self.value
            .parse()
            .map_err(|e| format!("value `{}`: {e}", self.value))
    }

    /// The arguments as the file spells them for people.
    #[cfg(test)]
    pub(crate) fn decoded(&self) -> &str {
        &self.decoded
    }

    /// The time warp before the call.
    pub(crate) fn warp(&self) -> Warp {
        Warp {
            seconds: self.warp_seconds,
            blocks: self.warp_blocks,
        }
    }

    /// Which created contract of its name the call was made to, if it was one.
    pub(crate) fn instance(&self) -> Option<u8> {
        self.instance
    }
}

/// `call` as saved: decoded, keyed by contract name and function signature.
pub(crate) fn store_call(call: &Call) -> StoredCall {
    let args = DynSolValue::Tuple(call.args.clone()).abi_encode_params();
    let decoded: Vec<String> = call
        .args
        .iter()
        .map(|a| SolDisplay(a).to_string())
        .collect();
    StoredCall {
        sender: call.sender.to_checksum(None),
        contract: call.contract.clone(),
        function: call.signature.clone(),
        args: hex::encode_prefixed(args),
        decoded: format!("{}({})", call.function_name(), decoded.join(", ")),
        value: call.value.to_string(),
        warp_seconds: call.warp.seconds,
        warp_blocks: call.warp.blocks,
        instance: call.instance,
    }
}

/// The file for test `name` in module `module_path` under `manifest_dir`:
/// `harvey-regressions/<module path without the crate>.<name>.json`.
pub(crate) fn path_for(manifest_dir: &Path, module_path: &str, name: &str) -> PathBuf {
    let mut stem: Vec<&str> = module_path.split("::").skip(1).collect();
    stem.push(name);
    manifest_dir
        .join("harvey-regressions")
        .join(format!("{}.json", stem.join(".")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_drop_the_crate_and_keep_modules() {
        let dir = Path::new("/p");
        assert_eq!(
            path_for(dir, "campaign", "solvent"),
            Path::new("/p/harvey-regressions/solvent.json")
        );
        assert_eq!(
            path_for(dir, "mycrate::vault::tests", "solvent"),
            Path::new("/p/harvey-regressions/vault.tests.solvent.json")
        );
    }

    #[test]
    fn corrupt_and_foreign_files_are_errors_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.json");
        std::fs::write(&path, "{ not json").unwrap();
        let err = RegressionFile::load(&path, "t").unwrap_err().to_string();
        assert!(
            err.contains("t.json") && err.contains("not a harvey regression file"),
            "{err}"
        );
        std::fs::write(
            &path,
            r#"{"harvey_regressions": 99, "test": "t", "failures": []}"#,
        )
        .unwrap();
        let err = RegressionFile::load(&path, "t").unwrap_err().to_string();
        assert!(err.contains("format version 99"), "{err}");
    }

    #[test]
    fn a_missing_file_is_empty_and_saving_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("t.json");
        let mut file = RegressionFile::load(&path, "t").unwrap();
        assert!(file.entries().is_empty());
        let call = Call {
            sender: Address::with_last_byte(1),
            contract: "Vault".into(),
            address: Address::with_last_byte(2),
            signature: "withdraw(uint256)".into(),
            params: vec!["amount".into()],
            args: vec![DynSolValue::Uint(U256::from(7), 256)],
            value: U256::from(5),
            warp: Warp {
                seconds: 60,
                blocks: 5,
            },
            instance: None,
        };
        assert!(file.record("v".into(), 1, "s".into(), std::slice::from_ref(&call)));
        assert!(
            !file.record("v".into(), 2, "s".into(), &[call]),
            "duplicates are not added"
        );
        file.save().unwrap();
        let again = RegressionFile::load(&path, "t").unwrap();
        assert_eq!(again.entries(), file.entries());
        assert_eq!(again.entries()[0].calls[0].decoded, "withdraw(7)");
    }
}
