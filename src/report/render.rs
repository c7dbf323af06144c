//! Rendering for people: the failure report of a failed test, the end-of-campaign summary,
//! and progress lines.

use std::fmt::{self, Write as _};
use std::time::Duration;

use alloy_dyn_abi::DynSolValue;
use alloy_primitives::Address;

use crate::chain::{Labels, SolDisplay, Warp};
use crate::config::Steering;
use crate::outcome::{
    Call, Dependence, Failure, FunctionStats, Outcome, Place, Progress, SequenceStats, ShrinkStats,
    Stats, Violation, Warps,
};

/// Calls after which a function that reverted every time is flagged as "always reverts".
/// Fewer mostly mean a campaign that stopped early on a violation: a function that succeeds
/// on 5% of its calls reverts on all of its first 4 calls 81% of the time, but on all of its
/// first 100 only 0.6% of the time.
pub const ALWAYS_REVERTS_AFTER: u64 = 100;

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", ViolationDisplay(self, &Labels::default()))
    }
}

/// A violation with the accounts it names labelled.
struct ViolationDisplay<'a>(&'a Violation, &'a Labels);

impl fmt::Display for ViolationDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Violation::Invariant { name, message } => {
                write!(f, "invariant `{name}` violated: {message}")
            }
            Violation::Panic { code, place } => write!(f, "Solidity {code} at {place}"),
            Violation::AssertionFailed { message, place, .. } => {
                write!(f, "AssertionFailed({message}) emitted at {place}")
            }
            Violation::ArbitraryStorageWrite {
                contract,
                slot,
                place,
            } => {
                let who = match self.1.get(*contract) {
                    Some(name) => format!("{name}@{contract}"),
                    None => contract.to_string(),
                };
                write!(
                    f,
                    "arbitrary storage write (SWC-124): {who} wrote slot {slot:#x}, which the \
                     fuzzer chose at random, at {place}: the caller controls where it writes"
                )
            }
            Violation::Reverted { reason, place } => {
                write!(f, "reverted at {place}: {reason}")
            }
            Violation::Vulnerability {
                detector,
                place,
                explanation,
            } => write!(f, "{} at {place}: {explanation}", detector.title()),
            Violation::UnsupportedCheatcode { cheatcode, place } => write!(
                f,
                "cheatcode `{cheatcode}` called at {place} is not supported by harvey: \
                 this code cannot run as under forge (a limitation of harvey, not a bug in \
                 the contracts)"
            ),
        }
    }
}

impl fmt::Display for Place {
    /// `src/Vault.sol:42 (Vault)`, else `Vault, pc 0x1a2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.line, self.pc) {
            (Some(line), _) => write!(f, "{line} ({})", self.contract),
            (None, u32::MAX) => write!(f, "{} (no source line)", self.contract),
            (None, pc) => write!(f, "{}, pc {pc:#x} (no source line)", self.contract),
        }
    }
}

/// The failure report: what was violated, the shrunk sequence, how to replay it, and the
/// full addresses of the named accounts it shows. `test` is the `cargo test` filter that
/// replays it, when known.
pub fn failure_report(failure: &Failure, test: Option<&str>) -> String {
    failures_report(std::slice::from_ref(failure), test)
}

/// The report of every violation a campaign found (of one, as [`failure_report`]): each
/// with its shrunk sequence, in the order found, then the seed and how to replay them.
/// `test` is the `cargo test` filter that replays them, when known.
pub fn failures_report(failures: &[Failure], test: Option<&str>) -> String {
    let mut out = String::new();
    let Some(first) = failures.first() else {
        return out;
    };
    if failures.len() > 1 {
        let _ = writeln!(
            out,
            "{} distinct violations, in the order found:\n",
            failures.len()
        );
    }
    for (index, failure) in failures.iter().enumerate() {
        if failures.len() > 1 {
            let _ = write!(out, "[{}/{}] ", index + 1, failures.len());
        }
        render_failure(&mut out, failure);
        if index + 1 < failures.len() {
            out.push('\n');
        }
    }
    let _ = writeln!(out, "Seed: {}", first.seed);
    if let Some(test) = test {
        let _ = writeln!(out, "Replay: HARVEY_SEED={} cargo test {test}", first.seed);
    }
    if let Some(path) = &first.regression_file {
        let _ = writeln!(
            out,
            "Saved to {} (replayed first on every run; commit it)",
            path.display()
        );
    }
    out
}

/// One failure: what was violated and when it was found, the shrunk sequence and the
/// named accounts it shows.
fn render_failure(out: &mut String, failure: &Failure) {
    let _ = writeln!(
        out,
        "{} (found {})",
        ViolationDisplay(&failure.violation, &failure.labels),
        origin(failure)
    );
    if failure.calls.is_empty() {
        let _ = writeln!(out, "The state right after setup already violates it.");
        return;
    }
    let shrunk = if failure.found_len > failure.calls.len() {
        format!(", shrunk from {}", failure.found_len)
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "Call sequence ({}{shrunk}):",
        count(failure.calls.len() as u64, "call")
    );
    for (index, call) in failure.calls.iter().enumerate() {
        let _ = writeln!(
            out,
            "  #{} {}",
            index + 1,
            render_call(call, &failure.labels)
        );
    }
    let _ = writeln!(out, "  last call: {}", failure.last_status);
    if !failure.messages.is_empty() {
        let _ = writeln!(out, "  it logged (reverted frames included):");
        for message in &failure.messages {
            let _ = writeln!(out, "    {message}");
        }
    }
    render_warps(out, failure);
    render_accounts(out, &failure.calls, &failure.labels);
}

/// A note when the calls wait between them: those waits are harvey's environment fuzzing,
/// not the suite's, and a contract may be right to refuse a call after time passed.
fn render_warps(out: &mut String, failure: &Failure) {
    let off = "max_time_delay = 0 and max_block_delay = 0 keep the block still";
    match failure.warps {
        Warps::None => {}
        Warps::Incidental => {
            let _ = writeln!(
                out,
                "Note: harvey moved the block between calls (`warp:`); the violation shows \
                 without those waits too."
            );
        }
        Warps::Needed if matches!(failure.violation, Violation::Reverted { .. }) => {
            let _ = writeln!(
                out,
                "Note: the revert happens only because harvey moved the block between calls \
                 (`warp:`, its environment fuzzing; forge moves it only when \
                 max_time_delay/max_block_delay are set): without the waits no call reverts. \
                 If the contract is right to refuse after time passed (a staleness check, a \
                 deadline), this is not a bug; {off}."
            );
        }
        Warps::Needed => {
            let _ = writeln!(
                out,
                "Note: the violation needs the time harvey let pass between calls (`warp:`, \
                 its environment fuzzing): without the waits it does not show; {off}."
            );
        }
    }
}

/// The named accounts `calls` show (senders, called contracts, address arguments) with
/// their full addresses, to copy into a test: the calls show only short ones.
fn render_accounts(out: &mut String, calls: &[Call], labels: &Labels) {
    let mut shown: Vec<(Address, &str)> = Vec::new();
    let mut note = |address: Address| {
        if let Some(name) = labels.get(address) {
            if !shown.iter().any(|(a, _)| *a == address) {
                shown.push((address, name));
            }
        }
    };
    for call in calls {
        note(call.sender);
        note(call.address);
        for arg in &call.args {
            visit_addresses(arg, &mut note);
        }
    }
    if shown.is_empty() {
        return;
    }
    let width = shown
        .iter()
        .map(|(_, n)| n.chars().count())
        .max()
        .unwrap_or(0);
    let _ = writeln!(out, "Accounts:");
    for (address, name) in shown {
        let _ = writeln!(out, "  {name:<width$}  {address}");
    }
}

/// Calls `f` on every address inside `value`, in order.
fn visit_addresses(value: &DynSolValue, f: &mut impl FnMut(Address)) {
    match value {
        DynSolValue::Address(address) => f(*address),
        DynSolValue::Array(items) | DynSolValue::FixedArray(items) | DynSolValue::Tuple(items) => {
            for item in items {
                visit_addresses(item, f);
            }
        }
        _ => {}
    }
}

/// One call: `alice@0x10000 Vault.withdraw(amount: 7) value: 0 warp: +1d`. Named accounts
/// show as `name@0x5FbD…0aa3` (the called contract by its name alone, unless two accounts
/// share it); other address arguments in full, so they can be copied.
pub fn render_call(call: &Call, labels: &Labels) -> String {
    let mut out = format!(
        "{} {}.{}(",
        account(call.sender, labels),
        called(call, labels),
        call.function_name()
    );
    for (i, arg) in call.args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if let Some(name) = call.params.get(i).filter(|p| !p.is_empty()) {
            let _ = write!(out, "{name}: ");
        }
        write_value(&mut out, arg, labels);
    }
    let _ = write!(out, ") value: {}", call.value);
    if call.warp != Warp::default() {
        let _ = write!(out, " warp: {}", render_warp(call.warp));
    }
    out
}

/// The called contract as a call shows it: its label (a contract deployed through the chain
/// is labelled with its name), with its address when the label is ambiguous.
fn called(call: &Call, labels: &Labels) -> String {
    if call.instance.is_some() {
        // Created during the sequence: the address tells instances apart.
        return format!("{}@{}", call.contract, short_address(call.address));
    }
    let name = labels.get(call.address).unwrap_or(&call.contract);
    contract_name(name, Some(call.address), labels)
}

/// `value` as Solidity spells it ([`SolDisplay`]), with named addresses as
/// `name@0x5FbD…0aa3`.
fn write_value(out: &mut String, value: &DynSolValue, labels: &Labels) {
    let list = |out: &mut String, open: &str, items: &[DynSolValue], close: &str| {
        out.push_str(open);
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_value(out, item, labels);
        }
        out.push_str(close);
    };
    match value {
        DynSolValue::Address(address) if labels.get(*address).is_some() => {
            out.push_str(&account(*address, labels));
        }
        DynSolValue::Array(items) | DynSolValue::FixedArray(items) => list(out, "[", items, "]"),
        DynSolValue::Tuple(items) => list(out, "(", items, ")"),
        other => {
            let _ = write!(out, "{}", SolDisplay(other));
        }
    }
}

/// An account as reports show it: `Vault@0x5FbD…0aa3` when it has a name, else its short
/// address (`0x10000`).
pub fn account(address: Address, labels: &Labels) -> String {
    match labels.get(address) {
        Some(name) => format!("{name}@{}", short_address(address)),
        None => short_address(address),
    }
}

/// A contract where the report shows its name alone (`Vault.withdraw`): `name`, or
/// `name@0x5FbD…0aa3` when two accounts share the name.
/// `address` is `None` for contracts fuzzed transactions created: `Pool@created`.
fn contract_name(name: &str, address: Option<Address>, labels: &Labels) -> String {
    match address {
        None => format!("{name}@created"),
        Some(address) if labels.is_ambiguous(name) => format!("{name}@{}", short_address(address)),
        Some(_) => name.to_string(),
    }
}

/// An address checksummed without its leading zeros (`0x10000` for harvey's first sender),
/// abbreviated to its first and last four hex digits when long (`0x5FbD…0aa3`).
pub fn short_address(address: Address) -> String {
    let checksummed = address.to_checksum(None);
    let digits = checksummed.trim_start_matches("0x").trim_start_matches('0');
    if digits.is_empty() {
        "0x0".to_string()
    } else if digits.len() > 10 {
        format!("0x{}…{}", &digits[..4], &digits[digits.len() - 4..])
    } else {
        format!("0x{digits}")
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

/// Why `outcome` did not pass, as a failing test reports it (`test`: the test's name or
/// `cargo test` filter, when there is one); `None` when it passed. Nothing tested comes
/// first, then violations (each with its shrunk sequence), then targets `require_targets`
/// says were missed.
pub fn verdict(outcome: &Outcome, test: Option<&str>) -> Option<String> {
    let name = test.or(outcome.stats.name.as_deref()).unwrap_or("campaign");
    if let Some(why) = &outcome.untested {
        return Some(format!("harvey: {name}: nothing was tested: {why}"));
    }
    if !outcome.failures.is_empty() {
        return Some(format!("\n{}", failures_report(&outcome.failures, test)));
    }
    let unreached = outcome.missed_targets();
    if !unreached.is_empty() {
        return Some(format!(
            "harvey: {name}: {} of {} targets were never reached (require_targets is on): {}",
            unreached.len(),
            outcome.stats.targets.len(),
            unreached.join(", ")
        ));
    }
    None
}

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
    render_sequencing(&mut out, &stats.sequencing);
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
fn render_violations(out: &mut String, failures: &[Failure]) {
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

/// When a failure was found: `after 4,312 sequences in 1.20s`, `replaying the regression
/// file`, or `in the post-setup state`.
fn origin(failure: &Failure) -> String {
    if failure.from_regression {
        "replaying the regression file".to_string()
    } else if failure.calls.is_empty() {
        "in the post-setup state".to_string()
    } else {
        format!(
            "after {} sequences in {}",
            thousands(failure.found_after_sequences),
            duration(failure.found_after)
        )
    }
}

/// `       shrinking: 5 → 2 calls in 412 runs (1,130 tx, 45ms; budget 1,000 runs, 10.0s)`,
/// and whether the budget ran out.
fn render_shrink(out: &mut String, shrink: &ShrinkStats) {
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
fn render_bounds(out: &mut String, stats: &Stats) {
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
fn render_kept_corpus(out: &mut String, stats: &Stats) {
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
    let _ = writeln!(
        out,
        "  corpus kept in {}: {} loaded{dropped}, {} saved",
        kept.dir.display(),
        count(kept.loaded as u64, "sequence"),
        thousands(kept.saved as u64)
    );
}

/// `  time: 41% in transactions, 52% checking invariants, 7% fuzzing`: where the workers'
/// time went, with a note when the checks after each transaction take most of it (then
/// they, not the EVM, bound tx/s).
fn render_time_split(out: &mut String, stats: &Stats) {
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
    if checks * 2 > whole {
        out.push_str(": the checks bound the speed (make slow invariants cheaper)");
    }
    out.push('\n');
}

/// `  fuzzed: Vault@0x5FbD…0aa3; senders: alice@0x10000, 0x20000`: which accounts the
/// campaign called and from where.
fn render_accounts_line(out: &mut String, stats: &Stats) {
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
        .map(|t| t.label().chars().count())
        .max()
        .unwrap_or(0);
    for target in targets {
        let name = target.label();
        match &target.reached {
            Some(reach) => {
                let calls: Vec<String> = reach
                    .calls
                    .iter()
                    .map(|c| format!("{}.{}", called(c, &stats.labels), c.function_name()))
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
        "harvey {test}: {} | {} sequences | {} tx/s | {} edges | corpus {} | {}",
        duration(progress.elapsed),
        thousands(progress.sequences),
        thousands((progress.transactions as f64 / secs) as u64),
        progress.edges,
        progress.corpus,
        count(progress.violations as u64, "violation")
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

/// `1 call`, `1,234 calls`.
fn count(n: u64, noun: &str) -> String {
    format!("{} {noun}{}", thousands(n), if n == 1 { "" } else { "s" })
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
    use crate::chain::SENDERS;
    use crate::outcome::FunctionStats;
    use alloy_primitives::{U256, address};

    const VAULT: Address = address!("0x5FbDB2315678afecb367f032d93F642f64180aa3");
    const TOKEN: Address = address!("0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512");

    fn withdraw(sender: Address, args: Vec<DynSolValue>) -> Call {
        Call {
            sender,
            contract: "Vault".into(),
            address: VAULT,
            signature: "withdraw(uint256,address)".into(),
            params: vec!["amount".into(), String::new()],
            args,
            value: U256::ZERO,
            warp: Warp::default(),
            instance: None,
        }
    }

    fn labels() -> Labels {
        let mut labels = Labels::default();
        labels.insert(VAULT, "Vault");
        labels.insert(SENDERS[1], "alice");
        labels
    }

    #[test]
    fn calls_render_like_solidity() {
        let mut call = withdraw(
            SENDERS[0],
            vec![
                DynSolValue::Uint(U256::from(7), 256),
                DynSolValue::Address(Address::with_last_byte(9)),
            ],
        );
        call.warp = Warp {
            seconds: 86_400,
            blocks: 7_200,
        };
        assert_eq!(
            render_call(&call, &Labels::default()),
            "0x10000 Vault.withdraw(amount: 7, 0x0000000000000000000000000000000000000009) \
             value: 0 warp: +1d (+7200 blocks)"
        );
    }

    #[test]
    fn named_accounts_show_beside_their_short_address() {
        let call = withdraw(
            SENDERS[1],
            vec![
                DynSolValue::Uint(U256::from(7), 256),
                DynSolValue::Array(vec![
                    DynSolValue::Address(VAULT),
                    DynSolValue::Address(TOKEN),
                ]),
            ],
        );
        assert_eq!(
            render_call(&call, &labels()),
            "alice@0x20000 Vault.withdraw(amount: 7, [Vault@0x5FbD…0aa3, \
             0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512]) value: 0"
        );
        // An explicit label names the called contract, as in forge's traces.
        let mut relabelled = labels();
        relabelled.insert(VAULT, "vault");
        assert!(render_call(&call, &relabelled).contains(" vault.withdraw("));
        // Two deployments of one contract: the address tells them apart.
        let mut two = labels();
        two.insert(TOKEN, "Vault");
        let rendered = render_call(&call, &two);
        assert!(
            rendered.contains(" Vault@0x5FbD…0aa3.withdraw(")
                && rendered.contains("Vault@0xe7f1…0512]"),
            "{rendered}"
        );
    }

    #[test]
    fn failure_reports_list_the_named_accounts_in_full() {
        let failure = Failure {
            violation: Violation::ArbitraryStorageWrite {
                contract: VAULT,
                slot: U256::from(1),
                place: Place {
                    contract: "Vault".into(),
                    pc: 0x1a2,
                    line: None,
                },
            },
            calls: vec![withdraw(
                SENDERS[1],
                vec![
                    DynSolValue::Uint(U256::from(7), 256),
                    DynSolValue::Address(SENDERS[2]),
                ],
            )],
            last_status: "success".into(),
            messages: Vec::new(),
            seed: 3,
            found_len: 1,
            found_after: Duration::ZERO,
            found_after_sequences: 0,
            from_regression: false,
            regression_file: None,
            labels: labels(),
            shrink: None,
            warps: Warps::None,
        };
        let report = failure_report(&failure, None);
        assert!(
            report.starts_with(&format!(
                "arbitrary storage write (SWC-124): Vault@{VAULT} wrote slot 0x1"
            )),
            "{report}"
        );
        assert!(
            report.contains(&format!(
                "Accounts:\n  alice  {}\n  Vault  {VAULT}\n",
                SENDERS[1]
            )),
            "{report}"
        );
        assert!(report.contains(&format!("{}", SENDERS[2])), "{report}");
        assert!(
            report.contains("at Vault, pc 0x1a2 (no source line)"),
            "{report}"
        );
        assert!(report.ends_with("Seed: 3\n"), "{report}");
    }

    #[test]
    fn several_failures_are_reported_each_with_its_sequence_then_one_replay() {
        let failure = |line: &str, found_after_sequences| Failure {
            violation: Violation::Panic {
                code: crate::chain::PanicCode::Assert,
                place: Place {
                    contract: "Maze".into(),
                    pc: 0x40,
                    line: Some(line.into()),
                },
            },
            calls: vec![withdraw(
                SENDERS[0],
                vec![DynSolValue::Uint(U256::from(7), 256)],
            )],
            last_status: "Panic(0x01): assert failed".into(),
            messages: vec![
                "LogUint256(\"amount\", 5)".into(),
                "AssertEqFail(\"Invalid: 4!=5, reason: Allowance not updated\")".into(),
            ],
            seed: 9,
            found_len: 1,
            found_after: Duration::from_millis(1_200),
            found_after_sequences,
            from_regression: false,
            regression_file: Some("harvey-regressions/maze.json".into()),
            labels: labels(),
            shrink: None,
            warps: Warps::None,
        };
        let failures = [
            failure("src/Maze.sol:12", 40),
            failure("src/Maze.sol:30", 4_312),
        ];
        let report = failures_report(&failures, Some("maze"));
        assert!(
            report.starts_with("2 distinct violations, in the order found:\n\n[1/2] "),
            "{report}"
        );
        assert!(
            report.contains("[2/2] Solidity Panic(0x01): assertion failed at src/Maze.sol:30 (Maze) (found after 4,312 sequences in 1.2s)\nCall sequence (1 call):\n"),
            "{report}"
        );
        // What the property library logged in the reverted call, below its status.
        assert!(
            report.contains(
                "  last call: Panic(0x01): assert failed\n  it logged (reverted frames included):\n    \
                 LogUint256(\"amount\", 5)\n    \
                 AssertEqFail(\"Invalid: 4!=5, reason: Allowance not updated\")\n"
            ),
            "{report}"
        );
        assert_eq!(
            report
                .matches("Replay: HARVEY_SEED=9 cargo test maze\n")
                .count(),
            1
        );
        assert_eq!(
            report
                .matches("Saved to harvey-regressions/maze.json")
                .count(),
            1
        );
        assert_eq!(
            failure_report(&failures[0], None),
            failures_report(&failures[..1], None)
        );
    }

    #[test]
    fn summaries_name_their_test_and_accounts() {
        let stats = Stats {
            name: Some("vault::tests::solvent".into()),
            senders: SENDERS[..2].to_vec(),
            labels: labels(),
            functions: vec![FunctionStats {
                contract: "Vault".into(),
                address: Some(VAULT),
                signature: "deposit()".into(),
                calls: 10,
                reverts: 0,
            }],
            ..Stats::default()
        };
        let outcome = |stats: Stats, failures: Vec<Failure>| Outcome {
            failures,
            stats,
            warnings: Vec::new(),
            require_targets: false,
            untested: None,
        };
        let summary = super::summary(&outcome(stats.clone(), Vec::new()));
        assert!(
            summary.starts_with("harvey vault::tests::solvent: 0 sequences"),
            "{summary}"
        );
        assert!(
            summary.contains("  fuzzed: Vault@0x5FbD…0aa3; senders: 0x10000, alice@0x20000\n"),
            "{summary}"
        );
        assert!(summary.contains("    Vault.deposit()  "), "{summary}");
        assert!(!summary.contains("shrinking"), "{summary}");
        assert!(!summary.contains("violations"), "{summary}");
        let shrunk = Failure {
            violation: Violation::Invariant {
                name: "solvent".into(),
                message: "returned false".into(),
            },
            calls: Vec::new(),
            last_status: String::new(),
            messages: Vec::new(),
            seed: 0,
            found_len: 5,
            found_after: Duration::from_millis(1_500),
            found_after_sequences: 2_000,
            from_regression: false,
            regression_file: None,
            labels: labels(),
            shrink: Some(ShrinkStats {
                from: 5,
                to: 2,
                runs: 1_000,
                transactions: 2_345,
                time: Duration::from_millis(45),
                budget_runs: 1_000,
                budget_time: Duration::from_secs(10),
                exhausted: true,
            }),
            warps: Warps::None,
        };
        let replayed = Failure {
            from_regression: true,
            shrink: None,
            ..shrunk.clone()
        };
        let summary = super::summary(&outcome(stats, vec![replayed, shrunk]));
        assert!(
            summary.contains(
                "  violations: 2 distinct, in the order found\n    \
                 1. replaying the regression file: invariant `solvent` violated: returned false\n    \
                 2. in the post-setup state: invariant `solvent` violated: returned false\n       \
                 shrinking: 5 → 2 calls in 1,000 runs (2,345 tx, 45ms; budget 1,000 runs, \
                 10.0s): budget spent, the sequence may shrink further\n"
            ),
            "{summary}"
        );
    }

    #[test]
    fn always_reverts_needs_enough_calls_to_mean_something() {
        let row = |calls| FunctionStats {
            contract: "Vault".into(),
            address: Some(VAULT),
            signature: "close()".into(),
            calls,
            reverts: calls,
        };
        let flagged = |calls| {
            summary(&Outcome {
                failures: Vec::new(),
                stats: Stats {
                    functions: vec![row(calls)],
                    ..Stats::default()
                },
                warnings: Vec::new(),
                require_targets: false,
                untested: None,
            })
            .contains("always reverts")
        };
        assert!(!flagged(0));
        assert!(!flagged(4));
        assert!(!flagged(ALWAYS_REVERTS_AFTER - 1));
        assert!(flagged(ALWAYS_REVERTS_AFTER));
    }

    #[test]
    fn progress_lines_count_the_violations_found() {
        let progress = Progress {
            elapsed: Duration::from_secs(4),
            sequences: 12_000,
            transactions: 40_000,
            edges: 31,
            corpus: 9,
            violations: 2,
        };
        assert_eq!(
            progress_line("maze", &progress),
            "harvey maze: 4.0s | 12,000 sequences | 10,000 tx/s | 31 edges | corpus 9 | 2 violations"
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
        assert_eq!(short_address(VAULT), "0x5FbD…0aa3");
        assert_eq!(short_address(SENDERS[0]), "0x10000");
        assert_eq!(short_address(Address::ZERO), "0x0");
    }
}
