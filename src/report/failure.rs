//! The failure report: what was violated, the shrunk call sequence decoded and labelled,
//! the warps between calls, how to replay it, and the accounts it names.

use std::fmt::{self, Write as _};

use alloy_dyn_abi::DynSolValue;
use alloy_primitives::Address;

use crate::chain::{Labels, SolDisplay, Warp};
use crate::outcome::{Call, Failure, Place, Violation, Warps};

use super::format::*;

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", ViolationDisplay(self, &Labels::default()))
    }
}

/// A violation with the accounts it names labelled.
pub(crate) struct ViolationDisplay<'a>(pub(crate) &'a Violation, pub(crate) &'a Labels);

impl fmt::Display for ViolationDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Violation::Invariant { name, message } => {
                write!(f, "invariant `{name}` violated: {message}")
            }
            Violation::Property { name, message } => {
                write!(f, "property `{name}` failed: {message}")
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

/// The failure's report, as [`failure_report`] without a test to name: what was violated,
/// the shrunk sequence and how to replay it (`println!("{failure}")`).
impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&failure_report(self, None))
    }
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
        let _ = writeln!(out, "Replay: {}", replay_command(first.seed, test));
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

/// The command that replays a campaign's run with `seed`, for the test `test` (its
/// `cargo test` filter).
pub(crate) fn replay_command(seed: u64, test: &str) -> String {
    format!("HARVEY_SEED={seed} cargo test {test}")
}

/// One failure: what was violated and when it was found, the shrunk sequence and the
/// named accounts it shows.
pub(crate) fn render_failure(out: &mut String, failure: &Failure) {
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
    if let (Violation::Property { .. }, [case]) = (&failure.violation, failure.calls.as_slice()) {
        let _ = writeln!(out, "Inputs: {}", render_call(case, &failure.labels));
        if !failure.case_calls.is_empty() {
            let _ = writeln!(out, "Calls the case made:");
            for (index, made) in failure.case_calls.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "  #{} {} -> {}",
                    index + 1,
                    render_call(&made.call, &failure.labels),
                    made.status
                );
            }
        }
        let calls: Vec<Call> = (failure.case_calls.iter())
            .map(|made| made.call.clone())
            .collect();
        render_accounts(out, &calls, &failure.labels);
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
pub(crate) fn render_warps(out: &mut String, failure: &Failure) {
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
pub(crate) fn render_accounts(out: &mut String, calls: &[Call], labels: &Labels) {
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
pub(crate) fn visit_addresses(value: &DynSolValue, f: &mut impl FnMut(Address)) {
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
    // A Rust property's case (no contract): its inputs, by name.
    let property = call.contract.is_empty();
    let mut out = if property {
        format!("{}(", call.function_name())
    } else {
        format!(
            "{} {}.{}(",
            account(call.sender, labels),
            called(call, labels),
            call.function_name()
        )
    };
    for (i, arg) in call.args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if let Some(name) = call.params.get(i).filter(|p| !p.is_empty()) {
            let _ = write!(out, "{name}: ");
        }
        write_value(&mut out, arg, labels);
    }
    if property {
        out.push(')');
        return out;
    }
    let _ = write!(out, ") value: {}", call.value);
    if call.warp != Warp::default() {
        let _ = write!(out, " warp: {}", render_warp(call.warp));
    }
    out
}

/// A forge fuzz test's failing call as forge reports its counterexample:
/// `counterexample: calldata=0x… args=[7, 0x00…01]` (the values as Solidity spells them).
pub(crate) fn counterexample(call: &Call) -> String {
    let calldata = alloy_json_abi::Function::parse(&call.signature)
        .ok()
        .and_then(|function| {
            use alloy_dyn_abi::JsonAbiExt as _;
            function.abi_encode_input(&call.args).ok()
        })
        .map_or_else(String::new, |data| {
            format!("calldata={} ", alloy_primitives::hex::encode_prefixed(data))
        });
    let mut args = String::new();
    for (i, arg) in call.args.iter().enumerate() {
        if i > 0 {
            args.push_str(", ");
        }
        write_value(&mut args, arg, &Labels::default());
    }
    format!("counterexample: {calldata}args=[{args}]")
}

/// The called contract as a call shows it: its label (a contract deployed through the chain
/// is labelled with its name), with its address when the label is ambiguous.
pub(crate) fn called(call: &Call, labels: &Labels) -> String {
    if call.instance.is_some() {
        // Created during the sequence: the address tells instances apart.
        return format!("{}@{}", call.contract, short_address(call.address));
    }
    let name = labels.get(call.address).unwrap_or(&call.contract);
    contract_name(name, Some(call.address), labels)
}

/// `value` as Solidity spells it ([`SolDisplay`]), with named addresses as
/// `name@0x5FbD…0aa3`.
pub(crate) fn write_value(out: &mut String, value: &DynSolValue, labels: &Labels) {
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

/// When a failure was found: `after 4,312 sequences in 1.20s`, `replaying the regression
/// file`, or `in the post-setup state`.
pub(crate) fn origin(failure: &Failure) -> String {
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
