//! Mask-guided mutation (MuFuzz §IV-B, after FairFuzz): which inputs of a corpus entry may
//! change without leaving its path. MuFuzz probes each byte of an input with each mutation
//! type and lets later mutations touch only the positions whose probe still hit the
//! seed's branch. harvey's inputs are typed, so a position is one input of one transaction
//! — a top-level argument, the sender, `msg.value`, the warp — probed once with one random
//! mutation of that input: a probe whose run ends on another path id (of the last
//! transaction) *holds* the position, and one-transaction mutations of the entry then
//! change only free positions. What holds a path is what the state its last transaction
//! runs in depends on (the approval before the spend, the accepted steps of a chain) and
//! the arguments that satisfy its conditions, so mutations stop undoing them.
//!
//! Differences from MuFuzz: positions are typed inputs rather than bytes, one probe per
//! position rather than one per mutation type (harvey's mutations of a leaf are drawn per
//! leaf type), and insertion and deletion of transactions are not masked (sequence
//! operations are what grows and shortens sequences).

use crate::engine::input::Sequence;
use crate::engine::surface::Surface;

/// Positions probed at most per entry: a longer entry's other positions stay free.
pub(crate) const MAX_PROBES: usize = 16;

/// One input of a transaction that a mutation can change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Input {
    /// A top-level argument, with every leaf inside it.
    Argument(usize),
    /// Who sends the transaction.
    Sender,
    /// `msg.value` (payable calls).
    Value,
    /// The time warp before the transaction.
    Warp,
}

/// The held inputs of one transaction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Held {
    /// Bit `i`: argument `i` is held (arguments from the 64th on are never held).
    arguments: u64,
    sender: bool,
    value: bool,
    warp: bool,
}

/// Which inputs of each transaction of a corpus entry its probes held; everything else is
/// free.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Mask {
    txs: Vec<Held>,
}

impl Mask {
    /// The positions of `sequence` worth probing, last transaction first (its conditions
    /// decide the path directly), at most [`MAX_PROBES`]: each argument, the sender when
    /// there are several, the value of a payable call, the warp.
    pub(crate) fn probes(sequence: &Sequence, surface: &Surface) -> Vec<(usize, Input)> {
        let mut probes = Vec::new();
        for (index, tx) in sequence.txs.iter().enumerate().rev() {
            let function = &surface.functions[tx.function];
            probes.extend((0..function.types.len()).map(|arg| (index, Input::Argument(arg))));
            if surface.senders.len() > 1 {
                probes.push((index, Input::Sender));
            }
            if function.payable {
                probes.push((index, Input::Value));
            }
            probes.push((index, Input::Warp));
        }
        probes.truncate(MAX_PROBES);
        probes
    }

    /// Holds `input` of transaction `tx`: a probe of it left the entry's path.
    pub(crate) fn hold(&mut self, tx: usize, input: Input) {
        if self.txs.len() <= tx {
            self.txs.resize(tx + 1, Held::default());
        }
        let held = &mut self.txs[tx];
        match input {
            Input::Argument(arg) if arg < 64 => held.arguments |= 1 << arg,
            Input::Argument(_) => {}
            Input::Sender => held.sender = true,
            Input::Value => held.value = true,
            Input::Warp => held.warp = true,
        }
    }

    /// Whether mutations may change `input` of transaction `tx`.
    pub(crate) fn is_free(&self, tx: usize, input: Input) -> bool {
        let Some(held) = self.txs.get(tx) else {
            return true;
        };
        match input {
            Input::Argument(arg) => arg >= 64 || held.arguments & (1 << arg) == 0,
            Input::Sender => !held.sender,
            Input::Value => !held.value,
            Input::Warp => !held.warp,
        }
    }

    /// How many positions it holds.
    pub(crate) fn held(&self) -> usize {
        self.txs
            .iter()
            .map(|h| {
                h.arguments.count_ones() as usize
                    + usize::from(h.sender)
                    + usize::from(h.value)
                    + usize::from(h.warp)
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_positions_are_not_free_and_everything_else_is() {
        let mut mask = Mask::default();
        assert!(
            mask.is_free(3, Input::Argument(0)),
            "nothing probed: all free"
        );
        mask.hold(1, Input::Argument(2));
        mask.hold(1, Input::Sender);
        mask.hold(0, Input::Argument(70));
        assert!(!mask.is_free(1, Input::Argument(2)));
        assert!(!mask.is_free(1, Input::Sender));
        assert!(mask.is_free(1, Input::Argument(1)));
        assert!(mask.is_free(1, Input::Value) && mask.is_free(1, Input::Warp));
        assert!(
            mask.is_free(0, Input::Argument(70)),
            "past 64 arguments: free"
        );
        assert!(mask.is_free(2, Input::Sender));
        assert_eq!(mask.held(), 2);
    }
}
