//! Witnesses for the planted bugs of `contracts/stateless/RareInputs.sol`: each is reached
//! by direct calls with the inputs that take it, and inputs next to them behave, so a Rust
//! property can only report those bugs.

use harvey::prelude::*;

use crate::support::{compiled_at, repo};

/// `RareInputs` deployed on a fresh chain.
fn rare() -> (Chain, Address) {
    let mut chain = Chain::new(compiled_at(repo()).unwrap());
    let at = chain.deploy("RareInputs", ()).unwrap();
    (chain, at)
}

#[test]
fn an_id_shifted_onto_a_multiple_of_2_pow_80_encodes_as_zero() {
    let (chain, rare) = rare();
    let shift = U256::from(0xbeef0042_u64);
    let modulus: U256 = U256::from(1) << 80;
    let round = |id: U256| -> U256 {
        let encoded: U256 = chain.view(rare, "encode(uint256)", (id,)).unwrap();
        chain.view(rare, "decode(uint256)", (encoded,)).unwrap()
    };
    let bad = modulus - shift;
    assert_ne!(round(bad), bad);
    assert_ne!(round(bad + modulus), bad + modulus);
    for good in [bad - U256::from(1), bad + U256::from(1), U256::ZERO] {
        assert_eq!(round(good), good);
    }
}

#[test]
fn a_tag_repeating_the_port_from_a_matching_peer_gets_lane_32() {
    let (chain, rare) = rare();
    let port = 70_001_u32; // 0x11171: middle byte 0x11, last byte 0x71
    let tag = FixedBytes::<2>::from((0x11_u16 + 0x11).to_be_bytes());
    let peer = Address::with_last_byte(0x71);
    let lane = |tag, port, peer| -> U256 {
        chain
            .view(rare, "lane(bytes2,uint32,address)", (tag, port, peer))
            .unwrap()
    };
    assert_eq!(lane(tag, port, peer), U256::from(32));
    assert!(lane(tag, port, Address::with_last_byte(0x72)) < U256::from(32));
    assert!(lane(tag, 0x1171_u32, Address::with_last_byte(0x71)) < U256::from(32));
}

#[test]
fn one_amount_rate_product_is_charged_nothing() {
    let (chain, rare) = rare();
    let fee = |amount: u64, bps: u64| -> U256 {
        chain
            .view(
                rare,
                "fee(uint256,uint256)",
                (U256::from(amount), U256::from(bps)),
            )
            .unwrap()
    };
    // Any factorisation of 94,371,840 takes it.
    assert_eq!(fee(94_371_840, 1), U256::ZERO);
    assert_eq!(fee(31_457_280, 3), U256::ZERO);
    assert_eq!(fee(31_457_280, 4), U256::from(12_582));
    assert_eq!(fee(94_371_841, 1), U256::from(9_437));
}

#[test]
fn one_total_over_more_than_five_steps_comes_out_high() {
    let (chain, rare) = rare();
    let sum = |n: u8, base: u32| -> U256 {
        chain
            .view(rare, "sumSteps(uint8,uint32)", (n, base))
            .unwrap()
    };
    // 7 × 613,566,753 + 2 × (0 + 1 + ... + 6) = 4,294,967,313.
    assert_eq!(sum(7, 613_566_753), U256::from(4_294_967_314_u64));
    assert_eq!(sum(7, 613_566_754), U256::from(4_294_967_320_u64));
    assert_eq!(sum(3, 5), U256::from(21));
}
