//! Properties of generation, mutation and simplification over random ABI types.

use alloy_dyn_abi::{DynSolType, DynSolValue};
use alloy_primitives::{Address, U256};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::StdRng;

use super::*;

fn scalar() -> impl Strategy<Value = DynSolType> {
    prop_oneof![
        Just(DynSolType::Bool),
        Just(DynSolType::Address),
        (1usize..=32).prop_map(|n| DynSolType::Uint(n * 8)),
        (1usize..=32).prop_map(|n| DynSolType::Int(n * 8)),
        (1usize..=32).prop_map(DynSolType::FixedBytes),
        Just(DynSolType::Bytes),
        Just(DynSolType::String),
    ]
}

fn any_type() -> impl Strategy<Value = DynSolType> {
    scalar().prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|t| DynSolType::Array(Box::new(t))),
            (inner.clone(), 1usize..=3).prop_map(|(t, n)| DynSolType::FixedArray(Box::new(t), n)),
            prop::collection::vec(inner, 1..=3).prop_map(DynSolType::Tuple),
        ]
    })
}

fn dictionary() -> Dictionary {
    let mut dict = Dictionary::new(vec![Address::with_last_byte(1), Address::with_last_byte(2)]);
    // PUSH2 0x1337, PUSH32 of a large value.
    let mut code = vec![0x61, 0x13, 0x37, 0x7f];
    code.extend([0xf0; 32]);
    dict.add_code_constants(&code);
    dict.observe(U256::from(42));
    dict
}

/// Every address leaf of `value`.
fn addresses_in(value: &DynSolValue, out: &mut Vec<Address>) {
    match value {
        DynSolValue::Address(a) => out.push(*a),
        DynSolValue::Array(items) | DynSolValue::FixedArray(items) | DynSolValue::Tuple(items) => {
            for item in items {
                addresses_in(item, out);
            }
        }
        _ => {}
    }
}

fn round_trips(ty: &DynSolType, value: &DynSolValue) -> bool {
    let tuple = DynSolType::Tuple(vec![ty.clone()]);
    let encoded = DynSolValue::Tuple(vec![value.clone()]).abi_encode_params();
    tuple.abi_decode_params(&encoded).ok() == Some(DynSolValue::Tuple(vec![value.clone()]))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn generated_values_fit_their_type_and_round_trip(ty in any_type(), seed: u64) {
        let mut rng = StdRng::seed_from_u64(seed);
        let dict = dictionary();
        for _ in 0..8 {
            let value = generate(&ty, &mut rng, &dict);
            prop_assert!(ty.matches(&value), "{ty} does not match {value:?}");
            prop_assert!(round_trips(&ty, &value), "{ty}: {value:?}");
        }
    }

    #[test]
    fn mutation_changes_one_leaf_and_keeps_types(types in prop::collection::vec(any_type(), 1..4), seed: u64) {
        let mut rng = StdRng::seed_from_u64(seed);
        let dict = dictionary();
        let mut args: Vec<DynSolValue> = types.iter().map(|t| generate(t, &mut rng, &dict)).collect();
        for _ in 0..16 {
            let before = args.clone();
            let Some(path) = mutate(&mut args, &types, &mut rng, &dict) else {
                // Only argument lists without leaves (all empty fixed arrays/tuples) have none.
                prop_assert_eq!(&args, &before);
                break;
            };
            prop_assert!(leaf_at(&args, &path).is_some(), "{path:?}");
            prop_assert_ne!(&args, &before, "changed at {:?}", path);
            for (ty, value) in types.iter().zip(&args) {
                prop_assert!(ty.matches(value) && round_trips(ty, value), "{ty}: {value:?}");
            }
            // Everything outside the leaf is unchanged: restoring the leaf restores all.
            let mut restored = args.clone();
            prop_assert!(set_leaf(&mut restored, &path, leaf_at(&before, &path).unwrap().clone()));
            prop_assert_eq!(&restored, &before);
        }
    }

    #[test]
    fn uniform_redraws_fit_the_type_and_leave_other_values_alone(ty in scalar(), seed: u64) {
        let mut rng = StdRng::seed_from_u64(seed);
        let value = generate(&ty, &mut rng, &dictionary());
        let mut redrawn = value.clone();
        redraw_uniform(&mut redrawn, &mut rng);
        prop_assert!(ty.matches(&redrawn) && round_trips(&ty, &redrawn), "{ty}: {redrawn:?}");
        if !matches!(ty, DynSolType::Uint(_) | DynSolType::Int(_)) {
            prop_assert_eq!(redrawn, value);
        }
    }

    #[test]
    fn shrinking_by_first_candidates_terminates_well_typed(ty in any_type(), seed: u64) {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut value = generate(&ty, &mut rng, &dictionary());
        let mut steps = 0;
        loop {
            let candidates = simplifications(&value);
            for candidate in &candidates {
                prop_assert!(ty.matches(candidate) && round_trips(&ty, candidate), "{ty}: {candidate:?}");
            }
            let Some(simpler) = candidates.into_iter().next() else {
                break;
            };
            value = simpler;
            steps += 1;
            prop_assert!(steps < 10_000, "shrinking {ty} does not end");
        }
    }

    #[test]
    fn closed_addresses_are_the_only_ones_generated_and_mutated_anywhere(
        types in prop::collection::vec(any_type(), 1..4),
        seed: u64,
        two: bool,
    ) {
        let allowed = if two {
            vec![Address::with_last_byte(0xaa), Address::with_last_byte(0xab)]
        } else {
            vec![Address::with_last_byte(0xaa)]
        };
        let mut dict = Dictionary::closed(allowed.clone());
        // Words and runtime values must not leak in as addresses.
        dict.add_code_constants(&[0x73, 0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        dict.observe(U256::from(0xbb));
        let mut rng = StdRng::seed_from_u64(seed);
        let mut args: Vec<DynSolValue> = types.iter().map(|t| generate(t, &mut rng, &dict)).collect();
        for round in 0..32 {
            let mut stray = Vec::new();
            for value in &args {
                addresses_in(value, &mut stray);
            }
            stray.retain(|a| !allowed.contains(a));
            prop_assert!(stray.is_empty(), "round {round}: {stray:?} in {args:?}");
            mutate(&mut args, &types, &mut rng, &dict);
        }
    }

    #[test]
    fn bounded_integers_map_inside_and_simplify_inside(
        bits in 1usize..=32,
        signed: bool,
        ends: ([u64; 4], [u64; 4]),
        seed: u64,
    ) {
        let bits = bits * 8;
        let ty = if signed { DynSolType::Int(bits) } else { DynSolType::Uint(bits) };
        let mut rng = StdRng::seed_from_u64(seed);
        let dict = dictionary();
        let (a, b) = (U256::from_limbs(ends.0), U256::from_limbs(ends.1));
        let bound = if signed {
            let (a, b) = (word::to_int(a, bits), word::to_int(b, bits));
            Bound::int(a.min(b), a.max(b)).unwrap()
        } else {
            let (a, b) = (word::to_uint(a, bits), word::to_uint(b, bits));
            Bound::uint(a.min(b), a.max(b)).unwrap()
        };
        for _ in 0..16 {
            let mut value = generate(&ty, &mut rng, &dict);
            bound.apply(&mut value);
            prop_assert!(bound.contains(&value) && ty.matches(&value), "{bound}: {value:?}");
            let mut steps = 0;
            while let Some(simpler) = bound.simplifications(&value).into_iter().next() {
                prop_assert!(bound.contains(&simpler) && ty.matches(&simpler), "{bound}: {simpler:?}");
                value = simpler;
                steps += 1;
                prop_assert!(steps < 2_000, "simplifying in {bound} does not end");
            }
        }
    }

    #[test]
    fn word_mutation_stays_in_the_width(value: [u64; 4], bits in 1usize..=32, seed: u64) {
        let bits = bits * 8;
        let mut rng = StdRng::seed_from_u64(seed);
        let start = word::to_uint(U256::from_limbs(value), bits);
        let mutated = mutate_uint(start, bits, &mut rng, &dictionary());
        prop_assert!(mutated <= word::umax(bits));
        prop_assert_ne!(mutated, start);
    }
}

#[test]
fn unsupported_types_are_explained() {
    assert!(unsupported(&DynSolType::Uint(256)).is_none());
    assert!(
        unsupported(&DynSolType::Function)
            .unwrap()
            .contains("function")
    );
    let huge = DynSolType::FixedArray(Box::new(DynSolType::Uint(8)), 1000);
    assert!(unsupported(&huge).unwrap().contains("1000 elements"));
    let mut deep = DynSolType::Bool;
    for _ in 0..10 {
        deep = DynSolType::Array(Box::new(deep));
    }
    assert!(unsupported(&deep).unwrap().contains("nested"));
}

#[test]
fn leaf_paths_reach_nested_components() {
    let mut args = vec![
        DynSolValue::Uint(U256::from(1), 256),
        DynSolValue::Tuple(vec![
            DynSolValue::Bool(false),
            DynSolValue::Array(vec![DynSolValue::Bool(true)]),
        ]),
    ];
    let path = LeafPath(vec![1, 1, 0]);
    assert_eq!(leaf_at(&args, &path), Some(&DynSolValue::Bool(true)));
    assert!(set_leaf(&mut args, &path, DynSolValue::Bool(false)));
    assert_eq!(leaf_at(&args, &path), Some(&DynSolValue::Bool(false)));
    assert!(!set_leaf(
        &mut args,
        &LeafPath(vec![1, 5]),
        DynSolValue::Bool(false)
    ));
    assert_eq!(leaf_at(&args, &LeafPath(vec![])), None);
}

#[test]
fn integers_shrink_toward_zero() {
    let candidates = simplifications(&DynSolValue::Uint(U256::from(100), 256));
    assert_eq!(candidates[0], DynSolValue::Uint(U256::ZERO, 256));
    // 100 = 0b1100100: then each set bit cleared, the highest first.
    let uint = |v: u64| DynSolValue::Uint(U256::from(v), 256);
    assert_eq!(candidates[1..], [uint(36), uint(68), uint(96)]);
    assert_eq!(simplifications(&uint(64)), [uint(0)]);
    assert!(simplifications(&DynSolValue::Uint(U256::ZERO, 8)).is_empty());
    let negative = alloy_primitives::I256::try_from(-7).unwrap();
    for c in simplifications(&DynSolValue::Int(negative, 16)) {
        let DynSolValue::Int(v, 16) = c else {
            panic!("{c:?}")
        };
        assert!(v.unsigned_abs() < negative.unsigned_abs());
    }
    assert!(simplifications(&DynSolValue::Address(Address::with_last_byte(1))).is_empty());
}

#[test]
fn uniform_redraws_spread_over_the_whole_range() {
    let mut rng = StdRng::seed_from_u64(1);
    let mut high = 0;
    for _ in 0..1_000 {
        let mut value = DynSolValue::Uint(U256::ZERO, 256);
        redraw_uniform(&mut value, &mut rng);
        if value.as_uint().unwrap().0 > U256::from(1u8) << 200 {
            high += 1;
        }
    }
    // 1 - 2^-56 of the range lies above 2^200.
    assert!(high > 990, "{high}");
}
