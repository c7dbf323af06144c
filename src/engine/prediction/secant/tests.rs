//! The secant step and domain fitting: linear costs are solved in one step, exactly, for
//! every leaf width and signedness; proposals stay in the leaf's domain.

use proptest::prelude::*;

use super::*;

fn w(v: i128) -> Wide {
    Wide::try_from(v).expect("fits")
}

/// The cost |slope * i + offset| of a linear branch distance at input `i`.
fn linear_cost(slope: i128, offset: i128, i: i128) -> Wide {
    w((slope * i + offset).abs())
}

proptest! {
    #[test]
    fn one_step_lands_on_the_root_of_a_linear_cost(
        root in -(1i128 << 60)..(1i128 << 60),
        slope in 1i128..1000,
        i0 in -(1i128 << 60)..(1i128 << 60),
        gap in 1i128..(1i128 << 20),
    ) {
        // Both points on the same side of the root, as when a mutation moved the input
        // without flipping the branch.
        let offset = -slope * root;
        let (a, b) = if i0 < root { (i0 - gap, i0.min(root - 1)) } else { (i0 + gap, i0.max(root + 1)) };
        prop_assume!(a != b);
        let p0 = (w(a), linear_cost(slope, offset, a));
        let p1 = (w(b), linear_cost(slope, offset, b));
        prop_assert_eq!(secant_root(p0, p1), Some(w(root)));
    }

    #[test]
    fn fitted_values_are_inside_every_domain(root: [u64; 4], negative: bool, bits in 1usize..=32) {
        let bits = bits * 8;
        let magnitude = wide(U256::from_limbs(root));
        let root = if negative { -magnitude } else { magnitude };
        for domain in [Domain::Uint(bits), Domain::Int(bits), Domain::Address, Domain::FixedBytes(bits / 8), Domain::Value, Domain::Warp] {
            let v = fit(root, domain);
            let (min, max) = match domain {
                Domain::Uint(b) => (Wide::ZERO, wide(umax(b))),
                Domain::Int(b) => (-wide(umax(b - 1)) - Wide::ONE, wide(umax(b - 1))),
                Domain::Address => (Wide::ZERO, wide(umax(160))),
                Domain::FixedBytes(n) => (Wide::ZERO, wide(umax(n * 8))),
                Domain::Value => (Wide::ZERO, wide(MAX_VALUE)),
                Domain::Warp => (Wide::ZERO, wide(umax(32))),
            };
            prop_assert!(min <= v && v <= max, "{domain:?}: {v}");
        }
    }
}

#[test]
fn the_papers_example_predicts_42() {
    // Tests #3 and #5 of HARVEY's Table 1: a = -1 costs 43, a = 7 costs 35.
    assert_eq!(secant_root((w(-1), w(43)), (w(7), w(35))), Some(w(42)));
}

#[test]
fn flat_lines_predict_nothing() {
    assert_eq!(secant_root((w(1), w(5)), (w(9), w(5))), None);
}

#[test]
fn full_width_roots_wrap_and_narrow_ones_clamp() {
    assert_eq!(fit(w(-1), Domain::Uint(256)), wide(U256::MAX));
    assert_eq!(fit(w(-1), Domain::Uint(8)), Wide::ZERO);
    assert_eq!(fit(w(300), Domain::Uint(8)), w(255));
    assert_eq!(fit(w(-300), Domain::Int(8)), w(-128));
    assert_eq!(fit(wide(U256::MAX), Domain::Int(256)), w(-1));
}

#[test]
fn a_nonlinear_equality_is_solved_by_iterating_on_the_signed_residual() {
    // 3a² + 7a + 101 == 5687 has the root a = 42; the residual is lhs - rhs.
    let residual = |a: i128| w(3 * a * a + 7 * a + 101 - 5687);
    let (mut p0, mut p1) = ((w(30), residual(30)), (w(31), residual(31)));
    let mut steps = 0;
    while !p1.1.is_zero() {
        let next = secant_root(p0, p1).expect("not flat");
        let a = i128::try_from(next).expect("small");
        (p0, p1) = (p1, (next, residual(a)));
        steps += 1;
        assert!(steps <= MAX_STEPS, "not solved in {MAX_STEPS} steps");
    }
    assert_eq!(p1.0, w(42));
    assert!(steps > 1, "needs iteration");
}

#[test]
fn rounding_is_to_the_nearest_integer() {
    assert_eq!(div_round(w(7), w(2)), Some(w(4)));
    assert_eq!(div_round(w(-7), w(2)), Some(w(-4)));
    assert_eq!(div_round(w(5), w(3)), Some(w(2)));
    assert_eq!(div_round(w(-4), w(3)), Some(w(-1)));
    assert_eq!(div_round(w(6), w(-3)), Some(w(-2)));
}

#[test]
fn leaves_of_every_numeric_type_round_trip_through_integers() {
    use crate::engine::input::TxInput;
    let args = vec![
        DynSolValue::Int(I256::try_from(-5).unwrap(), 16),
        DynSolValue::Address(Address::with_last_byte(7)),
        DynSolValue::FixedBytes(B256::ZERO, 4),
        DynSolValue::Uint(U256::from(9), 8),
    ];
    let seq = Sequence {
        txs: vec![TxInput {
            sender: 0,
            function: 0,
            args,
            value: U256::from(3),
            warp: Default::default(),
            instance: 0,
        }],
    };
    let leaf = |i| Leaf::Arg {
        tx: 0,
        path: LeafPath(vec![i]),
    };
    // Write a new integer into each leaf and read it back.
    for (index, value) in [
        (0, w(-300)),
        (1, w(0x1234)),
        (2, w(0xdead_beef)),
        (3, w(200)),
    ] {
        let (_, domain) = number(&seq, &leaf(index)).unwrap();
        let fitted = fit(value, domain);
        let changed = with_number(&seq, &leaf(index), fitted, domain).unwrap();
        assert_eq!(
            number(&changed, &leaf(index)).unwrap().0,
            fitted,
            "leaf {index}"
        );
    }
    // bytes4 0xdeadbeef is left-aligned in its word, as the ABI requires.
    let (_, domain) = number(&seq, &leaf(2)).unwrap();
    let changed = with_number(&seq, &leaf(2), w(0xdead_beef), domain).unwrap();
    let DynSolValue::FixedBytes(word, 4) = &changed.txs[0].args[2] else {
        panic!("bytes4 expected")
    };
    assert_eq!(&word[..5], &[0xde, 0xad, 0xbe, 0xef, 0]);
    // int16 clamps to its range.
    assert_eq!(fit(w(-300_000), Domain::Int(16)), w(-32_768));
    let value = Leaf::Value { tx: 0 };
    let (three, domain) = number(&seq, &value).unwrap();
    assert_eq!(three, w(3));
    assert_eq!(domain, Domain::Value);
}

#[test]
fn an_equality_the_line_misses_gets_one_xor_step() {
    use crate::engine::input::TxInput;
    use crate::engine::prediction::cost::{CostKey, CostKind};
    // check(a): (a ^ K) == M; the chain's last secant step proposed `proposed`, whose
    // operands still differ.
    let (k, m) = (U256::from(0x5a5a_u64), U256::from(0x1234_u64));
    let proposed = U256::from(77);
    let seq = Sequence {
        txs: vec![TxInput {
            sender: 0,
            function: 0,
            args: vec![DynSolValue::Uint(proposed, 256)],
            value: U256::ZERO,
            warp: Default::default(),
            instance: 0,
        }],
    };
    let key = CostKey {
        tx: 0,
        code: Address::ZERO,
        pc: 1,
        kind: CostKind::Jump,
        nth: 0,
        checked: false,
    };
    let prediction = Prediction {
        sequence: seq,
        key,
        leaf: Leaf::Arg {
            tx: 0,
            path: LeafPath(vec![0]),
        },
        last: (w(5), w(100)),
        signed: true,
        proposed: wide(proposed),
        step: MAX_STEPS,
        xor_tried: false,
        range: None,
    };
    let lhs = proposed ^ k;
    let cost = Cost {
        key,
        value: U256::from(1),
        residual: Some(I256::from_raw(lhs.wrapping_sub(m))),
        xor: Some(lhs ^ m),
        compared_at: 0,
    };
    let next = next(&prediction, Some(&cost)).expect("an XOR step");
    assert_eq!(next.sequence.txs[0].args, [DynSolValue::Uint(k ^ m, 256)]);
    assert!(next.xor_tried);
}

#[test]
fn roots_outside_a_bound_are_clamped_and_closed_addresses_are_not_predicted() {
    use crate::engine::input::TxInput;
    use crate::engine::prediction::cost::{CostKey, CostKind};
    use crate::engine::surface::tests::ether_surface;
    use rand::SeedableRng;
    // withdraw(amount) with amount bounded to 1..=10; the branch wants amount == 42.
    let surface = ether_surface();
    let key = CostKey {
        tx: 0,
        code: Address::ZERO,
        pc: 1,
        kind: CostKind::Jump,
        nth: 0,
        checked: false,
    };
    let run = |function: usize, arg: DynSolValue, distance: u64| {
        let seq = Sequence {
            txs: vec![TxInput {
                sender: 0,
                function,
                args: vec![arg],
                value: U256::ZERO,
                warp: Default::default(),
                instance: 0,
            }],
        };
        let cost = Cost {
            key,
            value: U256::from(distance),
            residual: None,
            xor: None,
            compared_at: 0,
        };
        (seq, cost)
    };
    let amount = |v: u64| DynSolValue::Uint(U256::from(v), 256);
    let (parent, c0) = run(0, amount(2), 40);
    let (child, c1) = run(0, amount(3), 39);
    let change = Change::Leaf {
        tx: 0,
        path: LeafPath(vec![0]),
    };
    let mut rng = StdRng::seed_from_u64(1);
    let parent_costs = ParentCosts::of(&[c0], 0);
    let prediction = first(
        &surface,
        &parent,
        &parent_costs,
        &child,
        &[c1],
        &change,
        |_| 0,
        &mut rng,
    )
    .expect("a prediction");
    // The root is 42: the nearest admitted input is the bound's top.
    assert_eq!(prediction.sequence.txs[0].args, [amount(10)]);
    let mut unbounded = surface.clone();
    unbounded.functions[0].bounds.clear();
    let free = first(
        &unbounded,
        &parent,
        &parent_costs,
        &child,
        &[c1],
        &change,
        |_| 0,
        &mut rng,
    )
    .expect("a prediction");
    assert_eq!(free.sequence.txs[0].args, [amount(42)]);
    // give(to) with addresses closed: no numeric neighbour is another allowed address.
    let to = |last: u8| DynSolValue::Address(Address::with_last_byte(last));
    let (parent, c0) = run(1, to(1), 40);
    let (child, c1) = run(1, to(2), 39);
    let parent_costs = ParentCosts::of(&[c0], 0);
    assert!(
        first(
            &surface,
            &parent,
            &parent_costs,
            &child,
            &[c1],
            &change,
            |_| 0,
            &mut rng
        )
        .is_none()
    );
}
