//! The findings of the data flows the observer followed (`observe::taint`): integer
//! overflow, block dependency, strict balance equality and `tx.origin` authorisation.

use alloy_primitives::U256;

use super::who;
use crate::chain::{CHEATCODE_ADDRESS, CONSOLE_ADDRESS, Chain};
use crate::config::Detector;
use crate::observe::{Flow, FlowKind, Sink};
use crate::oracle::place_of;
use crate::outcome::{Place, Violation};

/// The flows of the last transaction (`succeeded` or not) the detectors report: in a
/// reverted one only the branches (a `tx.origin` check that refused, an equality with a
/// balance), which are there whether or not the transaction went on; stores and payments
/// only in frames that succeeded; none into calls to forge's cheatcode or console
/// accounts (a handler's `vm.warp(block.timestamp + s)`, a `console.log` of the time are
/// test machinery). The observer follows only the flows of the detectors that run.
pub(super) fn findings(chain: &mut Chain, succeeded: bool) -> Vec<Violation> {
    let trace = chain.last_trace();
    if trace.flows().is_empty() {
        return Vec::new();
    }
    let frame_succeeded = |flow: &Flow| {
        trace
            .calls()
            .get(flow.frame as usize)
            .is_none_or(|call| call.succeeded)
    };
    let flows: Vec<Flow> = trace
        .flows()
        .iter()
        .filter(|flow| {
            !flow
                .callee
                .is_some_and(|to| to == CHEATCODE_ADDRESS || to == CONSOLE_ADDRESS)
        })
        .filter(|flow| match flow.kind {
            FlowKind::BalanceEquality | FlowKind::OriginCheck => true,
            FlowKind::Wrapped { .. } | FlowKind::Block { .. } => succeeded && frame_succeeded(flow),
        })
        .copied()
        .collect();
    let chain = &*chain;
    flows
        .iter()
        .map(|flow| flow_violation(chain, flow))
        .collect()
}

/// The finding a flow makes.
fn flow_violation(chain: &Chain, flow: &Flow) -> Violation {
    let contract = who(chain, flow.code);
    let here = place_of(chain, flow.code, flow.pc);
    let line = |place: &Place| {
        place
            .line
            .as_ref()
            .map_or_else(String::new, |line| format!(" at {line}"))
    };
    match flow.kind {
        FlowKind::Wrapped { wrap, into } => {
            let sink = match into {
                Sink::Store => "was written to storage",
                _ => "set the ether a call sent",
            };
            Violation::Vulnerability {
                detector: Detector::IntegerOverflow,
                place: place_of(chain, wrap.code, wrap.pc),
                explanation: format!(
                    "{contract} computed {} {} {} = {} (wrapped around 2^256), and the \
                     result, or a value computed from it, {sink}{} without being compared \
                     first",
                    number(wrap.lhs),
                    wrap.op,
                    number(wrap.rhs),
                    number(wrap.result()),
                    line(&here),
                ),
            }
        }
        FlowKind::Block {
            source,
            into,
            control,
        } => {
            let sink = match into {
                Sink::Payment => "a payment",
                Sink::Selfdestruct => "a selfdestruct",
                _ => "a call",
            };
            let how = if control {
                format!("decided a branch before {sink}")
            } else {
                format!("flowed into {sink}")
            };
            Violation::Vulnerability {
                detector: Detector::BlockDependency,
                explanation: format!(
                    "{source} {how} in {contract}: whoever produces the block chooses it \
                     within limits, and can pick the outcome"
                ),
                place: here,
            }
        }
        FlowKind::BalanceEquality => Violation::Vulnerability {
            detector: Detector::StrictBalanceEquality,
            explanation: format!(
                "{contract} branched on an exact equality with an ether balance: anyone can \
                 force ether into an account (a selfdestruct pays it without a call), so the \
                 equality may never hold again"
            ),
            place: here,
        },
        FlowKind::OriginCheck => Violation::Vulnerability {
            detector: Detector::TxOrigin,
            explanation: format!(
                "{contract} branched on tx.origin compared with an account other than \
                 msg.sender, then reverted or changed state: any contract the authorised \
                 account calls passes this check in its name"
            ),
            place: here,
        },
    }
}

/// A number as an explanation shows it: decimal, or hex when it is huge.
fn number(value: U256) -> String {
    if value < U256::from(1u64 << 53) {
        value.to_string()
    } else {
        format!("{value:#x}")
    }
}
