//! The encoding against the EVM: random terms over argument words of several types, built
//! from every instruction the follower records, are encoded and the SMT-LIB terms evaluated
//! (by a small evaluator over wide integers) at random argument values; wherever the
//! encoder does not give up, the value is the one the EVM computes.

use std::collections::HashMap;

use alloy_primitives::U256;
use easy_smt::{Context, ContextBuilder, SExpr};
use proptest::prelude::*;

use super::*;
use crate::engine::prediction::secant::{Wide, wide};

/// Evaluated SMT-LIB values.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Value {
    Int(Wide),
    Bool(bool),
}

fn int(v: Value) -> Wide {
    match v {
        Value::Int(i) => i,
        Value::Bool(_) => panic!("an integer was expected"),
    }
}

fn boolean(v: Value) -> bool {
    match v {
        Value::Bool(b) => b,
        Value::Int(_) => panic!("a truth value was expected"),
    }
}

/// Euclidean division, as SMT-LIB's `div` and `mod` (divisors here are positive).
fn euclid(a: Wide, b: Wide) -> (Wide, Wide) {
    let (mut q, mut r) = (a / b, a % b);
    if r.is_negative() {
        q -= Wide::ONE;
        r += b;
    }
    (q, r)
}

/// The definition named `name` among the encoder's.
fn defined<'d>(definitions: &'d [Definition], name: &str) -> Option<&'d Definition> {
    definitions.iter().find(|d| d.name == name)
}

/// The value of every definition at `args`, in order (each uses only earlier ones), so
/// that evaluating a shared term costs once.
fn definition_values(
    ctx: &Context,
    definitions: &[Definition],
    args: &[U256],
) -> HashMap<String, Value> {
    let mut values = HashMap::new();
    for definition in definitions {
        let value = eval(ctx, definition.expr, args, &values);
        values.insert(definition.name.clone(), value);
    }
    values
}

fn eval(ctx: &Context, e: SExpr, args: &[U256], defined: &HashMap<String, Value>) -> Value {
    if let Some(atom) = ctx.get_atom(e) {
        if let Some(i) = atom.strip_prefix("arg") {
            return Value::Int(wide(args[i.parse::<usize>().unwrap()]));
        }
        if let Some(&value) = defined.get(atom) {
            return value;
        }
        let number = alloy_primitives::ruint::Uint::<1024, 16>::from_str_radix(atom, 10).unwrap();
        return Value::Int(Wide::from_raw(number));
    }
    let list = ctx.get_list(e).unwrap();
    let op = ctx.get_atom(list[0]).unwrap();
    let v = |k: usize| eval(ctx, list[k], args, defined);
    match op {
        "+" => Value::Int(int(v(1)) + int(v(2))),
        "-" if list.len() == 2 => Value::Int(-int(v(1))),
        "-" => Value::Int(int(v(1)) - int(v(2))),
        "*" => Value::Int(int(v(1)) * int(v(2))),
        "div" => Value::Int(euclid(int(v(1)), int(v(2))).0),
        "mod" => Value::Int(euclid(int(v(1)), int(v(2))).1),
        "<" => Value::Bool(int(v(1)) < int(v(2))),
        ">" => Value::Bool(int(v(1)) > int(v(2))),
        "<=" => Value::Bool(int(v(1)) <= int(v(2))),
        ">=" => Value::Bool(int(v(1)) >= int(v(2))),
        "=" => Value::Bool(v(1) == v(2)),
        "not" => Value::Bool(!boolean(v(1))),
        "and" => Value::Bool(boolean(v(1)) && boolean(v(2))),
        "or" => Value::Bool(boolean(v(1)) || boolean(v(2))),
        "ite" => {
            if boolean(v(1)) {
                v(2)
            } else {
                v(3)
            }
        }
        other => panic!("unexpected operator {other}"),
    }
}

/// `e` with every defined name replaced by its definition, as text.
fn expand(ctx: &Context, e: SExpr, definitions: &[Definition]) -> String {
    if let Some(atom) = ctx.get_atom(e) {
        return match defined(definitions, atom) {
            Some(definition) => expand(ctx, definition.expr, definitions),
            None => atom.to_string(),
        };
    }
    let parts: Vec<String> = ctx
        .get_list(e)
        .unwrap()
        .iter()
        .map(|&part| expand(ctx, part, definitions))
        .collect();
    format!("({})", parts.join(" "))
}

const OPS: [BinaryOp; 17] = [
    BinaryOp::Add,
    BinaryOp::Mul,
    BinaryOp::Sub,
    BinaryOp::Div,
    BinaryOp::Mod,
    BinaryOp::Lt,
    BinaryOp::Gt,
    BinaryOp::SLt,
    BinaryOp::SGt,
    BinaryOp::Eq,
    BinaryOp::And,
    BinaryOp::Or,
    BinaryOp::Xor,
    BinaryOp::Shl,
    BinaryOp::Shr,
    BinaryOp::Sar,
    BinaryOp::SignExtend,
];

/// The argument words' widths: 8, 64, 160 and 256 bits.
const WIDTHS: [usize; 4] = [8, 64, 160, 256];

fn max_of(width: usize) -> U256 {
    if width == 256 {
        U256::MAX
    } else {
        (U256::ONE << width) - U256::ONE
    }
}

/// Constants instructions meet: small numbers, masks, shift amounts, random words.
fn constant() -> impl Strategy<Value = U256> {
    prop_oneof![
        (0u64..300).prop_map(U256::from),
        (1usize..=256).prop_map(max_of),
        (0usize..256).prop_map(|k| U256::MAX << k),
        any::<[u64; 4]>().prop_map(U256::from_limbs),
    ]
}

/// One step of a term: an instruction on two earlier terms (by index modulo their count),
/// or a unary one (`IsZero` when the flag is set, `Not` otherwise) on the first.
#[derive(Debug, Clone)]
enum Step {
    Binary(usize, usize, usize),
    Unary(bool, usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..OPS.len(), any::<usize>(), any::<usize>()).prop_map(|(o, a, b)| Step::Binary(o, a, b)),
        1 => (any::<bool>(), any::<usize>()).prop_map(|(z, a)| Step::Unary(z, a)),
    ]
}

/// A word of `width` bits: small, at the edges, or anywhere.
fn value(width: usize, raw: [u64; 4], pick: u8) -> U256 {
    let max = max_of(width);
    match pick % 4 {
        0 => U256::from(raw[0] % 1000) & max,
        1 => max - (U256::from(raw[0] % 3) & max),
        _ => U256::from_limbs(raw) & max,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn encoded_terms_compute_what_the_evm_computes(
        widths in proptest::collection::vec(0..WIDTHS.len(), 2),
        raws in proptest::collection::vec((any::<[u64; 4]>(), any::<u8>()), 2),
        constants in proptest::collection::vec(constant(), 2),
        steps in proptest::collection::vec(step(), 1..6),
    ) {
        let ctx = ContextBuilder::new().without_solver().build().unwrap();
        let widths: Vec<usize> = widths.iter().map(|&w| WIDTHS[w]).collect();
        let args: Vec<U256> = raws
            .iter()
            .zip(&widths)
            .map(|(&(raw, pick), &w)| value(w, raw, pick))
            .collect();
        // Terms and their concrete values (what the EVM computes), side by side.
        let mut path = PathCondition::default();
        let mut ids = Vec::new();
        let mut values = Vec::new();
        for (i, &v) in args.iter().enumerate() {
            path.terms.push(Term::Arg(i as u32));
            ids.push(path.terms.len() as TermId - 1);
            values.push(v);
        }
        for &c in &constants {
            path.terms.push(Term::Const(c));
            ids.push(path.terms.len() as TermId - 1);
            values.push(c);
        }
        for step in &steps {
            let n = ids.len();
            let (term, v) = match *step {
                Step::Binary(o, a, b) => {
                    let op = OPS[o];
                    let (a, b) = (a % n, b % n);
                    (Term::Binary(op, ids[a], ids[b]), op.evaluate(values[a], values[b]))
                }
                Step::Unary(zero, a) => {
                    let a = a % n;
                    if zero {
                        (Term::Unary(UnaryOp::IsZero, ids[a]), U256::from(values[a].is_zero() as u8))
                    } else {
                        (Term::Unary(UnaryOp::Not, ids[a]), !values[a])
                    }
                }
            };
            path.terms.push(term);
            ids.push(path.terms.len() as TermId - 1);
            values.push(v);
        }
        let mut encoder = Encoder::new(&ctx, &path, |i| Some(max_of(widths[i as usize])));
        for (&id, &expected) in ids.iter().zip(&values) {
            let Some(word) = encoder.word(id) else { continue };
            let defined = definition_values(&ctx, &encoder.definitions, &args);
            let got = int(eval(&ctx, word.expr, &args, &defined));
            prop_assert_eq!(got, wide(expected), "term {} of {:?}: {}", id, path.terms, expand(&ctx, word.expr, &encoder.definitions));
            // The interval holds the value.
            prop_assert!(word.lo <= expected && expected <= word.hi, "{:?} outside [{}, {}]", expected, word.lo, word.hi);
        }
    }
}

#[test]
fn products_of_narrow_words_are_encoded_without_wrap_around() {
    let ctx = ContextBuilder::new().without_solver().build().unwrap();
    let mut path = PathCondition::default();
    path.terms.extend([
        Term::Arg(0),
        Term::Arg(1),
        Term::Binary(BinaryOp::Mul, 2, 3),
        Term::Const(U256::from(424_242)),
        Term::Binary(BinaryOp::Eq, 4, 5),
    ]);
    let narrow = |_| Some(max_of(64));
    let mut encoder = Encoder::new(&ctx, &path, narrow);
    let condition = encoder.branch(6, true).unwrap();
    assert_eq!(
        expand(&ctx, condition, &encoder.definitions),
        "(= (* arg0 arg1) 424242)"
    );
    assert_eq!(encoder.args, [0, 1]);
    // Full words may wrap: the product is taken modulo 2^256.
    let mut encoder = Encoder::new(&ctx, &path, |_| Some(U256::MAX));
    let condition = encoder.branch(6, false).unwrap();
    let condition = expand(&ctx, condition, &encoder.definitions);
    assert!(
        condition.starts_with("(not (= (mod (* arg0 arg1) 1157920"),
        "{condition}"
    );
}

#[test]
fn opaque_terms_and_words_the_solver_may_not_choose_give_up() {
    let ctx = ContextBuilder::new().without_solver().build().unwrap();
    let mut path = PathCondition::default();
    path.terms.extend([
        Term::Arg(0),
        Term::Binary(BinaryOp::Add, 2, 1),
        Term::Arg(1),
        Term::Unary(UnaryOp::IsZero, 4),
    ]);
    let mut encoder = Encoder::new(&ctx, &path, |i| (i == 0).then_some(U256::MAX));
    assert!(encoder.branch(3, true).is_none(), "opaque operand");
    assert!(
        encoder.branch(5, true).is_none(),
        "argument word 1 is not the solver's"
    );
    assert!(encoder.branch(2, true).is_some());
}

/// A loop's counter (`w--` 300 times from an argument, each step the wrapping `SUB` with
/// its `ite`) uses the step before twice: printed as a tree it doubles each step, named it
/// stays one short definition a step.
#[test]
fn shared_terms_are_defined_once_so_a_loop_stays_linear() {
    let ctx = ContextBuilder::new().without_solver().build().unwrap();
    let mut path = PathCondition::default();
    path.terms.extend([Term::Arg(0), Term::Const(U256::ONE)]);
    let (arg, one) = (2, 3);
    let mut counter = arg;
    for _ in 0..300 {
        path.terms.push(Term::Binary(BinaryOp::Sub, counter, one));
        counter = path.terms.len() as TermId - 1;
    }
    let mut encoder = Encoder::new(&ctx, &path, |_| Some(U256::MAX));
    let word = encoder.word(counter).unwrap();
    assert_eq!(encoder.definitions.len(), 300, "one definition per step");
    for definition in &encoder.definitions {
        let text = ctx.display(definition.expr).to_string();
        assert!(text.len() < 300, "{}: {text}", definition.name);
    }
    assert_eq!(
        ctx.get_atom(word.expr),
        Some(format!("t{counter}").as_str())
    );
    // The counter after 300 steps from 1000 is 700, as the definitions say.
    let args = [U256::from(1000)];
    let defined = definition_values(&ctx, &encoder.definitions, &args);
    assert_eq!(
        eval(&ctx, word.expr, &args, &defined),
        Value::Int(wide(U256::from(700)))
    );
}
