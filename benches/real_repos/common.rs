//! Shared by the harvey tests that `benches/real_repos.rs` copies into a scratch copy of a
//! public Foundry repository (as `tests/common/mod.rs`): the campaign settings the bench
//! passes in the environment, and the one result line per seed that it parses.
//! Not compiled as part of harvey.

use std::path::PathBuf;
use std::time::Duration;

use harvey::{Campaign, Outcome};

/// What the bench asks for.
pub struct Settings {
    /// The Solidity project to fuzz: the patched copy under test (`REAL_REPOS_ROOT`,
    /// default this crate's root, the unpatched copy).
    pub root: PathBuf,
    /// One campaign per seed (`REAL_REPOS_SEEDS`, comma-separated, default `1`).
    pub seeds: Vec<u64>,
    /// Each campaign's wall-clock budget (`REAL_REPOS_TIME_MS`, default 20 s).
    pub time: Duration,
    /// Calls per sequence: the repo's own `[invariant] depth` (`REAL_REPOS_DEPTH`).
    pub depth: u32,
}

/// The settings from the environment the bench sets.
pub fn settings() -> Settings {
    let var = |name: &str| std::env::var(name).ok();
    Settings {
        root: var("REAL_REPOS_ROOT")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR"))),
        seeds: var("REAL_REPOS_SEEDS")
            .unwrap_or_else(|| "1".into())
            .split(',')
            .map(|s| {
                s.trim()
                    .parse()
                    .expect("REAL_REPOS_SEEDS: comma-separated u64s")
            })
            .collect(),
        time: Duration::from_millis(
            var("REAL_REPOS_TIME_MS").map_or(20_000, |t| t.parse().expect("REAL_REPOS_TIME_MS")),
        ),
        depth: var("REAL_REPOS_DEPTH").map_or(8, |d| d.parse().expect("REAL_REPOS_DEPTH")),
    }
}

/// Runs `campaign` once per seed with the bench's budget and depth, printing one line per
/// seed: `real-repos seed=S found=0|1 after_us=T violation=...` or `real-repos seed=S error=...`.
/// The vulnerability detectors are off: the bench compares the repo's invariant suite with
/// its mirror (forge has no detectors, and harvey runs a Solidity suite without them).
pub fn run_seeds<'a>(campaign: impl Fn(&Settings) -> Campaign<'a>) {
    let settings = settings();
    for &seed in &settings.seeds {
        let result = campaign(&settings)
            .seed(seed)
            .time(settings.time)
            .depth(settings.depth)
            .detectors(harvey::DetectorSet::none())
            .run();
        println!("{}", result_line(seed, result));
    }
}

fn result_line(seed: u64, result: harvey::Result<Outcome>) -> String {
    match result {
        Err(e) => format!("real-repos seed={seed} error={}", one_line(&e.to_string())),
        Ok(outcome) => match outcome.failure {
            None => format!("real-repos seed={seed} found=0"),
            Some(failure) => {
                // The full report on stderr, for reading a surprising result.
                eprintln!("{failure}");
                format!(
                    "real-repos seed={seed} found=1 after_us={} violation={}",
                    failure.found_after.as_micros(),
                    one_line(&format!("{:?}", failure.violation))
                )
            }
        },
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
