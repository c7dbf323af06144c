//! The attacker contract: the code of the last default sender ([`SENDERS`]`[2]`), so that
//! one of the fuzzed attackers calls back. Before each transaction that sender sends, the
//! chain arms it to re-enter the transaction's target with the transaction's own calldata,
//! once, when the target calls or pays it (`withdraw` re-entered from the ether it sends);
//! after the transaction it is disarmed. Unarmed, it accepts ether and answers token
//! callbacks (`onERC721Received`, `onERC1155Received`, ...) with their own selector, as a
//! receiving contract must; a payment with the 2,300-gas stipend of `send` or `transfer` it
//! refuses, so that failed sends happen. Its source is `Attacker.sol` beside this file.

use alloy_primitives::{Address, Bytes, U256, hex, keccak256};
use once_cell::sync::Lazy;

use super::SENDERS;

/// The sender whose account holds the attacker contract.
pub const ATTACKER_CONTRACT: Address = SENDERS[2];

/// The runtime code of `Attacker.sol`'s `HarveyAttacker`, compiled by solc 0.8.28 with the
/// optimizer at 200 runs and no metadata (a test compiles the source again and compares).
const ATTACKER_RUNTIME: &str = "6080604052366100135761001161007a565b005b5f36606061001f61007a565b5f600483101561002f575f610045565b61003c60045f858761014d565b61004591610174565b604080516001600160e01b03198316602082015291925001604051602081830303815290604052915050915050805190602001f35b61c3505a10156100ca5734156100c85760405162461bcd60e51b815260206004820152600f60248201526e1cdd1a5c195b99081c99599d5cd959608a1b604482015260640160405180910390fd5b565b6001545f036100d557565b6001805f8282546100e691906101ac565b90915550505f80546040516001600160a01b0390911690610109906002906101d1565b5f604051808303815f865af19150503d805f8114610142576040519150601f19603f3d011682016040523d82523d5f602084013e610147565b606091505b50505050565b5f5f8585111561015b575f5ffd5b83861115610167575f5ffd5b5050820193919092039150565b80356001600160e01b031981169060048410156101a5576001600160e01b0319600485900360031b81901b82161691505b5092915050565b818103818111156101cb57634e487b7160e01b5f52601160045260245ffd5b92915050565b5f5f83545f8160011c905060018216806101ec57607f821691505b60208210810361020a57634e487b7160e01b5f52602260045260245ffd5b80801561021e576001811461023357610261565b60ff1984168752821515830287019450610261565b5f888152602090205f5b848110156102595781548982015260019091019060200161023d565b505082870194505b5092969550505050505056";

/// [`ATTACKER_RUNTIME`] as bytes, decoded once.
pub(super) static CODE: Lazy<Bytes> = Lazy::new(|| {
    // A constant the test above keeps valid hex: decoding it cannot fail.
    Bytes::from(hex::decode(ATTACKER_RUNTIME).unwrap_or_default())
});

/// Storage slot of the target to re-enter.
const TARGET_SLOT: u64 = 0;
/// Storage slot of the re-entries left.
const REENTRIES_SLOT: u64 = 1;
/// Storage slot of the calldata to re-enter with (a Solidity `bytes`).
const PAYLOAD_SLOT: u64 = 2;

/// Where a long payload's data starts: the hash of [`PAYLOAD_SLOT`], as Solidity lays out
/// `bytes`. Hashed once: armed transactions are about half a campaign's on contracts that
/// pay, and the hash cost as much as a short call.
static PAYLOAD_DATA: Lazy<U256> =
    Lazy::new(|| U256::from_be_bytes(keccak256(U256::from(PAYLOAD_SLOT).to_be_bytes::<32>()).0));

/// The storage writes that arm the attacker to re-enter `target` once with `calldata`:
/// the target, one re-entry, and `calldata` laid out as Solidity stores `bytes` (short:
/// data and twice the length in one slot; long: twice the length plus one, the data from
/// the slot's hash on).
pub(super) fn arming(target: Address, calldata: &[u8]) -> impl Iterator<Item = (U256, U256)> + '_ {
    let length = calldata.len();
    // The word in the payload slot, and the data that goes from its hash on.
    let (payload, data) = if length < 32 {
        let mut word = [0u8; 32];
        word[..length].copy_from_slice(calldata);
        word[31] = (length * 2) as u8;
        (U256::from_be_bytes(word), &[][..])
    } else {
        (U256::from(length * 2 + 1), calldata)
    };
    let data = data.chunks(32).enumerate().map(|(i, chunk)| {
        let mut word = [0u8; 32];
        word[..chunk.len()].copy_from_slice(chunk);
        (*PAYLOAD_DATA + U256::from(i), U256::from_be_bytes(word))
    });
    [
        (
            U256::from(TARGET_SLOT),
            U256::from_be_slice(target.as_slice()),
        ),
        (U256::from(REENTRIES_SLOT), U256::ONE),
        (U256::from(PAYLOAD_SLOT), payload),
    ]
    .into_iter()
    .chain(data)
}

/// The storage write that disarms the attacker: no re-entry left.
pub(super) fn disarming() -> (U256, U256) {
    (U256::from(REENTRIES_SLOT), U256::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Calldata as Solidity stores a `bytes` in slot 2: in the slot itself when shorter
    /// than 32 bytes, else its length there and its words from the slot's hash on.
    #[test]
    fn arming_lays_the_calldata_out_as_solidity_bytes() {
        let target = Address::repeat_byte(0xab);
        let writes = |calldata: &[u8]| arming(target, calldata).collect::<Vec<_>>();
        let head = |payload: U256| {
            vec![
                (U256::ZERO, U256::from_be_slice(target.as_slice())),
                (U256::ONE, U256::ONE),
                (U256::from(2), payload),
            ]
        };
        let short = [0x11u8; 4];
        let mut word = [0u8; 32];
        word[..4].copy_from_slice(&short);
        word[31] = 8;
        assert_eq!(writes(&short), head(U256::from_be_bytes(word)));
        assert_eq!(writes(&[]), head(U256::ZERO));
        // keccak256(uint256(2)), where a `bytes` in slot 2 keeps its data.
        let start = U256::from_be_bytes(hex!(
            "405787fa12a823e0f2b7631cc41b3ba8828b3321ca811111fa75cd3aa3bb5ace"
        ));
        let long: Vec<u8> = (0..36).collect();
        let mut expected = head(U256::from(36 * 2 + 1));
        let mut tail = [0u8; 32];
        tail[..4].copy_from_slice(&long[32..]);
        expected.push((start, U256::from_be_slice(&long[..32])));
        expected.push((start + U256::ONE, U256::from_be_bytes(tail)));
        assert_eq!(writes(&long), expected);
    }
}
