//! Contracts that transactions created (CREATE and CREATE2, at any depth), each matched to
//! the compiled contract whose runtime code it runs, as forge matches the contracts a test
//! creates: so that reports name them, their reverts have source lines, and the fuzzer can
//! call them. A minimal proxy (EIP-1167 and its variants) runs its implementation's code,
//! so it is matched to the implementation's contract.

use std::collections::HashMap;
use std::sync::Arc;

use alloy_primitives::{Address, B256, Bytes, keccak256};

use crate::bytecode::{Instruction, instructions};
use crate::project::{Artifacts, ContractArtifact};

/// Matches by code (and implementations by address) remembered at most. Immutables make
/// one contract's code differ per constructor argument, so a long campaign on a factory
/// could otherwise grow the cache without end; starting over costs a few rematches.
const REMEMBERED: usize = 4096;

/// A contract a transaction created, with the compiled contract it matches (`None` when its
/// code matches none).
pub type Created = (Address, Option<Arc<ContractArtifact>>);

/// The contracts created in the chain's current state since the last take or reset, and
/// what each code matched (cached by code hash: a factory creates the same code again and
/// again, and matching scans every artifact).
#[derive(Default)]
pub(super) struct CreatedContracts {
    list: Vec<Created>,
    by_code: HashMap<B256, Option<Arc<ContractArtifact>>>,
    /// Implementations behind minimal proxies that nothing else named (a factory's
    /// constructor created them), matched by their code: a revert in a proxied call runs
    /// their code, and its source line comes from their contract.
    implementations: HashMap<Address, Arc<ContractArtifact>>,
}

impl CreatedContracts {
    /// Records the contract created at `address`; `code_of` reads the current state's
    /// code, and `deployed_at` names the contracts deployed before (for a minimal proxy's
    /// implementation).
    pub(super) fn record<'a>(
        &mut self,
        address: Address,
        artifacts: &Artifacts,
        code_of: impl Fn(Address) -> Bytes,
        deployed_at: impl Fn(Address) -> Option<&'a Arc<ContractArtifact>>,
    ) {
        let code = code_of(address);
        let artifact = match minimal_proxy_target(&code) {
            // The implementation's contract, as known, else as its code matches.
            Some(implementation) => match self
                .artifact_at(implementation)
                .or_else(|| deployed_at(implementation))
            {
                Some(artifact) => Some(Arc::clone(artifact)),
                None => {
                    let matched = self.matching(artifacts, &code_of(implementation));
                    if let Some(artifact) = &matched {
                        if self.implementations.len() >= REMEMBERED {
                            self.implementations.clear();
                        }
                        self.implementations
                            .insert(implementation, Arc::clone(artifact));
                    }
                    matched
                }
            },
            None => self.matching(artifacts, &code),
        };
        self.list.push((address, artifact));
    }

    /// The compiled contract whose runtime code `code` runs, if any.
    fn matching(&mut self, artifacts: &Artifacts, code: &[u8]) -> Option<Arc<ContractArtifact>> {
        if code.is_empty() {
            return None;
        }
        if self.by_code.len() >= REMEMBERED {
            self.by_code.clear();
        }
        self.by_code
            .entry(keccak256(code))
            .or_insert_with(|| artifacts.by_runtime_code(code).cloned())
            .clone()
    }

    /// The contracts created since the last take or reset, in creation order.
    pub(super) fn list(&self) -> &[Created] {
        &self.list
    }

    /// Takes the list, leaving it empty.
    pub(super) fn take(&mut self) -> Vec<Created> {
        std::mem::take(&mut self.list)
    }

    /// Forgets the list (the state they lived in is gone); the matches by code and the
    /// implementations (setup's contracts) stay.
    pub(super) fn clear(&mut self) {
        self.list.clear();
    }

    /// The compiled contract of the newest contract created at `address`, if it matched
    /// one, or of the implementation at `address` behind a proxy that was.
    pub(super) fn artifact_at(&self, address: Address) -> Option<&Arc<ContractArtifact>> {
        self.list
            .iter()
            .rev()
            .find(|(at, _)| *at == address)
            .and_then(|(_, artifact)| artifact.as_ref())
            .or_else(|| self.implementations.get(&address))
    }
}

/// The implementation a minimal proxy delegates every call to: short code that pushes a
/// 20-byte address and then runs `GAS DELEGATECALL` (EIP-1167's `363d3d373d3d3d363d73 <impl>
/// 5af43d82803e903d91602b57fd5bf3`, and the variants of solady and others, which differ in how
/// they copy calldata and return data).
fn minimal_proxy_target(code: &[u8]) -> Option<Address> {
    const PUSH20: u8 = 0x73;
    const GAS: u8 = 0x5a;
    const DELEGATECALL: u8 = 0xf4;
    // EIP-1167 is 45 bytes; its variants are shorter. A longer contract is a real one.
    if code.len() > 64 {
        return None;
    }
    // Walk the instructions (not the bytes): a PUSH's data is not code.
    let decoded: Vec<Instruction<'_>> = instructions(code).collect();
    decoded.windows(3).find_map(|three| {
        let [push, gas, call] = three else {
            return None;
        };
        (push.opcode == PUSH20
            && !push.is_truncated()
            && gas.opcode == GAS
            && call.opcode == DELEGATECALL)
            .then(|| Address::from_slice(push.immediate))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::hex;

    #[test]
    fn the_matches_remembered_stay_bounded() {
        let artifacts = Artifacts::new("/nowhere".into(), Vec::new(), false);
        let mut created = CreatedContracts::default();
        // Every contract's code differs (as immutables make it differ) and matches nothing.
        for n in 0..REMEMBERED as u64 + 10 {
            let address = Address::from_word(alloy_primitives::B256::from(
                alloy_primitives::U256::from(n),
            ));
            let code = Bytes::from(n.to_be_bytes().to_vec());
            created.record(address, &artifacts, |_| code.clone(), |_| None);
            assert!(created.by_code.len() <= REMEMBERED);
        }
        assert_eq!(created.list().len(), REMEMBERED + 10);
        assert!(
            created
                .list()
                .iter()
                .all(|(_, artifact)| artifact.is_none())
        );
        created.clear();
        assert!(created.list().is_empty());
    }

    #[test]
    fn minimal_proxies_name_their_implementation() {
        let implementation = Address::repeat_byte(0xab);
        // EIP-1167.
        let eip1167 = [
            &hex!("363d3d373d3d3d363d73")[..],
            implementation.as_slice(),
            &hex!("5af43d82803e903d91602b57fd5bf3"),
        ]
        .concat();
        assert_eq!(eip1167.len(), 45);
        assert_eq!(minimal_proxy_target(&eip1167), Some(implementation));
        // solady's LibClone variant.
        let solady = [
            &hex!("3d3d3d3d363d3d37363d73")[..],
            implementation.as_slice(),
            &hex!("5af43d3d93803e602a57fd5bf3"),
        ]
        .concat();
        assert_eq!(minimal_proxy_target(&solady), Some(implementation));
        // A PUSH20 followed by something else, the pattern hidden in PUSH data, and long
        // code are not proxies.
        let call = [&hex!("73")[..], implementation.as_slice(), &hex!("5af1")].concat();
        assert_eq!(minimal_proxy_target(&call), None);
        let hidden = [&hex!("7f")[..], &eip1167[9..41]].concat();
        assert_eq!(minimal_proxy_target(&hidden), None);
        let long = [&eip1167[..], &[0u8; 30][..]].concat();
        assert_eq!(minimal_proxy_target(&long), None);
    }
}
