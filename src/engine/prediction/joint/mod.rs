//! Joint prediction (issue 30): predicting several integer inputs of one call together, for
//! a branch whose comparison couples them with comparisons the path already satisfies
//! (`p2 == p3 * p3 && p1 == p4 * p3 && p1 >= p2`). HARVEY's secant method (`predict`)
//! moves one input; satisfying the last comparison that way breaks one before it, the path
//! no longer reaches the comparison, and no chain even starts. The inputs moved are the
//! call's and those of the calls before it that store what it reads ([`leaves`]: an amount
//! and the allowance that bounds it). Here:
//!
//! 1. The call's comparisons up to the target one are recorded as [`Relation`]s: residuals
//!    `lhs - rhs` as exact integers (signed for `SLT`/`SGT`), whose sign says whether each
//!    holds.
//! 2. Each integer input is moved by one and the call run again: the residuals' changes are
//!    the columns of the (finite-difference) Jacobian, exact for linear comparisons. An
//!    input that leaves the path before the target when moved up (one equal to a bound it
//!    may not pass) is moved down instead.
//! 3. The equalities the path satisfies before the target (`held`) must stay satisfied:
//!    for each in path order, the integer kernel of its row (within the directions that
//!    kept the ones before) gives the directions that keep it, and those are probed in turn
//!    (a comparison after a broken conjunct is never evaluated, so its Jacobian is only
//!    known along directions that keep the conjuncts before it).
//! 4. Along those directions, the target's residual is driven across its boundary (to zero
//!    for an equality, to the nearest integer on the wanted side otherwise), solved over the
//!    integers (`system`); a candidate step that would flip an earlier comparison or move an
//!    input out of its domain is replaced by a small search over what to hold, then by the
//!    nearest point on lines of solutions that keeps everything (see [`Jacobian::step`]).
//!
//! Newton's method with the secant's finite differences: a linear map is solved in one
//! step, a nonlinear one in a few ([`MAX_STEPS`], each re-probing). The worker runs the
//! probes and proposals; this module is the arithmetic, pure and unit-tested.

pub(crate) mod system;

use alloy_primitives::{Address, I256};

use crate::abi;
use crate::engine::input::Sequence;
use crate::engine::prediction::cost::{CostKey, CostKind, Occurrences};
pub(crate) use crate::engine::prediction::secant::Leaf;
use crate::engine::prediction::secant::{self, Domain, Wide, wide, wide_signed};
use crate::engine::surface::Surface;
use crate::hash::FastMap;
use crate::observe::{CmpOp, Trace};
use system::{Matrix, dot};

/// Inputs moved together, at most: the call's own first, in argument order, then those of
/// the calls before it that feed it, nearest first (see [`leaves`]).
pub(crate) const MAX_LEAVES: usize = 8;

/// Newton steps per joint prediction (each probes again).
pub(crate) const MAX_STEPS: u32 = 4;

/// Equations added for comparisons a step would flip or inputs it would move out of their
/// domain, at most, on one line of the search for a step.
const MAX_HOLDS: usize = 8;

/// Sets of holds the search for a step tries, at most (each a few small integer solves,
/// no runs).
const MAX_NODES: usize = 64;

/// Candidate steps whose faults the search for a step branches on, per set of holds.
const BRANCHES: usize = 3;

/// One comparison deciding a JUMPI in an observed call, as joint prediction reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Relation {
    /// The transaction that evaluated it.
    tx: u32,
    code: Address,
    /// The JUMPI's pc.
    pc: u32,
    /// Its occurrence at that JUMPI in the call, from 0 (loop iterations differ).
    nth: u32,
    op: CmpOp,
    /// `lhs - rhs` as integers (as signed words for `SLT`/`SGT`); `lhs` for `ISZERO`.
    residual: Wide,
}

impl Relation {
    /// Whether the comparison holds (before any negation).
    fn holds(&self) -> bool {
        holds(self.op, self.residual)
    }

    /// Whether it holds as an equality: a condition the path keeps only on a hyperplane.
    fn held_equality(&self) -> bool {
        matches!(self.op, CmpOp::Eq | CmpOp::IsZero) && self.holds()
    }

    fn site(&self) -> Site {
        (self.tx, self.code, self.pc, self.nth)
    }
}

/// Whether a comparison `op` holds at residual `residual`.
fn holds(op: CmpOp, residual: Wide) -> bool {
    match op {
        CmpOp::Eq | CmpOp::IsZero => residual.is_zero(),
        CmpOp::Lt | CmpOp::Slt => residual.is_negative(),
        CmpOp::Gt | CmpOp::Sgt => residual.is_positive(),
    }
}

/// Appends the relations of `trace` (transaction `tx`) to `out`.
pub(crate) fn record(trace: &Trace, tx: u32, seen: &mut Occurrences, out: &mut Vec<Relation>) {
    seen.clear();
    for cmp in trace.comparisons() {
        let nth = seen.next(cmp.code, cmp.jumpi_pc, false);
        let residual = match cmp.op {
            CmpOp::IsZero => wide(cmp.lhs),
            CmpOp::Slt | CmpOp::Sgt => {
                wide_signed(I256::from_raw(cmp.lhs)) - wide_signed(I256::from_raw(cmp.rhs))
            }
            _ => wide(cmp.lhs) - wide(cmp.rhs),
        };
        out.push(Relation {
            tx,
            code: cmp.code,
            pc: cmp.jumpi_pc,
            nth,
            op: cmp.op,
            residual,
        });
    }
}

/// The integer inputs joint prediction moves for a branch of transaction `tx` of
/// `sequence`: that call's (see [`inputs_of`]), then those of the calls before it whose
/// function `feeds` says stores what the call reads, nearest first; at most
/// [`MAX_LEAVES`]. A call may compare an input with a bound another call stored
/// (`amount <= allowance[from][msg.sender]`, set by `approve`) and need it past a
/// threshold the bound keeps it under (`amount > 1000` with the allowance at 979, spent
/// exactly): the input gets there only if the call that stored the bound moves with it.
pub(crate) fn leaves(
    surface: &Surface,
    sequence: &Sequence,
    tx: usize,
    feeds: impl Fn(usize) -> bool,
) -> Vec<Leaf> {
    let mut leaves = inputs_of(surface, sequence, tx);
    for earlier in (0..tx.min(sequence.txs.len())).rev() {
        if leaves.len() >= MAX_LEAVES {
            break;
        }
        if feeds(sequence.txs[earlier].function) {
            leaves.extend(inputs_of(surface, sequence, earlier));
        }
    }
    leaves.truncate(MAX_LEAVES);
    leaves
}

/// The integer inputs of transaction `tx` of `sequence`: its integer argument leaves and,
/// for a payable function, its value.
fn inputs_of(surface: &Surface, sequence: &Sequence, tx: usize) -> Vec<Leaf> {
    let Some(call) = sequence.txs.get(tx) else {
        return Vec::new();
    };
    let mut leaves: Vec<Leaf> = abi::integer_leaves(&call.args)
        .into_iter()
        .map(|path| Leaf::Arg { tx, path })
        .collect();
    if surface.functions[call.function].payable {
        leaves.push(Leaf::Value { tx });
    }
    leaves
}

/// `sequence` with each of `leaves` moved by the matching entry of `offset`, or `None` when
/// a moved value leaves its leaf's domain (its type, or the bound setup declared).
pub(crate) fn moved(
    surface: &Surface,
    sequence: &Sequence,
    leaves: &[Leaf],
    offset: &[Wide],
) -> Option<Sequence> {
    let mut out = sequence.clone();
    for (leaf, step) in leaves.iter().zip(offset) {
        if step.is_zero() {
            continue;
        }
        let (value, domain, (lo, hi)) = within(surface, &out, leaf)?;
        let target = value.checked_add(*step)?;
        if target < lo || target > hi {
            return None;
        }
        out = secant::with_number(&out, leaf, target, domain)?;
    }
    Some(out)
}

/// Per leaf of `leaves` in `sequence`: the smallest and largest offsets that keep it in its
/// domain (its type, or the bound setup declared); `None` for a leaf that is not an
/// integer.
pub(crate) fn offset_bounds(
    surface: &Surface,
    sequence: &Sequence,
    leaves: &[Leaf],
) -> Option<Vec<(Wide, Wide)>> {
    leaves
        .iter()
        .map(|leaf| {
            let (value, _, (lo, hi)) = within(surface, sequence, leaf)?;
            Some((lo.checked_sub(value)?, hi.checked_sub(value)?))
        })
        .collect()
}

/// `leaf`'s value in `sequence`, its domain, and the smallest and largest values it may
/// take (its type's, or the bound setup declared).
fn within(
    surface: &Surface,
    sequence: &Sequence,
    leaf: &Leaf,
) -> Option<(Wide, Domain, (Wide, Wide))> {
    let (value, domain) = secant::number(sequence, leaf)?;
    let range = secant::declared_range(surface, sequence, leaf);
    Some((value, domain, secant::bounds(domain, range)))
}

/// `-v`.
fn negated(v: &[Wide]) -> Vec<Wide> {
    v.iter().map(|x| -*x).collect()
}

/// What a joint prediction came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Search {
    /// The point moved by this offset took the path through the flipped branch.
    Flipped(Vec<Wide>),
    /// The branch's comparison did not move with any input: no prediction on this call's
    /// inputs can flip it (a dispatcher's check, a branch on storage).
    Independent,
    /// No step found, or none that flipped it.
    Missed,
}

/// A relation's place on a path: its transaction, JUMPI and occurrence.
type Site = (u32, Address, u32, u32);

/// Where a run first departs from the path joint prediction keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Departure {
    /// Relation `i` of the path went the other way.
    At(usize),
    /// The run evaluated other relations: the path changed shape (a loop ran another
    /// number of times, a call reverted before).
    Elsewhere,
}

/// Where `relations` first depart from `path` (each site with the outcome wanted of it);
/// `None` when they follow it to its end, the target included.
fn departure(relations: &[Relation], path: &[(Site, bool)]) -> Option<Departure> {
    path.iter()
        .enumerate()
        .find_map(|(k, (site, wanted))| match relations.get(k) {
            Some(r) if r.site() == *site && r.holds() == *wanted => None,
            Some(r) if r.site() == *site => Some(Departure::At(k)),
            _ => Some(Departure::Elsewhere),
        })
}

/// How many of `path`'s sites `relations` evaluated, in order, whichever way each went.
fn along(relations: &[Relation], path: &[(Site, bool)]) -> usize {
    relations
        .iter()
        .zip(path)
        .take_while(|(r, (site, _))| r.site() == *site)
        .count()
}

/// Joint prediction of the branch of metric `key`, from a point (offset zero) whose call has
/// `n` integer inputs, in Newton steps. Each step aims at the first relation of the path to
/// the branch that goes the wrong way: the branch itself, or one a step before broke (a
/// nonlinear equality is kept only to first order). It probes every input, then, for each
/// equality the path holds before the aim, the directions that keep it and those before
/// (the integer kernel of its row, within the directions that kept the earlier ones); the
/// probes along the last directions reach the aim, and the step along them that flips it is
/// solved (see [`Jacobian::step`]).
///
/// `bounds` are the smallest and largest offset of each input that keep it in its domain;
/// `run` runs the point moved by an offset (one inside them) and returns the relations of
/// the calls from the first whose inputs move through the metric's: a step keeps each of
/// them on its path (an earlier call moved to a value it refuses would change the state
/// the metric's call sees). Returns what came of it.
pub(crate) fn search<E>(
    key: &CostKey,
    bounds: &[(Wide, Wide)],
    mut run: impl FnMut(&[Wide]) -> Result<Vec<Relation>, E>,
) -> Result<Search, E> {
    let n = bounds.len();
    let fits = |offset: &Vec<Wide>| {
        offset
            .iter()
            .zip(bounds)
            .all(|(o, (lo, hi))| lo <= o && o <= hi)
    };
    let mut at = vec![Wide::ZERO; n];
    let mut relations = run(&at)?;
    let site = (key.tx, key.code, key.pc, key.nth);
    let Some(target) = relations.iter().position(|r| r.site() == site) else {
        return Ok(Search::Missed);
    };
    if key.kind == CostKind::Store || n == 0 {
        return Ok(Search::Missed);
    }
    // The path to keep: every relation before the target as it went, the target flipped.
    let path: Vec<(Site, bool)> = relations[..=target]
        .iter()
        .enumerate()
        .map(|(k, r)| (r.site(), r.holds() != (k == target)))
        .collect();
    for _ in 0..MAX_STEPS {
        let aim = match departure(&relations, &path) {
            None => return Ok(Search::Flipped(at)),
            Some(Departure::Elsewhere) => return Ok(Search::Missed),
            Some(Departure::At(aim)) => aim,
        };
        let mut jacobian = Jacobian::new(&relations[..=aim], path[aim].1, n);
        // Probes `direction` from `at`, and against it when that does not fit or the run
        // went the other way at an inequality before the aim: an input equal to a bound it
        // may not pass (`amount <= allowed`, spent exactly) leaves the path one way only,
        // and only a run that gets further says how the relations after the bound move;
        // the column of the run that evaluated more of the path is kept. (A held equality
        // breaks either way.) True when a probe's run followed the whole path (then `at`
        // is that probe's point).
        let mut probe = |jacobian: &mut Jacobian, direction: &[Wide]| -> Result<bool, E> {
            if jacobian.probed(direction) {
                return Ok(false);
            }
            let mut best: Option<(Vec<Relation>, i8)> = None;
            for sign in [1i8, -1] {
                let towards = if sign > 0 {
                    direction.to_vec()
                } else {
                    negated(direction)
                };
                let Some(offset) = add(&at, &towards).filter(|o| fits(o)) else {
                    continue;
                };
                let probed = run(&offset)?;
                let departed = departure(&probed, &path);
                if departed.is_none() {
                    at = offset;
                    return Ok(true);
                }
                let further = best
                    .as_ref()
                    .is_none_or(|(b, _)| along(&probed, &path) > along(b, &path));
                if further {
                    best = Some((probed, sign));
                }
                let one_sided = matches!(departed, Some(Departure::At(k))
                    if k < aim && !jacobian.relations[k].held_equality());
                if !one_sided {
                    break;
                }
            }
            if let Some((probed, sign)) = best {
                jacobian.add(direction.to_vec(), sign, &probed);
            }
            Ok(false)
        };
        let mut kept: Vec<Vec<Wide>> = (0..n).map(|i| only(n, i, Wide::ONE)).collect();
        for direction in &kept {
            if probe(&mut jacobian, direction)? {
                return Ok(Search::Flipped(at));
            }
        }
        if aim == target && jacobian.independent() {
            return Ok(Search::Independent);
        }
        let held: Vec<usize> = (0..aim).filter(|&j| relations[j].held_equality()).collect();
        for held in held {
            let Some(narrower) = jacobian.keeping(held, &kept) else {
                return Ok(Search::Missed);
            };
            if narrower == kept {
                continue;
            }
            kept = narrower;
            for direction in &kept {
                if probe(&mut jacobian, direction)? {
                    return Ok(Search::Flipped(at));
                }
            }
        }
        // The bounds of a step from `at`.
        let Some(room) = bounds
            .iter()
            .zip(&at)
            .map(|((lo, hi), a)| Some((lo.checked_sub(*a)?, hi.checked_sub(*a)?)))
            .collect::<Option<Vec<_>>>()
        else {
            return Ok(Search::Missed);
        };
        let Some(next) = jacobian
            .step(&kept, &room)
            .and_then(|delta| add(&at, &delta))
        else {
            return Ok(Search::Missed);
        };
        at = next;
        relations = run(&at)?;
    }
    Ok(match departure(&relations, &path) {
        None => Search::Flipped(at),
        Some(_) => Search::Missed,
    })
}

/// `a + b`; `None` on overflow.
fn add(a: &[Wide], b: &[Wide]) -> Option<Vec<Wide>> {
    a.iter().zip(b).map(|(x, y)| x.checked_add(*y)).collect()
}

/// What joint prediction knows at one point: the relations up to the aim, and the changes
/// of their residuals along the directions probed.
#[derive(Debug)]
struct Jacobian {
    /// The relations of the call up to and including the aim, in the order evaluated.
    relations: Vec<Relation>,
    /// Whether the aim should hold (it does not now).
    want: bool,
    /// The inputs moved.
    leaves: usize,
    /// Per probed direction (over the leaves): the change of each relation's residual,
    /// `None` where the probe's run did not evaluate it.
    columns: Vec<(Vec<Wide>, Vec<Option<Wide>>)>,
}

impl Jacobian {
    /// The Jacobian at a point whose call evaluated `relations`, the last of them the aim,
    /// which should hold as `want` says; over `leaves` inputs.
    fn new(relations: &[Relation], want: bool, leaves: usize) -> Jacobian {
        Jacobian {
            want,
            relations: relations.to_vec(),
            leaves,
            columns: Vec::new(),
        }
    }

    /// The relation whose outcome is to flip.
    fn aim(&self) -> &Relation {
        &self.relations[self.relations.len() - 1]
    }

    /// Adds the run of the point moved by `direction` (`sign` -1: moved by `-direction`),
    /// which evaluated `probe`. A site the probe reached through another comparison (a
    /// conjunct before it short-circuited to the same JUMPI) has no change.
    fn add(&mut self, direction: Vec<Wide>, sign: i8, probe: &[Relation]) {
        let by_site: FastMap<Site, (CmpOp, Wide)> = probe
            .iter()
            .map(|r| (r.site(), (r.op, r.residual)))
            .collect();
        let changes = self
            .relations
            .iter()
            .map(|r| {
                let (op, residual) = *by_site.get(&r.site())?;
                if op != r.op {
                    return None;
                }
                let change = residual - r.residual;
                Some(if sign < 0 { -change } else { change })
            })
            .collect();
        self.columns.push((direction, changes));
    }

    /// Whether every single-input probe reached the aim without changing its residual.
    fn independent(&self) -> bool {
        let (last, n) = (self.relations.len() - 1, self.leaves);
        (0..n).all(|i| self.change(last, &only(n, i, Wide::ONE)) == Some(Wide::ZERO))
    }

    /// Whether `direction` was probed already.
    fn probed(&self, direction: &[Wide]) -> bool {
        self.columns.iter().any(|(d, _)| d == direction)
    }

    /// The change of relation `j` along `direction`, if a probe along it evaluated `j`.
    fn change(&self, j: usize, direction: &[Wide]) -> Option<Wide> {
        let (_, changes) = self.columns.iter().find(|(d, _)| d == direction)?;
        changes[j]
    }

    /// The directions, among the integer combinations of `kept`, that keep relation `held`
    /// (an equality the path holds): the integer kernel of its row over `kept`, each
    /// direction's sign made canonical (first entry positive). Directions whose probes did
    /// not reach `held` are left out. `None` on overflow.
    fn keeping(&self, held: usize, kept: &[Vec<Wide>]) -> Option<Vec<Vec<Wide>>> {
        let reached: Vec<(&Vec<Wide>, Wide)> = kept
            .iter()
            .filter_map(|d| Some((d, self.change(held, d)?)))
            .collect();
        let row: Vec<Wide> = reached.iter().map(|(_, c)| *c).collect();
        if row.iter().all(|c| c.is_zero()) && reached.len() == kept.len() {
            return Some(kept.to_vec());
        }
        let basis = system::kernel(&vec![row], reached.len())?;
        basis
            .iter()
            .map(|coefficients| {
                let directions = reached.iter().map(|(d, _)| *d);
                let direction = system::combination(directions, coefficients, self.leaves)?;
                Some(match direction.iter().find(|e| !e.is_zero()) {
                    Some(first) if first.is_negative() => negated(&direction),
                    _ => direction,
                })
            })
            .collect()
    }

    /// The step over the leaves, along integer combinations of the `kept` directions whose
    /// probes reached the aim, that flips the aim without flipping a relation before it or
    /// moving an input outside `room` (per leaf, the smallest and largest step), in the
    /// linear model; `None` when none is found, or the arithmetic overflows.
    ///
    /// Candidate steps are tried in the order [`Family::candidates`] gives them, then, for
    /// an equality, along each line of steps that meet it ([`Family::lines`]) the one
    /// nearest the start that meets every other constraint (a one-dimensional integer
    /// program: an interval). When none will do, a candidate's first fault is held — a
    /// relation it would flip kept where it is, an input it would move out of its domain
    /// put at the domain's end — and the candidates are made again: a depth-first search
    /// over the first [`BRANCHES`] candidates' faults, at most [`MAX_HOLDS`] deep and
    /// [`MAX_NODES`] sets of holds in all.
    fn step(&self, kept: &[Vec<Wide>], room: &[(Wide, Wide)]) -> Option<Vec<Wide>> {
        let last = self.relations.len() - 1;
        let directions: Vec<&Vec<Wide>> = kept
            .iter()
            .filter(|d| self.change(last, d).is_some())
            .collect();
        if directions.is_empty() {
            return None;
        }
        // Relation j's changes along the directions; unknown counts as none.
        let row = |j: usize| -> Vec<Wide> {
            directions
                .iter()
                .map(|d| self.change(j, d).unwrap_or(Wide::ZERO))
                .collect()
        };
        let over_leaves = |t: &[Wide]| -> Option<Vec<Wide>> {
            system::combination(directions.iter().copied(), t, self.leaves)
        };
        // What is wrong with a step `t`: an input out of its domain (held at the domain's
        // end), or a relation before the aim it flips (held where it is).
        let fault = |t: &[Wide]| -> Option<(Vec<Wide>, Wide)> {
            let delta = over_leaves(t)?;
            let outside = delta
                .iter()
                .zip(room)
                .enumerate()
                .find_map(|(i, (x, (lo, hi)))| (x < lo || x > hi).then(|| (i, *x.max(lo).min(hi))));
            if let Some((i, end)) = outside {
                return Some((directions.iter().map(|d| d[i]).collect(), end));
            }
            (0..last).find_map(|j| {
                let r = &self.relations[j];
                let change = dot(&row(j), t)?;
                (holds(r.op, r.residual + change) != r.holds()).then(|| (row(j), Wide::ZERO))
            })
        };
        // Depth first over the holds: each candidate's fault held in turn.
        let mut nodes: Vec<(Matrix, Vec<Wide>)> = vec![(Vec::new(), Vec::new())];
        let mut visited = 0;
        while let Some((held, values)) = nodes.pop() {
            visited += 1;
            if visited > MAX_NODES {
                break;
            }
            let Some(family) = Family::new(&held, &values, &row(last), self.aim().residual) else {
                continue;
            };
            let Some(candidates) = family.candidates(self.aim().op, self.want) else {
                continue;
            };
            if let Some(t) = candidates.iter().find(|t| fault(t).is_none()) {
                return over_leaves(t);
            }
            if self.want && matches!(self.aim().op, CmpOp::Eq | CmpOp::IsZero) {
                for (t0, t1) in family.lines() {
                    let Some(m) = nearest_inside(&self.line_constraints(
                        &t0,
                        &t1,
                        &row,
                        &over_leaves,
                        room,
                    )?) else {
                        continue;
                    };
                    let t = add(&t0, &scaled(&t1, m)?)?;
                    if fault(&t).is_none() {
                        return over_leaves(&t);
                    }
                }
            }
            if held.len() >= MAX_HOLDS {
                continue;
            }
            for candidate in candidates.iter().take(BRANCHES).rev() {
                let Some((row, value)) = fault(candidate) else {
                    continue;
                };
                if held.contains(&row) {
                    continue;
                }
                let (mut held, mut values) = (held.clone(), values.clone());
                held.push(row);
                values.push(value);
                nodes.push((held, values));
            }
        }
        None
    }

    /// Along the line of steps `t0 + m · t1`: the constraints `b + a · m >= 0`, as `(a, b)`,
    /// that keep every input inside `room` and every relation before the aim on its side
    /// (in the linear model; an equality the path must keep unequal is checked afterwards).
    fn line_constraints(
        &self,
        t0: &[Wide],
        t1: &[Wide],
        row: &impl Fn(usize) -> Vec<Wide>,
        over_leaves: &impl Fn(&[Wide]) -> Option<Vec<Wide>>,
        room: &[(Wide, Wide)],
    ) -> Option<Vec<(Wide, Wide)>> {
        let (l0, l1) = (over_leaves(t0)?, over_leaves(t1)?);
        let mut out = Vec::new();
        for ((x0, x1), (lo, hi)) in l0.iter().zip(&l1).zip(room) {
            out.push((*x1, x0.checked_sub(*lo)?));
            out.push((x1.checked_neg()?, hi.checked_sub(*x0)?));
        }
        for j in 0..self.relations.len() - 1 {
            let r = &self.relations[j];
            let (v0, a) = (
                r.residual.checked_add(dot(&row(j), t0)?)?,
                dot(&row(j), t1)?,
            );
            let (neg_v0, neg_a) = (v0.checked_neg()?, a.checked_neg()?);
            match (r.op, r.holds()) {
                // v <= -1
                (CmpOp::Lt | CmpOp::Slt, true) => out.push((neg_a, neg_v0.checked_sub(Wide::ONE)?)),
                // v >= 0
                (CmpOp::Lt | CmpOp::Slt, false) => out.push((a, v0)),
                // v >= 1
                (CmpOp::Gt | CmpOp::Sgt, true) => out.push((a, v0.checked_sub(Wide::ONE)?)),
                // v <= 0
                (CmpOp::Gt | CmpOp::Sgt, false) => out.push((neg_a, neg_v0)),
                // v == 0
                (CmpOp::Eq | CmpOp::IsZero, true) => {
                    out.push((a, v0));
                    out.push((neg_a, neg_v0));
                }
                (CmpOp::Eq | CmpOp::IsZero, false) => {}
            }
        }
        Some(out)
    }
}

/// The integer `m` nearest zero with `b + a · m >= 0` for every `(a, b)` of `constraints`,
/// if there is one.
fn nearest_inside(constraints: &[(Wide, Wide)]) -> Option<Wide> {
    let (mut lo, mut hi): (Option<Wide>, Option<Wide>) = (None, None);
    for &(a, b) in constraints {
        if a.is_zero() {
            if b.is_negative() {
                return None;
            }
        } else if a.is_positive() {
            // m >= ceil(-b / a)
            let m = ceil_div(b.checked_neg()?, a)?;
            lo = Some(lo.map_or(m, |lo| lo.max(m)));
        } else {
            // m <= floor(b / -a) = -ceil(-b / -a)
            let m = ceil_div(b.checked_neg()?, a.checked_neg()?)?.checked_neg()?;
            hi = Some(hi.map_or(m, |hi| hi.min(m)));
        }
    }
    let m = Wide::ZERO
        .max(lo.unwrap_or(Wide::ZERO))
        .min(hi.unwrap_or(Wide::ZERO));
    let m = match (lo, hi) {
        (Some(lo), Some(hi)) if lo > hi => return None,
        (Some(lo), _) if m < lo => lo,
        _ => m,
    };
    Some(m)
}

/// `v · m`; `None` on overflow.
fn scaled(v: &[Wide], m: Wide) -> Option<Vec<Wide>> {
    v.iter().map(|x| x.checked_mul(m)).collect()
}

/// The integer steps `t` with `held · t = values`, `base + basis · s`, and the aim's
/// residual along them, `residual + coefficients · s`.
struct Family {
    base: Vec<Wide>,
    basis: Vec<Vec<Wide>>,
    coefficients: Vec<Wide>,
    residual: Wide,
}

impl Family {
    /// The steps meeting the held rows, for an aim of residual `residual` changing by
    /// `row · t`; `None` on overflow or when the held rows cannot all be met.
    fn new(held: &Matrix, values: &[Wide], row: &[Wide], residual: Wide) -> Option<Family> {
        let n = row.len();
        let base = system::solve(held, values, n)?;
        let basis = system::kernel(held, n)?;
        let coefficients = basis.iter().map(|b| dot(row, b)).collect::<Option<_>>()?;
        Some(Family {
            residual: residual.checked_add(dot(row, &base)?)?,
            base,
            basis,
            coefficients,
        })
    }

    /// The step at kernel coordinates `s`.
    fn at(&self, s: &[Wide]) -> Option<Vec<Wide>> {
        add(&self.base, &self.at_direction(s)?)
    }

    /// Steps after which the aim relation `op` holds as `want` says: exactly zero for an
    /// equality to hold, the nearest integer across the boundary otherwise. First those
    /// that move one kernel coordinate (the fewest inputs changed, each the least), then,
    /// for an equality, one from the integer lattice of all.
    fn candidates(&self, op: CmpOp, want: bool) -> Option<Vec<Vec<Wide>>> {
        let (c, d) = (&self.coefficients, self.residual);
        let combinations = match (op, want) {
            (CmpOp::Eq | CmpOp::IsZero, true) => reaching(c, d.checked_neg()?),
            // residual + c·s >= bound
            (CmpOp::Eq | CmpOp::IsZero, false)
            | (CmpOp::Lt | CmpOp::Slt, false)
            | (CmpOp::Gt | CmpOp::Sgt, true) => {
                let bound = match op {
                    CmpOp::Lt | CmpOp::Slt => Wide::ZERO,
                    _ => Wide::ONE,
                };
                at_least(c, bound.checked_sub(d)?)
            }
            // residual + c·s <= bound, that is -c·s >= residual - bound
            (CmpOp::Lt | CmpOp::Slt, true) | (CmpOp::Gt | CmpOp::Sgt, false) => {
                let bound = match op {
                    CmpOp::Lt | CmpOp::Slt => -Wide::ONE,
                    _ => Wide::ZERO,
                };
                at_least(&negated(c), d.checked_sub(bound)?)
            }
        }?;
        combinations.iter().map(|s| self.at(s)).collect()
    }

    /// For an equality aim: per pair of kernel coordinates, the line `t0 + m · t1` of steps
    /// moving only those two that make the residual zero (every integer solution of
    /// `c_j s_j + c_k s_k = -residual`).
    fn lines(&self) -> Vec<(Vec<Wide>, Vec<Wide>)> {
        let k = self.coefficients.len();
        let Some(need) = self.residual.checked_neg() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for i in 0..k {
            for j in i + 1..k {
                let pair = vec![vec![self.coefficients[i], self.coefficients[j]]];
                let (Some(s), Some(kernel)) =
                    (system::solve(&pair, &[need], 2), system::kernel(&pair, 2))
                else {
                    continue;
                };
                let [direction] = &kernel[..] else {
                    continue;
                };
                let spread = |v: &[Wide]| {
                    let mut full = vec![Wide::ZERO; k];
                    (full[i], full[j]) = (v[0], v[1]);
                    full
                };
                let (Some(t0), Some(t1)) =
                    (self.at(&spread(&s)), self.at_direction(&spread(direction)))
                else {
                    continue;
                };
                out.push((t0, t1));
            }
        }
        out
    }

    /// The change of the step along kernel coordinates `s` (without the base).
    fn at_direction(&self, s: &[Wide]) -> Option<Vec<Wide>> {
        system::combination(&self.basis, s, self.base.len())
    }
}

/// Integer `s` with `c · s = need`: each single coordinate that can (smallest coefficient
/// first), then the lattice's shortest-ish solution.
fn reaching(c: &[Wide], need: Wide) -> Option<Vec<Vec<Wide>>> {
    if need.is_zero() {
        return Some(vec![vec![Wide::ZERO; c.len()]]);
    }
    let mut out = Vec::new();
    for k in by_magnitude(c) {
        let (q, r) = (need.checked_div(c[k])?, need.checked_rem(c[k])?);
        if r.is_zero() {
            out.push(only(c.len(), k, q));
        }
    }
    let equation = vec![c.to_vec()];
    if let Some(s) = system::solve(&equation, &[need], c.len()) {
        let s = shortened(s, &system::kernel(&equation, c.len())?)?;
        if !out.contains(&s) {
            out.push(s);
        }
    }
    Some(out)
}

/// `s` moved along the integer combinations of `kernel` toward the shortest such vector
/// (a few passes of subtracting each kernel vector's rounded projection): the lattice's
/// solution can be far larger than the inputs' domains allow, the shortest is the step
/// that changes the inputs least.
fn shortened(mut s: Vec<Wide>, kernel: &[Vec<Wide>]) -> Option<Vec<Wide>> {
    for _ in 0..4 {
        let mut moved = false;
        for v in kernel {
            let k = secant::div_round(dot(&s, v)?, dot(v, v)?)?;
            if !k.is_zero() {
                moved = true;
                for (x, e) in s.iter_mut().zip(v) {
                    *x = x.checked_sub(e.checked_mul(k)?)?;
                }
            }
        }
        if !moved {
            break;
        }
    }
    Some(s)
}

/// Integer `s` with `c · s >= need`, each moving one coordinate (smallest coefficient
/// first, the finest step), as close to the boundary as integers get.
fn at_least(c: &[Wide], need: Wide) -> Option<Vec<Vec<Wide>>> {
    if !need.is_positive() {
        return Some(vec![vec![Wide::ZERO; c.len()]]);
    }
    by_magnitude(c)
        .into_iter()
        .map(|k| {
            // c_k · s_k >= need: s_k = ceil(need / c_k) for c_k > 0; for c_k < 0 the same
            // with both signs turned, -s_k = ceil(need / -c_k).
            let s_k = if c[k].is_positive() {
                ceil_div(need, c[k])?
            } else {
                ceil_div(need, c[k].checked_neg()?)?.checked_neg()?
            };
            Some(only(c.len(), k, s_k))
        })
        .collect()
}

/// The coordinates with a non-zero coefficient, smallest magnitude first.
fn by_magnitude(c: &[Wide]) -> Vec<usize> {
    let mut ks: Vec<usize> = (0..c.len()).filter(|&k| !c[k].is_zero()).collect();
    ks.sort_by_key(|&k| c[k].unsigned_abs());
    ks
}

/// The vector of `n` zeros but `value` at `k`.
fn only(n: usize, k: usize, value: Wide) -> Vec<Wide> {
    (0..n)
        .map(|j| if j == k { value } else { Wide::ZERO })
        .collect()
}

/// `ceil(a / b)` for a positive `b`.
fn ceil_div(a: Wide, b: Wide) -> Option<Wide> {
    let q = a.checked_div(b)?;
    // Truncation rounds toward zero: up already for a negative quotient.
    if a.checked_sub(q.checked_mul(b)?)?.is_positive() {
        q.checked_add(Wide::ONE)
    } else {
        Some(q)
    }
}

#[cfg(test)]
mod tests;
