//! State novelty (issue 43): path ids cover the last transaction only, so a sequence that
//! moves a contract into a state no run has left before is dropped when its last call took
//! a known path: `right()` into a new cell of a maze, a deposit into a market's first
//! nonzero balance, the first time a counter reaches 3. Such a sequence is the only way to
//! the code that needs that state, yet nothing kept it.
//!
//! This stage keeps it. Every word a transaction leaves in storage gets a value class:
//! zero, a small number up to [`SMALL`] (each its own class in a fixed slot; 1, or the
//! others together, in a hashed one), one of the senders, or "another nonzero word". A
//! storage location is a slot of the contract's fixed layout (below [`FIXED_LAYOUT`]:
//! declared variables and what sits right after them), or, for a slot hashed out of a
//! mapping key or a dynamic array, the `SSTORE` that wrote it (one location per mapping
//! write site, whatever the key). A transaction left a new state when it stored a class at
//! a location that no earlier run had, or a combination no earlier transaction had: of
//! everything it wrote (a maze's `x` and `y` together; a write site counts there as
//! written, whatever its class, since a token's balances and allowances would otherwise
//! multiply into states no bug needs), or of the fixed slots the run has written so far
//! (an `x` one call set, a `y` another).
//!
//! Bounded: the classes per location are few (zero, [`SMALL`] numbers, the senders, one
//! for the rest), the locations are the fixed slots a contract writes and its `SSTORE`
//! sites, and past [`MAX_KEYS`] states seen, nothing more is kept for novelty alone.

use std::hash::Hasher;

use alloy_primitives::{Address, U256};

use crate::engine::executor::{RunStart, Seen, Sink};
use crate::engine::input::Sequence;
use crate::hash::{FastSet, KeyHasher};
use crate::observe::{StorageOp, Trace};

/// Salt of the corpus keys of runs kept for a new state, apart from path ids.
const NOVEL_SALT: u64 = 0x5747_e0f0_0e11;

/// The largest number that is its own value class: grid coordinates, modes, counters and
/// the indices of a protocol's markets are small.
const SMALL: u64 = 32;

/// Slots below this are the fixed layout's; above it, keccak outputs.
const FIXED_LAYOUT: u64 = 1 << 32;

/// States (location classes and combinations) remembered at most: past this many, a run
/// is no longer kept for a new state.
const MAX_KEYS: usize = 1 << 14;

/// Where a value was stored, for its class: a fixed slot of an account, or the write site
/// of a hashed slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Location {
    Fixed(Address, U256),
    Site(Address, Address, u32),
}

/// What kind of word was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Class {
    Zero,
    /// 1 to [`SMALL`]: each its own class in a fixed slot (a coordinate, a mode, a count);
    /// in a hashed slot only 1 (a flag) and 2 for all the others, since there the value is
    /// mostly an amount under some key, and a class per amount would keep a sequence per
    /// small balance.
    Small(u8),
    /// The sender at this index.
    Sender(u8),
    Other,
    /// Any word: a write site in a combination.
    Any,
}

/// The class of `value` stored at `location`, with `senders` the campaign's.
fn class_of(value: U256, location: &Location, senders: &[Address]) -> Class {
    if value.is_zero() {
        return Class::Zero;
    }
    if value <= U256::from(SMALL) {
        let small = value.to::<u8>();
        return match location {
            Location::Fixed(..) => Class::Small(small),
            Location::Site(..) => Class::Small(small.min(2)),
        };
    }
    if value.bit_len() <= 160 {
        let address = Address::from_word(value.into());
        if let Some(i) = senders.iter().position(|s| *s == address) {
            return Class::Sender(i as u8);
        }
    }
    Class::Other
}

/// The classes of the states transactions left, over one worker's regular runs.
#[derive(Debug)]
pub(crate) struct StateNovelty {
    senders: Vec<Address>,
    /// Every (location, class) pair and every transaction's combination of them seen.
    seen: FastSet<u64>,
    /// The corpus key of this run, once one of its transactions left a new state.
    novel: Option<u64>,
    /// The corpus keys of every state this run's transactions left, new or not.
    reached: Vec<u64>,
    /// This transaction's persisted writes, last one per slot.
    writes: Vec<(Address, U256, Location, U256)>,
    /// The class each fixed slot written so far in this run holds: the run's state as far
    /// as it changed it.
    run_state: Vec<(Location, Class)>,
    /// A transaction's (location, class) keys, and the run state's: a buffer reused.
    keys: Vec<u64>,
    /// A transaction's keys as they combine (write sites without their classes): a
    /// buffer reused.
    together: Vec<u64>,
    /// Runs kept for a new state.
    pub(crate) kept: u64,
}

impl StateNovelty {
    /// Nothing seen yet, with the campaign's `senders`.
    pub(crate) fn new(senders: Vec<Address>) -> Self {
        StateNovelty {
            senders,
            seen: FastSet::default(),
            novel: None,
            reached: Vec::new(),
            writes: Vec::new(),
            run_state: Vec::new(),
            keys: Vec::new(),
            together: Vec::new(),
            kept: 0,
        }
    }

    /// The corpus key under which to keep the last run, when a transaction of it left a
    /// state no run had. Keys differ per state, so each is kept once.
    pub(crate) fn novel(&self) -> Option<u64> {
        self.novel
    }

    /// The corpus keys of the states the last run left (each once), but the one it was
    /// kept for: the schedule counts how often each kept state is reached again, as it
    /// counts path ids, or a state reached once would always look rare and take the most
    /// energy.
    pub(crate) fn reached_again(&mut self) -> impl Iterator<Item = u64> + '_ {
        self.reached.sort_unstable();
        self.reached.dedup();
        let novel = self.novel;
        self.reached
            .iter()
            .copied()
            .filter(move |&key| Some(key) != novel)
    }

    /// Notes `key` as seen; the run becomes novel if it was not.
    fn see(&mut self, key: u64) {
        let salted = key ^ NOVEL_SALT;
        if self.seen.contains(&key) {
            self.reached.push(salted);
        } else if self.seen.len() < MAX_KEYS {
            self.seen.insert(key);
            self.novel.get_or_insert(salted);
            self.reached.push(salted);
        }
    }

    /// The stores of `trace` that persist (their frame and every frame around it
    /// succeeded), the last per slot, into `writes`.
    fn persisted_writes(&mut self, trace: &Trace) {
        self.writes.clear();
        let calls = trace.calls();
        let persists = |frame: u32| {
            let mut frame = Some(frame);
            while let Some(f) = frame {
                let Some(call) = calls.get(f as usize) else {
                    // Outside any frame: the transaction's success decides.
                    return true;
                };
                if !call.succeeded {
                    return false;
                }
                frame = call.parent;
            }
            true
        };
        for store in trace.storage() {
            if store.op != StorageOp::Store || !persists(store.frame) {
                continue;
            }
            let location = if store.slot < U256::from(FIXED_LAYOUT) {
                Location::Fixed(store.address, store.slot)
            } else {
                Location::Site(store.address, store.code, store.pc)
            };
            match (self.writes.iter_mut()).find(|w| w.0 == store.address && w.1 == store.slot) {
                Some(write) => write.3 = store.value,
                None => (self.writes).push((store.address, store.slot, location, store.value)),
            }
        }
    }
}

/// The key of `class` at `location`.
fn key(location: &Location, class: Class) -> u64 {
    let mut key = KeyHasher::default();
    std::hash::Hash::hash(location, &mut key);
    std::hash::Hash::hash(&class, &mut key);
    key.finish()
}

impl Sink for StateNovelty {
    fn start(&mut self, _sequence: &Sequence, _start: RunStart) {
        self.novel = None;
        self.reached.clear();
        self.run_state.clear();
    }

    fn transaction(&mut self, seen: &Seen<'_>) {
        if seen.reverted {
            return;
        }
        self.persisted_writes(seen.trace);
        // The buffers are the stage's, reused: taken out so that `see` may borrow it.
        let mut keys = std::mem::take(&mut self.keys);
        let mut together = std::mem::take(&mut self.together);
        keys.clear();
        together.clear();
        let mut fixed_written = false;
        for (_, _, location, value) in &self.writes {
            let class = class_of(*value, location, &self.senders);
            keys.push(key(location, class));
            together.push(match location {
                Location::Fixed(..) => key(location, class),
                // In a combination, a write site counts as written, whatever its class:
                // the classes of a token's balances and allowances, each under some key,
                // multiply into states no bug needs.
                Location::Site(..) => key(location, Class::Any),
            });
            if matches!(location, Location::Fixed(..)) {
                fixed_written = true;
                match self.run_state.iter_mut().find(|(l, _)| l == location) {
                    Some(state) => state.1 = class,
                    None => self.run_state.push((*location, class)),
                }
            }
        }
        for &key in &keys {
            self.see(key);
        }
        if together.len() > 1 {
            // Several locations at once: their classes together are a state of their own
            // (a cell is an `x` and a `y`), in whatever order they were written.
            self.see(combined(&mut together));
        }
        if fixed_written && self.run_state.len() > 1 {
            // The same across transactions: an `x` set by one call and a `y` by another.
            keys.clear();
            keys.extend((self.run_state.iter()).map(|(location, class)| key(location, *class)));
            self.see(combined(&mut keys));
        }
        self.keys = keys;
        self.together = together;
    }
}

/// The key of several (location, class) `keys` together, whatever their order (sorts
/// `keys`).
fn combined(keys: &mut Vec<u64>) -> u64 {
    keys.sort_unstable();
    keys.dedup();
    let mut combined = KeyHasher::default();
    for &key in keys.iter() {
        combined.write_u64(key);
    }
    combined.finish()
}

#[cfg(test)]
mod tests;
