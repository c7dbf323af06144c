//! Invariants checked only when what they read may have changed (issue 43: a protocol with
//! many invariants spent most of its time checking them after calls that touched none of
//! their state). A suite's invariant function is a call whose answer is a function of the
//! storage it loads and stores, unless it reads more ([`Reads::volatile`]); so once it held,
//! it holds again after a transaction that wrote none of those slots, as long as no
//! cheatcode, creation or self-destruct changed what else it reads. The chain records the
//! reads as the check runs, and its trace of the transaction says what it stored to; the
//! executor says whether anything else moved.

use alloy_primitives::{Address, U256};

use crate::chain::{Chain, Reads};
use crate::observe::{StorageOp, Trace};
use crate::oracle::Invariant;
use crate::outcome::Violation;

/// What each invariant of a campaign read when it last held, for one executor.
pub(crate) struct HeldInvariants {
    /// Per invariant (the oracles' order): what its last check read, when it held and
    /// read nothing but storage; `None` when it must be checked.
    reads: Vec<Option<Reads>>,
    /// Whether skipping is on (the `skip_unchanged_invariants` setting).
    on: bool,
    /// Invariant checks run, and skipped.
    pub(crate) checked: u64,
    pub(crate) skipped: u64,
}

impl HeldInvariants {
    /// Nothing known yet of `count` invariants; skipping `on` or not.
    pub(crate) fn new(count: usize, on: bool) -> HeldInvariants {
        HeldInvariants {
            reads: vec![None; count],
            on,
            checked: 0,
            skipped: 0,
        }
    }

    /// Tracks `count` invariants from now on, nothing known of them yet; whether it skips
    /// and its counts stay (a shrinking run checks only the invariant it shrinks for).
    pub(crate) fn track(&mut self, count: usize) {
        self.reads = vec![None; count];
    }

    /// Whether skipping is on (the `skip_unchanged_invariants` setting).
    pub(crate) fn on(&self) -> bool {
        self.on
    }

    /// Counts `count` invariants skipped after a transaction that ran, after the same
    /// transactions from the same state, as in the executor's last run, where they held
    /// (the executor's [`RunStart::unchanged`](crate::engine::executor::RunStart)): they
    /// read the same state, and hold again.
    pub(crate) fn skip_repeated(&mut self, count: usize) {
        self.skipped += count as u64;
    }

    /// Forgets every invariant's reads: the state changed in a way they do not show (a new
    /// run from the snapshot, a cheatcode that wrote state, code created or destroyed).
    pub(crate) fn forget(&mut self) {
        self.reads.iter_mut().for_each(|reads| *reads = None);
    }

    /// The storage slots (account, slot) the transaction of `trace` stored to, sorted:
    /// reverted frames' too, which can only make a check run that could have been skipped.
    fn written(trace: &Trace) -> Vec<(Address, U256)> {
        let mut written: Vec<(Address, U256)> = trace
            .storage()
            .iter()
            .filter(|access| access.op == StorageOp::Store)
            .map(|access| (access.address, access.slot))
            .collect();
        written.sort_unstable();
        written.dedup();
        written
    }

    /// The violations of `invariants` on `chain` after the transaction whose trace the
    /// chain holds: each invariant whose last check held and read none of the slots that
    /// transaction stored to is skipped; the others are checked, their reads recorded when
    /// they read only through probes. The slots are collected only when some invariant's
    /// reads are known (never with skipping off, or with Rust invariants alone). The checks
    /// run under [`Chain::checking`].
    pub(crate) fn check(
        &mut self,
        invariants: &[Invariant<'_>],
        chain: &mut Chain,
    ) -> Vec<Violation> {
        let written = if self.reads.iter().any(Option::is_some) {
            HeldInvariants::written(chain.last_trace())
        } else {
            Vec::new()
        };
        // Observed, when the chain observes checks: what they compared guides the fuzzer.
        chain.checking(|chain| {
            let mut found = Vec::new();
            for (invariant, last) in invariants.iter().zip(&mut self.reads) {
                if last.as_ref().is_some_and(|reads| !reads.meets(&written)) {
                    self.skipped += 1;
                    continue;
                }
                self.checked += 1;
                let recorded = self.on && invariant.through_probes;
                if recorded {
                    chain.record_reads();
                }
                let violation = invariant.violation(chain);
                let reads = if recorded { chain.take_reads() } else { None };
                *last = reads.filter(|reads| violation.is_none() && !reads.volatile);
                found.extend(violation);
            }
            found
        })
    }
}
