//! The end-of-campaign summary (what the campaign did, the violations it found, targets,
//! sequencing and prediction statistics) and the progress lines shown while it runs.

use std::fmt::Write as _;

use crate::chain::Labels;
use crate::config::Steering;
use crate::outcome::{
    ALWAYS_REVERTS_AFTER, Dependence, Failure, FunctionStats, Outcome, Progress, SequenceStats,
    ShrinkStats, Stats, TargetReach,
};

use super::failure::*;
use super::format::*;

/// The end-of-campaign summary: what the campaign did, and the violations it found in the
/// order found. Its first line names the campaign ([`Stats::name`]), since `cargo test`
/// interleaves the output of tests running in parallel.
pub fn summary(outcome: &Outcome) -> String {
    let stats = &outcome.stats;
    let mut out = String::new();
    let name = stats
        .name
        .as_deref()
        .map_or(String::new(), |name| format!(" {name}"));
    let _ = writeln!(
        out,
        "harvey{name}: {} sequences, {} transactions in {} ({} tx/s), {} worker{}, seed {}",
        thousands(stats.sequences),
        thousands(stats.transactions),
        duration(stats.elapsed),
        thousands(stats.execs_per_sec() as u64),
        stats.workers,
        if stats.workers == 1 { "" } else { "s" },
        stats.seed
    );
    render_accounts_line(&mut out, stats);
    render_time_split(&mut out, stats);
    render_kept_corpus(&mut out, stats);
    render_bounds(&mut out, stats);
    // What the coverage line adds after the corpus, each only when it happened, in the
    // singular for one.
    let counted = |count: u64, one: &str, many: &str| match count {
        0 => String::new(),
        1 => format!(", 1 {one}"),
        _ => format!(", {count} {many}"),
    };
    let replayed = counted(
        stats.replayed as u64,
        "regression sequence replayed",
        "regression sequences replayed",
    );
    let guided = counted(
        stats.guided,
        "run kept by invariant guidance",
        "runs kept by invariant guidance",
    );
    let novel = counted(
        stats.novel,
        "run kept for a new state",
        "runs kept for a new state",
    );
    let unreverting = counted(
        stats.unreverting,
        "run kept for a call that always reverted getting closer to succeeding",
        "runs kept for a call that always reverted getting closer to succeeding",
    );
    let conditioned = counted(
        stats.conditioned,
        "run kept for what its last call's conditions read",
        "runs kept for what their last call's conditions read",
    );
    let _ = writeln!(
        out,
        "  coverage: {} edges, corpus: {} paths{guided}{novel}{conditioned}{unreverting}{replayed}",
        stats.edges, stats.corpus
    );
    // A created contract's function is listed once a run created one to call.
    let functions: Vec<&FunctionStats> = stats
        .functions
        .iter()
        .filter(|f| f.address.is_some() || f.calls > 0)
        .collect();
    let rows: Vec<String> = functions
        .iter()
        .map(|f| {
            format!(
                "{}.{}",
                contract_name(&f.contract, f.address, &stats.labels),
                f.signature
            )
        })
        .collect();
    let width = rows.iter().map(|r| r.chars().count()).max().unwrap_or(0);
    let p = &stats.predictions;
    if p.inputs > 0 {
        let _ = writeln!(
            out,
            "  input prediction: {} predicted inputs, {} minimized their cost metric ({}); {} of {} chains in one step{}",
            thousands(p.inputs),
            thousands(p.minimized),
            percent(p.minimized, p.inputs),
            thousands(p.one_shot),
            thousands(p.chains),
            if p.chained_steps > 0 {
                format!("; {} chained steps", thousands(p.chained_steps))
            } else {
                String::new()
            }
        );
    }
    if p.joint > 0 {
        let _ = writeln!(
            out,
            "  joint prediction: {} of {} flipped their branch ({} runs)",
            thousands(p.joint_flipped),
            thousands(p.joint),
            thousands(p.joint_runs),
        );
    }
    if p.solver_queries > 0 {
        let _ = writeln!(
            out,
            "  solver: {} path conditions asked, {} answered, {} flipped their branch, {} abandoned ({:.1} s in z3)",
            thousands(p.solver_queries),
            thousands(p.solver_models),
            thousands(p.solver_flipped),
            thousands(p.solver_abandoned),
            p.solver_micros as f64 / 1e6,
        );
    }
    if p.solver_failure.is_some() {
        let _ = writeln!(out, "  solver: stopped (see the warning)");
    }
    render_sequencing(&mut out, &stats.sequencing, stats.transactions);
    render_violations(&mut out, &outcome.failures);
    render_targets(&mut out, stats);
    let _ = writeln!(out, "  calls / reverts per function:");
    for (f, name) in functions.iter().zip(rows) {
        let _ = write!(
            out,
            "    {name:<width$}  {:>9} / {}",
            thousands(f.calls),
            thousands(f.reverts)
        );
        if f.calls >= ALWAYS_REVERTS_AFTER && f.reverts == f.calls {
            out.push_str("  always reverts: check setup (funding, roles, arguments)");
        }
        out.push('\n');
    }
    out
}

/// The violations in the order found, each with when it was found and what shrinking it
/// spent:
///
/// ```text
///   violations: 2 distinct, in the order found
///     1. after 4,312 sequences in 1.2s: Solidity Panic(0x01): assertion failed at src/M.sol:12 (M)
///        shrinking: 5 → 2 calls in 412 runs (1,130 tx, 45ms; budget 1,000 runs, 10.0s)
/// ```
pub(crate) fn render_violations(out: &mut String, failures: &[Failure]) {
    if failures.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "  violations: {} distinct, in the order found",
        failures.len()
    );
    for (index, failure) in failures.iter().enumerate() {
        let _ = writeln!(
            out,
            "    {}. {}: {}",
            index + 1,
            origin(failure),
            ViolationDisplay(&failure.violation, &failure.labels)
        );
        if let Some(shrink) = &failure.shrink {
            render_shrink(out, shrink);
        }
    }
}

/// `       shrinking: 5 → 2 calls in 412 runs (1,130 tx, 45ms; budget 1,000 runs, 10.0s)`,
/// and whether the budget ran out.
pub(crate) fn render_shrink(out: &mut String, shrink: &ShrinkStats) {
    let _ = writeln!(
        out,
        "       shrinking: {} → {} in {} ({} tx, {}; budget {} runs, {}){}",
        shrink.from,
        count(shrink.to as u64, "call"),
        count(shrink.runs, "run"),
        thousands(shrink.transactions),
        duration(shrink.time),
        thousands(shrink.budget_runs),
        duration(shrink.budget_time),
        if shrink.exhausted {
            ": budget spent, the sequence may shrink further"
        } else {
            ""
        }
    );
}

/// `  memory bounds hit: corpus full (1,234 entries replaced), ...`: a long campaign's
/// structures that reached their caps (only when one did).
pub(crate) fn render_bounds(out: &mut String, stats: &Stats) {
    let b = &stats.bounds;
    if !b.any() {
        return;
    }
    let mut hit = Vec::new();
    if b.corpus_evicted > 0 {
        hit.push(format!(
            "corpus full ({} entries replaced)",
            thousands(b.corpus_evicted)
        ));
    }
    if b.patterns_forgotten > 0 {
        hit.push(format!(
            "pool write patterns forgotten {}",
            count(b.patterns_forgotten, "time")
        ));
    }
    if b.verdicts_forgotten > 0 {
        hit.push(format!(
            "lookahead verdicts forgotten {}",
            count(b.verdicts_forgotten, "time")
        ));
    }
    if b.misses_forgotten > 0 {
        hit.push(format!(
            "prediction failures forgotten {}",
            count(b.misses_forgotten, "time")
        ));
    }
    if b.exchange_dropped > 0 {
        hit.push(format!(
            "{} old entries dropped from the workers' exchange",
            thousands(b.exchange_dropped)
        ));
    }
    let _ = writeln!(out, "  memory bounds hit: {}", hit.join("; "));
}

/// `  corpus kept in harvey-corpus/vault.solvent: 120 sequences loaded (3 stale), 150 saved`.
pub(crate) fn render_kept_corpus(out: &mut String, stats: &Stats) {
    let Some(kept) = &stats.kept_corpus else {
        return;
    };
    let mut dropped = Vec::new();
    if kept.stale > 0 {
        dropped.push(format!("{} no longer fit", thousands(kept.stale as u64)));
    }
    if kept.unreadable > 0 {
        dropped.push(count(kept.unreadable as u64, "unreadable file"));
    }
    let dropped = if dropped.is_empty() {
        String::new()
    } else {
        format!(" ({}, dropped)", dropped.join(", "))
    };
    let chosen = if kept.unminimised > 0 {
        format!(
            " (the fewest of {} run that cover their {}, and {} minimisation's time bound left unrun)",
            thousands((kept.candidates - kept.unminimised) as u64),
            count(kept.edges as u64, "edge"),
            thousands(kept.unminimised as u64)
        )
    } else if kept.candidates > 0 {
        format!(
            " (the fewest of {} that cover their {})",
            thousands(kept.candidates as u64),
            count(kept.edges as u64, "edge")
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "  corpus kept in {}: {} loaded{dropped}, {} saved{chosen}",
        kept.dir.display(),
        count(kept.loaded as u64, "sequence"),
        thousands(kept.saved as u64)
    );
}

/// `  time: 41% in transactions, 52% checking invariants, 7% fuzzing`: where the workers'
/// time went, with how many invariant checks were skipped when some were, and a note when
/// the checks after each transaction take most of it (then they, not the EVM, bound tx/s).
pub(crate) fn render_time_split(out: &mut String, stats: &Stats) {
    let whole = stats.elapsed.as_micros() as u64 * u64::from(stats.workers.max(1));
    let transactions = stats.time.transactions.as_micros() as u64;
    let checks = stats.time.checks.as_micros() as u64;
    if whole == 0 || transactions == 0 {
        return;
    }
    let fuzzing = whole.saturating_sub(transactions + checks);
    let _ = write!(
        out,
        "  time: {} in transactions, {} checking invariants and oracles, {} fuzzing",
        percent(transactions, whole),
        percent(checks, whole),
        percent(fuzzing, whole)
    );
    let skipped = stats.time.invariants_skipped;
    if skipped > 0 {
        let _ = write!(
            out,
            "; {} of {} invariant checks skipped (nothing they read had changed)",
            thousands(skipped),
            thousands(skipped + stats.time.invariants_checked)
        );
    }
    if checks * 2 > whole {
        out.push_str(": the checks bound the speed (make slow invariants cheaper)");
    }
    out.push('\n');
}

/// `  fuzzed: Vault@0x5FbD…0aa3; senders: alice@0x10000, 0x20000`: which accounts the
/// campaign called and from where.
pub(crate) fn render_accounts_line(out: &mut String, stats: &Stats) {
    let mut contracts: Vec<String> = Vec::new();
    let mut seen = Vec::new();
    for f in &stats.functions {
        let key = (f.address, &f.contract);
        if seen.contains(&key) || (f.address.is_none() && f.calls == 0) {
            continue;
        }
        seen.push(key);
        contracts.push(match f.address {
            None => contract_name(&f.contract, None, &stats.labels),
            Some(address) => match stats.labels.get(address) {
                Some(_) => account(address, &stats.labels),
                None => format!("{}@{}", f.contract, short_address(address)),
            },
        });
    }
    if contracts.is_empty() {
        return;
    }
    let senders: Vec<String> = stats
        .senders
        .iter()
        .map(|s| account(*s, &stats.labels))
        .collect();
    let _ = writeln!(
        out,
        "  fuzzed: {}; senders: {}",
        contracts.join(", "),
        senders.join(", ")
    );
}

/// What random walks ran, when there were any, and their share of the campaign's
/// `transactions`: `"random walks: 12 (6,000 transactions, 49% of all)"`.
pub(crate) fn walks(s: &SequenceStats, transactions: u64) -> Option<String> {
    if s.walks == 0 {
        return None;
    }
    let share = s.walk_transactions * 100 / transactions.max(1);
    Some(format!(
        "random walks: {} ({} transactions, {share}% of all)",
        thousands(s.walks),
        thousands(s.walk_transactions)
    ))
}

/// The sequence-fuzzing lines: runs and corpus by length, aggressive runs, and the
/// functions whose sequences grew.
pub(crate) fn render_sequencing(out: &mut String, s: &SequenceStats, transactions: u64) {
    if s.runs_by_length.iter().all(|&n| n == 0) {
        return;
    }
    let _ = writeln!(
        out,
        "  sequences by length: {}; corpus: {}{}{}",
        by_length(&s.runs_by_length),
        by_length(&s.corpus_by_length),
        if s.independent_calls {
            " (one call each: no fuzzed call can change what another sees)"
        } else {
            ""
        },
        walks(s, transactions).map_or(String::new(), |w| format!("; {w}"))
    );
    let functions: Vec<String> = s
        .state_dependent
        .iter()
        .map(|f| {
            let why = match f.reason {
                Dependence::Aggressive => "aggressive run",
                Dependence::Invariants => "feeds the invariants",
                Dependence::Created => "created contract",
            };
            format!("{}.{} ({why})", f.contract, f.signature)
        })
        .collect();
    if s.masks.entries > 0 {
        let _ = writeln!(
            out,
            "  mutation masks: {} entries, {} of {} probed inputs held",
            thousands(s.masks.entries),
            thousands(s.masks.held),
            thousands(s.masks.probed)
        );
    }
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
pub(crate) fn render_targets(out: &mut String, stats: &Stats) {
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
        .map(|t| t.label().chars().count())
        .max()
        .unwrap_or(0);
    for target in targets {
        let name = target.label();
        match &target.reached {
            Some(reach) => {
                let _ = writeln!(
                    out,
                    "    {name:<width$}  reached {}",
                    reach_text(reach, &stats.labels)
                );
            }
            None => {
                let _ = writeln!(out, "    {name:<width$}  NOT REACHED");
            }
        }
    }
}

/// How a target was reached: `after 1,234 sequences (2.1s): Vault.deposit → Vault.withdraw`.
pub(crate) fn reach_text(reach: &TargetReach, labels: &Labels) -> String {
    let calls: Vec<String> = reach
        .calls
        .iter()
        .map(|c| format!("{}.{}", called(c, labels), c.function_name()))
        .collect();
    format!(
        "after {} sequences ({}): {}",
        thousands(reach.after_sequences),
        duration(reach.after),
        calls.join(" → ")
    )
}

/// Counts by length grouped in powers of two: `1: 9,120 · 2-3: 310 · 4-7: 95`.
pub(crate) fn by_length(counts: &[u64]) -> String {
    let groups: Vec<String> = length_groups(counts)
        .into_iter()
        .map(|(range, total)| format!("{range}: {}", thousands(total)))
        .collect();
    if groups.is_empty() {
        "none".to_string()
    } else {
        groups.join(" · ")
    }
}

/// Counts by length (`counts[n]`: of length `n`) grouped in powers of two (`1`, `2-3`,
/// `4-7`, ...), the empty groups left out.
pub(crate) fn length_groups(counts: &[u64]) -> Vec<(String, u64)> {
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
            groups.push((range, total));
        }
        low = high + 1;
    }
    groups
}

/// A progress line for stderr.
pub fn progress_line(test: &str, progress: &Progress) -> String {
    let secs = progress.elapsed.as_secs_f64().max(1e-9);
    format!(
        "harvey {test}: {} | {} sequences | {} tx/s | {} edges | corpus {} | {}",
        duration(progress.elapsed),
        thousands(progress.sequences),
        thousands((progress.transactions as f64 / secs) as u64),
        progress.edges,
        progress.corpus,
        count(progress.violations as u64, "violation")
    )
}
