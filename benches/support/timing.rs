//! Shared by the harness-less benches: whether to run at all, how many seeds, and the
//! summaries (medians over seeds, ratios, short time labels, the solver's share, the
//! commit a table was measured at).

use std::time::Duration;

/// The seeds to run (`HARVEY_BENCH_SEEDS`, else the bench's `default`), or `None` when the
/// binary was not started by `cargo bench`: `cargo test --all-targets` runs harness-less
/// benches too, and only `cargo bench` passes `--bench`.
pub(crate) fn bench_seeds(default: u64) -> Option<u64> {
    if !std::env::args().any(|a| a == "--bench") {
        return None;
    }
    let seeds = std::env::var("HARVEY_BENCH_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok());
    Some(seeds.unwrap_or(default))
}

/// The median of `values` (the upper one of an even count), sorting them in place; `None`
/// when there are none, e.g. no seed found the bug.
pub(crate) fn median<T: Ord + Copy>(values: &mut [T]) -> Option<T> {
    if values.is_empty() {
        return None;
    }
    values.sort();
    Some(values[values.len() / 2])
}

/// `slow / fast`, a missing time counting as `budget`.
pub(crate) fn ratio(slow: Option<Duration>, fast: Option<Duration>, budget: Duration) -> String {
    let secs = |t: Option<Duration>| t.unwrap_or(budget).as_secs_f64();
    format!("{:.1}x", secs(slow) / secs(fast))
}

/// A time in a unit that keeps it short, or "not found".
pub(crate) fn show(time: Option<Duration>) -> String {
    match time {
        Some(t) if t < Duration::from_millis(1) => format!("{}µs", t.as_micros()),
        Some(t) if t < Duration::from_secs(1) => format!("{:.1}ms", t.as_secs_f64() * 1e3),
        Some(t) => format!("{:.2}s", t.as_secs_f64()),
        None => "not found".into(),
    }
}

/// The median over seeds (a time, a count of calls), a seed that never got there counting
/// as slower than any that did; `None` ("not found") when that median is such a seed.
pub(crate) fn censored_median<T: Ord + Copy + Default>(times: &[Option<T>]) -> Option<T> {
    let mut keyed: Vec<(bool, T)> = times
        .iter()
        .map(|t| (t.is_none(), t.unwrap_or_default()))
        .collect();
    median(&mut keyed).and_then(|(missed, time)| (!missed).then_some(time))
}

/// How many seeds got there.
pub(crate) fn hits(times: &[Option<Duration>]) -> usize {
    times.iter().flatten().count()
}

/// What the solver-backed step did in a campaign of `elapsed` (issue 30's ablation asks
/// for its share of the time): path conditions asked, answered and flipped, time in z3.
pub(crate) fn solver_share(p: &harvey::outcome::PredictionStats, elapsed: Duration) -> String {
    format!(
        "solver {} asked, {} answered, {} flipped, {:.2} s in z3 of {:.1} s",
        p.solver_queries,
        p.solver_models,
        p.solver_flipped,
        p.solver_micros as f64 / 1e6,
        elapsed.as_secs_f64(),
    )
}

/// The median of `rates` (the upper one of an even count): for the measured rates and
/// shares, which are not `Ord`.
pub(crate) fn median_rate(rates: impl IntoIterator<Item = f64>) -> f64 {
    let mut rates: Vec<f64> = rates.into_iter().collect();
    rates.sort_by(f64::total_cmp);
    rates[rates.len() / 2]
}

/// The harvey repository's checked-out commit, short (empty when git cannot say), for the
/// tables' headers.
pub(crate) fn short_commit(repo: &std::path::Path) -> String {
    std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(repo)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}
