//! A corpus kept between runs (`corpus = "dir"`, `HARVEY_CORPUS`): the sequences a campaign
//! kept, saved as decoded calls keyed by contract name and function signature (the form of
//! regression files), loaded and run first by the next campaign of the same test, so a CI
//! run starts where the last one stopped.
//!
//! Each campaign reads every file in `<dir>/<test>/` (directories of CI shards that ran
//! other seeds merge by copying their files into one) and writes one,
//! `<dir>/<test>/seed-<seed>.json`, holding the minimised corpus of everything it loaded and
//! found; the corpus files it read are then removed, so that the directory does not grow
//! from run to run. What no longer decodes (a file that is not a corpus file, a sequence whose
//! function, sender or arguments changed) is dropped and counted, never an error: a corpus
//! only speeds a campaign up.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::outcome::Call;
use crate::output::file_lock::write_atomically;
use crate::output::regression::{StoredCall, store_call};
use crate::{Error, Result};

/// The format version written into every file.
const FORMAT: u32 = 1;

/// A corpus file's contents.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Contents {
    /// Format version: [`FORMAT`].
    harvey_corpus: u32,
    /// The test the sequences belong to.
    test: String,
    sequences: Vec<Vec<StoredCall>>,
}

/// One test's directory in a corpus directory.
#[derive(Debug, Clone)]
pub(crate) struct CorpusDir {
    dir: PathBuf,
    test: String,
}

/// What loading found.
#[derive(Debug, Default)]
pub(crate) struct Loaded {
    /// Every saved sequence, once (files of several shards repeat each other).
    pub(crate) sequences: Vec<Vec<StoredCall>>,
    /// The corpus files read.
    pub(crate) files: Vec<PathBuf>,
    /// Files that could not be read as corpus files, with why.
    pub(crate) unreadable: Vec<String>,
}

impl CorpusDir {
    /// Test `test`'s directory under `corpus` (`::` in its name becomes `.`).
    pub(crate) fn new(corpus: &Path, test: &str) -> CorpusDir {
        CorpusDir {
            dir: corpus.join(test.replace("::", ".")),
            test: test.to_string(),
        }
    }

    /// The test's directory.
    pub(crate) fn path(&self) -> &Path {
        &self.dir
    }

    /// Every sequence saved for the test, from every file in its directory (none when it
    /// does not exist).
    pub(crate) fn load(&self) -> Loaded {
        let mut loaded = Loaded::default();
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return loaded;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
            .collect();
        // Deterministic: the order sequences are run in shapes the campaign.
        files.sort();
        for file in files {
            match read(&file) {
                Ok(contents) => {
                    for sequence in contents.sequences {
                        if !loaded.sequences.contains(&sequence) {
                            loaded.sequences.push(sequence);
                        }
                    }
                    loaded.files.push(file);
                }
                Err(why) => loaded.unreadable.push(format!("{}: {why}", file.display())),
            }
        }
        loaded
    }

    /// Saves `sequences` as this campaign's file, `seed-<seed>.json` (replacing the one an
    /// earlier campaign with the seed wrote), atomically, then removes the other corpus files
    /// `replaced` (those it loaded, whose sequences `sequences` now stand for); returns how
    /// many it saved.
    pub(crate) fn save(
        &self,
        seed: u64,
        sequences: &[Vec<Call>],
        replaced: &[PathBuf],
    ) -> Result<usize> {
        std::fs::create_dir_all(&self.dir).map_err(|e| Error::io(&self.dir, &e))?;
        let contents = Contents {
            harvey_corpus: FORMAT,
            test: self.test.clone(),
            sequences: sequences
                .iter()
                .map(|calls| calls.iter().map(store_call).collect())
                .collect(),
        };
        let path = self.dir.join(format!("seed-{seed}.json"));
        let mut text = serde_json::to_string(&contents).map_err(|e| Error::Io {
            path: path.clone(),
            message: e.to_string(),
        })?;
        text.push('\n');
        // A crash must not leave half a file that a later load would count as unreadable.
        write_atomically(&path, &text)?;
        for old in replaced.iter().filter(|old| **old != path) {
            std::fs::remove_file(old).map_err(|e| Error::io(old, &e))?;
        }
        Ok(contents.sequences.len())
    }
}

/// One corpus file, or why it is not one.
fn read(file: &Path) -> std::result::Result<Contents, String> {
    let text = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
    let contents: Contents =
        serde_json::from_str(&text).map_err(|e| format!("not a harvey corpus file ({e})"))?;
    if contents.harvey_corpus != FORMAT {
        return Err(format!(
            "format version {} is not {FORMAT}, the one this harvey reads",
            contents.harvey_corpus
        ));
    }
    Ok(contents)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_dyn_abi::DynSolValue;
    use alloy_primitives::{Address, U256, hex};

    fn call(amount: u64) -> Call {
        Call {
            sender: Address::with_last_byte(1),
            contract: "Vault".into(),
            address: Address::with_last_byte(2),
            signature: "withdraw(uint256)".into(),
            params: vec!["amount".into()],
            args: vec![DynSolValue::Uint(U256::from(amount), 256)],
            value: U256::ZERO,
            warp: Default::default(),
            instance: None,
        }
    }

    #[test]
    fn shards_merge_by_their_files_and_unreadable_files_are_counted() {
        let dir = tempfile::tempdir().unwrap();
        let corpus = CorpusDir::new(dir.path(), "vault::solvent");
        assert!(corpus.path().ends_with("vault.solvent"));
        assert!(corpus.load().sequences.is_empty(), "no directory yet");
        assert_eq!(
            corpus
                .save(1, &[vec![call(1)], vec![call(2)]], &[])
                .unwrap(),
            2
        );
        // Another shard, another seed: one sequence in common.
        assert_eq!(
            corpus
                .save(2, &[vec![call(2)], vec![call(3)]], &[])
                .unwrap(),
            2
        );
        std::fs::write(corpus.path().join("junk.json"), "{ not json").unwrap();
        std::fs::write(corpus.path().join("notes.txt"), "ignored").unwrap();
        let loaded = corpus.load();
        let amounts: Vec<String> = loaded
            .sequences
            .iter()
            .map(|calls| calls[0].encoded_args().map(hex::encode).unwrap())
            .collect();
        assert_eq!(amounts.len(), 3, "{amounts:?}");
        assert_eq!(loaded.unreadable.len(), 1);
        assert!(
            loaded.unreadable[0].contains("junk.json: not a harvey corpus file"),
            "{:?}",
            loaded.unreadable
        );
        assert_eq!(loaded.files.len(), 2);
        // Saving again under a seed replaces that seed's file.
        corpus.save(1, &[vec![call(9)]], &[]).unwrap();
        assert_eq!(corpus.load().sequences.len(), 3);
        // A campaign that loaded both saves one file standing for them; the rest stays.
        let loaded = corpus.load();
        corpus.save(3, &[vec![call(9)]], &loaded.files).unwrap();
        let mut left: Vec<String> = std::fs::read_dir(corpus.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["junk.json", "notes.txt", "seed-3.json"]);
    }
}
