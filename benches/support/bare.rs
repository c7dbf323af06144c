//! Bare revm for the benches' baselines: no inspector, one reused `Evm`, the sender funded
//! and nonce checks off, as the revm 43 notes recommend for raw speed.

use alloy_primitives::{Address, Bytes, U256};
use revm::context::TxEnv;
use revm::database::{CacheDB, EmptyDB};
use revm::handler::{MainnetContext, MainnetEvm};
use revm::primitives::TxKind;
use revm::state::AccountInfo;
use revm::{Context, MainBuilder, MainContext};

/// The bare EVM the baselines run on.
pub(crate) type BareEvm = MainnetEvm<MainnetContext<CacheDB<EmptyDB>>>;

/// A bare EVM in which `sender` holds plenty of ether.
pub(crate) fn bare_evm(sender: Address) -> BareEvm {
    let mut db = CacheDB::<EmptyDB>::default();
    db.insert_account_info(sender, AccountInfo::from_balance(U256::MAX >> 8));
    Context::mainnet()
        .with_db(db)
        .modify_cfg_chained(|cfg| cfg.disable_nonce_check = true)
        .build_mainnet()
}

/// A transaction with harvey's gas limit.
pub(crate) fn tx_env(caller: Address, kind: TxKind, data: Bytes, value: U256) -> TxEnv {
    TxEnv::builder()
        .caller(caller)
        .kind(kind)
        .data(data)
        .value(value)
        .gas_limit(harvey::chain::TX_GAS_LIMIT)
        .build()
        .expect("a valid transaction")
}
