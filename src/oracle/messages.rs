//! The messages property libraries log on the way to a failed assertion. crytic/properties'
//! helpers emit `AssertEqFail("Invalid: 5!=4, reason: …")` (or `AssertFail`, `AssertNeqFail`,
//! `AssertGteFail`, `AssertGtFail`, `AssertLteFail`, `AssertLtFail`) and then fail an
//! `assert`, and properties log values with `LogString`, `LogUint256` and `LogAddress`. The
//! transaction reverts, so its receipt has none of these logs: they are read from the
//! observer's trace, which keeps the logs of reverted frames too.

use alloy_dyn_abi::DynSolType;
use alloy_primitives::{U256, keccak256};

use crate::chain::SolDisplay;
use crate::observe::Trace;

/// The events whose logs are messages, as `Name(types)`: all their parameters are
/// non-indexed, so the log's data holds every argument.
const MESSAGE_EVENTS: [&str; 10] = [
    "AssertFail(string)",
    "AssertEqFail(string)",
    "AssertNeqFail(string)",
    "AssertGteFail(string)",
    "AssertGtFail(string)",
    "AssertLteFail(string)",
    "AssertLtFail(string)",
    "LogString(string)",
    "LogUint256(string,uint256)",
    "LogAddress(string,address)",
];

/// Messages shown per failure, at most (a property logging in a loop must not flood the
/// report); the last ones are kept, since the failure message comes last.
const MAX_MESSAGES: usize = 16;

/// The messages among `trace`'s logs, in the order emitted, each rendered as the event it
/// is: `AssertEqFail("Invalid: 5!=4, reason: Allowance not updated correctly")`. A log whose
/// data does not decode as its event's arguments is skipped.
pub(crate) fn messages(trace: &Trace) -> Vec<String> {
    let events: Vec<(U256, &str, DynSolType)> = MESSAGE_EVENTS
        .iter()
        .filter_map(|signature| {
            let (name, types) = signature.split_once('(')?;
            let types = DynSolType::parse(&format!("({types}")).ok()?;
            let selector = U256::from_be_bytes(keccak256(signature).0);
            Some((selector, name, types))
        })
        .collect();
    let mut found: Vec<String> = trace
        .logs()
        .iter()
        .filter_map(|log| {
            let (_, name, types) = events.iter().find(|(s, ..)| *s == log.topic0)?;
            let values = types.abi_decode_params(&log.data).ok()?;
            let arguments = values
                .as_fixed_seq()?
                .iter()
                .map(|v| SolDisplay(v).to_string())
                .collect::<Vec<_>>()
                .join(", ");
            Some(format!("{name}({arguments})"))
        })
        .collect();
    let excess = found.len().saturating_sub(MAX_MESSAGES);
    found.drain(..excess);
    found
}
