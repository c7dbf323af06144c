//! `deal` for ERC20-style tokens: give an account a token balance by finding the storage
//! slot `balanceOf(account)` reads and writing it, as forge-std's `deal(token, to, amount)`
//! does with `stdStorage` (record the reads of the balance call, then find the read slot
//! whose value the call returns).

use alloy_primitives::{Address, U256};

use super::{Chain, Tx, VIEW_CALLER};
use crate::observe::StorageOp;
use crate::{Error, Result};

/// A value no real balance holds, written to a candidate slot to see whether
/// `balanceOf` returns it.
const MARKER: U256 = U256::from_limbs([0x6861_7276_6579, 0x6465_616c, 0, 0x1337]);

impl Chain {
    /// Sets `account`'s balance of the ERC20-style `token` to `amount` by writing the
    /// storage slot `balanceOf(account)` reads, and commits (a setup step, like
    /// [`Chain::deploy`]). As forge-std's three-argument `deal`, `totalSupply` is left
    /// alone: an invariant comparing the supply with the sum of balances sees the
    /// difference.
    ///
    /// Fails with [`Error::Call`] when `token` has no `balanceOf(address)`, or when no slot
    /// that call reads holds the balance (a balance computed from other state, such as a
    /// rebasing token's shares, cannot be dealt: mint or transfer instead).
    pub fn deal_token(&mut self, token: Address, account: Address, amount: U256) -> Result<()> {
        // Probing resets the chain between tries: nothing pending may be lost to that.
        self.commit();
        let slot = self.balance_slot(token, account)?;
        self.set_storage(token, slot, amount);
        self.commit();
        Ok(())
    }

    /// The slot of `token`'s storage that holds `account`'s balance: one that
    /// `balanceOf(account)` reads and whose value it returns.
    fn balance_slot(&mut self, token: Address, account: Address) -> Result<U256> {
        let balance_of = |chain: &Chain| {
            chain
                .view::<U256>(token, "balanceOf(address)", (account,))
                .map_err(|e| Error::Call(format!("cannot deal tokens of {token}: {e}")))
        };
        balance_of(self)?;
        // Record which slots the balance call reads (an observed run; dropped afterwards).
        let probe = Tx {
            sender: VIEW_CALLER,
            to: token,
            calldata: self.calldata(token, "balanceOf(address)", (account,))?,
            ..Tx::default()
        };
        self.execute(&probe)?;
        let mut reads: Vec<U256> = self
            .last_trace()
            .storage()
            .iter()
            .filter(|access| access.op == StorageOp::Load && access.address == token)
            .map(|access| access.slot)
            .collect();
        self.reset();
        // The balance is usually the last slot read (after ownership or pause flags).
        reads.reverse();
        reads.dedup();
        for slot in &reads {
            self.set_storage(token, *slot, MARKER);
            // A call that fails with the marker in place (an overflow in a computed
            // balance) only says that this is not the slot.
            let holds_balance = matches!(balance_of(self), Ok(seen) if seen == MARKER);
            self.reset();
            if holds_balance {
                return Ok(*slot);
            }
        }
        Err(Error::Call(format!(
            "cannot deal tokens of {token}: none of the {} storage slots `balanceOf({account})` reads holds the balance (a balance computed from other state cannot be dealt; mint or transfer instead)",
            reads.len()
        )))
    }
}
