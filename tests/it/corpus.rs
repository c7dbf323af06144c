//! A corpus kept between runs (`corpus = "dir"`, issue 17): saved after fuzzing, run first by
//! the next campaign of the same test, merged across shards by copying files, and never an
//! error when what was saved no longer fits.

use harvey::{Campaign, KeptCorpus, Outcome};

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
    // Both seeds' files are there: a third run loads their union.
    assert!(
        dir.path()
            .join("corpus.escrow")
            .join("seed-2.json")
            .is_file()
    );
    let third = campaign(dir.path(), 3, 1).run().unwrap();
    assert!(kept(&third).loaded >= kept(&first).saved);
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
