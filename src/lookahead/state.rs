//! The abstract state of the constant-propagation domain: every stack slot, memory word and
//! storage slot is a known constant or unknown (⊤). Memory and storage only hold what was
//! written with constant offsets and keys along the analysed path; everything else, storage
//! left by earlier transactions included, is unknown.

use alloy_primitives::U256;

/// A stack value: `Some(constant)` or `None` for ⊤ (any value).
pub(crate) type Value = Option<U256>;

/// Largest memory offset tracked; beyond it the EVM runs out of gas long before, so writes
/// there are treated as writes to unknown offsets.
const MAX_TRACKED_OFFSET: u64 = 1 << 32;

/// One abstract machine state (the program counter is kept beside it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct AbsState {
    /// The stack, bottom first; its height is exact.
    pub(crate) stack: Vec<Value>,
    /// 32-byte words known to be at constant offsets (start offset → word).
    memory: SortedMap<u64, U256>,
    /// Storage slots known to hold constants (written along the path).
    storage: SortedMap<U256, U256>,
}

/// A small map as a vector sorted by key: states are cloned at every basic block of the
/// fixpoint and hold a handful of entries, where a vector is one allocation (none when
/// empty) and a `BTreeMap` several. Sorted, so equal maps are equal vectors (and hash
/// alike).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct SortedMap<K, V>(Vec<(K, V)>);

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap(Vec::new())
    }
}

impl<K: Ord + Copy, V: PartialEq + Copy> SortedMap<K, V> {
    fn find(&self, key: &K) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.cmp(key))
    }

    fn get(&self, key: &K) -> Option<V> {
        self.find(key).ok().map(|i| self.0[i].1)
    }

    fn insert(&mut self, key: K, value: V) {
        match self.find(&key) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (key, value)),
        }
    }

    fn remove(&mut self, key: &K) {
        if let Ok(i) = self.find(key) {
            self.0.remove(i);
        }
    }

    /// Removes the entries with keys in `start..end`.
    fn remove_range(&mut self, start: K, end: K) {
        self.0.retain(|(k, _)| *k < start || *k >= end);
    }

    /// Keeps the entries `other` has too, with the same value.
    fn keep_common(&mut self, other: &SortedMap<K, V>) {
        self.0.retain(|(k, v)| other.get(k) == Some(*v));
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn clear(&mut self) {
        self.0.clear();
    }
}

impl AbsState {
    /// A state with `stack` and nothing known about memory or storage.
    #[cfg(test)]
    pub(crate) fn with_stack(stack: Vec<Value>) -> AbsState {
        AbsState {
            stack,
            ..AbsState::default()
        }
    }

    /// Joins `other` (of the same stack height) into `self`: a constant stays where both
    /// agree, everything else becomes unknown. Returns whether `self` changed.
    pub(crate) fn join(&mut self, other: &AbsState) -> bool {
        debug_assert_eq!(self.stack.len(), other.stack.len());
        let mut changed = false;
        for (mine, theirs) in self.stack.iter_mut().zip(&other.stack) {
            if mine.is_some() && mine != theirs {
                *mine = None;
                changed = true;
            }
        }
        let before = (self.memory.len(), self.storage.len());
        self.memory.keep_common(&other.memory);
        self.storage.keep_common(&other.storage);
        changed || before != (self.memory.len(), self.storage.len())
    }

    /// The word at `offset` (`MLOAD`).
    pub(crate) fn mload(&self, offset: Value) -> Value {
        let offset = small(offset?)?;
        self.memory.get(&offset)
    }

    /// `MSTORE` of `value` at `offset`.
    pub(crate) fn mstore(&mut self, offset: Value, value: Value) {
        self.forget_memory(offset, Some(U256::from(32)));
        if let (Some(offset), Some(value)) = (offset.and_then(small), value) {
            self.memory.insert(offset, value);
        }
    }

    /// Forgets what is known about `len` bytes of memory at `offset` (a write of unknown
    /// content: `MSTORE8`, copies, call return data); unknown bounds forget all memory.
    pub(crate) fn forget_memory(&mut self, offset: Value, len: Value) {
        let (Some(offset), Some(len)) = (offset.and_then(small), len.and_then(small)) else {
            self.memory.clear();
            return;
        };
        if len == 0 {
            return;
        }
        // Words starting up to 31 bytes before the range overlap it.
        self.memory
            .remove_range(offset.saturating_sub(31), offset.saturating_add(len));
    }

    /// The value of storage `slot` (`SLOAD`).
    pub(crate) fn sload(&self, slot: Value) -> Value {
        self.storage.get(&slot?)
    }

    /// `SSTORE` of `value` into `slot`; an unknown slot may be any, so all are forgotten.
    pub(crate) fn sstore(&mut self, slot: Value, value: Value) {
        match (slot, value) {
            (Some(slot), Some(value)) => {
                self.storage.insert(slot, value);
            }
            (Some(slot), None) => {
                self.storage.remove(&slot);
            }
            (None, _) => self.storage.clear(),
        }
    }

    /// Forgets all storage: a call may re-enter and write any slot.
    pub(crate) fn forget_storage(&mut self) {
        self.storage.clear();
    }
}

/// `value` as a tracked memory offset or length, if small enough.
fn small(value: U256) -> Option<u64> {
    u64::try_from(value)
        .ok()
        .filter(|&v| v <= MAX_TRACKED_OFFSET)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(v: u64) -> Value {
        Some(U256::from(v))
    }

    #[test]
    fn memory_words_survive_disjoint_writes_only() {
        let mut s = AbsState::default();
        s.mstore(c(0x40), c(0x80));
        s.mstore(c(0x80), c(7));
        assert_eq!(s.mload(c(0x40)), c(0x80));
        assert_eq!(s.mload(c(0x41)), None, "only whole words at their offset");
        s.forget_memory(c(0x9f), c(1));
        assert_eq!(s.mload(c(0x80)), None, "a byte inside the word");
        assert_eq!(s.mload(c(0x40)), c(0x80));
        s.mstore(None, c(1));
        assert_eq!(s.mload(c(0x40)), None, "an unknown offset may be anywhere");
    }

    #[test]
    fn storage_keeps_constants_written_at_constant_slots() {
        let mut s = AbsState::default();
        assert_eq!(s.sload(c(0)), None, "left by earlier transactions: unknown");
        s.sstore(c(0), c(5));
        s.sstore(c(1), c(6));
        assert_eq!(s.sload(c(0)), c(5));
        s.sstore(c(0), None);
        assert_eq!(s.sload(c(0)), None);
        s.sstore(None, c(9));
        assert_eq!(s.sload(c(1)), None);
    }

    #[test]
    fn join_keeps_what_both_agree_on() {
        let mut a = AbsState {
            stack: vec![c(1), c(2), None],
            ..AbsState::default()
        };
        a.mstore(c(0), c(3));
        a.sstore(c(0), c(4));
        let mut b = a.clone();
        assert!(!a.join(&b));
        b.stack[1] = c(9);
        b.sstore(c(0), c(5));
        assert!(a.join(&b));
        assert_eq!(a.stack, vec![c(1), None, None]);
        assert_eq!(a.mload(c(0)), c(3));
        assert_eq!(a.sload(c(0)), None);
        assert!(!a.join(&b), "a fixpoint");
    }
}
