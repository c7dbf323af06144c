//! A campaign resumed from a saved corpus (`corpus = "dir"`) against a cold one: how soon
//! each reaches the coverage (edges) a first run of a few seconds reached. Per seed: a first
//! run saves its corpus; then, with another seed, the smallest budget of a doubling series
//! (from the sequences the corpus holds) at which a resumed campaign, and a cold one, cover
//! as many edges. Medians over seeds. Run with `cargo bench --bench resume`
//! (`HARVEY_BENCH_SEEDS` seeds, default 5).

use std::path::Path;
use std::time::Duration;

use harvey::Campaign;

#[path = "support/root.rs"]
mod root;
// Shared with benches that use all of it.
#[allow(dead_code)]
#[path = "support/timing.rs"]
mod timing;
use timing::{bench_seeds, median, show};

/// How long the first run fuzzes.
const FIRST_RUN: Duration = Duration::from_secs(3);

/// The contracts measured: each's coverage grows over thousands of sequences.
const SUBJECTS: [&str; 2] = ["Escrow", "Crowdsale"];

fn campaign<'a>(contract: &str, seed: u64) -> Campaign<'a> {
    Campaign::new(root::harvey_root())
        .name("resume")
        .contract(contract)
        .seed(seed)
        .fail_fast(false)
}

/// The time and sequences of the smallest budget in the doubling series from `start` at
/// which `run(budget)` covers `edges`; `None` past `cap` sequences.
fn time_to_edges(
    edges: usize,
    start: u64,
    cap: u64,
    run: impl Fn(u64) -> harvey::Outcome,
) -> Option<(Duration, u64)> {
    let mut budget = start.max(1);
    while budget <= cap {
        let outcome = run(budget);
        if outcome.stats.edges >= edges {
            return Some((outcome.stats.elapsed, outcome.stats.sequences));
        }
        budget *= 2;
    }
    None
}

fn main() {
    let Some(seeds) = bench_seeds(5) else {
        return;
    };
    println!(
        "resumed vs cold: time (sequences) to the edges of a {}s first run, medians of {seeds} seeds",
        FIRST_RUN.as_secs()
    );
    println!("| contract | first run: edges, corpus | cold | resumed | cold / resumed |");
    println!("|---|---|---|---|---|");
    for contract in SUBJECTS {
        let (mut cold_times, mut resumed_times) = (Vec::new(), Vec::new());
        let (mut cold_runs, mut resumed_runs) = (Vec::new(), Vec::new());
        let (mut edges_seen, mut saved_seen) = (Vec::new(), Vec::new());
        for seed in 1..=seeds {
            let dir = tempfile::tempdir().expect("a temporary directory");
            let corpus = dir.path().to_str().expect("a UTF-8 path").to_string();
            let first = campaign(contract, seed)
                .time(FIRST_RUN)
                .corpus(corpus.as_str())
                .run()
                .expect("the first run");
            let edges = first.stats.edges;
            let saved = first.stats.kept_corpus.as_ref().map_or(0, |k| k.saved) as u64;
            edges_seen.push(edges);
            saved_seen.push(saved);
            let cap = first.stats.sequences * 4;
            let other = seed + 1_000;
            // The resumed campaign saves too: give it a copy each time.
            let resumed = time_to_edges(edges, saved, cap, |budget| {
                let copy = tempfile::tempdir().expect("a temporary directory");
                copy_dir(dir.path(), copy.path());
                campaign(contract, other)
                    .runs(budget)
                    .corpus(copy.path().to_str().expect("a UTF-8 path"))
                    .run()
                    .expect("a resumed run")
            });
            let cold = time_to_edges(edges, saved, cap, |budget| {
                campaign(contract, other)
                    .runs(budget)
                    .run()
                    .expect("a cold run")
            });
            if let Some((time, runs)) = resumed {
                resumed_times.push(time);
                resumed_runs.push(runs);
            }
            if let Some((time, runs)) = cold {
                cold_times.push(time);
                cold_runs.push(runs);
            }
        }
        let cold = median(&mut cold_times);
        let resumed = median(&mut resumed_times);
        println!(
            "| {contract} | {}, {} | {} ({} seq., {}/{seeds} seeds) | {} ({} seq., {}/{seeds} seeds) | {} |",
            median(&mut edges_seen).unwrap_or(0),
            median(&mut saved_seen).unwrap_or(0),
            show(cold),
            median(&mut cold_runs).unwrap_or(0),
            cold_times.len(),
            show(resumed),
            median(&mut resumed_runs).unwrap_or(0),
            resumed_times.len(),
            match (cold, resumed) {
                (Some(c), Some(r)) =>
                    format!("{:.1}x", c.as_secs_f64() / r.as_secs_f64().max(1e-9)),
                _ => "-".to_string(),
            }
        );
    }
}

/// Copies the files of `from` (a corpus directory: one level of test directories) to `to`.
fn copy_dir(from: &Path, to: &Path) {
    for test in std::fs::read_dir(from)
        .expect("the corpus directory")
        .flatten()
    {
        let target = to.join(test.file_name());
        std::fs::create_dir_all(&target).expect("a test directory");
        for file in std::fs::read_dir(test.path())
            .expect("a test directory")
            .flatten()
        {
            std::fs::copy(file.path(), target.join(file.file_name())).expect("a corpus file");
        }
    }
}
