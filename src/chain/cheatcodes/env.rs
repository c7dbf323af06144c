//! Cheatcodes over the block, the chain and accounts: `warp`, `roll`, `fee`, `chainId`,
//! `getBlockTimestamp`, `getBlockNumber`, `deal`, `store`, `load`, `etch`, `getNonce`,
//! `setNonce`, `addr`. Account writes go through revm's journal, so they are undone when the
//! frame that made them reverts (forge's are too: they are journaled in its state). Block and
//! chain-id changes are not journaled (as in forge) and last until `Chain::reset`.

use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::{SolCall, SolInterface};
use revm::bytecode::Bytecode;
use revm::context::JournalTr;
use revm::context_interface::journaled_state::account::JournaledAccountTr;
use revm::handler::MainnetContext;

use super::{Answer, Vm, fail};
use crate::chain::db::Db;

/// Runs a block, chain or account cheatcode.
pub(super) fn run(context: &mut MainnetContext<Db>, call: Vm::VmCalls) -> Answer {
    use Vm::VmCalls as C;
    match call {
        C::warp(c) => context.block.timestamp = c.newTimestamp,
        C::roll(c) => context.block.number = c.newHeight,
        C::fee(c) => {
            context.block.basefee = u64::try_from(c.newBasefee)
                .map_err(|_| fail(format!("fee: {} does not fit in 64 bits", c.newBasefee)))?;
        }
        C::chainId(c) => {
            let id = u64::try_from(c.newChainId)
                .map_err(|_| fail("chainId: chain ID must be less than 2^64"))?;
            context.cfg.chain_id = id;
            context.tx.chain_id = Some(id);
        }
        C::getBlockTimestamp(_) => {
            return Ok(Vm::getBlockTimestampCall::abi_encode_returns(
                &context.block.timestamp,
            ));
        }
        C::getBlockNumber(_) => {
            return Ok(Vm::getBlockNumberCall::abi_encode_returns(
                &context.block.number,
            ));
        }
        C::deal(c) => {
            let journal = &mut context.journaled_state;
            let Ok(mut account) = journal.load_account_mut(c.account);
            account.data.set_balance(c.newBalance);
        }
        C::store(c) => {
            let journal = &mut context.journaled_state;
            let Ok(_) = journal.load_account(c.target);
            journal.touch_account(c.target);
            let Ok(_) = journal.sstore(c.target, c.slot.into(), c.value.into());
        }
        C::load(c) => {
            let journal = &mut context.journaled_state;
            let Ok(_) = journal.load_account(c.target);
            let Ok(value) = journal.sload(c.target, c.slot.into());
            return Ok(Vm::loadCall::abi_encode_returns(&B256::from(value.data)));
        }
        C::etch(c) => {
            let journal = &mut context.journaled_state;
            let Ok(_) = journal.load_account(c.target);
            journal.touch_account(c.target);
            journal.set_code(c.target, Bytecode::new_raw(c.newRuntimeBytecode));
        }
        C::getNonce(c) => {
            let Ok(account) = context.journaled_state.load_account(c.account);
            return Ok(Vm::getNonceCall::abi_encode_returns(
                &account.data.info.nonce,
            ));
        }
        C::setNonce(c) => {
            let journal = &mut context.journaled_state;
            let Ok(mut account) = journal.load_account_mut(c.account);
            let nonce = account.data.nonce();
            // forge refuses to lower a nonce: addresses already derived from it would repeat.
            if c.newNonce < nonce {
                return Err(fail(format!(
                    "new nonce ({}) must be strictly equal to or higher than the account's current nonce ({nonce})",
                    c.newNonce
                )));
            }
            account.data.set_nonce(c.newNonce);
        }
        C::sign(c) => {
            let (v, r, s) = sign(c.privateKey, c.digest)?;
            return Ok(Vm::signCall::abi_encode_returns(&Vm::signReturn {
                v,
                r,
                s,
            }));
        }
        C::addr(c) => {
            return signer_address(c.privateKey).map(|a| Vm::addrCall::abi_encode_returns(&a));
        }
        other => {
            // `Cheatcodes::run` handles every other variant before calling here.
            return Err(fail(format!(
                "cheatcode 0x{} has no handler",
                alloy_primitives::hex::encode(other.selector())
            )));
        }
    }
    Ok(Vec::new())
}

/// The address of secp256k1 private key `key`, with forge's errors for keys out of range.
pub(super) fn signer_address(key: U256) -> std::result::Result<Address, Vec<u8>> {
    let signing = signing_key(key)?;
    let point = signing.verifying_key().to_encoded_point(false);
    Ok(Address::from_raw_public_key(&point.as_bytes()[1..]))
}

/// `digest` signed with `key` as forge's `vm.sign`: `(v, r, s)` with `v` 27 or 28.
fn sign(key: U256, digest: B256) -> std::result::Result<(u8, B256, B256), Vec<u8>> {
    let signing = signing_key(key)?;
    let (signature, recovery) = signing
        .sign_prehash_recoverable(digest.as_slice())
        .map_err(|e| fail(format!("sign: {e}")))?;
    let bytes = signature.to_bytes();
    Ok((
        27 + recovery.to_byte(),
        B256::from_slice(&bytes[..32]),
        B256::from_slice(&bytes[32..]),
    ))
}

/// `key` as a signing key; zero and keys at or above the curve order are forge's errors.
fn signing_key(key: U256) -> std::result::Result<k256::ecdsa::SigningKey, Vec<u8>> {
    if key.is_zero() {
        return Err(fail("private key cannot be 0"));
    }
    k256::ecdsa::SigningKey::from_bytes(&key.to_be_bytes::<32>().into()).map_err(|_| {
        fail("private key must be less than the secp256k1 curve order (115792089237316195423570985008687907852837564279074904382605163141518161494337)")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::address;

    #[test]
    fn addr_of_anvils_first_key() {
        let key = U256::from_be_bytes(alloy_primitives::hex!(
            "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
        ));
        assert_eq!(
            signer_address(key),
            Ok(address!("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"))
        );
        assert!(signer_address(U256::ZERO).is_err());
        assert!(signer_address(U256::MAX).is_err());
        // The signature recovers to the key's address.
        let digest = alloy_primitives::keccak256("harvey");
        let (v, r, s) = sign(key, digest).unwrap();
        let mut raw = [0u8; 65];
        raw[..32].copy_from_slice(r.as_slice());
        raw[32..64].copy_from_slice(s.as_slice());
        raw[64] = v - 27;
        let signature = alloy_primitives::Signature::from_raw(&raw).unwrap();
        assert_eq!(
            signature.recover_address_from_prehash(&digest).unwrap(),
            signer_address(key).unwrap()
        );
    }
}
