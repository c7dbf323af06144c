//! Making inputs: random transactions, and mutants of a corpus sequence (one typed leaf,
//! sender, value or warp; or a sequence operation: append, insert, remove, replace, splice).

use alloy_dyn_abi::DynSolValue;
use alloy_primitives::U256;
use rand::Rng;
use rand::rngs::StdRng;

use crate::abi::{self, Dictionary, LeafPath};
use crate::chain::Warp;
use crate::engine::input::{Change, Sequence, TxInput};
use crate::engine::surface::Surface;

/// Largest generated `msg.value`: 1% of a sender's initial balance, so that most payable
/// calls can be paid for several times in one sequence.
pub(crate) const MAX_VALUE: U256 = U256::from_limbs([0x19e0_c9ba_b240_0000, 0x21e, 0, 0]);

/// Durations a time warp likes to take: a second, a block, a minute, an hour, a day, a
/// week, thirty days, a year.
const WARP_SECONDS: [u64; 8] = [1, 12, 60, 3_600, 86_400, 604_800, 2_592_000, 31_536_000];

/// Seconds per block when a warp derives blocks from seconds.
const BLOCK_TIME: u64 = 12;

/// Makes transactions and mutants for one worker.
pub(crate) struct Mutator<'a> {
    surface: &'a Surface,
    depth: usize,
}

impl<'a> Mutator<'a> {
    /// A mutator over `surface` that keeps sequences at most `depth` long.
    pub(crate) fn new(surface: &'a Surface, depth: usize) -> Self {
        Mutator {
            surface,
            depth: depth.max(1),
        }
    }

    /// A fresh transaction calling `function`.
    pub(crate) fn tx_for(&self, function: usize, rng: &mut StdRng, dict: &Dictionary) -> TxInput {
        let f = &self.surface.functions[function];
        TxInput {
            sender: rng.random_range(0..self.surface.senders.len()),
            function,
            args: f
                .types
                .iter()
                .map(|ty| abi::generate(ty, rng, dict))
                .collect(),
            value: if f.payable {
                random_value(rng, dict)
            } else {
                U256::ZERO
            },
            warp: random_warp(rng),
        }
    }

    /// A fresh transaction calling a random function.
    pub(crate) fn random_tx(&self, rng: &mut StdRng, dict: &Dictionary) -> TxInput {
        let function = rng.random_range(0..self.surface.functions.len());
        self.tx_for(function, rng, dict)
    }

    /// A mutant of `parent` and what changed. Usually one change (so input prediction can
    /// pair parent and child); sometimes a stack of several (AFL's havoc), recorded as
    /// [`Change::Structure`]. `donor` is another corpus sequence to splice with.
    pub(crate) fn mutate(
        &self,
        parent: &Sequence,
        donor: &Sequence,
        rng: &mut StdRng,
        dict: &Dictionary,
    ) -> (Sequence, Change) {
        let mut child = parent.clone();
        if child.txs.is_empty() {
            child.txs.push(self.random_tx(rng, dict));
            return (child, Change::Structure);
        }
        if rng.random_bool(0.1) {
            for _ in 0..rng.random_range(2..=4) {
                self.mutate_once(&mut child, donor, rng, dict);
            }
            return (child, Change::Structure);
        }
        let change = self.mutate_once(&mut child, donor, rng, dict);
        (child, change)
    }

    /// One change to `seq` (never empty), chosen by weight among those that apply.
    fn mutate_once(
        &self,
        seq: &mut Sequence,
        donor: &Sequence,
        rng: &mut StdRng,
        dict: &Dictionary,
    ) -> Change {
        let len = seq.txs.len();
        let at = rng.random_range(0..len);
        let roll = rng.random_range(0..100);
        if roll < 7 {
            if let Some(path) = self.reuse_argument(seq, at, rng) {
                return Change::Leaf { tx: at, path };
            }
        }
        if roll < 35 {
            let tx = &mut seq.txs[at];
            let types = &self.surface.functions[tx.function].types;
            if let Some(path) = abi::mutate(&mut tx.args, types, rng, dict) {
                return Change::Leaf { tx: at, path };
            }
            // No arguments: change how it is sent instead.
        }
        if roll < 45 && self.surface.senders.len() > 1 {
            let tx = &mut seq.txs[at];
            let other = rng.random_range(1..self.surface.senders.len());
            tx.sender = (tx.sender + other) % self.surface.senders.len();
            return Change::Sender { tx: at };
        }
        if roll < 50 && self.surface.functions[seq.txs[at].function].payable {
            let tx = &mut seq.txs[at];
            tx.value = abi::mutate_uint(tx.value, 256, rng, dict) % MAX_VALUE;
            return Change::Value { tx: at };
        }
        if roll < 55 {
            mutate_warp(&mut seq.txs[at].warp, rng, dict);
            return Change::Warp { tx: at };
        }
        self.mutate_structure(seq, donor, rng, dict);
        Change::Structure
    }

    /// Copies an argument of another transaction in `seq` into an argument of the same type
    /// of transaction `at` (commit/reveal patterns need one value in two calls); the path of
    /// the changed argument, or `None` when no other transaction has a differing argument
    /// of a matching type.
    fn reuse_argument(&self, seq: &mut Sequence, at: usize, rng: &mut StdRng) -> Option<LeafPath> {
        let types = &self.surface.functions[seq.txs[at].function].types;
        let mut options: Vec<(usize, usize, usize)> = Vec::new();
        for (from, other) in seq.txs.iter().enumerate().filter(|(i, _)| *i != at) {
            let other_types = &self.surface.functions[other.function].types;
            for (target, ty) in types.iter().enumerate() {
                for (source, other_ty) in other_types.iter().enumerate() {
                    if ty == other_ty && seq.txs[at].args[target] != other.args[source] {
                        options.push((from, source, target));
                    }
                }
            }
        }
        if options.is_empty() {
            return None;
        }
        let (from, source, target) = options[rng.random_range(0..options.len())];
        let value = seq.txs[from].args[source].clone();
        seq.txs[at].args[target] = value;
        Some(LeafPath(vec![target as u32]))
    }

    /// A sequence operation: append, insert, remove, replace or splice.
    fn mutate_structure(
        &self,
        seq: &mut Sequence,
        donor: &Sequence,
        rng: &mut StdRng,
        dict: &Dictionary,
    ) {
        let len = seq.txs.len();
        match rng.random_range(0..5) {
            0 if len < self.depth => seq.txs.push(self.random_tx(rng, dict)),
            1 if len < self.depth => {
                let at = rng.random_range(0..=len);
                seq.txs.insert(at, self.random_tx(rng, dict));
            }
            2 if len > 1 => {
                let at = rng.random_range(0..len);
                let removed = seq.txs.remove(at);
                // Keep the time that passed: the next transaction inherits the warp.
                if let Some(next) = seq.txs.get_mut(at) {
                    next.warp = add_warps(removed.warp, next.warp);
                }
            }
            3 if !donor.txs.is_empty() => {
                // Our prefix, the donor's suffix.
                let keep = rng.random_range(0..=len);
                let from = rng.random_range(0..donor.txs.len());
                seq.txs.truncate(keep);
                seq.txs.extend(donor.txs[from..].iter().cloned());
                seq.txs.truncate(self.depth);
                if seq.txs.is_empty() {
                    seq.txs.push(self.random_tx(rng, dict));
                }
            }
            _ => {
                let at = rng.random_range(0..len);
                seq.txs[at] = self.random_tx(rng, dict);
            }
        }
    }
}

/// The warp of two consecutive waits.
pub(crate) fn add_warps(a: Warp, b: Warp) -> Warp {
    Warp {
        seconds: a.seconds.saturating_add(b.seconds),
        blocks: a.blocks.saturating_add(b.blocks),
    }
}

/// Mostly no wait; otherwise a typical duration or a random one below a year, with the
/// matching number of blocks.
fn random_warp(rng: &mut StdRng) -> Warp {
    if rng.random_bool(0.75) {
        return Warp::default();
    }
    let seconds = if rng.random_bool(0.7) {
        WARP_SECONDS[rng.random_range(0..WARP_SECONDS.len())]
    } else {
        rng.random_range(1..=WARP_SECONDS[WARP_SECONDS.len() - 1])
    };
    Warp {
        seconds,
        blocks: (seconds / BLOCK_TIME).max(1),
    }
}

/// Changes the seconds or the blocks of `warp` (each a 32-bit leaf: decades at most).
fn mutate_warp(warp: &mut Warp, rng: &mut StdRng, dict: &Dictionary) {
    let leaf = if rng.random_bool(0.7) {
        &mut warp.seconds
    } else {
        &mut warp.blocks
    };
    let mutated = abi::mutate_uint(U256::from(*leaf), 32, rng, dict);
    *leaf = mutated.to::<u64>();
}

/// `msg.value` for a payable call: often zero, else small amounts, round ether amounts, or
/// dictionary values, always at most [`MAX_VALUE`].
fn random_value(rng: &mut StdRng, dict: &Dictionary) -> U256 {
    match rng.random_range(0..10) {
        0..=3 => U256::ZERO,
        4 | 5 => U256::from(rng.random_range(1..=1_000u64)),
        6 | 7 => U256::from(10u64).pow(U256::from(rng.random_range(0..=21u64))),
        _ => {
            let word = match abi::generate(&alloy_dyn_abi::DynSolType::Uint(256), rng, dict) {
                DynSolValue::Uint(word, _) => word,
                _ => U256::ZERO,
            };
            word % MAX_VALUE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_reused_between_transactions_of_matching_types() {
        use crate::engine::surface::FuzzFunction;
        use alloy_dyn_abi::DynSolType;
        use alloy_primitives::Address;
        use rand::SeedableRng;
        let function = |name: &str, types: Vec<DynSolType>| FuzzFunction {
            contract: "C".into(),
            address: Address::ZERO,
            signature: format!("{name}(..)"),
            selector: Default::default(),
            params: vec![String::new(); types.len()],
            types,
            payable: false,
        };
        let surface = Surface {
            functions: vec![
                function("commit", vec![DynSolType::Uint(256)]),
                function("reveal", vec![DynSolType::Bool, DynSolType::Uint(256)]),
            ],
            senders: vec![Address::ZERO],
        };
        let tx = |function, args| TxInput {
            sender: 0,
            function,
            args,
            value: U256::ZERO,
            warp: Warp::default(),
        };
        let secret = DynSolValue::Uint(U256::from(1234), 256);
        let mut seq = Sequence {
            txs: vec![
                tx(0, vec![secret.clone()]),
                tx(
                    1,
                    vec![
                        DynSolValue::Bool(true),
                        DynSolValue::Uint(U256::from(9), 256),
                    ],
                ),
            ],
        };
        let mutator = Mutator::new(&surface, 8);
        let mut rng = StdRng::seed_from_u64(1);
        let path = mutator.reuse_argument(&mut seq, 1, &mut rng);
        assert_eq!(path, Some(LeafPath(vec![1])));
        assert_eq!(seq.txs[1].args[1], secret);
        assert_eq!(
            mutator.reuse_argument(&mut seq, 1, &mut rng),
            None,
            "already equal"
        );
    }

    #[test]
    fn max_value_is_one_percent_of_a_senders_balance() {
        assert_eq!(MAX_VALUE * U256::from(100), crate::chain::INITIAL_BALANCE);
    }

    #[test]
    fn removed_waits_carry_forward() {
        let a = Warp {
            seconds: 60,
            blocks: 5,
        };
        let b = Warp {
            seconds: 1,
            blocks: 1,
        };
        assert_eq!(
            add_warps(a, b),
            Warp {
                seconds: 61,
                blocks: 6
            }
        );
    }
}
