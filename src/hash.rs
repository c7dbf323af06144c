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

    /// Little-endian 8-byte words, the last one zero-padded. Whole words are read as
    /// words: copying each into a zeroed buffer costs a `memcpy` call per word (addresses,
    /// hashed in every edge and metric key, are 20 bytes).
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let word: [u8; 8] = word.try_into().expect("chunks_exact yields 8 bytes");
            self.write_u64(u64::from_le_bytes(word));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
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

    /// Bytes hash as their little-endian 8-byte words, the last one zero-padded (a
    /// campaign's draws from a hash map's order depend on it staying so).
    #[test]
    fn bytes_hash_as_padded_words() {
        let bytes: Vec<u8> = (1..=41).collect();
        for len in 0..=bytes.len() {
            let mut expected = KeyHasher::default();
            for chunk in bytes[..len].chunks(8) {
                let mut word = [0u8; 8];
                word[..chunk.len()].copy_from_slice(chunk);
                expected.write_u64(u64::from_le_bytes(word));
            }
            let mut hasher = KeyHasher::default();
            hasher.write(&bytes[..len]);
            assert_eq!(hasher.finish(), expected.finish(), "{len} bytes");
        }
    }

    #[test]
    fn distinct_small_keys_hash_apart_and_hashing_is_stable() {
        assert_eq!(hash((1u32, true)), hash((1u32, true)));
        assert_ne!(hash((1u32, true)), hash((1u32, false)));
        assert_ne!(hash((1u32, 2u32)), hash((2u32, 1u32)));
    }
}
