//! Input prediction (HARVEY §4.2): when a mutant differs from its parent in one numeric leaf,
//! pick a cost metric that changed and is non-zero in both runs, fit a line through the two
//! (input, cost) points and propose the input at its root — the secant method, iterated
//! from the last two points while the cost is not yet zero. Exact integer arithmetic on
//! 1024-bit signed intermediates; a proposal is always a well-typed value of the leaf and
//! inside what setup declared: a root outside a parameter's bound is clamped to the bound
//! (the nearest admitted input to the root, the best a linear cost can hope for), and
//! address leaves are not predicted when setup restricted addresses (no numeric neighbour
//! of an allowed address is another allowed one).

use alloy_dyn_abi::DynSolValue;
use alloy_primitives::{Address, B256, I256, Signed, U256, Uint};
use rand::Rng;
use rand::rngs::StdRng;

use crate::abi::{self, LeafPath, umax};
use crate::engine::input::MAX_VALUE;
use crate::engine::input::{Change, Sequence};
use crate::engine::prediction::cost::{Cost, CostKey, ParentCosts};
use crate::engine::surface::Surface;

/// Signed integers wide enough for `c1 * (i1 - i0)`: 256 + 258 bits, with room to spare.
pub(crate) type Wide = Signed<1024, 16>;

/// Secant steps per prediction chain, the first included.
pub(crate) const MAX_STEPS: u32 = 3;

/// A preference rank that excludes a metric from prediction.
pub(crate) const NEVER: u32 = u32::MAX;

/// Which numeric leaf of a sequence a prediction changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Leaf {
    /// An argument leaf of transaction `tx`.
    Arg { tx: usize, path: LeafPath },
    /// `msg.value` of transaction `tx`.
    Value { tx: usize },
    /// The seconds of the warp before transaction `tx`.
    WarpSeconds { tx: usize },
    /// The blocks of the warp before transaction `tx`.
    WarpBlocks { tx: usize },
}

impl Leaf {
    /// The transaction it belongs to.
    pub(crate) fn tx(&self) -> usize {
        match self {
            Leaf::Arg { tx, .. }
            | Leaf::Value { tx }
            | Leaf::WarpSeconds { tx }
            | Leaf::WarpBlocks { tx } => *tx,
        }
    }
}

/// A leaf's integer domain: how a predicted integer becomes a value of the leaf's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Domain {
    Uint(usize),
    Int(usize),
    Address,
    FixedBytes(usize),
    Value,
    Warp,
}

/// A proposed input and what it is meant to achieve.
#[derive(Debug, Clone)]
pub(crate) struct Prediction {
    pub(crate) sequence: Sequence,
    /// The metric it should drive to zero.
    pub(crate) key: CostKey,
    pub(crate) leaf: Leaf,
    /// The last evaluated point (input, cost), for the next secant step.
    last: (Wide, Wide),
    /// Whether the points' costs are signed residuals (`l - r`) rather than distances.
    signed: bool,
    /// The proposed input value.
    proposed: Wide,
    /// Steps taken so far (1 for the first proposal).
    pub(crate) step: u32,
    /// Whether the XOR step was tried in this chain.
    xor_tried: bool,
    /// The leaf's declared bound, as wide integers.
    range: Option<(Wide, Wide)>,
}

/// The first prediction for `child`, a mutant of `parent` by `change`, from their costs;
/// `None` when they differ in something that is not one numeric leaf, or no metric changed
/// while staying non-zero. The metric is drawn among those `preference` ranks lowest;
/// [`NEVER`] excludes one. `surface` says which leaves setup bounded or restricted.
#[allow(clippy::too_many_arguments)]
pub(crate) fn first(
    surface: &Surface,
    parent: &Sequence,
    parent_costs: &ParentCosts,
    child: &Sequence,
    child_costs: &[Cost],
    change: &Change,
    preference: impl Fn(&CostKey) -> u32,
    rng: &mut StdRng,
) -> Option<Prediction> {
    let leaf = leaf_of(change, parent, child)?;
    let (i0, domain) = number(parent, &leaf)?;
    let (i1, _) = number(child, &leaf)?;
    if domain == Domain::Address && surface.addresses.is_some() {
        return None;
    }
    let range = declared_range(surface, child, &leaf);
    // Metrics that moved and are non-zero in both runs; among them, one of those
    // `preference` ranks best (lowest), drawn uniformly. Two passes instead of collecting:
    // this runs for every mutant. The transactions before the leaf's ran as in the parent:
    // none of their metrics moved.
    let candidates = || {
        let moved_from = leaf.tx();
        (child_costs.iter().enumerate())
            .filter(move |(_, c1)| c1.key.tx as usize >= moved_from)
            .filter_map(|(at, c1)| {
                let c0 = parent_costs.get(at, &c1.key)?;
                (c0.value != c1.value && !c0.value.is_zero() && !c1.value.is_zero())
                    .then_some((c0, c1))
            })
    };
    let ranked = || candidates().map(|(c0, c1)| ((c0, c1), preference(&c1.key)));
    let (c0, c1) = draw_lowest(ranked, rng)?;
    let signed = c0.residual.is_some() && c1.residual.is_some();
    let target = Target {
        key: c1.key,
        leaf,
        domain,
        signed,
        range,
    };
    propose(child, target, (i0, y(c0, signed)), (i1, y(c1, signed)), 1)
}

/// One of the items `items()` yields with the lowest rank, drawn uniformly among those
/// that share it; ranks of [`NEVER`] are never drawn. `items` is called twice (two passes
/// instead of collecting: this runs for every mutant).
pub(crate) fn draw_lowest<T, I>(items: impl Fn() -> I, rng: &mut StdRng) -> Option<T>
where
    I: Iterator<Item = (T, u32)>,
{
    let (mut best, mut ties) = (NEVER, 0usize);
    for (_, rank) in items() {
        if rank < best {
            (best, ties) = (rank, 1);
        } else if rank == best && rank != NEVER {
            ties += 1;
        }
    }
    if best == NEVER {
        return None;
    }
    let chosen = rng.random_range(0..ties);
    items()
        .filter(|(_, rank)| *rank == best)
        .nth(chosen)
        .map(|(item, _)| item)
}

/// The bound setup declared for `leaf` (a top-level integer argument, or a warp the
/// campaign's delays limit), as wide integers.
pub(crate) fn declared_range(
    surface: &Surface,
    seq: &Sequence,
    leaf: &Leaf,
) -> Option<(Wide, Wide)> {
    let within = |limit: Option<u32>| limit.map(|l| (Wide::ZERO, wide(U256::from(l))));
    let (tx, path) = match leaf {
        Leaf::Arg { tx, path } => (tx, path),
        Leaf::WarpSeconds { .. } => return within(surface.delays.seconds),
        Leaf::WarpBlocks { .. } => return within(surface.delays.blocks),
        Leaf::Value { .. } => return None,
    };
    let [arg] = path.0[..] else {
        return None;
    };
    let bound = surface.bound(seq.txs.get(*tx)?.function, arg as usize)?;
    let (lo, hi) = bound.raw_ends();
    Some(if bound.signed() {
        (
            wide_signed(I256::from_raw(lo)),
            wide_signed(I256::from_raw(hi)),
        )
    } else {
        (wide(lo), wide(hi))
    })
}

/// `root` as a value of the leaf: inside its declared range when it has one (which lies in
/// the type's domain), else [`fit`] to the domain.
pub(crate) fn admit(root: Wide, domain: Domain, range: Option<(Wide, Wide)>) -> Wide {
    match range {
        Some((lo, hi)) => root.max(lo).min(hi),
        None => fit(root, domain),
    }
}

/// The next secant step after running `prediction`, whose metric now evaluates to `cost`
/// (`None`: not evaluated at all); `None` when the chain ends (minimized, gone, or out of
/// steps; an equality then gets one XOR step, see [`Cost::xor`]).
pub(crate) fn next(prediction: &Prediction, cost: Option<&Cost>) -> Option<Prediction> {
    let cost = cost.filter(|c| !c.value.is_zero())?;
    let (_, domain) = number(&prediction.sequence, &prediction.leaf)?;
    let target = || Target {
        key: prediction.key,
        leaf: prediction.leaf.clone(),
        domain,
        signed: prediction.signed,
        range: prediction.range,
    };
    let point = (prediction.proposed, y(cost, prediction.signed));
    let usable = !(prediction.signed && cost.residual.is_none());
    if prediction.step < MAX_STEPS && usable {
        let step = prediction.step + 1;
        if let Some(mut next) =
            propose(&prediction.sequence, target(), prediction.last, point, step)
        {
            next.xor_tried = prediction.xor_tried;
            return Some(next);
        }
    }
    // The secant steps are spent or the line is flat. An equality may still be reached
    // through XOR with a constant: once per chain, try the input with exactly the bits
    // flipped by which the operands differ.
    let gap = cost.xor.filter(|_| !prediction.xor_tried)?;
    let flipped = admit(
        wide(low_word(prediction.proposed) ^ gap),
        domain,
        prediction.range,
    );
    if flipped == prediction.proposed {
        return None;
    }
    let target = target();
    let sequence = with_number(&prediction.sequence, &target.leaf, flipped, domain)?;
    Some(Prediction {
        sequence,
        key: target.key,
        leaf: target.leaf,
        last: point,
        signed: target.signed,
        proposed: flipped,
        step: prediction.step + 1,
        xor_tried: true,
        range: target.range,
    })
}

/// What a prediction chain aims at.
struct Target {
    key: CostKey,
    leaf: Leaf,
    domain: Domain,
    signed: bool,
    range: Option<(Wide, Wide)>,
}

/// The y coordinate of a cost: its residual when the chain is signed, else its distance.
fn y(cost: &Cost, signed: bool) -> Wide {
    match cost.residual {
        Some(residual) if signed => wide_signed(residual),
        _ => wide(cost.value),
    }
}

/// The sequence with the target's leaf set to the root of the line through `p0` and `p1`.
fn propose(
    base: &Sequence,
    target: Target,
    p0: (Wide, Wide),
    p1: (Wide, Wide),
    step: u32,
) -> Option<Prediction> {
    let root = secant_root(p0, p1)?;
    let value = admit(root, target.domain, target.range);
    if value == p1.0 {
        return None; // the line points back at the input we already ran
    }
    let sequence = with_number(base, &target.leaf, value, target.domain)?;
    Some(Prediction {
        sequence,
        key: target.key,
        leaf: target.leaf,
        last: p1,
        signed: target.signed,
        proposed: value,
        step,
        xor_tried: false,
        range: target.range,
    })
}

/// Where the line through `(i0, c0)` and `(i1, c1)` crosses zero:
/// `i1 - c1 * (i1 - i0) / (c1 - c0)`, rounded to the nearest integer; `None` for a flat
/// line.
pub(crate) fn secant_root((i0, c0): (Wide, Wide), (i1, c1): (Wide, Wide)) -> Option<Wide> {
    let den = c1.checked_sub(c0)?;
    if den.is_zero() {
        return None;
    }
    let num = c1.checked_mul(i1.checked_sub(i0)?)?;
    i1.checked_sub(div_round(num, den)?)
}

/// `num / den` rounded to the nearest integer (halves away from zero).
pub(crate) fn div_round(num: Wide, den: Wide) -> Option<Wide> {
    let quotient = num.checked_div(den)?;
    let remainder = num.checked_sub(quotient.checked_mul(den)?)?;
    let twice = remainder.checked_add(remainder)?;
    if twice.unsigned_abs() < den.unsigned_abs() {
        return Some(quotient);
    }
    // The exact quotient is at least half a unit further from zero, in the sign of num/den.
    if num.is_negative() == den.is_negative() {
        quotient.checked_add(Wide::ONE)
    } else {
        quotient.checked_sub(Wide::ONE)
    }
}

/// The leaf `change` names, if it is a numeric one.
fn leaf_of(change: &Change, parent: &Sequence, child: &Sequence) -> Option<Leaf> {
    match change {
        Change::Leaf { tx, path } => Some(Leaf::Arg {
            tx: *tx,
            path: path.clone(),
        }),
        Change::Value { tx } => Some(Leaf::Value { tx: *tx }),
        Change::Warp { tx } => {
            let (a, b) = (parent.txs.get(*tx)?.warp, child.txs.get(*tx)?.warp);
            if a.seconds != b.seconds {
                Some(Leaf::WarpSeconds { tx: *tx })
            } else {
                Some(Leaf::WarpBlocks { tx: *tx })
            }
        }
        Change::Sender { .. } | Change::Structure => None,
    }
}

/// The leaf's value as an integer, with its domain; `None` for non-numeric leaves (bool,
/// bytes, string, arrays).
pub(crate) fn number(seq: &Sequence, leaf: &Leaf) -> Option<(Wide, Domain)> {
    match leaf {
        Leaf::Arg { tx, path } => match abi::leaf_at(&seq.txs.get(*tx)?.args, path)? {
            DynSolValue::Uint(v, bits) => Some((wide(*v), Domain::Uint(*bits))),
            DynSolValue::Int(v, bits) => Some((wide_signed(*v), Domain::Int(*bits))),
            DynSolValue::Address(a) => {
                Some((wide(U256::from_be_bytes(a.into_word().0)), Domain::Address))
            }
            DynSolValue::FixedBytes(word, size) => {
                let number = U256::from_be_slice(&word[..*size]);
                Some((wide(number), Domain::FixedBytes(*size)))
            }
            _ => None,
        },
        Leaf::Value { tx } => Some((wide(seq.txs.get(*tx)?.value), Domain::Value)),
        Leaf::WarpSeconds { tx } => Some((
            wide(U256::from(seq.txs.get(*tx)?.warp.seconds)),
            Domain::Warp,
        )),
        Leaf::WarpBlocks { tx } => Some((
            wide(U256::from(seq.txs.get(*tx)?.warp.blocks)),
            Domain::Warp,
        )),
    }
}

/// `seq` with `leaf` set to `value` (already inside `domain`).
pub(crate) fn with_number(
    seq: &Sequence,
    leaf: &Leaf,
    value: Wide,
    domain: Domain,
) -> Option<Sequence> {
    let mut out = seq.clone();
    let word = low_word(value);
    match leaf {
        Leaf::Arg { tx, path } => {
            let typed = match domain {
                Domain::Uint(bits) => DynSolValue::Uint(word, bits),
                Domain::Int(bits) => DynSolValue::Int(I256::from_raw(word), bits),
                Domain::Address => DynSolValue::Address(Address::from_word(B256::from(word))),
                Domain::FixedBytes(size) => {
                    let mut bytes = [0u8; 32];
                    bytes[..size].copy_from_slice(&word.to_be_bytes::<32>()[32 - size..]);
                    DynSolValue::FixedBytes(B256::from(bytes), size)
                }
                Domain::Value | Domain::Warp => return None,
            };
            abi::set_leaf(&mut out.txs.get_mut(*tx)?.args, path, typed).then_some(out)
        }
        Leaf::Value { tx } => {
            out.txs.get_mut(*tx)?.value = word;
            Some(out)
        }
        Leaf::WarpSeconds { tx } => {
            out.txs.get_mut(*tx)?.warp.seconds = word.to::<u64>();
            Some(out)
        }
        Leaf::WarpBlocks { tx } => {
            out.txs.get_mut(*tx)?.warp.blocks = word.to::<u64>();
            Some(out)
        }
    }
}

/// `root` inside `domain`: 256-bit integers wrap (EVM arithmetic is modular, so a root
/// below zero is often the wrapped value the contract computes with, e.g. a storage slot);
/// narrower ones are clamped to their range.
fn fit(root: Wide, domain: Domain) -> Wide {
    match domain {
        Domain::Uint(256) => wrap(root, false),
        Domain::Int(256) => wrap(root, true),
        _ => {
            let (min, max) = domain_bounds(domain);
            root.max(min).min(max)
        }
    }
}

/// The smallest and largest integers a leaf of `domain` holds.
fn domain_bounds(domain: Domain) -> (Wide, Wide) {
    match domain {
        Domain::Uint(bits) => (Wide::ZERO, wide(umax(bits))),
        Domain::Int(bits) => {
            let max = wide(umax(bits - 1));
            (-max - Wide::ONE, max)
        }
        Domain::Address => (Wide::ZERO, wide(umax(160))),
        Domain::FixedBytes(size) => (Wide::ZERO, wide(umax(size * 8))),
        Domain::Value => (Wide::ZERO, wide(MAX_VALUE - U256::ONE)),
        Domain::Warp => (Wide::ZERO, wide(umax(32))),
    }
}

/// The smallest and largest integers a leaf of `domain` may take: its declared `range`,
/// else its type's (without the wrap-around [`fit`] applies to 256-bit roots).
pub(crate) fn bounds(domain: Domain, range: Option<(Wide, Wide)>) -> (Wide, Wide) {
    range.unwrap_or_else(|| domain_bounds(domain))
}

/// `value` mod 2^256, as an unsigned or a two's-complement signed 256-bit integer.
fn wrap(value: Wide, signed: bool) -> Wide {
    let word = low_word(value);
    if signed {
        wide_signed(I256::from_raw(word))
    } else {
        wide(word)
    }
}

/// The low 256 bits of `value`'s two's-complement representation.
fn low_word(value: Wide) -> U256 {
    let raw = value.into_raw();
    U256::from_limbs(raw.as_limbs()[..4].try_into().expect("four limbs"))
}

/// An unsigned 256-bit integer as a wide one.
pub(crate) fn wide(value: U256) -> Wide {
    let mut limbs = [0u64; 16];
    limbs[..4].copy_from_slice(value.as_limbs());
    Wide::from_raw(Uint::from_limbs(limbs))
}

/// A signed 256-bit integer as a wide one.
pub(crate) fn wide_signed(value: I256) -> Wide {
    if value.is_negative() {
        -wide(value.unsigned_abs())
    } else {
        wide(value.into_raw())
    }
}

#[cfg(test)]
mod tests;
