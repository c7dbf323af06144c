//! The reentrancy detector: a re-entry, made through an attacker, that read state its
//! outer call wrote after the re-entered call returned.

use alloy_primitives::{Address, U256};

use super::{site_place, who};
use crate::chain::Chain;
use crate::config::Detector;
use crate::observe::{CallKind, CallRecord, StorageOp, Trace};
use crate::outcome::Violation;

/// A re-entry that read state its outer call changed after it: the outer frame, the call
/// out of it that led to the re-entry, and the slot.
pub(super) struct StaleReentry {
    contract: Address,
    call_out: CallRecord,
    attacker: Address,
    slot: U256,
}

impl StaleReentry {
    /// The first stale re-entry in `trace` made through an account `attacker` accepts.
    pub(super) fn find(trace: &Trace, attacker: impl Fn(Address) -> bool) -> Option<StaleReentry> {
        let calls = trace.calls();
        // Most transactions call nobody: no frame can be re-entered.
        if calls.len() < 3 || !calls.iter().any(|c| attacker(c.target)) {
            return None;
        }
        let parent = |frame: u32| calls.get(frame as usize).and_then(|c| c.parent);
        // Whether `frame` runs inside `ancestor` (or is it).
        let within = |mut frame: u32, ancestor: u32| loop {
            if frame == ancestor {
                return true;
            }
            match parent(frame) {
                Some(up) => frame = up,
                None => return false,
            }
        };
        for (index, inner) in calls.iter().enumerate() {
            let inner_index = index as u32;
            if !inner.succeeded || !matches!(inner.kind, CallKind::Call) {
                continue;
            }
            // The nearest enclosing frame of the same contract, and who called back.
            let mut through = None;
            let mut up = inner.parent;
            let mut child = inner_index;
            let outer = loop {
                let Some(frame) = up else { break None };
                let record = &calls[frame as usize];
                if record.target == inner.target && matches!(record.kind, CallKind::Call) {
                    break Some((frame, child));
                }
                if attacker(record.target) {
                    through = Some(record.target);
                }
                child = frame;
                up = record.parent;
            };
            let (Some((outer, call_out)), Some(attacker)) = (outer, through) else {
                continue;
            };
            if !calls[outer as usize].succeeded {
                continue;
            }
            let storage = trace.storage();
            let Some(last_inner) = storage.iter().rposition(|s| within(s.frame, inner_index))
            else {
                continue;
            };
            // The contract's slots the re-entered call read, then a later write to one of
            // them by the outer call.
            let read: Vec<U256> = storage[..=last_inner]
                .iter()
                .filter(|s| {
                    s.op == StorageOp::Load
                        && s.address == inner.target
                        && within(s.frame, inner_index)
                })
                .map(|s| s.slot)
                .collect();
            let stale = storage[last_inner + 1..].iter().find(|store| {
                store.op == StorageOp::Store
                    && store.address == inner.target
                    && read.contains(&store.slot)
                    && within(store.frame, outer)
            });
            if let Some(store) = stale {
                return Some(StaleReentry {
                    contract: inner.target,
                    call_out: calls[call_out as usize],
                    attacker,
                    slot: store.slot,
                });
            }
        }
        None
    }

    /// The finding, placed at the call out of the outer frame.
    pub(super) fn violation(&self, chain: &Chain) -> Violation {
        let contract = who(chain, self.contract);
        let attacker = who(chain, self.attacker);
        let reentered = if self.call_out.target == self.attacker {
            format!("{contract} called {attacker} (untrusted), which called back into it")
        } else {
            let callee = who(chain, self.call_out.target);
            format!("{contract} called {callee}, and {attacker} (untrusted) called back into it")
        };
        Violation::Vulnerability {
            detector: Detector::Reentrancy,
            place: site_place(chain, self.call_out.site, self.contract),
            explanation: format!(
                "{reentered} before that call returned; the re-entered call read slot \
                 {:#x}, which the outer call wrote after: the re-entered call ran on state \
                 about to change",
                self.slot
            ),
        }
    }
}
