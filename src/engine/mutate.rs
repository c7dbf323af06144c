//! Making inputs: random transactions, and mutants of a corpus sequence (one typed leaf,
//! sender, value or warp; or a sequence operation relative to a transaction t: insert before
//! t, replace what precedes t, repeat a self-dependent call, remove or replace t). With
//! demand-driven fuzzing only sequences whose last function's coverage depends on state
//! grow; with dataflow, inserted transactions prefer writers of what follows them.

use alloy_dyn_abi::DynSolValue;
use alloy_primitives::{Address, U256};
use rand::Rng;
use rand::rngs::StdRng;

use crate::abi::{self, Dictionary, LeafPath};
use crate::chain::{Delays, Warp};
use crate::engine::input::{Change, MAX_VALUE, Sequence, TxInput};
use crate::engine::mask::{Input, Mask};
use crate::engine::sequencing::Guide;
use crate::engine::surface::Surface;

/// The probability that a drawn view or pure function is drawn again among the functions
/// that change state (see [`Mutator::random_tx`]).
const READER_REDRAW: f64 = 0.75;

/// The probability that a random walk's call has an integer argument drawn uniformly over
/// its type (see [`Mutator::walk_tx`]) rather than as [`abi::generate`] draws it.
const WALK_UNIFORM: f64 = 0.6;

/// Durations a time warp likes to take: a second, a block, a minute, an hour, a day, a
/// week, thirty days, a year.
const WARP_SECONDS: [u64; 8] = [1, 12, 60, 3_600, 86_400, 604_800, 2_592_000, 31_536_000];

/// Seconds per block when a warp derives blocks from seconds.
const BLOCK_TIME: u64 = 12;

/// A change to one transaction of a mutant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TxMutation {
    /// Copy another transaction's argument of the same type (commit/reveal).
    ReuseArgument,
    /// Copy every argument another transaction passes under the same name and type: a
    /// handler's `withdraw(actorIndex, marketIndex, ...)` on the account and market a
    /// `deposit(actorIndex, marketIndex, ...)` used.
    CoupleNames,
    /// Fuzz one argument leaf.
    Argument,
    /// Couple an address to another transaction's sender: an address argument becomes it,
    /// or the sender becomes an address another transaction names (`approve(spender)`,
    /// then a call by that spender naming the approver).
    CoupleAddress,
    /// Send it from another sender.
    Sender,
    /// Fuzz `msg.value` (payable calls).
    Value,
    /// Fuzz the time warp before it.
    Warp,
}

/// The one-transaction mutations with their weights out of 100; the other 45 are sequence
/// operations. A roll picks one; one that does not apply falls through to the next. (Where
/// no address can be coupled, coupling's share falls through to the sender's: 10, as
/// before coupling existed.)
const INPUT_MUTATIONS: [(TxMutation, u32); 7] = [
    (TxMutation::ReuseArgument, 7),
    (TxMutation::CoupleNames, 5),
    (TxMutation::Argument, 23),
    (TxMutation::CoupleAddress, 6),
    (TxMutation::Sender, 4),
    (TxMutation::Value, 5),
    (TxMutation::Warp, 5),
];

/// The weight of all one-transaction mutations together.
const INPUT_WEIGHT: u32 = {
    let mut sum = 0;
    let mut i = 0;
    while i < INPUT_MUTATIONS.len() {
        sum += INPUT_MUTATIONS[i].1;
        i += 1;
    }
    sum
};

/// Makes transactions and mutants for one worker.
pub(crate) struct Mutator<'a> {
    surface: &'a Surface,
    depth: usize,
    /// Only sequences whose last function's coverage depends on state grow (HARVEY §5).
    demand_driven: bool,
    /// New transactions prefer writers of what the next one reads; self-dependent calls
    /// are repeated.
    dataflow: bool,
    /// Whether address arguments and senders, and same-named arguments, are coupled across
    /// transactions.
    coupling: bool,
    /// The deployed contracts' functions that change state (neither `view` nor `pure`),
    /// which [`Mutator::random_tx`] draws again in place of a reader.
    writers: Vec<usize>,
}

impl<'a> Mutator<'a> {
    /// The surface it mutates over.
    pub(crate) fn surface(&self) -> &'a Surface {
        self.surface
    }

    /// A mutator over `surface` that keeps sequences at most `depth` long, with the
    /// campaign's `demand_driven` and `dataflow` switches.
    pub(crate) fn new(
        surface: &'a Surface,
        depth: usize,
        demand_driven: bool,
        dataflow: bool,
    ) -> Self {
        Mutator {
            surface,
            depth: depth.max(1),
            demand_driven,
            dataflow,
            coupling: true,
            writers: (0..surface.deployed)
                .filter(|&f| !surface.functions[f].reads_only)
                .collect(),
        }
    }

    /// The mutator with address and name coupling on (the default) or off.
    pub(crate) fn coupling(mut self, on: bool) -> Self {
        self.coupling = on;
        self
    }

    /// A fresh transaction calling `function`.
    pub(crate) fn tx_for(&self, function: usize, rng: &mut StdRng, dict: &Dictionary) -> TxInput {
        let f = &self.surface.functions[function];
        let mut tx = TxInput {
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
            warp: random_warp(rng, self.surface.delays),
            instance: if function >= self.surface.deployed && rng.random_bool(0.25) {
                random_instance(rng)
            } else {
                // The newest: usually what the transaction before just created.
                0
            },
        };
        self.surface.conform(&mut tx);
        tx
    }

    /// A fresh transaction calling a random function: a deployed contract's, or a created
    /// kind's once the worker saw a run create a contract of that kind (before, such a call
    /// could never be made).
    pub(crate) fn random_tx(
        &self,
        rng: &mut StdRng,
        dict: &Dictionary,
        guide: Guide<'_>,
    ) -> TxInput {
        let surface = self.surface;
        let mut function = rng.random_range(0..surface.functions.len());
        if function >= surface.deployed && guide.dataflow.dependence(function).is_none() {
            function = rng.random_range(0..surface.deployed);
        }
        // A view or pure function changes nothing a later call sees: a call of one is only
        // the check it makes (an assertion-mode harness's getter, say). Beside functions
        // that change state it is drawn a quarter as often.
        // (A surface of readers only draws nothing more: its random stream is unchanged.)
        if surface.functions[function].reads_only
            && !self.writers.is_empty()
            && rng.random_bool(READER_REDRAW)
        {
            function = self.writers[rng.random_range(0..self.writers.len())];
        }
        self.tx_for(function, rng, dict)
    }

    /// A fresh transaction for a random walk: [`Mutator::random_tx`]'s, each integer
    /// argument then redrawn uniformly over its type with probability [`WALK_UNIFORM`] (a
    /// random walk builds state by many ordinary calls, and forge's, whose walks find such
    /// state, draws most integers so).
    pub(crate) fn walk_tx(&self, rng: &mut StdRng, dict: &Dictionary, guide: Guide<'_>) -> TxInput {
        let mut tx = self.random_tx(rng, dict, guide);
        for arg in &mut tx.args {
            if rng.random_bool(WALK_UNIFORM) {
                abi::redraw_uniform(arg, rng);
            }
        }
        self.surface.conform(&mut tx);
        tx
    }

    /// Whether sequences ending in a call of `function` may be longer than one
    /// transaction: always without demand-driven fuzzing, else once its coverage was seen
    /// to depend on state.
    pub(crate) fn may_extend(&self, function: usize, guide: Guide<'_>) -> bool {
        !self.demand_driven || guide.dataflow.dependence(function).is_some()
    }

    /// A mutant of `parent` and what changed. Usually one change (so input prediction can
    /// pair parent and child); sometimes a stack of several (AFL's havoc), recorded as
    /// [`Change::Structure`]. `donor` is another corpus sequence, a source of prefixes
    /// while the sequence pool is empty.
    ///
    /// With the parent's `mask` (mask-guided mutation), one-transaction mutations change
    /// only the inputs it leaves free.
    pub(crate) fn mutate(
        &self,
        parent: &Sequence,
        donor: &Sequence,
        mask: Option<&Mask>,
        rng: &mut StdRng,
        dict: &Dictionary,
        guide: Guide<'_>,
    ) -> (Sequence, Change) {
        let mut child = parent.clone();
        if child.txs.is_empty() {
            child.txs.push(self.random_tx(rng, dict, guide));
            return (child, Change::Structure);
        }
        let mut change = if rng.random_bool(0.1) {
            for _ in 0..rng.random_range(2..=4) {
                // Stacked changes may shift transactions: the mask would misplace.
                self.mutate_once(&mut child, donor, None, rng, dict, guide);
            }
            Change::Structure
        } else {
            self.mutate_once(&mut child, donor, mask, rng, dict, guide)
        };
        let last = child.txs[child.txs.len() - 1].function;
        if child.txs.len() > 1 && !self.may_extend(last, guide) {
            // A replaced last transaction calls a function that keeps single-transaction
            // sequences: the prefix cannot help it.
            child.txs.drain(..child.txs.len() - 1);
            change = Change::Structure;
        }
        if self.precede_with_creators(&mut child, rng, dict, guide) {
            change = Change::Structure;
        }
        (child, change)
    }

    /// Puts a call that creates a contract of its kind before each call of a created
    /// kind's function that no earlier transaction could have created one for (a mutation
    /// placed or moved it there): such a call could not be made. Whether it inserted any.
    fn precede_with_creators(
        &self,
        seq: &mut Sequence,
        rng: &mut StdRng,
        dict: &Dictionary,
        guide: Guide<'_>,
    ) -> bool {
        let mut inserted = false;
        let mut i = 0;
        while i < seq.txs.len() {
            let function = seq.txs[i].function;
            let creators = guide.dataflow.creators(function);
            let uncreated = function >= self.surface.deployed
                && !creators.is_empty()
                && !seq.txs[..i]
                    .iter()
                    .any(|tx| creators.contains(&tx.function));
            if uncreated && seq.txs.len() < self.depth {
                let creator = creators[rng.random_range(0..creators.len())];
                let tx =
                    pooled(creator, rng, guide).unwrap_or_else(|| self.tx_for(creator, rng, dict));
                // Checked next in turn: the creator may be a created contract's function.
                seq.txs.insert(i, tx);
                inserted = true;
                continue;
            }
            i += 1;
        }
        inserted
    }

    /// A copy of `seq` (never empty) with one input of one transaction fuzzed: an argument
    /// leaf, else the value of a payable call, else the warp. What changed is exact, for
    /// pairing with input prediction.
    pub(crate) fn mutate_input(
        &self,
        seq: &Sequence,
        rng: &mut StdRng,
        dict: &Dictionary,
    ) -> (Sequence, Change) {
        let at = rng.random_range(0..seq.txs.len());
        self.mutate_input_at(seq, at, rng, dict)
    }

    /// [`Mutator::mutate_input`] on transaction `at`.
    pub(crate) fn mutate_input_at(
        &self,
        seq: &Sequence,
        at: usize,
        rng: &mut StdRng,
        dict: &Dictionary,
    ) -> (Sequence, Change) {
        let mut twin = seq.clone();
        let tx = &mut twin.txs[at];
        let function = &self.surface.functions[tx.function];
        let change = if let Some(path) = abi::mutate(&mut tx.args, &function.types, rng, dict) {
            self.surface.conform(tx);
            Change::Leaf { tx: at, path }
        } else if function.payable {
            tx.value = abi::mutate_uint(tx.value, 256, rng, dict) % MAX_VALUE;
            Change::Value { tx: at }
        } else {
            mutate_warp(&mut tx.warp, self.surface.delays, rng, dict);
            Change::Warp { tx: at }
        };
        (twin, change)
    }

    /// One change to `seq` (never empty), chosen by weight among those that apply: fuzz a
    /// transaction (an argument, the sender, the value, the warp), or a sequence operation.
    fn mutate_once(
        &self,
        seq: &mut Sequence,
        donor: &Sequence,
        mask: Option<&Mask>,
        rng: &mut StdRng,
        dict: &Dictionary,
        guide: Guide<'_>,
    ) -> Change {
        let len = seq.txs.len();
        let free = Mask::default();
        let mask = mask.unwrap_or(&free);
        let at = self.free_tx(seq, mask, rng);
        let fixed = !self.may_extend(seq.txs[len - 1].function, guide);
        // A sequence that may not grow has one operation left (replacing its transaction):
        // mostly fuzz its inputs instead.
        let roll = if fixed && rng.random_bool(0.75) {
            rng.random_range(0..INPUT_WEIGHT)
        } else {
            rng.random_range(0..100)
        };
        let mut upto = 0;
        for (mutation, weight) in INPUT_MUTATIONS {
            upto += weight;
            if roll < upto {
                if let Some(change) = self.mutate_tx(mutation, seq, at, mask, rng, dict) {
                    return change;
                }
            }
        }
        if fixed {
            seq.txs[at] = self.new_tx(None, rng, dict, guide);
        } else {
            self.mutate_structure(seq, donor, rng, dict, guide);
        }
        Change::Structure
    }

    /// Applies `mutation` to transaction `at` of `seq`; `None` when it does not apply (no
    /// arguments, no other transaction's argument to reuse, one sender, not payable).
    fn mutate_tx(
        &self,
        mutation: TxMutation,
        seq: &mut Sequence,
        at: usize,
        mask: &Mask,
        rng: &mut StdRng,
        dict: &Dictionary,
    ) -> Option<Change> {
        let free = |input| mask.is_free(at, input);
        match mutation {
            TxMutation::ReuseArgument => {
                let path = self.reuse_argument(seq, at, mask, rng)?;
                self.surface.conform(&mut seq.txs[at]);
                Some(Change::Leaf { tx: at, path })
            }
            TxMutation::CoupleNames if !self.coupling => None,
            TxMutation::CoupleNames => {
                self.couple_names(seq, at, mask, rng)?;
                Some(Change::Structure)
            }
            TxMutation::CoupleAddress if !self.coupling => None,
            TxMutation::CoupleAddress => self.couple_address(seq, at, mask, rng),
            TxMutation::Argument => {
                let tx = &mut seq.txs[at];
                let types = &self.surface.functions[tx.function].types;
                let path = abi::mutate_where(
                    &mut tx.args,
                    types,
                    |arg| free(Input::Argument(arg)),
                    rng,
                    dict,
                )?;
                self.surface.conform(tx);
                Some(Change::Leaf { tx: at, path })
            }
            TxMutation::Sender if !free(Input::Sender) => None,
            TxMutation::Value if !free(Input::Value) => None,
            TxMutation::Warp if !free(Input::Warp) => None,
            TxMutation::Sender => {
                let tx = &mut seq.txs[at];
                if tx.function >= self.surface.deployed && rng.random_bool(0.5) {
                    // Who is called, for a created kind: another of its contracts.
                    tx.instance = random_instance(rng);
                    return Some(Change::Structure);
                }
                let senders = self.surface.senders.len();
                if senders < 2 {
                    return None;
                }
                let other = rng.random_range(1..senders);
                tx.sender = (tx.sender + other) % senders;
                Some(Change::Sender { tx: at })
            }
            TxMutation::Value => {
                if !self.surface.functions[seq.txs[at].function].payable {
                    return None;
                }
                let tx = &mut seq.txs[at];
                tx.value = abi::mutate_uint(tx.value, 256, rng, dict) % MAX_VALUE;
                Some(Change::Value { tx: at })
            }
            TxMutation::Warp => {
                if self.surface.delays.still() {
                    return None;
                }
                mutate_warp(&mut seq.txs[at].warp, self.surface.delays, rng, dict);
                Some(Change::Warp { tx: at })
            }
        }
    }

    /// Copies an argument of another transaction in `seq` into an argument of the same type
    /// of transaction `at` (commit/reveal patterns need one value in two calls); the path of
    /// the changed argument, or `None` when no other transaction has a differing argument
    /// of a matching type.
    fn reuse_argument(
        &self,
        seq: &mut Sequence,
        at: usize,
        mask: &Mask,
        rng: &mut StdRng,
    ) -> Option<LeafPath> {
        let types = &self.surface.functions[seq.txs[at].function].types;
        let mut options: Vec<(usize, usize, usize)> = Vec::new();
        for (from, other) in seq.txs.iter().enumerate().filter(|(i, _)| *i != at) {
            let other_types = &self.surface.functions[other.function].types;
            let targets = types
                .iter()
                .enumerate()
                .filter(|(target, _)| mask.is_free(at, Input::Argument(*target)));
            for (target, ty) in targets {
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

    /// Copies into transaction `at` of `seq` every argument that one other transaction
    /// (drawn among those that would change something) passes under the same parameter
    /// name and type, where `mask` leaves it free; `None` when no transaction would. Names
    /// say what types cannot: of a handler's three `uint8` selectors, `marketIndex` is the
    /// one to share with another call's `marketIndex`.
    fn couple_names(
        &self,
        seq: &mut Sequence,
        at: usize,
        mask: &Mask,
        rng: &mut StdRng,
    ) -> Option<()> {
        let function = &self.surface.functions[seq.txs[at].function];
        let shared = |other: &TxInput| -> Vec<(usize, usize)> {
            let theirs = &self.surface.functions[other.function];
            let mut pairs = Vec::new();
            for (target, name) in function.params.iter().enumerate() {
                if name.is_empty() || !mask.is_free(at, Input::Argument(target)) {
                    continue;
                }
                let source = theirs
                    .params
                    .iter()
                    .zip(&theirs.types)
                    .position(|(n, ty)| n == name && *ty == function.types[target]);
                if let Some(source) = source {
                    if other.args[source] != seq.txs[at].args[target] {
                        pairs.push((source, target));
                    }
                }
            }
            pairs
        };
        let options: Vec<(usize, Vec<(usize, usize)>)> = seq
            .txs
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != at)
            .map(|(i, other)| (i, shared(other)))
            .filter(|(_, pairs)| !pairs.is_empty())
            .collect();
        if options.is_empty() {
            return None;
        }
        let (from, pairs) = &options[rng.random_range(0..options.len())];
        for &(source, target) in pairs {
            let value = seq.txs[*from].args[source].clone();
            seq.txs[at].args[target] = value;
        }
        self.surface.conform(&mut seq.txs[at]);
        Some(())
    }

    /// A transaction of `seq` to change: uniformly among those with an input `mask`
    /// leaves free (all, without a mask), or among all when it holds every input.
    fn free_tx(&self, seq: &Sequence, mask: &Mask, rng: &mut StdRng) -> usize {
        let open: Vec<usize> = (0..seq.txs.len())
            .filter(|&at| {
                self.inputs(&seq.txs[at])
                    .any(|input| mask.is_free(at, input))
            })
            .collect();
        if open.is_empty() {
            rng.random_range(0..seq.txs.len())
        } else {
            open[rng.random_range(0..open.len())]
        }
    }

    /// The inputs of `tx` a one-transaction mutation can change.
    fn inputs(&self, tx: &TxInput) -> impl Iterator<Item = Input> {
        let function = &self.surface.functions[tx.function];
        (0..function.types.len())
            .map(Input::Argument)
            .chain((self.surface.senders.len() > 1).then_some(Input::Sender))
            .chain(function.payable.then_some(Input::Value))
            .chain(std::iter::once(Input::Warp))
    }

    /// A copy of `seq` with exactly `input` of transaction `tx` changed: a probe of
    /// mask-guided mutation. `None` when that input cannot change (an argument without
    /// leaves).
    pub(crate) fn probe(
        &self,
        seq: &Sequence,
        tx: usize,
        input: Input,
        rng: &mut StdRng,
        dict: &Dictionary,
    ) -> Option<Sequence> {
        let mut probe = seq.clone();
        let mutation = match input {
            Input::Argument(arg) => {
                let call = &mut probe.txs[tx];
                let types = &self.surface.functions[call.function].types;
                abi::mutate_where(&mut call.args, types, |a| a == arg, rng, dict)?;
                self.surface.conform(call);
                return Some(probe);
            }
            Input::Sender => TxMutation::Sender,
            Input::Value => TxMutation::Value,
            Input::Warp => TxMutation::Warp,
        };
        self.mutate_tx(mutation, &mut probe, tx, &Mask::default(), rng, dict)?;
        Some(probe)
    }

    /// Couples transaction `at` of `seq` to another transaction's account: one of its
    /// top-level address arguments becomes another transaction's sender, or its sender
    /// becomes a sender another transaction names in a top-level address argument. What
    /// changed, or `None` when no such coupling would change anything.
    fn couple_address(
        &self,
        seq: &mut Sequence,
        at: usize,
        mask: &Mask,
        rng: &mut StdRng,
    ) -> Option<Change> {
        enum Coupling {
            Argument(usize, Address),
            Sender(usize),
        }
        let senders = &self.surface.senders;
        let tx = &seq.txs[at];
        let types = &self.surface.functions[tx.function].types;
        let addresses = |t: &TxInput| {
            t.args
                .iter()
                .enumerate()
                .filter_map(|(i, arg)| arg.as_address().map(|address| (i, address)))
                .collect::<Vec<_>>()
        };
        let own: Vec<(usize, Address)> = addresses(tx)
            .into_iter()
            .filter(|(arg, _)| mask.is_free(at, Input::Argument(*arg)))
            .collect();
        let sender_free = mask.is_free(at, Input::Sender);
        let mut options = Vec::new();
        for other in seq
            .txs
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != at)
            .map(|(_, t)| t)
        {
            let sender = senders[other.sender];
            // An argument becomes the sender only where setup allows that address.
            let allowed = self.surface.allows(sender);
            for &(arg, address) in &own {
                if allowed && address != sender && types[arg] == alloy_dyn_abi::DynSolType::Address
                {
                    options.push(Coupling::Argument(arg, sender));
                }
            }
            for (_, named) in addresses(other) {
                match senders.iter().position(|s| *s == named) {
                    Some(index) if sender_free && index != tx.sender => {
                        options.push(Coupling::Sender(index))
                    }
                    _ => {}
                }
            }
        }
        if options.is_empty() {
            return None;
        }
        let tx = &mut seq.txs[at];
        Some(
            match options.swap_remove(rng.random_range(0..options.len())) {
                Coupling::Argument(arg, sender) => {
                    tx.args[arg] = DynSolValue::Address(sender);
                    self.surface.conform(tx);
                    Change::Leaf {
                        tx: at,
                        path: LeafPath(vec![arg as u32]),
                    }
                }
                Coupling::Sender(index) => {
                    tx.sender = index;
                    Change::Sender { tx: at }
                }
            },
        )
    }

    /// A sequence operation relative to a random transaction t (HARVEY §5): insert new
    /// transactions before t (one, or a short writer-before-reader chain), replace the
    /// transactions before t with another sequence, repeat a self-dependent call, remove t,
    /// replace t, or append (with demand-driven fuzzing, a state-dependent reader of what
    /// the last transaction writes). New and moved transactions are often coupled by
    /// parameter names to the others ([`Mutator::couple_names`]).
    fn mutate_structure(
        &self,
        seq: &mut Sequence,
        donor: &Sequence,
        rng: &mut StdRng,
        dict: &Dictionary,
        guide: Guide<'_>,
    ) {
        let len = seq.txs.len();
        let t = rng.random_range(0..len);
        let room = self.depth.saturating_sub(len);
        let applied = match rng.random_range(0..10) {
            // Growing the state-setting part is what these operations are for: an
            // operation that does not apply falls back to an insertion.
            0..=3 => false,
            4 | 5 => self.replace_prefix(seq, t, donor, rng, guide),
            6 => room > 0 && self.repeat(seq, room, rng, guide),
            7 if len > 1 => {
                let removed = seq.txs.remove(t);
                // Keep the time that passed: the next transaction inherits the warp.
                if let Some(next) = seq.txs.get_mut(t) {
                    next.warp = add_warps(removed.warp, next.warp, self.surface.delays);
                }
                true
            }
            8 if room > 0 => self.append(seq, rng, dict, guide),
            9 => {
                seq.txs[t] = self.new_tx(None, rng, dict, guide);
                self.maybe_couple_names(seq, t, rng);
                true
            }
            _ => false,
        };
        if applied {
            return;
        }
        if room > 0 {
            // A short chain: each inserted transaction goes before the previous one and is
            // chosen as a writer of what that one reads (set before copy before check).
            let count = match rng.random_range(0..20) {
                0..=11 => 1,
                12..=16 => 2,
                _ => 3,
            };
            let mut reader = seq.txs[t].function;
            for _ in 0..count.min(room) {
                let tx = self.new_tx(Some(reader), rng, dict, guide);
                reader = tx.function;
                seq.txs.insert(t, tx);
                self.maybe_couple_names(seq, t, rng);
            }
        } else {
            seq.txs[t] = self.new_tx(None, rng, dict, guide);
            self.maybe_couple_names(seq, t, rng);
        }
    }

    /// Half the time, couples the names of transaction `at`, just put into `seq`, to
    /// another transaction's ([`Mutator::couple_names`]): a new call mostly acts on what
    /// the calls around it act on (the market and account a deposit used).
    fn maybe_couple_names(&self, seq: &mut Sequence, at: usize, rng: &mut StdRng) {
        if self.coupling && rng.random_bool(0.5) {
            self.couple_names(seq, at, &Mask::default(), rng);
        }
    }

    /// A new transaction to run before one calling `reader` (any position when `None`):
    /// with dataflow, often a call of a function that writes what `reader` reads; often a
    /// pooled transaction (it reached new state before); else a fresh random one.
    fn new_tx(
        &self,
        reader: Option<usize>,
        rng: &mut StdRng,
        dict: &Dictionary,
        guide: Guide<'_>,
    ) -> TxInput {
        let writers = match reader {
            Some(reader) if self.dataflow => guide.dataflow.writers_of(reader),
            _ => &[],
        };
        if !writers.is_empty() && rng.random_bool(0.5) {
            let writer = writers[rng.random_range(0..writers.len())];
            if rng.random_bool(0.5) {
                if let Some(tx) = pooled(writer, rng, guide) {
                    return tx;
                }
            }
            return self.tx_for(writer, rng, dict);
        }
        if rng.random_bool(0.5) {
            if let Some(tx) = guide.pools.tx(None, rng) {
                return tx.clone();
            }
        }
        self.random_tx(rng, dict, guide)
    }

    /// Replaces the transactions before `t` with a pooled sequence (or, while the pool is
    /// empty, `donor` without its last transaction), cut from the front to fit the depth.
    /// Whether anything could be put there.
    fn replace_prefix(
        &self,
        seq: &mut Sequence,
        t: usize,
        donor: &Sequence,
        rng: &mut StdRng,
        guide: Guide<'_>,
    ) -> bool {
        let prefix = match guide.pools.sequence(rng) {
            Some(pooled) => pooled,
            None => &donor.txs[..donor.txs.len().saturating_sub(1)],
        };
        let room = self.depth - (seq.txs.len() - t);
        if prefix.is_empty() || room == 0 {
            return false;
        }
        let start = prefix.len().saturating_sub(room);
        seq.txs.splice(..t, prefix[start..].iter().cloned());
        // What was t now follows another prefix: it may act on what that one set up.
        self.maybe_couple_names(seq, prefix.len() - start, rng);
        true
    }

    /// Appends a transaction to `seq`. Without demand-driven fuzzing, any new one. With it,
    /// a call of a function whose coverage depends on state and that reads what the last
    /// transaction writes (dataflow's readers of it): the sequence grows at its end only
    /// where the call there may take a new path because of what came before (a withdrawal
    /// after a borrow that used up the market). Whether it appended.
    fn append(
        &self,
        seq: &mut Sequence,
        rng: &mut StdRng,
        dict: &Dictionary,
        guide: Guide<'_>,
    ) -> bool {
        let tx = if self.demand_driven {
            let last = seq.txs[seq.txs.len() - 1].function;
            let readers = if self.dataflow {
                guide.dataflow.readers_of(last)
            } else {
                &[]
            };
            let readers: Vec<usize> = readers
                .iter()
                .copied()
                .filter(|&f| self.may_extend(f, guide))
                .collect();
            if readers.is_empty() {
                return false;
            }
            let reader = readers[rng.random_range(0..readers.len())];
            match pooled(reader, rng, guide) {
                Some(tx) if rng.random_bool(0.5) => tx,
                _ => self.tx_for(reader, rng, dict),
            }
        } else {
            self.new_tx(None, rng, dict, guide)
        };
        seq.txs.push(tx);
        self.maybe_couple_names(seq, seq.txs.len() - 1, rng);
        true
    }

    /// With dataflow: repeats a call that writes state it branches on (MuFuzz's
    /// invest-twice), once or up to `room` times in a row (a counter may need dozens).
    /// Whether `seq` had such a call.
    fn repeat(&self, seq: &mut Sequence, room: usize, rng: &mut StdRng, guide: Guide<'_>) -> bool {
        if !self.dataflow {
            return false;
        }
        let repeatable: Vec<usize> = (0..seq.txs.len())
            .filter(|&i| guide.dataflow.is_self_dependent(seq.txs[i].function))
            .collect();
        if repeatable.is_empty() {
            return false;
        }
        let at = repeatable[rng.random_range(0..repeatable.len())];
        let copies = if rng.random_bool(0.5) {
            1
        } else {
            rng.random_range(1..=room)
        };
        let copy = TxInput {
            warp: Warp::default(),
            ..seq.txs[at].clone()
        };
        seq.txs
            .splice(at + 1..at + 1, std::iter::repeat_n(copy, copies));
        true
    }
}

/// A pooled transaction calling `function`, when the pool holds one.
fn pooled(function: usize, rng: &mut StdRng, guide: Guide<'_>) -> Option<TxInput> {
    guide
        .pools
        .tx(Some(function), rng)
        .filter(|tx| tx.function == function)
        .cloned()
}

/// Which created contract of its kind a call names, counted back from the newest: the few
/// newest (a run rarely creates more of one kind; the index wraps around those it did).
fn random_instance(rng: &mut StdRng) -> u8 {
    rng.random_range(0..4)
}

/// The warp of two consecutive waits, within `delays` (the time a removed call waited
/// carries over only as far as one call may wait).
pub(crate) fn add_warps(a: Warp, b: Warp, delays: Delays) -> Warp {
    delays.clamp(Warp {
        seconds: a.seconds.saturating_add(b.seconds),
        blocks: a.blocks.saturating_add(b.blocks),
    })
}

/// Mostly no wait; otherwise a typical duration or a random one below a year, with the
/// matching number of blocks; all within `delays`. Where `delays` limits the blocks, they
/// are drawn on their own (forge draws time and blocks apart); where it keeps time still,
/// so are the blocks derived from it.
fn random_warp(rng: &mut StdRng, delays: Delays) -> Warp {
    if delays.still() || rng.random_bool(0.75) {
        return Warp::default();
    }
    let seconds = match delays.seconds {
        Some(0) => 0,
        Some(limit) => draw_delay(rng, u64::from(limit)),
        None if rng.random_bool(0.7) => WARP_SECONDS[rng.random_range(0..WARP_SECONDS.len())],
        None => rng.random_range(1..=WARP_SECONDS[WARP_SECONDS.len() - 1]),
    };
    let blocks = match delays.blocks {
        Some(0) => 0,
        Some(limit) => draw_delay(rng, u64::from(limit)),
        None => (seconds / BLOCK_TIME).max(u64::from(seconds > 0)),
    };
    Warp { seconds, blocks }
}

/// A wait of at most `limit` (positive): one of the typical durations that fit, or any.
fn draw_delay(rng: &mut StdRng, limit: u64) -> u64 {
    let typical = WARP_SECONDS.partition_point(|&s| s <= limit);
    if typical > 0 && rng.random_bool(0.5) {
        WARP_SECONDS[rng.random_range(0..typical)]
    } else {
        rng.random_range(0..=limit)
    }
}

/// Changes the seconds or the blocks of `warp` (each a 32-bit leaf: decades at most),
/// within `delays`.
fn mutate_warp(warp: &mut Warp, delays: Delays, rng: &mut StdRng, dict: &Dictionary) {
    let leaf = if rng.random_bool(0.7) {
        &mut warp.seconds
    } else {
        &mut warp.blocks
    };
    let mutated = abi::mutate_uint(U256::from(*leaf), 32, rng, dict);
    *leaf = mutated.to::<u64>();
    *warp = delays.clamp(*warp);
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

    use crate::engine::sequencing::dataflow::{Dataflow, Dependence};
    use crate::engine::sequencing::pools::Pools;
    use crate::engine::surface::{At, Entry, FuzzFunction};
    use alloy_dyn_abi::DynSolType;
    use alloy_primitives::Address;
    use rand::SeedableRng;

    fn function(name: &str, types: Vec<DynSolType>) -> FuzzFunction {
        FuzzFunction {
            contract: "C".into(),
            at: At::Deployed(Address::ZERO),
            signature: format!("{name}(..)"),
            entry: Entry::Function(Default::default()),
            params: vec![String::new(); types.len()],
            types,
            payable: false,
            reads_only: false,
            bounds: Vec::new(),
        }
    }

    /// Three functions without arguments: `write()` writes slot 1, `read()` reads it, and
    /// `count()` reads and writes slot 2 and branches on it.
    fn three() -> (Surface, Dataflow) {
        let surface = Surface {
            functions: vec![
                function("write", vec![]),
                function("read", vec![]),
                function("count", vec![]),
            ],
            deployed: 3,
            kinds: Vec::new(),
            senders: vec![Address::ZERO, Address::with_last_byte(1)],
            addresses: None,
            delays: Delays::default(),
        };
        let slot = |s: u8| (Address::ZERO, U256::from(s));
        let mut dataflow = Dataflow::new(3, false);
        dataflow.learn(0, &[], &[slot(1)], &[]);
        dataflow.learn(1, &[slot(1)], &[], &[slot(1)]);
        dataflow.learn(2, &[slot(2)], &[slot(2)], &[slot(2)]);
        dataflow.refresh();
        (surface, dataflow)
    }

    /// Lengths and last functions of `n` mutants of `parent`.
    fn mutants(
        mutator: &Mutator<'_>,
        parent: &Sequence,
        guide: Guide<'_>,
        n: usize,
    ) -> Vec<Sequence> {
        let mut rng = StdRng::seed_from_u64(7);
        let dict = Dictionary::new(vec![]);
        (0..n)
            .map(|_| {
                mutator
                    .mutate(parent, parent, None, &mut rng, &dict, guide)
                    .0
            })
            .collect()
    }

    #[test]
    fn only_state_dependent_functions_get_longer_sequences() {
        let (surface, mut dataflow) = three();
        let pools = Pools::default();
        let mutator = Mutator::new(&surface, 8, true, true);
        let parent = Sequence {
            txs: vec![TxInput::of(1, vec![])],
        };
        let guide = Guide {
            dataflow: &dataflow,
            pools: &pools,
        };
        assert!(
            mutants(&mutator, &parent, guide, 2_000)
                .iter()
                .all(|m| m.txs.len() == 1),
            "nothing is state-dependent yet"
        );
        dataflow.mark(1, Dependence::Aggressive);
        let guide = Guide {
            dataflow: &dataflow,
            pools: &pools,
        };
        let grown: Vec<Sequence> = mutants(&mutator, &parent, guide, 2_000)
            .into_iter()
            .filter(|m| m.txs.len() > 1)
            .collect();
        assert!(grown.len() > 100, "{} grew", grown.len());
        assert!(grown.iter().all(|m| m.txs.last().unwrap().function == 1));
        // Writers of what read() reads come first more often than chance (1/3) would.
        let writes_first = grown.iter().filter(|m| m.txs[0].function == 0).count();
        assert!(
            writes_first * 2 > grown.len(),
            "{writes_first} of {}",
            grown.len()
        );
        // Without demand-driven fuzzing, any sequence grows.
        let eager = Mutator::new(&surface, 8, false, true);
        let unmarked = Dataflow::new(3, false);
        let guide = Guide {
            dataflow: &unmarked,
            pools: &pools,
        };
        assert!(
            mutants(&eager, &parent, guide, 500)
                .iter()
                .any(|m| m.txs.len() > 1)
        );
    }

    #[test]
    fn self_dependent_calls_are_repeated_only_with_dataflow() {
        let (surface, mut dataflow) = three();
        dataflow.mark(2, Dependence::Aggressive);
        let pools = Pools::default();
        let guide = Guide {
            dataflow: &dataflow,
            pools: &pools,
        };
        let parent = Sequence {
            txs: vec![TxInput::of(2, vec![])],
        };
        let run = |m: &Sequence| m.txs.windows(6).any(|w| w.iter().all(|t| t.function == 2));
        let with = Mutator::new(&surface, 32, true, true);
        assert!(mutants(&with, &parent, guide, 2_000).iter().any(run));
        let without = Mutator::new(&surface, 32, true, false);
        assert!(!mutants(&without, &parent, guide, 2_000).iter().any(run));
    }

    #[test]
    fn arguments_are_reused_between_transactions_of_matching_types() {
        let surface = Surface {
            functions: vec![
                function("commit", vec![DynSolType::Uint(256)]),
                function("reveal", vec![DynSolType::Bool, DynSolType::Uint(256)]),
            ],
            deployed: 2,
            kinds: Vec::new(),
            senders: vec![Address::ZERO],
            addresses: None,
            delays: Delays::default(),
        };
        let secret = DynSolValue::Uint(U256::from(1234), 256);
        let mut seq = Sequence {
            txs: vec![
                TxInput::of(0, vec![secret.clone()]),
                TxInput::of(
                    1,
                    vec![
                        DynSolValue::Bool(true),
                        DynSolValue::Uint(U256::from(9), 256),
                    ],
                ),
            ],
        };
        let mutator = Mutator::new(&surface, 8, true, true);
        let mut rng = StdRng::seed_from_u64(1);
        let free = Mask::default();
        let path = mutator.reuse_argument(&mut seq, 1, &free, &mut rng);
        assert_eq!(path, Some(LeafPath(vec![1])));
        assert_eq!(seq.txs[1].args[1], secret);
        assert_eq!(
            mutator.reuse_argument(&mut seq, 1, &free, &mut rng),
            None,
            "already equal"
        );
    }

    #[test]
    fn names_couple_every_argument_one_other_transaction_passes_under_them() {
        let named = |name: &str, params: &[(&str, DynSolType)]| FuzzFunction {
            params: params.iter().map(|(n, _)| n.to_string()).collect(),
            ..function(name, params.iter().map(|(_, t)| t.clone()).collect())
        };
        let u8 = DynSolType::Uint(8);
        let surface = Surface {
            functions: vec![
                named(
                    "deposit",
                    &[
                        ("actor", u8.clone()),
                        ("market", u8.clone()),
                        ("assets", DynSolType::Uint(256)),
                    ],
                ),
                // Same names, other order; `market` of another type does not couple.
                named(
                    "withdraw",
                    &[
                        ("market", u8.clone()),
                        ("shares", DynSolType::Uint(256)),
                        ("actor", u8.clone()),
                    ],
                ),
                named(
                    "price",
                    &[("market", DynSolType::Uint(16)), ("", u8.clone())],
                ),
            ],
            deployed: 3,
            kinds: Vec::new(),
            senders: vec![Address::ZERO],
            addresses: None,
            delays: Delays::default(),
        };
        let small = |v: u64, bits| DynSolValue::Uint(U256::from(v), bits);
        let mut seq = Sequence {
            txs: vec![
                TxInput::of(0, vec![small(2, 8), small(1, 8), small(500, 256)]),
                TxInput::of(1, vec![small(7, 8), small(9, 256), small(4, 8)]),
                TxInput::of(2, vec![small(3, 16), small(5, 8)]),
            ],
        };
        let mutator = Mutator::new(&surface, 8, true, true);
        let mut rng = StdRng::seed_from_u64(1);
        let free = Mask::default();
        // Only the deposit shares names and types with the withdrawal: both selectors are
        // copied, the amount (another name) is not.
        assert!(mutator.couple_names(&mut seq, 1, &free, &mut rng).is_some());
        assert_eq!(
            seq.txs[1].args,
            vec![small(1, 8), small(9, 256), small(2, 8)]
        );
        assert_eq!(
            mutator.couple_names(&mut seq, 1, &free, &mut rng),
            None,
            "already equal"
        );
        assert_eq!(
            mutator.couple_names(&mut seq, 2, &free, &mut rng),
            None,
            "no name matches"
        );
        // `coupling = false` turns it off.
        let mut fresh = seq.clone();
        fresh.txs[1].args[0] = small(6, 8);
        let off = Mutator::new(&surface, 8, true, true).coupling(false);
        let dict = Dictionary::new(vec![]);
        let change = off.mutate_tx(
            TxMutation::CoupleNames,
            &mut fresh,
            1,
            &free,
            &mut rng,
            &dict,
        );
        assert_eq!(change, None);
        // The mask keeps an argument it holds.
        let mut seq = Sequence {
            txs: vec![
                seq.txs[0].clone(),
                TxInput::of(1, vec![small(7, 8), small(9, 256), small(4, 8)]),
            ],
        };
        let mut mask = Mask::default();
        mask.hold(1, Input::Argument(0));
        assert!(mutator.couple_names(&mut seq, 1, &mask, &mut rng).is_some());
        assert_eq!(
            seq.txs[1].args,
            vec![small(7, 8), small(9, 256), small(2, 8)]
        );
    }

    /// `approve(address spender, uint256)` and `spend(address from, uint256)`, three
    /// senders: the sequence where sender 0 approves sender 2 and sender 1 spends from
    /// address 0x..09 (nobody).
    fn approve_and_spend() -> (Surface, Sequence) {
        let senders: Vec<Address> = (1..=3).map(Address::with_last_byte).collect();
        let surface = Surface {
            functions: vec![
                function("approve", vec![DynSolType::Address, DynSolType::Uint(256)]),
                function("spend", vec![DynSolType::Address, DynSolType::Uint(256)]),
            ],
            deployed: 2,
            kinds: Vec::new(),
            senders: senders.clone(),
            addresses: None,
            delays: Delays::default(),
        };
        let amount = DynSolValue::Uint(U256::from(5), 256);
        let mut approve = TxInput::of(0, vec![DynSolValue::Address(senders[2]), amount.clone()]);
        approve.sender = 0;
        let mut spend = TxInput::of(
            1,
            vec![DynSolValue::Address(Address::with_last_byte(9)), amount],
        );
        spend.sender = 1;
        (
            surface,
            Sequence {
                txs: vec![approve, spend],
            },
        )
    }

    #[test]
    fn coupling_names_another_transactions_sender_or_sends_from_a_named_address() {
        let (surface, seq) = approve_and_spend();
        let mutator = Mutator::new(&surface, 8, true, true);
        let mut rng = StdRng::seed_from_u64(3);
        let free = Mask::default();
        let mut seen = std::collections::HashSet::new();
        for _ in 0..200 {
            let mut mutant = seq.clone();
            let change = mutator.couple_address(&mut mutant, 1, &free, &mut rng);
            let spend = &mutant.txs[1];
            match change {
                // `from` becomes the approver (sender 0)...
                Some(Change::Leaf { tx: 1, path }) => {
                    assert_eq!(path, LeafPath(vec![0]));
                    assert_eq!(spend.args[0], DynSolValue::Address(surface.senders[0]));
                    seen.insert("argument");
                }
                // ...or the spender becomes the sender approve named (sender 2).
                Some(Change::Sender { tx: 1 }) => {
                    assert_eq!(spend.sender, 2);
                    seen.insert("sender");
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(seen.len(), 2);
        // A held input is never coupled; with both held nothing can be.
        let mut mask = Mask::default();
        mask.hold(1, Input::Argument(0));
        mask.hold(1, Input::Sender);
        let mut mutant = seq.clone();
        assert_eq!(
            mutator.couple_address(&mut mutant, 1, &mask, &mut rng),
            None
        );
        // Where setup allows other addresses only, an argument never becomes a sender;
        // the sender may still become the one approve named.
        let restricted = Surface {
            addresses: Some(vec![Address::with_last_byte(9), surface.senders[2]]),
            ..surface.clone()
        };
        let mutator = Mutator::new(&restricted, 8, true, true);
        for _ in 0..50 {
            let mut mutant = seq.clone();
            let change = mutator.couple_address(&mut mutant, 1, &free, &mut rng);
            assert_eq!(change, Some(Change::Sender { tx: 1 }));
        }
        let off = Mutator::new(&surface, 8, true, true).coupling(false);
        let mut mutant = seq.clone();
        let dict = Dictionary::new(vec![]);
        for _ in 0..50 {
            let change = off.mutate_tx(
                TxMutation::CoupleAddress,
                &mut mutant,
                1,
                &free,
                &mut rng,
                &dict,
            );
            assert_eq!(change, None, "coupling off");
        }
    }

    #[test]
    fn a_mask_keeps_one_transaction_mutations_off_held_inputs() {
        let (surface, seq) = approve_and_spend();
        let mutator = Mutator::new(&surface, 8, true, true);
        let mut dataflow = Dataflow::new(2, false);
        dataflow.mark(1, Dependence::Aggressive);
        let pools = Pools::default();
        let guide = Guide {
            dataflow: &dataflow,
            pools: &pools,
        };
        // Everything of approve held, and spend's `from` and sender.
        let mut mask = Mask::default();
        for input in [
            Input::Argument(0),
            Input::Argument(1),
            Input::Sender,
            Input::Warp,
        ] {
            mask.hold(0, input);
        }
        mask.hold(1, Input::Argument(0));
        mask.hold(1, Input::Sender);
        let mut rng = StdRng::seed_from_u64(5);
        let dict = Dictionary::new(vec![]);
        let mut changed_amount = 0;
        for _ in 0..500 {
            let (mutant, change) = mutator.mutate(&seq, &seq, Some(&mask), &mut rng, &dict, guide);
            match change {
                Change::Structure => continue,
                Change::Leaf { tx, path } => {
                    assert_eq!(
                        (tx, path),
                        (1, LeafPath(vec![1])),
                        "only spend's amount is free"
                    );
                    changed_amount += 1;
                }
                Change::Warp { tx } => assert_eq!(tx, 1),
                other => panic!("{other:?} changed a held input"),
            }
            assert_eq!(mutant.txs[0], seq.txs[0]);
            assert_eq!(mutant.txs[1].args[0], seq.txs[1].args[0]);
            assert_eq!(mutant.txs[1].sender, seq.txs[1].sender);
        }
        assert!(changed_amount > 50, "{changed_amount}");
        // A probe changes exactly the input it names.
        let probe = mutator
            .probe(&seq, 0, Input::Sender, &mut rng, &dict)
            .unwrap();
        assert_ne!(probe.txs[0].sender, seq.txs[0].sender);
        assert_eq!(probe.txs[0].args, seq.txs[0].args);
        assert_eq!(probe.txs[1], seq.txs[1]);
    }

    #[test]
    fn every_new_transaction_and_mutant_stays_inside_what_setup_declared() {
        use crate::engine::surface::tests::ether_surface;
        let surface = ether_surface();
        let allowed = surface.addresses.clone().unwrap();
        let dict = Dictionary::closed(allowed.clone());
        let dataflow = Dataflow::new(surface.functions.len(), false);
        let pools = Pools::default();
        let guide = Guide {
            dataflow: &dataflow,
            pools: &pools,
        };
        let mutator = Mutator::new(&surface, 4, false, false);
        let mut rng = StdRng::seed_from_u64(11);
        let check = |tx: &TxInput| {
            let f = &surface.functions[tx.function];
            if let Some(bound) = surface.bound(tx.function, 0) {
                assert!(bound.contains(&tx.args[0]), "{:?}", tx.args);
            }
            if let Entry::Fallback { selectors, .. } = &f.entry {
                let DynSolValue::Bytes(data) = &tx.args[0] else {
                    panic!("fallback calldata is bytes")
                };
                assert!(!data.is_empty(), "empty calldata would call receive()");
                assert!(data.len() < 4 || !selectors.iter().any(|s| s[..] == data[..4]));
            }
            let mut addresses = Vec::new();
            for arg in &tx.args {
                match arg {
                    DynSolValue::Address(a) => addresses.push(*a),
                    DynSolValue::Array(items) => {
                        addresses.extend(items.iter().filter_map(DynSolValue::as_address))
                    }
                    _ => {}
                }
            }
            assert!(
                addresses.iter().all(|a| allowed.contains(a)),
                "{addresses:?}"
            );
        };
        let mut seq = Sequence {
            txs: vec![mutator.random_tx(&mut rng, &dict, guide)],
        };
        let mut fallbacks = 0;
        for _ in 0..5_000 {
            let (child, _) = mutator.mutate(&seq, &seq, None, &mut rng, &dict, guide);
            let (twin, _) = mutator.mutate_input(&child, &mut rng, &dict);
            for tx in child.txs.iter().chain(&twin.txs) {
                check(tx);
                fallbacks += usize::from(tx.function == 3);
            }
            seq = child;
        }
        assert!(fallbacks > 100, "{fallbacks}");
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
            add_warps(a, b, Delays::default()),
            Warp {
                seconds: 61,
                blocks: 6
            }
        );
        // As far as one call may wait, where the campaign limits it.
        let limited = Delays {
            seconds: Some(60),
            blocks: None,
        };
        assert_eq!(
            add_warps(a, b, limited),
            Warp {
                seconds: 60,
                blocks: 6
            }
        );
    }

    #[test]
    fn warps_stay_within_the_delays() {
        let mut rng = StdRng::seed_from_u64(3);
        let dict = Dictionary::default();
        let still = (0..2_000).map(|_| random_warp(&mut rng, Delays::STILL));
        assert!(still.into_iter().all(|w| w == Warp::default()));
        // forge's keys: time and blocks drawn apart, each within its limit.
        let forge = Delays {
            seconds: Some(3_600),
            blocks: Some(10),
        };
        let (mut timed, mut rolled) = (false, false);
        for _ in 0..2_000 {
            let mut warp = random_warp(&mut rng, forge);
            assert!(forge.allow(warp), "{warp:?}");
            mutate_warp(&mut warp, forge, &mut rng, &dict);
            assert!(forge.allow(warp), "{warp:?}");
            timed |= warp.seconds > 0;
            rolled |= warp.blocks > 0;
        }
        assert!(timed && rolled);
        // Time only: the blocks stay.
        let time_only = Delays {
            seconds: None,
            blocks: Some(0),
        };
        for _ in 0..500 {
            let warp = random_warp(&mut rng, time_only);
            assert_eq!(warp.blocks, 0);
        }
        // harvey's own: blocks follow the time.
        for _ in 0..500 {
            let warp = random_warp(&mut rng, Delays::default());
            assert_eq!(warp.blocks > 0, warp.seconds > 0, "{warp:?}");
        }
    }
}
