//! z3 on path conditions (the repository's shim provides it under `cargo test`): a model
//! satisfies the path, answers stay inside the argument words' types, an impossible path is
//! unsatisfiable, and a target the follower could not express is said to be.

use alloy_primitives::{Address, U256};

use super::*;
use crate::observe::symbolic::{BinaryOp, Branch, Term};

fn branch(code: Address, pc: u32, condition: u32, taken: bool) -> Branch {
    Branch {
        code,
        pc,
        condition,
        taken,
    }
}

/// The z3 `cargo test` names (`HARVEY_Z3`, the repository's shim), else `z3` on `PATH`.
fn z3() -> Z3Program {
    Z3Program {
        program: crate::project::Environment::from_process().z3(),
        log: None,
    }
}

/// A deadline no answer of these tests comes near.
fn later() -> Instant {
    Instant::now() + std::time::Duration::from_secs(120)
}

fn solver() -> Solver {
    Solver::start(&z3(), later()).unwrap_or_else(|e| panic!("{e:?}"))
}

const CODE: Address = Address::repeat_byte(0xc0);

/// `a * b % 1_000_003 == 424_242` after `a > 1000` and `b > 1000` held, over uint64 words.
fn modular() -> PathCondition {
    let mut path = PathCondition::default();
    path.terms.extend([
        Term::Arg(0),                       // 2
        Term::Arg(1),                       // 3
        Term::Const(U256::from(1000)),      // 4
        Term::Binary(BinaryOp::Gt, 2, 4),   // 5: a > 1000
        Term::Binary(BinaryOp::Gt, 3, 4),   // 6: b > 1000
        Term::Binary(BinaryOp::Mul, 2, 3),  // 7
        Term::Const(U256::from(1_000_003)), // 8
        Term::Binary(BinaryOp::Mod, 7, 8),  // 9
        Term::Const(U256::from(424_242)),   // 10
        Term::Binary(BinaryOp::Eq, 9, 10),  // 11
    ]);
    path.branches.extend([
        branch(CODE, 10, 5, true),
        branch(CODE, 20, 0, false),
        branch(CODE, 30, 6, true),
        branch(CODE, 40, 11, false),
    ]);
    path
}

#[test]
fn a_model_satisfies_the_path_with_the_target_flipped() {
    let mut z3 = solver();
    let answer = z3
        .solve(
            &modular(),
            (CODE, 40, 0),
            true,
            |_| Some(Domain::Uint(64)),
            later(),
        )
        .unwrap();
    let Answer::Model(model) = answer else {
        panic!("{answer:?}")
    };
    let value = |i| model.iter().find(|(j, _)| *j == i).unwrap().1;
    let (a, b) = (value(0), value(1));
    assert!(a > U256::from(1000) && b > U256::from(1000), "{a} {b}");
    assert!(a < U256::ONE << 64 && b < U256::ONE << 64);
    assert_eq!((a * b) % U256::from(1_000_003), U256::from(424_242));
}

#[test]
fn narrow_types_bound_the_answer() {
    let mut z3 = solver();
    // a + b == 300 over uint8 words: both at most 255.
    let mut path = PathCondition::default();
    path.terms.extend([
        Term::Arg(0),
        Term::Arg(1),
        Term::Binary(BinaryOp::Add, 2, 3),
        Term::Const(U256::from(300)),
        Term::Binary(BinaryOp::Eq, 4, 5),
        Term::Const(U256::from(250)),
        Term::Binary(BinaryOp::Gt, 2, 7),
    ]);
    path.branches
        .extend([branch(CODE, 1, 8, true), branch(CODE, 2, 6, false)]);
    let Answer::Model(model) = z3
        .solve(
            &path,
            (CODE, 2, 0),
            true,
            |_| Some(Domain::Uint(8)),
            later(),
        )
        .unwrap()
    else {
        panic!()
    };
    let sum: U256 = model.iter().map(|(_, v)| *v).sum();
    assert_eq!(sum, U256::from(300));
    assert!(
        model.iter().all(|(_, v)| *v <= U256::from(255)),
        "{model:?}"
    );
}

#[test]
fn an_impossible_path_is_unsatisfiable_and_an_opaque_target_unencodable() {
    let mut z3 = solver();
    let path = modular();
    // The prime is too large for uint8 words: 255 * 255 < 424_242.
    assert_eq!(
        z3.solve(
            &path,
            (CODE, 40, 0),
            true,
            |_| Some(Domain::Uint(8)),
            later()
        )
        .unwrap(),
        Answer::Unsat
    );
    // The second JUMPI's condition is concrete: nothing to solve.
    assert_eq!(
        z3.solve(
            &path,
            (CODE, 20, 0),
            true,
            |_| Some(Domain::Uint(64)),
            later()
        )
        .unwrap(),
        Answer::Unencodable
    );
    // No second occurrence of the target.
    assert_eq!(
        z3.solve(
            &path,
            (CODE, 40, 1),
            true,
            |_| Some(Domain::Uint(64)),
            later()
        )
        .unwrap(),
        Answer::Unencodable
    );
}

#[test]
fn words_are_read_back_as_their_types_encode_them() {
    assert!(within(Domain::Int(8), U256::MAX)); // -1
    assert!(!within(Domain::Int(8), U256::from(128)));
    assert!(within(Domain::FixedBytes(1), U256::from(0xab) << 248));
    assert!(!within(Domain::FixedBytes(1), U256::from(1)));
    assert_eq!(
        number_of(Domain::FixedBytes(1), U256::from(0xab) << 248),
        wide(U256::from(0xab))
    );
    assert_eq!(number_of(Domain::Int(8), U256::MAX), -Wide::ONE);
    assert!(!within(Domain::Address, U256::ONE << 160));
}

#[test]
fn get_value_answers_are_read_pair_by_pair() {
    let pairs = values("((arg0 5)\n (arg1 (- 7)) (arg2 115792089237316195423570985008687907853269984665640564039457584007913129639935))")
        .unwrap();
    assert_eq!(pairs.len(), 3);
    assert_eq!(pairs[0], ("arg0".to_string(), Some("5".to_string())));
    assert_eq!(
        pairs[1],
        ("arg1".to_string(), None),
        "a negative is no word"
    );
    assert_eq!(pairs[2].0, "arg2");
    // Other shapes are not answers.
    for garbage in [
        "sat",
        "(arg0 5)",
        "((arg0 5)",
        "((arg0 5)) extra",
        "(())",
        "((arg0))",
    ] {
        assert_eq!(values(garbage), None, "{garbage}");
    }
}
