//! Memory over a long campaign: peak and current RSS sampled every few seconds while one
//! campaign runs for a given time (`HARVEY_MEMORY_MINUTES`, default 30; release build), on
//! one of three contracts of different shapes (`HARVEY_MEMORY_CONTRACT`, default all, one
//! after another): `Loops` (input-dependent loops: new path ids, so corpus growth, for as
//! long as it runs), `Escrow` (ten functions and a deep state machine, targeted with the
//! lookahead analysis on) and `Hive` (five distinct bugs, `fail_fast = false`: reporting
//! while fuzzing on). Prints the curve (minute by minute) and its end points. Run three
//! processes side by side, one per contract, with
//! `HARVEY_MEMORY_CONTRACT=Loops cargo bench --bench memory` and so on.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use harvey::{Campaign, Progress};

#[path = "support/root.rs"]
mod root;
// Shared with benches that use all of it.
#[allow(dead_code)]
#[path = "support/timing.rs"]
mod timing;

/// How often RSS is sampled.
const SAMPLE_EVERY: Duration = Duration::from_secs(5);

/// One sample: time, sequences so far, RSS and peak RSS in MiB.
#[derive(Clone, Copy)]
struct Sample {
    at: Duration,
    sequences: u64,
    rss: u64,
    peak: u64,
}

/// `VmRSS` and `VmHWM` of this process, in MiB.
fn rss() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kb| kb.parse::<u64>().ok())
            .map_or(0, |kb| kb / 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn campaign<'a>(contract: &str, minutes: u64) -> Campaign<'a> {
    let campaign = Campaign::new(root::harvey_root())
        .name(format!("memory::{contract}"))
        .contract(contract)
        .seed(1)
        .workers(1)
        .fail_fast(false)
        .time(Duration::from_secs(minutes * 60));
    match contract {
        "Escrow" => campaign.targets(
            "contracts/targets/Escrow.sol:47,contracts/targets/Escrow.sol:72"
                .parse()
                .expect("target lines"),
        ),
        "Hive" => campaign.panics("assert,division-by-zero".parse().expect("panic codes")),
        _ => campaign,
    }
}

fn measure(contract: &str, minutes: u64) {
    let start = Instant::now();
    let sequences = Mutex::new(0u64);
    let done = AtomicBool::new(false);
    let samples = Mutex::new(Vec::new());
    let outcome = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                let (rss, peak) = rss();
                let sample = Sample {
                    at: start.elapsed(),
                    sequences: *sequences.lock().expect("sequences"),
                    rss,
                    peak,
                };
                samples.lock().expect("samples").push(sample);
                let until = Instant::now() + SAMPLE_EVERY;
                while Instant::now() < until && !done.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        });
        let outcome = campaign(contract, minutes)
            .on_progress(|p: &Progress| *sequences.lock().expect("sequences") = p.sequences)
            .run()
            .expect("the campaign runs");
        done.store(true, Ordering::Relaxed);
        outcome
    });
    let samples = samples.into_inner().expect("samples");
    println!(
        "{contract}: {minutes} min, {} sequences, corpus {} paths, {} violations",
        outcome.stats.sequences,
        outcome.stats.corpus,
        outcome.failures.len()
    );
    println!("  minute  sequences     RSS MiB  peak MiB");
    let mut next_minute = 0;
    for sample in &samples {
        if sample.at.as_secs() >= next_minute * 60 {
            println!(
                "  {:>6}  {:>11}  {:>8}  {:>8}",
                sample.at.as_secs() / 60,
                sample.sequences,
                sample.rss,
                sample.peak
            );
            next_minute += 1;
        }
    }
    let at = |minute: u64| {
        samples
            .iter()
            .rev()
            .find(|s| s.at.as_secs() <= minute * 60)
            .map_or("-".to_string(), |s| format!("{} MiB", s.rss))
    };
    println!(
        "  end points: RSS at 1 min {}, 5 min {}, 15 min {}, {minutes} min {}; peak {} MiB",
        at(1),
        at(5),
        at(15),
        at(minutes),
        samples.last().map_or(0, |s| s.peak)
    );
    println!("  summary:\n{}", harvey::report::summary(&outcome));
}

fn main() {
    if timing::bench_seeds(1).is_none() {
        return;
    }
    let minutes = std::env::var("HARVEY_MEMORY_MINUTES")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(30);
    let only = std::env::var("HARVEY_MEMORY_CONTRACT").ok();
    for contract in ["Loops", "Escrow", "Hive"] {
        if only.as_deref().is_none_or(|o| o == contract) {
            measure(contract, minutes);
        }
    }
}
