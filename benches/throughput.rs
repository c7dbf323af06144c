//! Raw transaction throughput on a small contract (`Vault.deposit()` with 1 wei):
//! - a bare revm call (no inspector, one reused `Evm`, nothing committed) — the baseline;
//! - the same call through `Chain::execute` under harvey's observer, then `Chain::reset`;
//! - a 5-transaction sequence under the observer from the snapshot, then restore.
//!
//! Every figure is per transaction, so the README reports ratios to the bare call.
//! Run with `cargo bench --bench throughput`.

// `criterion_group!` generates an undocumented function.
#![allow(missing_docs)]

use alloy_sol_types::SolValue;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use harvey::chain::{Chain, Tx};
use harvey::prelude::*;
use revm::primitives::TxKind;
use revm::{ExecuteCommitEvm, ExecuteEvm};

#[path = "support/bare.rs"]
mod bare;
#[path = "support/root.rs"]
mod root;
use bare::{bare_evm, tx_env as env};

const CAP: u64 = 1 << 60;

fn bench(c: &mut Criterion) {
    let artifacts = harvey::project::compiled(root::harvey_root()).expect("contracts/ compile");
    let vault_code = artifacts
        .get("Vault")
        .expect("Vault is compiled")
        .creation_code
        .clone();

    let mut chain = Chain::new(artifacts);
    let vault = chain
        .deploy("Vault", (U256::from(CAP),))
        .expect("Vault deploys");
    let sender = chain.senders()[0];
    let tx = Tx {
        sender,
        to: vault,
        calldata: Bytes::from(
            alloy_json_abi::Function::parse("deposit()")
                .expect("a valid signature")
                .selector()
                .to_vec(),
        ),
        value: U256::ONE,
        ..Tx::default()
    };

    // The baseline: revm as the notes on revm 43 recommend, with the same deployment.
    let mut evm = bare_evm(sender);
    let mut initcode = vault_code.to_vec();
    initcode.extend_from_slice(&U256::from(CAP).abi_encode());
    let created = evm
        .transact_commit(env(sender, TxKind::Create, initcode.into(), U256::ZERO))
        .expect("bare deploy");
    let bare_vault = created.created_address().expect("bare Vault deploys");
    let bare_tx = env(
        sender,
        TxKind::Call(bare_vault),
        tx.calldata.clone(),
        U256::ONE,
    );
    assert!(
        evm.transact(bare_tx.clone())
            .expect("bare call")
            .result
            .is_success()
    );
    assert!(chain.execute(&tx).expect("observed call").is_success());
    chain.reset();

    let mut group = c.benchmark_group("vault_deposit");
    group.throughput(Throughput::Elements(1));
    group.bench_function("bare_revm", |b| {
        b.iter(|| evm.transact(bare_tx.clone()).expect("bare call"))
    });
    group.bench_function("observed_execute_reset", |b| {
        b.iter(|| {
            let outcome = chain.execute(&tx).expect("observed call");
            chain.reset();
            outcome
        })
    });
    group.throughput(Throughput::Elements(5));
    group.bench_function("observed_5tx_sequence_restore", |b| {
        b.iter(|| {
            for _ in 0..5 {
                chain.execute(&tx).expect("observed call");
            }
            chain.reset();
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
