//! The fuzzer's inputs: sequences of transactions made of typed leaves, and the record of
//! which leaf a mutation changed (input prediction pairs runs that differ in one leaf).

use alloy_dyn_abi::DynSolValue;
use alloy_primitives::U256;

use crate::abi::LeafPath;
use crate::chain::Warp;

/// Largest generated `msg.value`: 1% of a sender's initial balance, so that most payable
/// calls can be paid for several times in one sequence.
pub(crate) const MAX_VALUE: U256 = U256::from_limbs([0x19e0_c9ba_b240_0000, 0x21e, 0, 0]);

/// One transaction: who calls which fuzzed function with what.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TxInput {
    /// Index into the surface's senders.
    pub(crate) sender: usize,
    /// Index into the surface's functions.
    pub(crate) function: usize,
    /// The arguments, typed as the function's inputs.
    pub(crate) args: Vec<DynSolValue>,
    /// `msg.value` (zero unless the function is payable).
    pub(crate) value: U256,
    /// Time passing before the transaction.
    pub(crate) warp: Warp,
    /// For a function of a created kind: which of the contracts of that kind the run created
    /// so far it calls, counted back from the newest (wrapping around); 0 otherwise.
    pub(crate) instance: u8,
}

#[cfg(test)]
impl TxInput {
    /// A call of `function` with `args` from the first sender, without value or warp: the
    /// transaction unit tests build.
    pub(crate) fn of(function: usize, args: Vec<DynSolValue>) -> TxInput {
        TxInput {
            sender: 0,
            function,
            args,
            value: U256::ZERO,
            warp: Warp::default(),
            instance: 0,
        }
    }
}

/// Transactions run in order from the post-setup state.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Sequence {
    /// The transactions; never more than the campaign's depth.
    pub(crate) txs: Vec<TxInput>,
}

impl Sequence {
    /// The sequence up to and including transaction `index`: what a run showed after that
    /// transaction (a violation, a target reached) needs nothing after it.
    pub(crate) fn through(&self, index: usize) -> Sequence {
        Sequence {
            txs: self.txs.iter().take(index + 1).cloned().collect(),
        }
    }
}

/// What a mutation changed in its parent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    /// One argument leaf of transaction `tx`.
    Leaf {
        /// The transaction's index.
        tx: usize,
        /// The leaf inside its arguments.
        path: LeafPath,
    },
    /// `msg.value` of transaction `tx`.
    Value {
        /// The transaction's index.
        tx: usize,
    },
    /// The time warp before transaction `tx`.
    Warp {
        /// The transaction's index.
        tx: usize,
    },
    /// The sender of transaction `tx`.
    Sender {
        /// The transaction's index.
        tx: usize,
    },
    /// Transactions were added, removed, replaced or spliced, or several leaves changed.
    Structure,
}

impl Change {
    /// The first transaction it changed (0 for a change of structure: any may differ).
    pub(crate) fn first_tx(&self) -> usize {
        match self {
            Change::Leaf { tx, .. }
            | Change::Value { tx }
            | Change::Warp { tx }
            | Change::Sender { tx } => *tx,
            Change::Structure => 0,
        }
    }
}
