//! The cost of one lookahead analysis (ICSE'20 Alg. 2) on recorded paths: `Loops.run` (the
//! paper's running example) and calls into `Escrow` (a dispute already open), each path
//! analysed towards the benchmark's target lines. Per analysis, once with a fresh
//! [`Lookahead`] per batch (every suffix check computed) and once with a warm one (the
//! verdict cache of a long campaign).
//!
//! Run with `cargo bench --bench lookahead`.

// `criterion_group!` generates an undocumented function.
#![allow(missing_docs)]

#[path = "support/root.rs"]
mod root;

use std::path::Path;

use alloy_dyn_abi::{DynSolValue, JsonAbiExt};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use harvey::chain::{Chain, Tx};
use harvey::lookahead::Lookahead;
use harvey::prelude::*;
use harvey::targets::{TargetSpec, resolve};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Paths recorded per contract.
const PATHS: usize = 200;

/// One contract's runtime code, its target pcs and recorded paths.
struct Workload {
    name: &'static str,
    code: Vec<u8>,
    targets: Vec<usize>,
    paths: Vec<Vec<u32>>,
}

fn uint(v: u64) -> DynSolValue {
    DynSolValue::Uint(U256::from(v), 256)
}

/// The path of one call of `signature` with `args`, from the chain's committed state.
fn path(chain: &mut Chain, to: Address, signature: &str, args: &[DynSolValue]) -> Vec<u32> {
    let calldata = alloy_json_abi::Function::parse(signature)
        .expect("a valid signature")
        .abi_encode_input(args)
        .expect("arguments fit");
    let tx = Tx {
        sender: chain.senders()[0],
        to,
        calldata: calldata.into(),
        ..Tx::default()
    };
    chain.execute(&tx).expect("the EVM accepts it");
    let path = chain.last_trace().path().to_vec();
    chain.reset();
    path
}

/// The start pcs of `lines` in `contract`'s runtime code.
fn target_pcs(root: &Path, chain: &Chain, lines: &str) -> Vec<usize> {
    let spec: TargetSpec = lines.parse().expect("valid lines");
    let resolved = resolve(&spec, root, chain.artifacts()).expect("targets resolve");
    resolved.targets.into_iter().flat_map(|t| t.pcs).collect()
}

fn workloads() -> Vec<Workload> {
    let root = root::harvey_root();
    let artifacts = harvey::project::compiled(root).expect("contracts/ compile");
    let mut rng = StdRng::seed_from_u64(7);
    let mut small = move || {
        if rng.random_bool(0.5) {
            rng.random_range(0..20u64)
        } else {
            rng.random()
        }
    };

    let mut chain = Chain::new(artifacts.clone());
    let loops = chain.deploy("Loops", ()).expect("Loops deploys");
    chain
        .try_call(loops, "setMode(uint256)", &[uint(2)])
        .expect("setMode");
    chain.record_paths(true);
    let loops_paths = (0..PATHS)
        .map(|_| {
            let args = [
                uint(small()),
                uint(small()),
                DynSolValue::Uint(U256::from(small() % 256), 8),
                DynSolValue::Uint(U256::from(small() % 256), 8),
            ];
            path(&mut chain, loops, "run(uint256,uint256,uint8,uint8)", &args)
        })
        .collect();
    let loops = Workload {
        name: "Loops",
        code: chain.code(loops).to_vec(),
        targets: target_pcs(root, &chain, "contracts/lookahead/Loops.sol:27"),
        paths: loops_paths,
    };

    let mut chain = Chain::new(artifacts);
    let escrow = chain.deploy("Escrow", ()).expect("Escrow deploys");
    for (signature, arg) in [
        ("addMilestone(uint256)", 1),
        ("addMilestone(uint256)", 2),
        ("fund(uint256)", 3),
        ("dispute(uint256)", 3),
    ] {
        chain
            .try_call(escrow, signature, &[uint(arg)])
            .expect(signature);
    }
    chain.record_paths(true);
    let escrow_paths = (0..PATHS)
        .map(|i| match i % 4 {
            0 => path(
                &mut chain,
                escrow,
                "vote(bool,uint256)",
                &[DynSolValue::Bool(small() % 2 == 0), uint(small())],
            ),
            1 => path(&mut chain, escrow, "appeal(uint256)", &[uint(small())]),
            2 => path(&mut chain, escrow, "release(uint256)", &[uint(small())]),
            _ => path(&mut chain, escrow, "fund(uint256)", &[uint(small())]),
        })
        .collect();
    let escrow = Workload {
        name: "Escrow",
        code: chain.code(escrow).to_vec(),
        targets: target_pcs(
            root,
            &chain,
            "contracts/targets/Escrow.sol:75,contracts/targets/Escrow.sol:86",
        ),
        paths: escrow_paths,
    };
    vec![loops, escrow]
}

fn bench(c: &mut Criterion) {
    for work in workloads() {
        let mut group = c.benchmark_group(format!("lookahead/{}", work.name));
        group.throughput(Throughput::Elements(work.paths.len() as u64));
        group.bench_function("fresh", |b| {
            b.iter_batched(
                || Lookahead::new(&work.code, work.targets.iter().copied()),
                |mut lookahead| {
                    for path in &work.paths {
                        std::hint::black_box(lookahead.analyze(path));
                    }
                },
                BatchSize::SmallInput,
            )
        });
        let mut warm = Lookahead::new(&work.code, work.targets.iter().copied());
        group.bench_function("warm", |b| {
            b.iter(|| {
                for path in &work.paths {
                    std::hint::black_box(warm.analyze(path));
                }
            })
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
