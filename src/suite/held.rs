//! The accounts a forge suite's state holds after `setUp()`, which forge also sends from.
//!
//! forge draws a fuzzed sender from its dictionary four times in five when the suite names
//! no `targetSenders`: every word of the state (storage values, code constants, account
//! addresses) read as an address. A suite that gives tokens to `address(0x1337…)` in its
//! setUp is broken by that account calling the token. harvey keeps the part of that
//! dictionary that names accounts: a word that is an address of at least 2^96 (below, it is
//! an amount or a counter, and an EOA that holds nothing), that no code lives at, stored by
//! a contract of the suite or pushed whole (`PUSH20`) by its code. Reserved and excluded
//! senders are dropped afterwards, as the defaults are.

use alloy_primitives::{Address, U256};

use crate::bytecode::instructions;
use crate::chain::Chain;

/// `PUSH20`: an address constant in code.
const PUSH20: u8 = 0x73;

/// At most this many held accounts join the senders: enough for a suite's actors, few
/// enough that the default senders still get their share of the calls.
const MOST_HELD: usize = 8;

/// The accounts `contracts` hold in storage or push in code (see the module's doc), in the
/// order of `contracts`, each once, at most [`MOST_HELD`].
pub(crate) fn held_accounts(chain: &Chain, contracts: &[Address]) -> Vec<Address> {
    let mut held = Vec::new();
    for contract in contracts {
        let mut stored = chain.stored_values(*contract);
        // The storage map has no order; sorted, one worker's campaign is reproducible.
        stored.sort();
        let code = chain.code(*contract);
        let pushed = instructions(&code)
            .filter(|i| i.opcode == PUSH20 && !i.is_truncated())
            .map(|i| U256::from_be_slice(i.immediate));
        for word in stored.into_iter().chain(pushed) {
            let Some(account) = as_account(word) else {
                continue;
            };
            if held.len() == MOST_HELD {
                return held;
            }
            if !held.contains(&account) && chain.code(account).is_empty() {
                held.push(account);
            }
        }
    }
    held
}

/// `word` as an account: 2^96 ≤ word < 2^160, and not the 160-bit mask solc pushes to clean
/// addresses.
fn as_account(word: U256) -> Option<Address> {
    let least = U256::from(1) << 96;
    let mask = (U256::from(1) << 160) - U256::from(1);
    (word >= least && word < mask).then(|| Address::from_word(word.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accounts_are_address_sized_words_other_than_the_mask() {
        let attacker =
            U256::from_str_radix("1337000000000000000000000000000000000000", 16).unwrap();
        assert_eq!(
            as_account(attacker),
            Some(Address::from_word(attacker.into()))
        );
        // Amounts (100e18), counters and small vanity addresses are not taken for accounts.
        assert_eq!(as_account(U256::from(100u128 * 10u128.pow(18))), None);
        assert_eq!(as_account(U256::from(0x1337)), None);
        assert_eq!(as_account((U256::from(1) << 160) - U256::from(1)), None);
        assert_eq!(as_account(U256::from(1) << 160), None);
        assert_eq!(as_account(U256::MAX), None);
        assert!(as_account(U256::from(1) << 96).is_some());
    }
}
