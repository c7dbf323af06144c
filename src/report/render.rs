//! Rendering for people: the failure report of a failed test, the end-of-campaign summary,
//! and progress lines.

use std::fmt::{self, Write as _};
use std::time::Duration;

use alloy_primitives::{Address, hex};

use crate::chain::{SolDisplay, Warp};
use crate::config::Steering;
use crate::outcome::{Call, Dependence, Failure, Progress, SequenceStats, Stats, Violation};

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::Invariant { name, message } => {
                write!(f, "invariant `{name}` violated: {message}")
            }
            Violation::Panic { code } => write!(f, "Solidity {code}"),
            Violation::ArbitraryStorageWrite { contract, slot } => write!(
                f,
                "arbitrary storage write (SWC-124): {contract} wrote slot {slot:#x}, which the \
                 fuzzer chose at random: the caller controls where it writes"
            ),
        }
    }
}

/// The failure report: what was violated, the shrunk sequence, how to replay it.
/// `test` is the `cargo test` filter that replays it, when known.
pub fn failure_report(failure: &Failure, test: Option<&str>) -> String {
    let mut out = String::new();
    let origin = if failure.from_regression {
        "replaying the regression file".to_string()
    } else {
        format!(
            "after {} sequences in {}",
            thousands(failure.found_after_sequences),
            duration(failure.found_after)
        )
    };
    let _ = writeln!(out, "{} (found {origin})", failure.violation);
    if failure.calls.is_empty() {
        let _ = writeln!(out, "The state right after setup already violates it.");
    } else {
        let shrunk = if failure.found_len > failure.calls.len() {
            format!(", shrunk from {}", failure.found_len)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "Call sequence ({} calls{shrunk}):",
            failure.calls.len()
        );
        for (index, call) in failure.calls.iter().enumerate() {
            let _ = writeln!(out, "  #{} {}", index + 1, render_call(call));
        }
        let _ = writeln!(out, "  last call: {}", failure.last_status);
    }
    let _ = writeln!(out, "Seed: {}", failure.seed);
    if let Some(test) = test {
        let _ = writeln!(
            out,
            "Replay: HARVEY_SEED={} cargo test {test}",
            failure.seed
        );
    }
    if let Some(path) = &failure.regression_file {
        let _ = writeln!(
            out,
            "Saved to {} (replayed first on every run; commit it)",
            path.display()
        );
    }
    out
}

/// One call: `0x10000 Vault.withdraw(amount: 7) value: 0 warp: +1d`.
pub fn render_call(call: &Call) -> String {
    let mut out = format!(
        "{} {}.{}(",
        short_address(call.sender),
        call.contract,
        call.function_name()
    );
    for (i, arg) in call.args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        match call.params.get(i).filter(|p| !p.is_empty()) {
            Some(name) => {
                let _ = write!(out, "{name}: {}", SolDisplay(arg));
            }
            None => {
                let _ = write!(out, "{}", SolDisplay(arg));
            }
        }
    }
    let _ = write!(out, ") value: {}", call.value);
    if call.warp != Warp::default() {
        let _ = write!(out, " warp: {}", render_warp(call.warp));
    }
    out
}

/// An address without its leading zeros (`0x10000` for harvey's first sender), abbreviated
/// to `0x1234…beef` when long.
pub fn short_address(address: Address) -> String {
    let digits = hex::encode(address);
    let trimmed = digits.trim_start_matches('0');
    if trimmed.is_empty() {
        "0x0".to_string()
    } else if trimmed.len() > 10 {
        format!("0x{}…{}", &trimmed[..4], &trimmed[trimmed.len() - 4..])
    } else {
        format!("0x{trimmed}")
    }
}

/// `+1d 2h`, `+90s`, with blocks: `+1h (+300 blocks)`.
fn render_warp(warp: Warp) -> String {
    let mut out = format!("+{}", human_seconds(warp.seconds));
    if warp.blocks > 0 {
        let _ = write!(out, " (+{} blocks)", warp.blocks);
    }
    out
}

/// Seconds in the two largest units: `1d 2h`, `5m 3s`, `42s`.
fn human_seconds(seconds: u64) -> String {
    const UNITS: [(u64, &str); 4] = [(86_400, "d"), (3_600, "h"), (60, "m"), (1, "s")];
    let mut parts = Vec::new();
    let mut rest = seconds;
    for (size, unit) in UNITS {
        if rest >= size && parts.len() < 2 {
            parts.push(format!("{}{unit}", rest / size));
            rest %= size;
        }
    }
    if parts.is_empty() {
        "0s".to_string()
    } else {
        parts.join(" ")
    }
}

/// The end-of-campaign summary.
pub fn summary(stats: &Stats) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "harvey: {} sequences, {} transactions in {} ({} tx/s), {} worker{}, seed {}",
        thousands(stats.sequences),
        thousands(stats.transactions),
        duration(stats.elapsed),
        thousands(stats.execs_per_sec() as u64),
        stats.workers,
        if stats.workers == 1 { "" } else { "s" },
        stats.seed
    );
    let replayed = if stats.replayed > 0 {
        format!(", {} regression sequences replayed", stats.replayed)
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "  coverage: {} edges, corpus: {} paths{replayed}",
        stats.edges, stats.corpus
    );
    let width = stats
        .functions
        .iter()
        .map(|f| f.contract.len() + f.signature.len() + 1)
        .max()
        .unwrap_or(0);
    let p = &stats.predictions;
    if p.inputs > 0 {
        let _ = writeln!(
            out,
            "  input prediction: {} predicted inputs, {} minimized their cost metric ({}); {} of {} chains in one step",
            thousands(p.inputs),
            thousands(p.minimized),
            percent(p.minimized, p.inputs),
            thousands(p.one_shot),
            thousands(p.chains)
        );
    }
    render_sequencing(&mut out, &stats.sequencing);
    render_targets(&mut out, stats);
    let _ = writeln!(out, "  calls / reverts per function:");
    for f in &stats.functions {
        let name = format!("{}.{}", f.contract, f.signature);
        let _ = write!(
            out,
            "    {name:<width$}  {:>9} / {}",
            thousands(f.calls),
            thousands(f.reverts)
        );
        if f.calls > 0 && f.reverts == f.calls {
            out.push_str("  always reverts: check setup (funding, roles, arguments)");
        }
        out.push('\n');
    }
    out
}

/// The sequence-fuzzing lines: runs and corpus by length, aggressive runs, and the
/// functions whose sequences grew.
fn render_sequencing(out: &mut String, s: &SequenceStats) {
    if s.runs_by_length.iter().all(|&n| n == 0) {
        return;
    }
    let _ = writeln!(
        out,
        "  sequences by length: {}; corpus: {}",
        by_length(&s.runs_by_length),
        by_length(&s.corpus_by_length)
    );
    let functions: Vec<String> = s
        .state_dependent
        .iter()
        .map(|f| {
            let why = match f.reason {
                Dependence::Aggressive => "aggressive run",
                Dependence::Invariants => "feeds the invariants",
            };
            format!("{}.{} ({why})", f.contract, f.signature)
        })
        .collect();
    let _ = writeln!(
        out,
        "  state-dependent functions: {}; {} aggressive runs",
        if functions.is_empty() {
            "none".to_string()
        } else {
            functions.join(", ")
        },
        thousands(s.aggressive_runs)
    );
}

/// One line per target: reached after how many sequences and how long, by which calls; or
/// not reached.
fn render_targets(out: &mut String, stats: &Stats) {
    let targets = &stats.targets;
    if targets.is_empty() {
        return;
    }
    let reached = targets.iter().filter(|t| t.reached.is_some()).count();
    let _ = writeln!(out, "  targets: {reached} of {} reached", targets.len());
    let l = &stats.lookahead;
    if l.steering == Steering::Off {
        let _ = writeln!(out, "  steering: off (A), targets are only reported");
    } else {
        let share = stats.elapsed.as_secs_f64().max(1e-9);
        let _ = writeln!(
            out,
            "  steering: {}, {} analyses, {} with no target ahead, {} lookahead ids, {} ({:.1}% of the campaign)",
            l.steering,
            thousands(l.analyses),
            thousands(l.bounded),
            l.ids,
            duration(l.time),
            100.0 * l.time.as_secs_f64() / share
        );
    }
    let width = targets
        .iter()
        .map(|t| t.location.len() + t.contract.len() + 3)
        .max()
        .unwrap_or(0);
    for target in targets {
        let name = format!("{} ({})", target.location, target.contract);
        match &target.reached {
            Some(reach) => {
                let calls: Vec<String> = reach
                    .calls
                    .iter()
                    .map(|c| format!("{}.{}", c.contract, c.function_name()))
                    .collect();
                let _ = writeln!(
                    out,
                    "    {name:<width$}  reached after {} sequences ({}): {}",
                    thousands(reach.after_sequences),
                    duration(reach.after),
                    calls.join(" → ")
                );
            }
            None => {
                let _ = writeln!(out, "    {name:<width$}  NOT REACHED");
            }
        }
    }
}

/// The targets no run reached, as `file:line (Contract)`; empty when all were (or there
/// were none).
pub fn unreached_targets(stats: &Stats) -> Vec<String> {
    stats
        .targets
        .iter()
        .filter(|t| t.reached.is_none())
        .map(|t| format!("{} ({})", t.location, t.contract))
        .collect()
}

/// Counts by length grouped in powers of two: `1: 9,120 · 2-3: 310 · 4-7: 95`.
fn by_length(counts: &[u64]) -> String {
    let mut groups = Vec::new();
    let mut low = 1;
    while low < counts.len() {
        let high = (2 * low - 1).min(counts.len() - 1);
        let total: u64 = counts[low..=high].iter().sum();
        if total > 0 {
            let range = if low == high {
                low.to_string()
            } else {
                format!("{low}-{high}")
            };
            groups.push(format!("{range}: {}", thousands(total)));
        }
        low = high + 1;
    }
    if groups.is_empty() {
        "none".to_string()
    } else {
        groups.join(" · ")
    }
}

/// A progress line for stderr.
pub fn progress_line(test: &str, progress: &Progress) -> String {
    let secs = progress.elapsed.as_secs_f64().max(1e-9);
    format!(
        "harvey {test}: {} | {} sequences | {} tx/s | {} edges | corpus {}",
        duration(progress.elapsed),
        thousands(progress.sequences),
        thousands((progress.transactions as f64 / secs) as u64),
        progress.edges,
        progress.corpus
    )
}

/// `part` of `whole` as a percentage, `-` for nothing.
fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        "-".to_string()
    } else {
        format!("{:.0}%", part as f64 * 100.0 / whole as f64)
    }
}

/// `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `850ms`, `12.3s`, `4m 05s`.
fn duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1_000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", d.as_secs_f64())
    } else {
        format!("{}m {:02}s", ms / 60_000, (ms / 1_000) % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_dyn_abi::DynSolValue;
    use alloy_primitives::U256;

    #[test]
    fn calls_render_like_solidity() {
        let call = Call {
            sender: crate::chain::SENDERS[0],
            contract: "Vault".into(),
            address: Address::with_last_byte(9),
            signature: "withdraw(uint256)".into(),
            params: vec!["amount".into()],
            args: vec![DynSolValue::Uint(U256::from(7), 256)],
            value: U256::ZERO,
            warp: Warp {
                seconds: 86_400,
                blocks: 7_200,
            },
        };
        assert_eq!(
            render_call(&call),
            "0x10000 Vault.withdraw(amount: 7) value: 0 warp: +1d (+7200 blocks)"
        );
    }

    #[test]
    fn numbers_and_times_are_readable() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(human_seconds(90_061), "1d 1h");
        assert_eq!(human_seconds(42), "42s");
        assert_eq!(duration(Duration::from_millis(850)), "850ms");
        assert_eq!(duration(Duration::from_secs(245)), "4m 05s");
        assert_eq!(short_address(Address::repeat_byte(0xab)), "0xabab…abab");
    }
}
