//! `prank`, `startPrank` and `stopPrank`, with forge's depth rules: a prank set by the frame
//! at journal depth `d` changes `msg.sender` of the calls and creations that frame makes (its
//! calls at depth `d` whose caller is the frame's address); `prank` for the next one only,
//! `startPrank` until `stopPrank` from the same depth. An origin, when given, is `tx.origin`
//! during those calls (harvey sets it only for the pranked call itself and what it calls,
//! restoring it when that call ends; forge also sets it for deeper calls of the pranked
//! contract, which is the same thing).

use std::collections::BTreeMap;

use alloy_primitives::Address;
use revm::handler::MainnetContext;
use revm::interpreter::CallInputs;

use super::{Answer, fail};
use crate::chain::db::Db;

/// One prank.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Prank {
    /// The frame that set it (`msg.sender` of the cheatcode call): only its calls are pranked.
    pranker: Address,
    /// `msg.sender` of its calls.
    sender: Address,
    /// `tx.origin` during its calls, if given.
    origin: Option<Address>,
    /// `tx.origin` to restore when a pranked call ends.
    saved_origin: Address,
    /// `vm.prank`: one call only.
    single: bool,
    /// Whether a call used it.
    used: bool,
}

/// The pranks in force, by the journal depth of the frame that set them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(in crate::chain) struct Pranks {
    by_depth: BTreeMap<usize, Prank>,
}

impl Pranks {
    /// `vm.prank`/`vm.startPrank` from the frame at `depth`, with forge's errors for
    /// replacing a prank that was never used and for a single prank over a lasting one.
    pub(super) fn start(
        &mut self,
        context: &MainnetContext<Db>,
        inputs: &CallInputs,
        depth: usize,
        sender: Address,
        origin: Option<Address>,
        single: bool,
    ) -> Answer {
        if let Some(existing) = self.by_depth.get(&depth) {
            if !existing.used {
                return Err(fail(
                    "cannot overwrite a prank until it is applied at least once",
                ));
            }
            if single && !existing.single {
                return Err(fail(
                    "cannot override an ongoing prank with a single vm.prank; use vm.startPrank to override the current prank",
                ));
            }
        }
        self.by_depth.insert(
            depth,
            Prank {
                pranker: inputs.caller,
                sender,
                origin,
                saved_origin: context.tx.caller,
                single,
                used: false,
            },
        );
        Ok(Vec::new())
    }

    /// `vm.stopPrank` from the frame at `depth` (nothing to stop is not an error).
    pub(super) fn stop(&mut self, depth: usize) {
        self.by_depth.remove(&depth);
    }

    /// Whether a prank set by the frame at `depth` is in force.
    pub(super) fn at(&self, depth: usize) -> bool {
        self.by_depth.contains_key(&depth)
    }

    /// Whether no prank is in force (the common case, checked on every call).
    pub(in crate::chain) fn is_empty(&self) -> bool {
        self.by_depth.is_empty()
    }

    /// The new `msg.sender` (and `tx.origin`) of a call or creation by `caller` starting
    /// from the frame at `depth`, if a prank applies to it; marks the prank used.
    pub(in crate::chain) fn apply(
        &mut self,
        depth: usize,
        caller: Address,
    ) -> Option<(Address, Option<Address>)> {
        let prank = self.by_depth.get_mut(&depth)?;
        if prank.pranker != caller {
            return None;
        }
        prank.used = true;
        Some((prank.sender, prank.origin))
    }

    /// A call or creation from the frame at `depth` ended: the `tx.origin` to restore if
    /// it was pranked, and a used single prank is over.
    pub(in crate::chain) fn end(&mut self, depth: usize) -> Option<Address> {
        let prank = self.by_depth.get(&depth)?;
        if !prank.used {
            return None;
        }
        let restore = prank.origin.map(|_| prank.saved_origin);
        if prank.single {
            self.by_depth.remove(&depth);
        }
        restore
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::address;

    const FRAME: Address = address!("0x00000000000000000000000000000000000000aa");
    const ALICE: Address = address!("0x00000000000000000000000000000000000a11ce");

    fn pranks(single: bool) -> Pranks {
        let mut pranks = Pranks::default();
        pranks.by_depth.insert(
            1,
            Prank {
                pranker: FRAME,
                sender: ALICE,
                origin: None,
                saved_origin: Address::ZERO,
                single,
                used: false,
            },
        );
        pranks
    }

    #[test]
    fn single_prank_applies_to_one_call_of_its_frame() {
        let mut pranks = pranks(true);
        assert_eq!(
            pranks.apply(2, FRAME),
            None,
            "deeper calls keep their sender"
        );
        assert_eq!(pranks.apply(1, ALICE), None, "other callers keep theirs");
        assert_eq!(pranks.end(1), None);
        assert!(!pranks.is_empty(), "an unused prank waits for its call");
        assert_eq!(pranks.apply(1, FRAME), Some((ALICE, None)));
        pranks.end(1);
        assert!(pranks.is_empty());
    }

    #[test]
    fn start_prank_lasts_until_stopped() {
        let mut pranks = pranks(false);
        for _ in 0..3 {
            assert_eq!(pranks.apply(1, FRAME), Some((ALICE, None)));
            pranks.end(1);
        }
        pranks.stop(1);
        assert!(pranks.is_empty());
    }
}
