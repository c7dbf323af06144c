//! Witnesses: every bug planted for input prediction (`contracts/prediction/`) is reachable
//! by direct calls, so a campaign that finds it finds something real.

use alloy_dyn_abi::DynSolValue;
use harvey::chain::{PanicCode, RevertReason, TxStatus};
use harvey::prelude::*;

use crate::support::{assert_assert, chain};

fn uint64(v: u64) -> DynSolValue {
    DynSolValue::Uint(U256::from(v), 64)
}

#[test]
fn linear_and_quadratic_assert_exactly_at_42() {
    let mut chain = chain();
    for contract in ["Linear", "Quadratic"] {
        let at = chain.deploy(contract, ()).unwrap();
        assert_assert(&chain.try_call(at, "check(uint64)", &[uint64(42)]).unwrap());
        for other in [0, 41, 43, u64::MAX] {
            assert!(
                chain
                    .try_call(at, "check(uint64)", &[uint64(other)])
                    .unwrap()
                    .is_success()
            );
        }
    }
}

#[test]
fn coupled_asserts_where_every_comparison_holds_and_only_there() {
    let mut chain = chain();
    let at = chain.deploy("CoupledSums", ()).unwrap();
    let sums = |chain: &mut harvey::chain::Chain, a, b| {
        chain
            .try_call(at, "probe(uint64,uint64)", &[uint64(a), uint64(b)])
            .unwrap()
    };
    assert_assert(&sums(&mut chain, 500_061_482, 499_938_526));
    // One input off: the first comparison or the second fails.
    assert!(sums(&mut chain, 500_061_483, 499_938_526).is_success());
    assert!(sums(&mut chain, 500_061_483, 499_938_525).is_success());
    // `probe(uint64,uint64,uint64,uint64)` of the contract at `at`.
    let probe = |chain: &mut harvey::chain::Chain, at, args: [u64; 4]| {
        chain
            .try_call(at, "probe(uint64,uint64,uint64,uint64)", args.map(uint64))
            .unwrap()
    };
    let products = chain.deploy("CoupledProducts", ()).unwrap();
    assert_assert(&probe(
        &mut chain,
        products,
        [1_003_009, 1_002_001, 1001, 1002],
    ));
    // d < c: the equalities hold, a >= b + 5 does not.
    assert!(probe(&mut chain, products, [1_001_008, 1_002_001, 1001, 1000]).is_success());
    let steps = chain.deploy("ProductSteps", ()).unwrap();
    assert_assert(&probe(&mut chain, steps, [12_346, 1, 1, 152_424_493]));
    // d one less: the second product misses.
    assert!(probe(&mut chain, steps, [12_346, 1, 1, 152_424_492]).is_success());
    let further = chain.deploy("FixedFurtherOn", ()).unwrap();
    let fixed = [
        10_549_930_915_195,
        2_894_575_460,
        15_381_783_611_942,
        124_822_813_536_262,
    ];
    assert_assert(&probe(&mut chain, further, fixed));
    // c one more: the linear conjuncts fix a, c and d, so it fails one of them.
    let mut moved = fixed;
    moved[2] += 1;
    assert!(probe(&mut chain, further, moved).is_success());
}

#[test]
fn modular_product_asserts_at_the_residue_and_only_there() {
    let mut chain = chain();
    let at = chain.deploy("ModularProduct", ()).unwrap();
    let probe = |chain: &mut harvey::chain::Chain, a, b| {
        chain
            .try_call(at, "probe(uint64,uint64)", &[uint64(a), uint64(b)])
            .unwrap()
    };
    assert_assert(&probe(&mut chain, 1001, 545_880));
    // Another solution, one prime further.
    assert_assert(&probe(&mut chain, 1001, 545_880 + 1_000_003));
    // Off by one, or below the bounds (1000 * 1_545_880 is another residue's product).
    assert!(probe(&mut chain, 1001, 545_881).is_success());
    assert!(probe(&mut chain, 1000, 545_880).is_success());
}

#[test]
fn loops_then_square_asserts_at_1111_whatever_the_loops_ran() {
    let mut chain = chain();
    let at = chain.deploy("LoopsThenSquare", ()).unwrap();
    let f = |chain: &mut harvey::chain::Chain, n: u8, m: u8, x: U256| {
        let args = [
            DynSolValue::Uint(U256::from(n), 8),
            DynSolValue::Uint(U256::from(m), 8),
            DynSolValue::Uint(x, 256),
        ];
        chain.try_call(at, "f(uint8,uint8,uint256)", &args).unwrap()
    };
    for (n, m) in [(0, 0), (7, 3), (255, 255)] {
        assert_assert(&f(&mut chain, n, m, U256::from(1111)));
        assert!(f(&mut chain, n, m, U256::from(1110)).is_success());
    }
    // A square past the word reverts with an overflow, not the assert.
    let overflow = f(&mut chain, 0, 0, U256::ONE << 128);
    assert_eq!(
        overflow.status,
        TxStatus::Revert(RevertReason::Panic(PanicCode::ArithmeticOverflow))
    );
}

#[test]
fn xor_asserts_exactly_at_k_xor_m() {
    let mut chain = chain();
    let xor = chain.deploy("Xor", ()).unwrap();
    let magic = U256::from(0x5a5a5a5a5a5a5a5au64 ^ 0x1234567890abcdefu64);
    assert_assert(
        &chain
            .try_call(xor, "check(uint256)", &[magic.into()])
            .unwrap(),
    );
    let other = magic ^ U256::from(1);
    assert!(
        chain
            .try_call(xor, "check(uint256)", &[other.into()])
            .unwrap()
            .is_success()
    );
}

#[test]
fn baz_takes_each_of_its_five_paths() {
    let mut chain = chain();
    let baz = chain.deploy("Baz", ()).unwrap();
    let int64 = |v: i64| DynSolValue::Int(I256::try_from(v).unwrap(), 64);
    for (args, path) in [
        ((0, 0, 0), 1),
        ((42, 3, -3), 2),
        ((0, 3, -3), 3),
        ((0, 0, 1), 4),
        ((0, 0, 42), 5),
    ] {
        let (a, b, c) = args;
        let outcome = chain
            .try_call(
                baz,
                "baz(int64,int64,int64)",
                &[int64(a), int64(b), int64(c)],
            )
            .unwrap();
        assert!(outcome.is_success());
        let taken: I256 = chain.view(baz, "lastPath()", ()).unwrap();
        assert_eq!(taken, I256::try_from(path).unwrap(), "{args:?}");
    }
}

#[test]
fn an_underflowed_bonus_array_lets_anyone_overwrite_the_owner() {
    let mut chain = chain();
    let wallet = chain.deploy("BonusWallet", ()).unwrap();
    let owner: Address = chain.view(wallet, "owner()", ()).unwrap();
    assert_eq!(owner, chain.deployer());
    assert!(
        chain
            .try_call(wallet, "popCode()", &[])
            .unwrap()
            .is_success()
    );
    assert_eq!(
        chain.view::<U256>(wallet, "codes()", ()).unwrap(),
        U256::MAX
    );
    // Element i lives at keccak256(1) + i; slot 0 (the owner) is 2^256 - keccak256(1).
    let base =
        U256::from_be_bytes(alloy_primitives::keccak256(U256::from(1).to_be_bytes::<32>()).0);
    let index = U256::ZERO.wrapping_sub(base);
    let attacker = U256::from(0xbad);
    let outcome = chain
        .try_call(
            wallet,
            "setCodeAt(uint256,uint256)",
            &[index.into(), attacker.into()],
        )
        .unwrap();
    assert!(outcome.is_success());
    let owner: Address = chain.view(wallet, "owner()", ()).unwrap();
    assert_eq!(owner, Address::left_padding_from(&[0x0b, 0xad]));
}
