//! `HARVEY_MAZE_SHARDS=N` (issue 32): a campaign spread over N machines, simulated by
//! processes' worth of campaigns run one after another on this one, against one machine.
//! Per maze and seed, with T the per-maze budget (`HARVEY_MAZE_BUDGET_SECS`):
//! - 1 × T and 1 × NT: one campaign with a fresh corpus directory;
//! - N × T: N campaigns with other seeds, each with its own corpus directory (a shard),
//!   whose files are then copied into one, as the sharded recipe's merge job does, and
//!   minimised by a campaign of one sequence (which loads them all, runs every candidate,
//!   and saves the fewest covering their edges).
//!
//! Compared: the distinct violations (for the shards, the union of theirs) and the edges the
//! saved corpus covers (each campaign's own minimisation measures it the same way); the
//! merged corpus's size before and after minimisation; and the time a fresh campaign takes to
//! re-reach the merged edges from the minimised corpus (a campaign whose budget is the saved
//! sequences, which run first).

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use harvey::outcome::KeptCorpus;

use super::generator::Maze;
use super::timing::median;
use super::{Harvey, found_in, harvey_campaign, install};

/// The shards to simulate: `HARVEY_MAZE_SHARDS`, if set.
pub(crate) fn shards() -> Option<u64> {
    let text = std::env::var("HARVEY_MAZE_SHARDS").ok()?;
    Some(
        text.parse()
            .ok()
            .filter(|&n| n > 1)
            .unwrap_or_else(|| panic!("HARVEY_MAZE_SHARDS: {text:?} is not a number above 1")),
    )
}

/// What one configuration ended with.
#[derive(Debug, Clone, Copy, Default)]
struct Ended {
    violations: usize,
    edges: usize,
    saved: usize,
}

/// The merge of N shards.
#[derive(Debug, Clone, Copy, Default)]
struct Merged {
    result: Ended,
    /// Sequences the shards saved, together (before minimising their union).
    candidates: usize,
    /// The time a fresh campaign took to run the minimised corpus, and the edges it covered.
    rerun: Duration,
    rerun_edges: usize,
}

/// Runs the comparison on every maze and prints its table.
pub(crate) fn compare(
    project: &Path,
    mazes: &[Maze],
    n: u64,
    budget: Duration,
    seeds: u64,
    depth: u32,
) {
    println!(
        "maze shards: {} mazes, {seeds} seeds, T = {}s: 1 × T, 1 × {n}T and {n} shards × T merged",
        mazes.len(),
        budget.as_secs()
    );
    let mut rows = Vec::new();
    for maze in mazes {
        let mut single = Vec::new();
        let mut long = Vec::new();
        let mut merged = Vec::new();
        for seed in 1..=seeds {
            let work = install::scratch()
                .join("maze-shards")
                .join(&maze.name)
                .join(seed.to_string());
            let _ = std::fs::remove_dir_all(&work);
            let one = |dir: &str, seed: u64, time: Duration| -> (BTreeSet<usize>, KeptCorpus) {
                let outcome = harvey_campaign(project, maze, Harvey::Default, seed, depth)
                    .name("shards")
                    .time(time)
                    .corpus(work.join(dir).to_str().unwrap())
                    .run()
                    .unwrap_or_else(|e| panic!("{e}"));
                let kept = outcome.stats.kept_corpus.clone().expect("a kept corpus");
                (found_in(&outcome, maze).into_keys().collect(), kept)
            };
            let result = |(found, kept): (BTreeSet<usize>, KeptCorpus)| Ended {
                violations: found.len(),
                edges: kept.edges,
                saved: kept.saved,
            };
            single.push(result(one("single", seed, budget)));
            long.push(result(one("long", seed, budget * n as u32)));
            let mut found = BTreeSet::new();
            let mut candidates = 0;
            for shard in 0..n {
                let (shard_found, kept) =
                    one(&format!("shard-{shard}"), seed * 100 + shard, budget);
                found.extend(shard_found);
                candidates += kept.saved;
                copy_files(&kept.dir, &work.join("merged/shards"));
            }
            // The merge job: one sequence, after loading (and minimising) every shard's.
            let merge = harvey_campaign(project, maze, Harvey::Default, seed * 100 + 99, depth)
                .name("shards")
                .runs(1)
                .corpus(work.join("merged").to_str().unwrap())
                .run()
                .unwrap_or_else(|e| panic!("{e}"));
            let kept = merge.stats.kept_corpus.clone().expect("a kept corpus");
            found.extend(found_in(&merge, maze).into_keys());
            // A fresh run from the minimised corpus: its budget is the saved sequences.
            let rerun = harvey_campaign(project, maze, Harvey::Default, seed * 100 + 98, depth)
                .name("shards")
                .runs(kept.saved as u64)
                .corpus(work.join("merged").to_str().unwrap())
                .run()
                .unwrap_or_else(|e| panic!("{e}"));
            let m = Merged {
                result: Ended {
                    violations: found.len(),
                    edges: kept.edges,
                    saved: kept.saved,
                },
                candidates,
                rerun: rerun.stats.elapsed,
                rerun_edges: rerun.stats.edges,
            };
            println!(
                "  {} seed {seed}: 1×T {:?}; 1×{n}T {:?}; {n}×T merged {:?}",
                maze.name,
                single.last().unwrap(),
                long.last().unwrap(),
                m
            );
            merged.push(m);
        }
        rows.push((maze.name.clone(), single, long, merged));
    }
    println!(
        "\n| maze | 1 × T: violations, edges, corpus | 1 × {n}T | {n} × T merged | merged corpus minimised | fresh run re-reaching its edges |"
    );
    println!("|---|---|---|---|---|---|");
    for (name, single, long, merged) in rows {
        let cell = |results: &[Ended]| {
            let pick = |f: fn(&Ended) -> usize| {
                median(&mut results.iter().map(f).collect::<Vec<_>>()).unwrap_or(0)
            };
            format!(
                "{}, {}, {}",
                pick(|r| r.violations),
                pick(|r| r.edges),
                pick(|r| r.saved)
            )
        };
        let merged_results: Vec<Ended> = merged.iter().map(|m| m.result).collect();
        let before =
            median(&mut merged.iter().map(|m| m.candidates).collect::<Vec<_>>()).unwrap_or(0);
        let after =
            median(&mut merged.iter().map(|m| m.result.saved).collect::<Vec<_>>()).unwrap_or(0);
        let rerun =
            median(&mut merged.iter().map(|m| m.rerun).collect::<Vec<_>>()).unwrap_or_default();
        let reached = merged
            .iter()
            .filter(|m| m.rerun_edges >= m.result.edges)
            .count();
        println!(
            "| {name} | {} | {} | {} | {before} → {after} | {:.0} ms ({reached} of {} seeds all edges) |",
            cell(&single),
            cell(&long),
            cell(&merged_results),
            rerun.as_secs_f64() * 1000.0,
            merged.len()
        );
    }
    println!("\n(medians over seeds; edges: those the saved corpus covers)");
}

/// Copies the files of `from` into `to`.
fn copy_files(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name()))
            .unwrap_or_else(|e| panic!("{}: {e}", entry.path().display()));
    }
}
