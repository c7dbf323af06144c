//! `snapshotState`, `revertToState`, `revertToStateAndDelete`, `deleteStateSnapshot`,
//! `deleteStateSnapshots` (and the deprecated `snapshot`, `revertTo`, `revertToAndDelete`):
//! a snapshot is the pending state of every account the chain has touched, the block and the
//! chain id; reverting puts them back (accounts first touched since, with the slots first
//! read since, go back to the committed state they were read from) and answers whether the
//! id existed. Ids count from 0 as forge's; logs are kept, as forge keeps them.
//!
//! Where harvey differs: forge swaps its whole journal, including the undo entries of the
//! frames still open; harvey keeps the open frames' undo entries, so a frame that reverts
//! after a `revertToState` undoes the changes it made before it against the restored state.

use alloy_primitives::U256;
use revm::DatabaseRef;
use revm::context::BlockEnv;
use revm::handler::MainnetContext;
use revm::state::EvmState;

use crate::chain::db::Db;

/// One snapshot.
#[derive(Debug, Clone)]
struct Saved {
    state: EvmState,
    block: BlockEnv,
    chain_id: u64,
}

/// The snapshots taken, by id (a deleted one is `None`).
#[derive(Debug, Clone, Default)]
pub(in crate::chain) struct Snapshots {
    saved: Vec<Option<Saved>>,
}

impl Snapshots {
    /// `vm.snapshotState`: the new snapshot's id.
    pub(super) fn take(&mut self, context: &MainnetContext<Db>) -> U256 {
        self.saved.push(Some(Saved {
            state: context.journaled_state.inner.state.clone(),
            block: context.block.clone(),
            chain_id: context.cfg.chain_id,
        }));
        U256::from(self.saved.len() - 1)
    }

    /// `vm.revertToState` (`delete`: `revertToStateAndDelete`): whether snapshot `id` existed.
    pub(super) fn revert(
        &mut self,
        context: &mut MainnetContext<Db>,
        id: U256,
        delete: bool,
    ) -> bool {
        let Some(slot) = usize::try_from(id).ok().and_then(|i| self.saved.get_mut(i)) else {
            return false;
        };
        let saved = if delete { slot.take() } else { slot.clone() };
        let Some(saved) = saved else {
            return false;
        };
        let journal = &mut context.journaled_state;
        let db = &journal.database;
        for (address, account) in journal.inner.state.iter_mut() {
            let keys: Vec<U256> = account.storage.keys().copied().collect();
            match saved.state.get(address) {
                Some(before) => *account = before.clone(),
                None => account.info = db.basic_ref(*address).ok().flatten().unwrap_or_default(),
            }
            // Slots read since keep their entries (open frames' undo entries name them), with
            // the committed value they had when the snapshot was taken.
            let loaded = account.transaction_id;
            for key in keys {
                account.storage.entry(key).or_insert_with(|| {
                    let value = db.storage_ref(*address, key).unwrap_or_default();
                    revm::state::EvmStorageSlot::new(value, loaded)
                });
            }
        }
        context.block = saved.block;
        context.cfg.chain_id = saved.chain_id;
        true
    }

    /// `vm.deleteStateSnapshot`: whether snapshot `id` existed.
    pub(super) fn delete(&mut self, id: U256) -> bool {
        usize::try_from(id)
            .ok()
            .and_then(|i| self.saved.get_mut(i))
            .and_then(Option::take)
            .is_some()
    }

    /// `vm.deleteStateSnapshots`.
    pub(super) fn delete_all(&mut self) {
        self.saved.iter_mut().for_each(|s| *s = None);
    }
}
