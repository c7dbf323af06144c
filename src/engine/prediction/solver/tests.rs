//! z3 on path conditions (the repository's shim provides it under `cargo test`): a model
//! satisfies the path, answers stay inside the argument words' types, an impossible path is
//! unsatisfiable, and a target the follower could not express is said to be.

use alloy_primitives::{Address, U256};

use super::*;
use crate::observe::symbolic::{BinaryOp, Branch, Term, UnaryOp};

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

/// Launching waits for no answer: a z3 that never answers is launched, and found out only
/// by the wait for its set-up (which a worker starts when it first needs z3).
#[test]
fn a_launch_waits_for_no_answer() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let silent = dir.path().join("silent-z3");
    std::fs::write(&silent, "#!/bin/sh\nexec sleep 100000\n").unwrap();
    std::fs::set_permissions(&silent, std::fs::Permissions::from_mode(0o755)).unwrap();
    let program = Z3Program {
        program: silent,
        log: None,
    };
    let mut z3 = Solver::launch(&program).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(z3.ready(Instant::now()).err(), Some(Failed::Late));
}

const CODE: Address = Address::repeat_byte(0xc0);

/// z3's answer for the `nth` JUMPI at `pc` of `path` going the way `want` says, over
/// `uint<bits>` argument words, the branches before it as `question` says.
fn asked(
    z3: &mut Solver,
    question: Question,
    path: &PathCondition,
    (pc, nth): (u32, u32),
    want: bool,
    bits: usize,
) -> Answer {
    z3.solve(
        path,
        (CODE, pc, nth),
        want,
        question,
        |_| Some(Domain::Uint(bits)),
        later(),
    )
    .unwrap()
}

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
    let answer = asked(&mut z3, Question::AsTheyWent, &modular(), (40, 0), true, 64);
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
    let Answer::Model(model) = asked(&mut z3, Question::AsTheyWent, &path, (2, 0), true, 8) else {
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
        asked(&mut z3, Question::AsTheyWent, &path, (40, 0), true, 8),
        Answer::Unsat
    );
    // The second JUMPI's condition is concrete: nothing to solve.
    assert_eq!(
        asked(&mut z3, Question::AsTheyWent, &path, (20, 0), true, 64),
        Answer::Unencodable
    );
    // No second occurrence of the target.
    assert_eq!(
        asked(&mut z3, Question::AsTheyWent, &path, (40, 1), true, 64),
        Answer::Unencodable
    );
}

/// `if (a > 5 && b == 42)` as solc compiles it: the failing conjunct `b == 42` is tested at
/// its short-circuit JUMPI (pc 20) and again, through `ISZERO`s of its own, at the `if`'s
/// (pc 30), the end of the conjunction. The earlier conjunct `a > 5` held.
fn conjunction() -> PathCondition {
    let mut path = PathCondition::default();
    path.terms.extend([
        Term::Arg(0),                     // 2: a
        Term::Arg(1),                     // 3: b
        Term::Const(U256::from(5)),       // 4
        Term::Binary(BinaryOp::Gt, 2, 4), // 5: a > 5
        Term::Const(U256::from(42)),      // 6
        Term::Binary(BinaryOp::Eq, 3, 6), // 7: b == 42
        Term::Unary(UnaryOp::IsZero, 7),  // 8: the short-circuit's test
        Term::Unary(UnaryOp::IsZero, 7),  // 9: the if's
        Term::Unary(UnaryOp::IsZero, 9),  // 10
    ]);
    path.branches.extend([
        branch(CODE, 10, 5, true),
        branch(CODE, 20, 8, true),
        branch(CODE, 30, 10, false),
    ]);
    path
}

#[test]
fn a_conjunct_tested_twice_is_flipped_at_either_test() {
    let mut z3 = solver();
    let path = conjunction();
    for pc in [20, 30] {
        let want = pc == 30;
        let answer = asked(&mut z3, Question::AsTheyWent, &path, (pc, 0), want, 64);
        let Answer::Model(model) = answer else {
            panic!("pc {pc}: {answer:?}")
        };
        let value = |i| model.iter().find(|(j, _)| *j == i).unwrap().1;
        assert_eq!(value(1), U256::from(42), "pc {pc}");
        assert!(
            value(0) > U256::from(5),
            "pc {pc}: the conjunct before still holds"
        );
    }
}

#[test]
fn a_flip_shows_at_the_first_test_of_the_value() {
    let path = conjunction();
    // `b == 42` went false at its short-circuit (20), which jumped, and again at the `if`
    // (30): flipped, the path leaves the old one at 20, falling through.
    assert_eq!(first_test(&path, (CODE, 30, 0)), Some((20, 0, false)));
    assert_eq!(first_test(&path, (CODE, 20, 0)), Some((20, 0, false)));
    assert_eq!(first_test(&path, (CODE, 10, 0)), Some((10, 0, false)));
    assert_eq!(first_test(&path, (CODE, 40, 0)), None, "not on the path");
    // The first test at a pc the path passed before: its occurrence there.
    let mut looped = conjunction();
    looped.branches[1].pc = 10;
    assert_eq!(first_test(&looped, (CODE, 30, 0)), Some((10, 1, false)));
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

/// Two `if`s as solc compiles them (a conjunct that holds falls through its JUMPI, one
/// that fails jumps, and is tested again at every later JUMPI of its conjunction): `if (a
/// > 5 && b == 42)` failed at `b == 42` (pcs 20 and 30), then `if (a < 3 && c == 7)` has
/// `a < 3` holding (pc 40) and `c == 7` failing (pc 50), the target.
fn two_ifs() -> PathCondition {
    let mut path = PathCondition::default();
    path.terms.extend([
        Term::Arg(0),                      // 2: a
        Term::Arg(1),                      // 3: b
        Term::Arg(2),                      // 4: c
        Term::Const(U256::from(5)),        // 5
        Term::Binary(BinaryOp::Gt, 2, 5),  // 6: a > 5
        Term::Unary(UnaryOp::IsZero, 6),   // 7
        Term::Const(U256::from(42)),       // 8
        Term::Binary(BinaryOp::Eq, 3, 8),  // 9: b == 42
        Term::Unary(UnaryOp::IsZero, 9),   // 10
        Term::Const(U256::from(3)),        // 11
        Term::Binary(BinaryOp::Lt, 2, 11), // 12: a < 3
        Term::Unary(UnaryOp::IsZero, 12),  // 13
        Term::Const(U256::from(7)),        // 14
        Term::Binary(BinaryOp::Eq, 4, 14), // 15: c == 7
        Term::Unary(UnaryOp::IsZero, 15),  // 16
    ]);
    path.branches.extend([
        branch(CODE, 10, 7, false),
        branch(CODE, 20, 10, true),
        branch(CODE, 30, 10, true),
        branch(CODE, 40, 13, false),
        branch(CODE, 50, 16, true),
    ]);
    path
}

#[test]
fn an_earlier_conjunction_fails_at_any_conjunct_in_the_second_question() {
    let path = two_ifs();
    // `a > 5` held in the conjunction that failed at `b == 42`: released. The run of
    // tests of `b == 42` decides that `if` and stays; so does the target's own `a < 3`.
    assert_eq!(released(&path, 4), vec![true, false, false, false]);
    // With the target inside the first conjunction, nothing ended before it.
    assert_eq!(released(&path, 1), vec![false]);
    // A value tested again at the same pc (a loop) ends no conjunction.
    let mut looped = two_ifs();
    looped.branches[2].pc = 20;
    assert_eq!(released(&looped, 4), vec![false; 4]);

    assert!(releases(&path, (CODE, 50, 0)));
    assert!(!releases(&path, (CODE, 20, 0)));

    // As it went, `a > 5` and `a < 3` contradict; without `a > 5`, `c == 7` opens, and
    // the earlier `if` still fails (at `b == 42`, which the answer keeps false).
    let mut z3 = solver();
    let first = asked(&mut z3, Question::AsTheyWent, &path, (50, 0), false, 64);
    assert_eq!(first, Answer::Unsat);
    let answer = asked(&mut z3, Question::Released, &path, (50, 0), false, 64);
    let Answer::Model(model) = answer else {
        panic!("{answer:?}")
    };
    let value = |i| model.iter().find(|(j, _)| *j == i).unwrap().1;
    assert_eq!(value(2), U256::from(7));
    assert!(value(0) < U256::from(3));
    assert_ne!(value(1), U256::from(42));
}

/// The look-ahead's question on `two_ifs`' target, `c == 7` forced to hold, and `c * a ==
/// 14` after it (pc 60) failing, forced too: asked for together. As the earlier `if` went
/// (`a > 5` held), nothing satisfies `a < 3` and the rest; released like the second
/// question, only `a = 2` does (`c == 7` alone leaves `a` free below 3).
#[test]
fn a_look_ahead_asks_for_the_forced_conjuncts_too() {
    let mut path = two_ifs();
    path.terms.extend([
        Term::Binary(BinaryOp::Mul, 4, 2),  // 17: c * a
        Term::Const(U256::from(14)),        // 18
        Term::Binary(BinaryOp::Eq, 17, 18), // 19: c * a == 14
        Term::Unary(UnaryOp::IsZero, 19),   // 20
    ]);
    // Forced: the target falls through (its conjunct holds), and so does pc 60.
    path.branches[4].taken = false;
    path.branches.push(branch(CODE, 60, 20, false));
    let ahead = |released| Question::Ahead {
        through: 5,
        released,
    };
    let mut z3 = solver();
    let first = asked(&mut z3, ahead(false), &path, (50, 0), false, 64);
    assert_eq!(first, Answer::Unsat);
    let answer = asked(&mut z3, ahead(true), &path, (50, 0), false, 64);
    let Answer::Model(model) = answer else {
        panic!("{answer:?}")
    };
    let value = |i| model.iter().find(|(j, _)| *j == i).unwrap().1;
    assert_eq!((value(0), value(2)), (U256::from(2), U256::from(7)));
    assert_ne!(value(1), U256::from(42));
}

/// `LargeMaze1`'s question that z3 5.4.1 gave up on within its budget (logged by
/// `HARVEY_Z3_LOG`): `arg1 + k1 == arg2 * arg3`, `arg2 + k2 == arg3 * arg0` held, and
/// `arg3 == 5 * arg1 + 314237` wanted, over uint64 words. Answered, by z3 or by the
/// solver's own roots (`roots`) when z3 gives up, with words that satisfy all three.
#[test]
fn equalities_z3_gives_up_on_are_answered() {
    let (k1, k2) = (2_438_154_870_451_659u64, 185_199_206_836u64);
    let mut path = PathCondition::default();
    path.terms.extend([
        Term::Arg(0),                        // 2
        Term::Arg(1),                        // 3
        Term::Arg(2),                        // 4
        Term::Arg(3),                        // 5
        Term::Const(U256::from(k1)),         // 6
        Term::Binary(BinaryOp::Add, 6, 3),   // 7: arg1 + k1
        Term::Binary(BinaryOp::Mul, 4, 5),   // 8: arg2 * arg3
        Term::Binary(BinaryOp::Eq, 7, 8),    // 9
        Term::Const(U256::from(k2)),         // 10
        Term::Binary(BinaryOp::Add, 10, 4),  // 11: arg2 + k2
        Term::Binary(BinaryOp::Mul, 5, 2),   // 12: arg3 * arg0
        Term::Binary(BinaryOp::Eq, 11, 12),  // 13
        Term::Const(U256::from(5)),          // 14
        Term::Binary(BinaryOp::Mul, 14, 3),  // 15: 5 * arg1
        Term::Const(U256::from(314_237)),    // 16
        Term::Binary(BinaryOp::Add, 15, 16), // 17
        Term::Binary(BinaryOp::Eq, 5, 17),   // 18
    ]);
    path.branches.extend([
        branch(CODE, 10, 9, true),
        branch(CODE, 20, 13, true),
        branch(CODE, 30, 18, false),
    ]);
    let answer = asked(
        &mut solver(),
        Question::AsTheyWent,
        &path,
        (30, 0),
        true,
        64,
    );
    let Answer::Model(model) = answer else {
        panic!("{answer:?}")
    };
    let value = |i| model.iter().find(|(j, _)| *j == i).unwrap().1;
    let [a0, a1, a2, a3] = [0, 1, 2, 3].map(value);
    assert!(model.iter().all(|(_, v)| *v < U256::ONE << 64), "{model:?}");
    assert_eq!(a1 + U256::from(k1), a2 * a3);
    assert_eq!(a2 + U256::from(k2), a3 * a0);
    assert_eq!(a3, U256::from(5) * a1 + U256::from(314_237));
}
