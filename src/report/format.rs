//! Formatting helpers the report and the summary share: accounts and contracts by label,
//! short addresses, warps, counts, thousands, percentages and durations.

use std::fmt::Write as _;
use std::time::Duration;

use alloy_primitives::Address;

use crate::chain::{Labels, Warp};

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
pub(crate) fn contract_name(name: &str, address: Option<Address>, labels: &Labels) -> String {
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
pub(crate) fn render_warp(warp: Warp) -> String {
    let mut out = format!("+{}", human_seconds(warp.seconds));
    if warp.blocks > 0 {
        let _ = write!(out, " (+{} blocks)", warp.blocks);
    }
    out
}

/// Seconds in the two largest units: `1d 2h`, `5m 3s`, `42s`.
pub(crate) fn human_seconds(seconds: u64) -> String {
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

/// `part` of `whole` as a percentage, `-` for nothing.
pub(crate) fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        "-".to_string()
    } else {
        format!("{:.0}%", part as f64 * 100.0 / whole as f64)
    }
}

/// `1 call`, `1,234 calls`.
pub(crate) fn count(n: u64, noun: &str) -> String {
    format!("{} {noun}{}", thousands(n), if n == 1 { "" } else { "s" })
}

/// `1,234,567`.
pub(crate) fn thousands(n: u64) -> String {
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
pub(crate) fn duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1_000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", d.as_secs_f64())
    } else {
        format!("{}m {:02}s", ms / 60_000, (ms / 1_000) % 60)
    }
}
