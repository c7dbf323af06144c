//! Hash maps for the hot paths of the engine and the lookahead analysis: a multiply-rotate
//! hasher instead of SipHash.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` with [`KeyHasher`].
pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<KeyHasher>>;
/// A `HashSet` with [`KeyHasher`].
pub(crate) type FastSet<K> = HashSet<K, BuildHasherDefault<KeyHasher>>;

/// A fast, deterministic hasher for small keys (edges, cost metrics, abstract states).
/// Those maps are probed for every transaction, mutant or abstract step, where SipHash
/// would cost as much as the work itself; the keys come from the contracts' own bytecode
/// and the fuzzer, not from an adversary. Where a collision would be wrong rather than
/// slow, the map keeps the full key.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = (self.0.rotate_left(5) ^ value).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn write_u32(&mut self, value: u32) {
        self.write_u64(u64::from(value));
    }

    fn write_u8(&mut self, value: u8) {
        self.write_u64(u64::from(value));
    }

    fn write_usize(&mut self, value: usize) {
        self.write_u64(value as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::Hash;

    fn hash(value: impl Hash) -> u64 {
        let mut hasher = KeyHasher::default();
        value.hash(&mut hasher);
        hasher.finish()
    }

    #[test]
    fn distinct_small_keys_hash_apart_and_hashing_is_stable() {
        assert_eq!(hash((1u32, true)), hash((1u32, true)));
        assert_ne!(hash((1u32, true)), hash((1u32, false)));
        assert_ne!(hash((1u32, 2u32)), hash((2u32, 1u32)));
    }
}
