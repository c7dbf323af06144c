//! Keys and addresses scripts compute: `computeCreateAddress`, `computeCreate2Address` (with
//! a deployer, or forge's CREATE2 deployer), `deriveKey` (BIP-39 mnemonic, BIP-32 path) and
//! the wallets `rememberKey` (and keyed broadcasts) remember, of which a broadcast without an
//! argument uses the only one.
//!
//! Where harvey differs: `deriveKey` does not check the mnemonic's words or checksum against
//! the BIP-39 word list (forge rejects an invalid phrase; harvey derives from it as given),
//! and takes only `"english"` for the language (forge also takes the other nine BIP-39
//! lists, whose words would need their Unicode normalisation).

use alloy_primitives::{Address, B256, U256};
use hmac::{Hmac, Mac};
use k256::elliptic_curve::PrimeField;
use sha2::Sha512;

use super::{CREATE2_DEPLOYER, fail};

/// forge's derivation path prefix when none is given: the first account of Ethereum's BIP-44
/// path, the index appended.
const DEFAULT_PATH: &str = "m/44'/60'/0'/0/";

/// `vm.computeCreateAddress`: `deployer`'s CREATE at `nonce`, forge's error above 2^64 - 1.
pub(super) fn create_address(deployer: Address, nonce: U256) -> Result<Address, Vec<u8>> {
    let nonce = u64::try_from(nonce).map_err(|_| fail("nonce must be less than 2^64"))?;
    Ok(deployer.create(nonce))
}

/// `vm.computeCreate2Address`: the CREATE2 address, from forge's deployer when none is given.
pub(super) fn create2_address(
    salt: B256,
    init_code_hash: B256,
    deployer: Option<Address>,
) -> Address {
    deployer
        .unwrap_or(CREATE2_DEPLOYER)
        .create2(salt, init_code_hash)
}

/// `vm.deriveKey`: the private key at `path` (forge's default path when `None`) with `index`
/// appended, from `mnemonic` without a passphrase.
pub(super) fn derive_key(
    mnemonic: &str,
    path: Option<&str>,
    index: u32,
    language: Option<&str>,
) -> Result<U256, Vec<u8>> {
    if let Some(language) = language.filter(|l| *l != "english") {
        return Err(fail(format!(
            "unsupported mnemonic language: {language:?} (harvey derives keys from English mnemonics only)"
        )));
    }
    let mut path = path.unwrap_or(DEFAULT_PATH).to_string();
    if !path.ends_with('/') {
        path.push('/');
    }
    path.push_str(&index.to_string());
    let seed = seed(mnemonic);
    derive(&seed, &path).map_err(fail)
}

/// BIP-39's seed of `mnemonic` (no passphrase): PBKDF2-HMAC-SHA512, 2048 rounds, salt
/// `"mnemonic"`, one 64-byte block.
fn seed(mnemonic: &str) -> [u8; 64] {
    let words: Vec<&str> = mnemonic.split_whitespace().collect();
    let password = words.join(" ");
    let mut block = hmac512(
        password.as_bytes(),
        &[b"mnemonic".as_slice(), &1u32.to_be_bytes()],
    );
    let mut seed = block;
    for _ in 1..2048 {
        block = hmac512(password.as_bytes(), &[&block]);
        seed.iter_mut().zip(block).for_each(|(s, b)| *s ^= b);
    }
    seed
}

/// HMAC-SHA512 of the concatenated `parts` under `key`.
fn hmac512(key: &[u8], parts: &[&[u8]]) -> [u8; 64] {
    // HMAC takes keys of any length: `new_from_slice` cannot fail.
    let Ok(mut mac) = Hmac::<Sha512>::new_from_slice(key) else {
        return [0; 64];
    };
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().into()
}

/// The BIP-32 private key at `path` (`m/44'/60'/0'/0/3`) below `seed`'s master key.
fn derive(seed: &[u8], path: &str) -> Result<U256, String> {
    let invalid = || format!("invalid derivation path {path:?}");
    let mut steps = path.split('/');
    if steps.next() != Some("m") {
        return Err(invalid());
    }
    let master = hmac512(b"Bitcoin seed", &[seed]);
    let (mut key, mut chain) = split(&master)?;
    for step in steps {
        let (number, hardened) = match step.strip_suffix('\'') {
            Some(number) => (number, true),
            None => (step, false),
        };
        let index: u32 = number.parse().map_err(|_| invalid())?;
        if index >= 1 << 31 {
            return Err(invalid());
        }
        let data = if hardened {
            let mut data = vec![0u8];
            data.extend_from_slice(&key.to_bytes());
            data.extend_from_slice(&(index | 1 << 31).to_be_bytes());
            data
        } else {
            let public = k256::PublicKey::from_secret_scalar(
                &k256::NonZeroScalar::new(key)
                    .into_option()
                    .ok_or("a derived key is zero")?,
            );
            let mut data =
                k256::elliptic_curve::sec1::ToEncodedPoint::to_encoded_point(&public, true)
                    .as_bytes()
                    .to_vec();
            data.extend_from_slice(&index.to_be_bytes());
            data
        };
        let child = hmac512(&chain, &[&data]);
        let (tweak, next_chain) = split(&child)?;
        key += tweak;
        chain = next_chain;
    }
    Ok(U256::from_be_slice(&key.to_bytes()))
}

/// A BIP-32 output: its left half as a scalar (`None` at or above the curve order, which
/// BIP-32 calls an invalid key: probability below 2^-127), its right half the chain code.
fn split(output: &[u8; 64]) -> Result<(k256::Scalar, [u8; 32]), String> {
    let mut left = [0u8; 32];
    left.copy_from_slice(&output[..32]);
    let scalar = k256::Scalar::from_repr(left.into())
        .into_option()
        .ok_or("the derivation path leads to an invalid key")?;
    let mut chain = [0u8; 32];
    chain.copy_from_slice(&output[32..]);
    Ok((scalar, chain))
}

/// The private keys a suite remembered (`vm.rememberKey`, keyed broadcasts), by address.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(in crate::chain) struct Wallets {
    addresses: Vec<Address>,
}

impl Wallets {
    /// Remembers the wallet at `address`.
    pub(super) fn remember(&mut self, address: Address) {
        if !self.addresses.contains(&address) {
            self.addresses.push(address);
        }
    }

    /// The only remembered wallet, which a broadcast without an argument uses (forge's rule:
    /// with none or several, it uses `tx.origin`).
    pub(super) fn only(&self) -> Option<Address> {
        match self.addresses.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{address, b256, hex, keccak256};

    const JUNK: &str = "test test test test test test test test test test test junk";

    #[test]
    fn the_test_mnemonic_gives_anvils_keys() {
        let first = derive_key(JUNK, None, 0, None).unwrap();
        assert_eq!(
            first.to_be_bytes::<32>(),
            hex!("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
        );
        let second = derive_key(JUNK, Some("m/44'/60'/0'/0"), 1, Some("english")).unwrap();
        assert_eq!(
            second.to_be_bytes::<32>(),
            hex!("59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d")
        );
        assert!(derive_key(JUNK, Some("44'/60'"), 0, None).is_err());
        assert!(derive_key(JUNK, None, 0, Some("french")).is_err());
    }

    #[test]
    fn create_addresses_are_forges() {
        let deployer = address!("0x1804c8AB1F12E6bbf3894d4083f33e07309d1f38");
        assert_eq!(
            create_address(deployer, U256::from(1)),
            Ok(address!("0x7FA9385bE102ac3EAc297483Dd6233D62b3e1496"))
        );
        assert!(create_address(deployer, U256::MAX).is_err());
        let hash = keccak256([0u8; 0]);
        let salt = b256!("0x0000000000000000000000000000000000000000000000000000000000000001");
        assert_eq!(
            create2_address(salt, hash, None),
            CREATE2_DEPLOYER.create2(salt, hash)
        );
    }

    #[test]
    fn a_broadcast_uses_the_only_remembered_wallet() {
        let mut wallets = Wallets::default();
        assert_eq!(wallets.only(), None);
        wallets.remember(Address::with_last_byte(1));
        wallets.remember(Address::with_last_byte(1));
        assert_eq!(wallets.only(), Some(Address::with_last_byte(1)));
        wallets.remember(Address::with_last_byte(2));
        assert_eq!(wallets.only(), None);
    }
}
