//! A corpus kept between runs (`corpus = "dir"`, issue 17): saved after fuzzing, run first by
//! the next campaign of the same test, merged across shards by copying files, and never an
//! error when what was saved no longer fits.

use harvey::outcome::KeptCorpus;
use harvey::{Campaign, Outcome};

use crate::support::{campaign_on, repo};

/// A campaign on `Escrow` (whose coverage grows over thousands of sequences) with seed
/// `seed` and `runs` sequences, keeping its corpus in `dir`.
fn campaign<'a>(dir: &std::path::Path, seed: u64, runs: u64) -> Campaign<'a> {
    campaign_on(repo())
        .name("corpus::escrow")
        .contract("Escrow")
        .seed(seed)
        .runs(runs)
        .fail_fast(false)
        .corpus(dir.to_str().unwrap())
}

fn kept(outcome: &Outcome) -> &KeptCorpus {
    outcome.stats.kept_corpus.as_ref().expect("a kept corpus")
}

#[test]
fn a_saved_corpus_is_run_first_and_saved_back() {
    let dir = tempfile::tempdir().unwrap();
    let first = campaign(dir.path(), 1, 3_000).run().unwrap();
    assert_eq!(kept(&first).loaded, 0);
    assert!(kept(&first).saved > 5, "{:?}", kept(&first));
    let file = dir.path().join("corpus.escrow").join("seed-1.json");
    assert!(file.is_file(), "{}", file.display());
    // Resumed with a small budget, another seed starts from everything the first kept...
    let resumed = campaign(dir.path(), 2, 200).run().unwrap();
    assert_eq!(kept(&resumed).loaded, kept(&first).saved);
    assert!(
        resumed.stats.edges >= first.stats.edges,
        "{} < {}",
        resumed.stats.edges,
        first.stats.edges
    );
    // ...where a cold campaign with that budget does not get.
    let cold_dir = tempfile::tempdir().unwrap();
    let cold = campaign(cold_dir.path(), 2, 200).run().unwrap();
    assert!(
        cold.stats.edges < first.stats.edges,
        "{} vs {}",
        cold.stats.edges,
        first.stats.edges
    );
    let summary = harvey::report::summary(&resumed);
    assert!(summary.contains("  corpus kept in "), "{summary}");
    // The second run's file stands for both: the first's was removed.
    let tests = dir.path().join("corpus.escrow");
    assert!(tests.join("seed-2.json").is_file());
    assert!(!file.exists(), "seed 1's file was minimised into seed 2's");
    let third = campaign(dir.path(), 3, 1).run().unwrap();
    assert_eq!(kept(&third).loaded, kept(&resumed).saved);
}

/// The distinct sequences the corpus files in `dir` hold.
fn saved_sequences(dir: &std::path::Path) -> usize {
    let mut all: Vec<serde_json::Value> = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let file: serde_json::Value = serde_json::from_str(&text).unwrap();
        for sequence in file["sequences"].as_array().unwrap() {
            if !all.contains(sequence) {
                all.push(sequence.clone());
            }
        }
    }
    all.len()
}

/// Copies the corpus files of `from` into `to` (CI's merge of shard directories).
fn copy_files(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        // Shards ran other seeds: their files have other names.
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// Shards' corpora merged by copying their files, then minimised by the next campaign:
/// fewer sequences, every edge of the merged ones kept.
#[test]
fn merged_shards_are_minimised_keeping_every_edge() {
    let merged = tempfile::tempdir().unwrap();
    let measured = tempfile::tempdir().unwrap();
    for seed in [1, 2] {
        let shard = tempfile::tempdir().unwrap();
        campaign(shard.path(), seed, 2_000).run().unwrap();
        for into in [&merged, &measured] {
            copy_files(
                &shard.path().join("corpus.escrow"),
                &into.path().join("corpus.escrow"),
            );
        }
    }
    let merged_count = saved_sequences(&merged.path().join("corpus.escrow"));
    // What the merged sequences cover: a campaign that runs only them (its budget is their
    // number, and saved sequences run first).
    let all = campaign(measured.path(), 9, merged_count as u64)
        .run()
        .unwrap();
    assert_eq!(kept(&all).loaded, merged_count);
    // The merge job's campaign minimises them...
    let merge = campaign(merged.path(), 10, merged_count as u64)
        .run()
        .unwrap();
    let minimised = kept(&merge);
    assert_eq!(minimised.edges, all.stats.edges, "{minimised:?}");
    assert!(
        minimised.saved < merged_count,
        "{} of {merged_count} kept",
        minimised.saved
    );
    let tests = merged.path().join("corpus.escrow");
    assert_eq!(
        std::fs::read_dir(&tests).unwrap().count(),
        1,
        "one file left"
    );
    // ...and running only what it kept reaches every edge again.
    let again = campaign(merged.path(), 11, minimised.saved as u64)
        .run()
        .unwrap();
    assert_eq!(again.stats.edges, all.stats.edges);
}

#[test]
fn what_no_longer_fits_is_dropped_and_counted_never_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let first = campaign(dir.path(), 1, 500).run().unwrap();
    let saved = kept(&first).saved;
    let tests = dir.path().join("corpus.escrow");
    // A shard's file whose sequence calls a function that no longer exists, and a file
    // that is not a corpus file at all.
    let text = std::fs::read_to_string(tests.join("seed-1.json")).unwrap();
    let renamed = text.replacen("\"function\":\"fund(", "\"function\":\"gone(", 1);
    assert_ne!(renamed, text, "the corpus calls fund");
    std::fs::write(tests.join("seed-7.json"), renamed).unwrap();
    std::fs::write(tests.join("broken.json"), "{ not json").unwrap();
    let outcome = campaign(dir.path(), 2, 10).run().unwrap();
    let kept = kept(&outcome);
    assert_eq!(kept.unreadable, 1);
    // The shard's other sequences repeat seed 1's: loaded once.
    assert_eq!((kept.loaded, kept.stale), (saved, 1), "{kept:?}");
    assert!(
        outcome
            .warnings
            .iter()
            .any(|w| w.contains("broken.json: not a harvey corpus file")),
        "{:?}",
        outcome.warnings
    );
}
