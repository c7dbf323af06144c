//! The look-ahead's choices on path conditions laid out as solc lays out `if (c1 && c2 &&
//! c3)`: each conjunct's short-circuit JUMPI, then the `if`'s, a failing conjunct tested at
//! every one of them from its own on.

use alloy_primitives::{Address, U256};

use super::*;
use crate::observe::symbolic::{BinaryOp, Branch, Term};

const CODE: Address = Address::repeat_byte(0xc0);

/// The `if`'s JUMPI.
const IF: u32 = 90;
/// The short-circuit JUMPIs of `c1` and `c2`.
const SHORT: [u32; 2] = [30, 50];

fn branch(pc: u32, condition: u32, taken: bool) -> Branch {
    Branch {
        code: CODE,
        pc,
        condition,
        taken,
    }
}

/// Terms 2..: `c1 = a == 1`, `c2 = b == 2`, `c3 = c == 3` and an overflow check `a + b <
/// a`, each comparison's id returned.
fn conjuncts(path: &mut PathCondition) -> [u32; 4] {
    let mut comparison = |arg: u32, value: u64| {
        path.terms.push(Term::Arg(arg));
        path.terms.push(Term::Const(U256::from(value)));
        let n = path.terms.len() as u32;
        path.terms.push(Term::Binary(BinaryOp::Eq, n - 1, n - 2));
        n
    };
    let c1 = comparison(0, 1);
    let c2 = comparison(1, 2);
    let c3 = comparison(2, 3);
    path.terms.push(Term::Binary(BinaryOp::Add, 2, 5));
    let sum = path.terms.len() as u32 - 1;
    path.terms.push(Term::Binary(BinaryOp::Lt, sum, 2));
    [c1, c2, c3, sum + 1]
}

/// A path where `c1` failed: tested at its short-circuit JUMPI, at `c2`'s and at the
/// `if`'s, which jumped past the body (a concrete branch before).
fn c1_failed() -> PathCondition {
    let mut path = PathCondition::default();
    let [c1, ..] = conjuncts(&mut path);
    path.branches.extend([
        branch(10, CONCRETE, true),
        branch(SHORT[0], c1, true),
        branch(SHORT[1], c1, true),
        branch(IF, c1, true),
    ]);
    path
}

#[test]
fn a_failed_conjunct_ends_its_conjunction_at_the_if() {
    let path = c1_failed();
    let end = conjunction_end(&path, 1).unwrap();
    assert_eq!(
        end,
        End {
            pc: IF,
            failed: true
        }
    );
    // The `if`'s JUMPI tests `c1` alone after it: the last conjunct's place, no run.
    assert_eq!(conjunction_end(&path, 3), None);
    // A concrete branch starts no run.
    assert_eq!(conjunction_end(&path, 0), None);
}

#[test]
fn tests_of_one_value_at_one_pc_are_no_run() {
    // A loop testing `c1` at one JUMPI, again and again: no conjunction.
    let mut path = PathCondition::default();
    let [c1, ..] = conjuncts(&mut path);
    path.branches.extend([
        branch(40, c1, false),
        branch(40, c1, false),
        branch(40, c1, true),
    ]);
    assert_eq!(conjunction_end(&path, 0), None);
}

#[test]
fn the_next_failed_conjunct_is_forced_at_its_first_test_then_the_last_at_the_if() {
    let path = c1_failed();
    let end = conjunction_end(&path, 1).unwrap();

    // `c1` forced to hold: `c2` runs (after an overflow check it passes) and fails, tested
    // at its short-circuit JUMPI and at the `if`'s.
    let mut forced = PathCondition::default();
    let [c1, c2, c3, overflow] = conjuncts(&mut forced);
    forced.branches.extend([
        branch(10, CONCRETE, true),
        branch(SHORT[0], c1, false),
        branch(45, overflow, true),
        branch(SHORT[1], c2, true),
        branch(IF, c2, true),
    ]);
    assert_eq!(next_forced(&forced, 1, end), Some(3));

    // `c2` forced too: `c3`, the last conjunct, fails at the `if`'s JUMPI alone.
    forced.branches.truncate(3);
    forced
        .branches
        .extend([branch(SHORT[1], c2, false), branch(IF, c3, true)]);
    assert_eq!(next_forced(&forced, 3, end), Some(4));

    // With the `if`'s forced, the conjunction is done: what follows is not its.
    forced.branches[4].taken = false;
    forced.branches.push(branch(120, c3, true));
    forced.branches.push(branch(130, c3, true));
    assert_eq!(next_forced(&forced, 4, end), None);

    // Had `c3` held, the `if`'s JUMPI would go into the body: nothing to force.
    assert_eq!(next_forced(&forced, 3, end), None);
}

#[test]
fn the_look_ahead_asserts_each_value_at_its_first_test_after_the_wanted_one() {
    let mut path = PathCondition::default();
    let [c1, c2, c3, overflow] = conjuncts(&mut path);
    path.branches.extend([
        branch(10, CONCRETE, true),
        branch(SHORT[0], c1, false), // the wanted branch, forced
        branch(45, overflow, true),
        branch(SHORT[1], c2, false), // forced
        branch(60, CONCRETE, false),
        branch(70, c1, true),  // `c1` again: said by the wanted branch
        branch(IF, c3, false), // forced
        branch(100, c3, false),
    ]);
    assert_eq!(asserted(&path, 1, 6), vec![2, 3, 6]);
    assert_eq!(asserted(&path, 1, 3), vec![2, 3]);
}
