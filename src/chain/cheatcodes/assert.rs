//! forge's assertion cheatcodes (`assertEq`, `assertLt`, `assertApproxEqRel`, ... with and
//! without an error string; what forge-std 1.9.7's `StdAssertions` forwards to), driven by
//! one table of signatures: each is decoded by its parameter types and checked by its kind.
//! A failing assertion reverts with forge's message: `assertion failed: 1 != 2`, or
//! `<err>: 1 != 2` when the call gave an error string (it replaces the prefix).

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::LazyLock;

use alloy_dyn_abi::{DynSolType, DynSolValue};
use alloy_primitives::utils::format_units;
use alloy_primitives::{Selector, U256, U512, hex, keccak256};

use super::{Answer, fail};
use crate::observe::CmpOp;

/// What an assertion checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    /// `assertTrue` (`true`) and `assertFalse` (`false`).
    Is(bool),
    /// `left <op> right`; `decimals` variants take a third argument to format with.
    Compare { op: Op, decimals: bool },
    /// `|left - right| <= max`.
    ApproxAbs { decimals: bool },
    /// `|left - right| / |right| <= max` in 1e18 fixed point.
    ApproxRel { decimals: bool },
}

/// A comparison and its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
    Lt,
    Gt,
    Le,
    Ge,
}

impl Op {
    fn holds(self, order: Ordering) -> bool {
        match self {
            Op::Eq => order.is_eq(),
            Op::Ne => order.is_ne(),
            Op::Lt => order.is_lt(),
            Op::Gt => order.is_gt(),
            Op::Le => order.is_le(),
            Op::Ge => order.is_ge(),
        }
    }

    /// What a failure shows between the operands: the operator that does hold.
    fn inverse(self) -> &'static str {
        match self {
            Op::Eq => "!=",
            Op::Ne => "==",
            Op::Lt => ">=",
            Op::Gt => "<=",
            Op::Le => ">",
            Op::Ge => "<",
        }
    }
}

/// One assertion overload.
struct Assertion {
    check: Check,
    /// Parameter types, the error string excluded.
    params: Vec<DynSolType>,
    /// Whether a `string` error follows them.
    with_error: bool,
}

/// Every assertion overload by selector.
static ASSERTIONS: LazyLock<HashMap<Selector, Assertion>> = LazyLock::new(table);

/// forge's assertion overloads: each name with its parameter lists, each with and without
/// a trailing `string` error.
fn table() -> HashMap<Selector, Assertion> {
    const EQ_TYPES: [&str; 7] = [
        "bool", "uint256", "int256", "address", "bytes32", "string", "bytes",
    ];
    let pairs = |types: &mut dyn Iterator<Item = String>| -> Vec<Vec<String>> {
        types.map(|t| vec![t.clone(), t]).collect()
    };
    let numeric = |extra: &[&str]| -> Vec<Vec<String>> {
        ["uint256", "int256"]
            .iter()
            .map(|t| {
                let mut params = vec![t.to_string(), t.to_string()];
                params.extend(extra.iter().map(|e| e.to_string()));
                params
            })
            .collect()
    };
    let mut eq_lists = pairs(&mut EQ_TYPES.iter().map(|t| t.to_string()));
    eq_lists.extend(pairs(&mut EQ_TYPES.iter().map(|t| format!("{t}[]"))));

    let mut entries: Vec<(String, Check, Vec<Vec<String>>)> = vec![
        (
            "assertTrue".into(),
            Check::Is(true),
            vec![vec!["bool".into()]],
        ),
        (
            "assertFalse".into(),
            Check::Is(false),
            vec![vec!["bool".into()]],
        ),
    ];
    for (name, op) in [
        ("Eq", Op::Eq),
        ("NotEq", Op::Ne),
        ("Lt", Op::Lt),
        ("Gt", Op::Gt),
        ("Le", Op::Le),
        ("Ge", Op::Ge),
    ] {
        let plain = if matches!(op, Op::Eq | Op::Ne) {
            eq_lists.clone()
        } else {
            numeric(&[])
        };
        let compare = |decimals| Check::Compare { op, decimals };
        entries.push((format!("assert{name}"), compare(false), plain));
        entries.push((
            format!("assert{name}Decimal"),
            compare(true),
            numeric(&["uint256"]),
        ));
    }
    for (name, abs) in [("Abs", true), ("Rel", false)] {
        let check = |decimals| {
            if abs {
                Check::ApproxAbs { decimals }
            } else {
                Check::ApproxRel { decimals }
            }
        };
        // The max delta is always a uint256, also for int256 operands.
        entries.push((
            format!("assertApproxEq{name}"),
            check(false),
            numeric(&["uint256"]),
        ));
        entries.push((
            format!("assertApproxEq{name}Decimal"),
            check(true),
            numeric(&["uint256", "uint256"]),
        ));
    }

    let mut table = HashMap::new();
    for (name, check, lists) in entries {
        for params in lists {
            for with_error in [false, true] {
                let mut all = params.clone();
                if with_error {
                    all.push("string".into());
                }
                let signature = format!("{name}({})", all.join(","));
                let selector = Selector::from_slice(&keccak256(signature.as_bytes())[..4]);
                let params = params
                    .iter()
                    .map(|t| DynSolType::parse(t).expect("the table's types are Solidity types"))
                    .collect();
                table.insert(
                    selector,
                    Assertion {
                        check,
                        params,
                        with_error,
                    },
                );
            }
        }
    }
    table
}

/// An assertion's comparison of one-word operands, as the EVM would have made it had the
/// test compared them itself: `op(lhs, rhs)` with `negations` ISZEROs after it, true
/// exactly when the assertion holds. The observer records it as a decision, so that an
/// invariant written with `assertLe(borrowed, supplied)` has a distance to failing, as
/// `require(borrowed <= supplied)` would.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::chain) struct Decision {
    pub(in crate::chain) op: CmpOp,
    pub(in crate::chain) lhs: U256,
    pub(in crate::chain) rhs: U256,
    pub(in crate::chain) negations: u8,
}

/// What running an assertion gave: the call's answer, and its comparison when it compared
/// words.
pub(super) struct Asserted {
    pub(super) answer: Answer,
    pub(super) decision: Option<Decision>,
}

/// Runs the assertion `data` calls, or `None` when `selector` is no assertion.
pub(super) fn run(selector: Selector, data: &[u8]) -> Option<Asserted> {
    let assertion = ASSERTIONS.get(&selector)?;
    let mut types = assertion.params.clone();
    if assertion.with_error {
        types.push(DynSolType::String);
    }
    let decoded = match DynSolType::Tuple(types).abi_decode_params(&data[4..]) {
        Ok(DynSolValue::Tuple(values)) => values,
        Ok(single) => vec![single],
        Err(e) => {
            return Some(Asserted {
                answer: Err(fail(e.to_string())),
                decision: None,
            });
        }
    };
    let (args, error) = match decoded.split_last() {
        Some((error, args)) if assertion.with_error => {
            (args.to_vec(), error.as_str().map(str::to_owned))
        }
        _ => (decoded, None),
    };
    let answer = match check(assertion.check, &args) {
        Ok(()) => Ok(Vec::new()),
        Err(detail) => {
            let prefix = error.unwrap_or_else(|| "assertion failed".into());
            Err(fail(match detail {
                Some(detail) => format!("{prefix}: {detail}"),
                None => prefix,
            }))
        }
    };
    Some(Asserted {
        answer,
        decision: decision(assertion.check, &args),
    })
}

/// The comparison of words `check` makes of `args`, when it makes one: equality of any
/// one-word values, the order of two integers, `|left - right| <= max`. Not for
/// `assertTrue`/`assertFalse` (the flag's own comparison is the contract's), arrays,
/// strings and bytes (no one distance), nor the relative approximation (a ratio).
fn decision(check: Check, args: &[DynSolValue]) -> Option<Decision> {
    let decided = |op, lhs, rhs, negations| {
        Some(Decision {
            op,
            lhs,
            rhs,
            negations,
        })
    };
    match check {
        Check::Compare { op, .. } => {
            // One word each, as the EVM holds them; `None` for strings, bytes and arrays.
            let word = |value: &DynSolValue| value.as_word().map(|w| U256::from_be_bytes(w.0));
            let (lhs, rhs) = (word(args.first()?)?, word(args.get(1)?)?);
            let signed = matches!(args[0], DynSolValue::Int(..));
            let (lt, gt) = if signed {
                (CmpOp::Slt, CmpOp::Sgt)
            } else {
                (CmpOp::Lt, CmpOp::Gt)
            };
            match op {
                Op::Eq => decided(CmpOp::Eq, lhs, rhs, 0),
                Op::Ne => decided(CmpOp::Eq, lhs, rhs, 1),
                Op::Lt => decided(lt, lhs, rhs, 0),
                Op::Gt => decided(gt, lhs, rhs, 0),
                // `l <= r` is `!(l > r)`, as solc compiles it.
                Op::Le => decided(gt, lhs, rhs, 1),
                Op::Ge => decided(lt, lhs, rhs, 1),
            }
        }
        Check::ApproxAbs { .. } => {
            let max = args.get(2)?.as_uint()?.0;
            decided(CmpOp::Gt, delta(args.first()?, args.get(1)?), max, 1)
        }
        Check::Is(_) | Check::ApproxRel { .. } => None,
    }
}

/// `Ok` when the assertion holds; else the detail forge shows after the prefix (none for
/// `assertTrue`/`assertFalse`).
fn check(check: Check, args: &[DynSolValue]) -> Result<(), Option<String>> {
    let decimals = |at: usize| args.get(at).and_then(DynSolValue::as_uint).map(|(d, _)| d);
    match check {
        Check::Is(expected) => match args.first().and_then(DynSolValue::as_bool) {
            Some(value) if value == expected => Ok(()),
            _ => Err(None),
        },
        Check::Compare { op, decimals: with } => {
            let (left, right) = (&args[0], &args[1]);
            let order = if matches!(op, Op::Eq | Op::Ne) {
                if left == right {
                    Ordering::Equal
                } else {
                    Ordering::Less
                }
            } else {
                numeric_order(left, right)
            };
            if op.holds(order) {
                return Ok(());
            }
            let units = if with { decimals(2) } else { None };
            Err(Some(format!(
                "{} {} {}",
                show(left, units),
                op.inverse(),
                show(right, units)
            )))
        }
        Check::ApproxAbs { decimals: with } => {
            let max = decimals(2).unwrap_or_default();
            let delta = delta(&args[0], &args[1]);
            if delta <= max {
                return Ok(());
            }
            let units = if with { decimals(3) } else { None };
            let number = |v: U256| show(&DynSolValue::Uint(v, 256), units);
            Err(Some(format!(
                "{} !~= {} (max delta: {}, real delta: {})",
                show(&args[0], units),
                show(&args[1], units),
                number(max),
                number(delta)
            )))
        }
        Check::ApproxRel { decimals: with } => {
            let max = decimals(2).unwrap_or_default();
            let right = magnitude(&args[1]);
            let delta = delta(&args[0], &args[1]);
            let real = if right.is_zero() {
                if delta.is_zero() {
                    return Ok(());
                }
                "undefined".to_string()
            } else {
                let wide = |v: U256| U512::from_be_slice(&v.to_be_bytes::<32>());
                let scaled = wide(delta) * U512::from(10u64.pow(18)) / wide(right);
                let bytes = scaled.to_be_bytes::<64>();
                if bytes[..32].iter().any(|&b| b != 0) {
                    return Err(Some("overflow in delta calculation".into()));
                }
                let relative = U256::from_be_slice(&bytes[32..]);
                if relative <= max {
                    return Ok(());
                }
                percent(relative)
            };
            let units = if with { decimals(3) } else { None };
            Err(Some(format!(
                "{} !~= {} (max delta: {}, real delta: {real})",
                show(&args[0], units),
                show(&args[1], units),
                percent(max)
            )))
        }
    }
}

/// A relative delta in 1e18 fixed point as forge shows it: a percentage with 16 decimals.
fn percent(relative: U256) -> String {
    format!(
        "{}%",
        format_units(relative, 16).unwrap_or_else(|_| relative.to_string())
    )
}

/// The order of two `uint256` or two `int256` values.
fn numeric_order(left: &DynSolValue, right: &DynSolValue) -> Ordering {
    match (left, right) {
        (DynSolValue::Int(l, _), DynSolValue::Int(r, _)) => l.cmp(r),
        (l, r) => l.as_uint().map(|v| v.0).cmp(&r.as_uint().map(|v| v.0)),
    }
}

/// `|value|` of a `uint256` or `int256`.
fn magnitude(value: &DynSolValue) -> U256 {
    match value {
        DynSolValue::Int(i, _) => i.unsigned_abs(),
        other => other.as_uint().map(|v| v.0).unwrap_or_default(),
    }
}

/// `|left - right|` of two `uint256` or two `int256` (saturating at 2^256 - 1 for
/// operands of opposite signs far apart).
fn delta(left: &DynSolValue, right: &DynSolValue) -> U256 {
    match (left, right) {
        (DynSolValue::Int(l, _), DynSolValue::Int(r, _)) => {
            if l.is_negative() == r.is_negative() {
                (*l - *r).unsigned_abs()
            } else {
                l.unsigned_abs().saturating_add(r.unsigned_abs())
            }
        }
        (l, r) => {
            let (l, r) = (magnitude(l), magnitude(r));
            l.abs_diff(r)
        }
    }
}

/// A value as forge shows it in assertion messages: numbers in decimal (with `decimals`
/// places when given), checksummed addresses, `0x` hex for bytes, strings as they are,
/// arrays as `[a, b]`.
fn show(value: &DynSolValue, decimals: Option<U256>) -> String {
    let places = decimals.and_then(|d| u8::try_from(d).ok());
    match value {
        DynSolValue::Bool(b) => b.to_string(),
        DynSolValue::Uint(u, _) => match places {
            Some(p) => format_units(*u, p).unwrap_or_else(|_| u.to_string()),
            None => u.to_string(),
        },
        DynSolValue::Int(i, _) => match places {
            Some(p) => format_units(*i, p).unwrap_or_else(|_| i.to_string()),
            None => i.to_string(),
        },
        DynSolValue::Address(a) => a.to_checksum(None),
        DynSolValue::FixedBytes(word, size) => hex::encode_prefixed(&word[..*size]),
        DynSolValue::Bytes(bytes) => hex::encode_prefixed(bytes),
        DynSolValue::String(s) => s.clone(),
        DynSolValue::Array(values) | DynSolValue::FixedArray(values) => {
            let shown: Vec<String> = values.iter().map(|v| show(v, decimals)).collect();
            format!("[{}]", shown.join(", "))
        }
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_dyn_abi::JsonAbiExt;
    use alloy_json_abi::Function;
    use alloy_primitives::{Address, B256, I256};
    use alloy_sol_types::{Revert, SolError};

    /// Runs `signature` with `args` and returns the revert message, `None` when it holds.
    fn message(signature: &str, args: &[DynSolValue]) -> Option<String> {
        let function = Function::parse(signature).unwrap();
        // `abi_encode_input` starts with the selector.
        let calldata = function.abi_encode_input(args).unwrap();
        match run(function.selector(), &calldata)
            .expect("an assertion")
            .answer
        {
            Ok(_) => None,
            Err(revert) => Some(Revert::abi_decode(&revert).unwrap().reason),
        }
    }

    fn uint(v: u128) -> DynSolValue {
        DynSolValue::Uint(U256::from(v), 256)
    }

    fn int(v: i64) -> DynSolValue {
        DynSolValue::Int(I256::try_from(v).unwrap(), 256)
    }

    fn text(s: &str) -> DynSolValue {
        DynSolValue::String(s.into())
    }

    #[test]
    fn the_table_has_forge_stds_overloads() {
        // 4 truth + 2×14×2 eq/ne + 4×2×2 ordered + 6×2×2 decimal + 4×2×2 approx.
        assert_eq!(ASSERTIONS.len(), 4 + 56 + 16 + 24 + 16);
        let known = |s: &str| ASSERTIONS.contains_key(&Selector::from_slice(&keccak256(s)[..4]));
        // Selectors from forge-std 1.9.7's Vm.sol.
        assert!(known("assertEq(uint256,uint256)"));
        assert!(known("assertEq(bytes32[],bytes32[],string)"));
        assert!(known(
            "assertApproxEqRelDecimal(int256,int256,uint256,uint256,string)"
        ));
        assert!(!known("assertEq(uint8,uint8)"));
        assert_eq!(
            Selector::from_slice(&keccak256("assertEq(uint256,uint256)")[..4]),
            Selector::from(hex!("98296c54"))
        );
    }

    #[test]
    fn messages_are_forges() {
        let cases: Vec<(&str, Vec<DynSolValue>, Option<&str>)> = vec![
            (
                "assertEq(uint256,uint256)",
                vec![uint(1), uint(2)],
                Some("assertion failed: 1 != 2"),
            ),
            ("assertEq(uint256,uint256)", vec![uint(2), uint(2)], None),
            (
                "assertNotEq(uint256,uint256)",
                vec![uint(1), uint(1)],
                Some("assertion failed: 1 == 1"),
            ),
            (
                "assertGt(uint256,uint256)",
                vec![uint(1), uint(2)],
                Some("assertion failed: 1 <= 2"),
            ),
            (
                "assertLt(uint256,uint256,string)",
                vec![uint(2), uint(2), text("x small")],
                Some("x small: 2 >= 2"),
            ),
            (
                "assertLe(int256,int256)",
                vec![int(-1), int(-2)],
                Some("assertion failed: -1 > -2"),
            ),
            (
                "assertGe(int256,int256)",
                vec![int(-2), int(-1)],
                Some("assertion failed: -2 < -1"),
            ),
            (
                "assertTrue(bool)",
                vec![DynSolValue::Bool(false)],
                Some("assertion failed"),
            ),
            (
                "assertTrue(bool,string)",
                vec![DynSolValue::Bool(false), text("nope")],
                Some("nope"),
            ),
            ("assertFalse(bool)", vec![DynSolValue::Bool(false)], None),
            (
                "assertEq(address,address)",
                vec![
                    DynSolValue::Address(alloy_primitives::Address::with_last_byte(1)),
                    DynSolValue::Address(alloy_primitives::Address::with_last_byte(2)),
                ],
                Some(
                    "assertion failed: 0x0000000000000000000000000000000000000001 != 0x0000000000000000000000000000000000000002",
                ),
            ),
            (
                "assertEq(string,string)",
                vec![text("a"), text("b")],
                Some("assertion failed: a != b"),
            ),
            (
                "assertEq(uint256[],uint256[])",
                vec![
                    DynSolValue::Array(vec![uint(1), uint(2)]),
                    DynSolValue::Array(vec![uint(1)]),
                ],
                Some("assertion failed: [1, 2] != [1]"),
            ),
            (
                "assertEq(bytes,bytes)",
                vec![DynSolValue::Bytes(vec![0xab]), DynSolValue::Bytes(vec![])],
                Some("assertion failed: 0xab != 0x"),
            ),
            (
                "assertEqDecimal(uint256,uint256,uint256)",
                vec![
                    uint(1_500_000_000_000_000_000),
                    uint(2_000_000_000_000_000_000),
                    uint(18),
                ],
                Some("assertion failed: 1.500000000000000000 != 2.000000000000000000"),
            ),
            (
                "assertApproxEqAbs(uint256,uint256,uint256)",
                vec![uint(100), uint(110), uint(5)],
                Some("assertion failed: 100 !~= 110 (max delta: 5, real delta: 10)"),
            ),
            (
                "assertApproxEqAbs(int256,int256,uint256)",
                vec![int(-3), int(4), uint(7)],
                None,
            ),
            (
                "assertApproxEqRel(uint256,uint256,uint256)",
                vec![uint(100), uint(110), uint(10_000_000_000_000_000)],
                Some(
                    "assertion failed: 100 !~= 110 (max delta: 1.0000000000000000%, real delta: 9.0909090909090909%)",
                ),
            ),
            (
                "assertApproxEqRel(uint256,uint256,uint256)",
                vec![uint(0), uint(0), uint(0)],
                None,
            ),
            (
                "assertApproxEqRel(uint256,uint256,uint256)",
                vec![uint(1), uint(0), uint(0)],
                Some(
                    "assertion failed: 1 !~= 0 (max delta: 0.0000000000000000%, real delta: undefined)",
                ),
            ),
        ];
        for (signature, args, expected) in cases {
            assert_eq!(
                message(signature, &args).as_deref(),
                expected,
                "{signature} {args:?}"
            );
        }
    }

    /// Small values and extremes, so that ties, neighbours and sign changes all occur.
    fn words() -> impl proptest::strategy::Strategy<Value = U256> {
        use proptest::prelude::*;
        prop_oneof![
            (0u64..4).prop_map(U256::from),
            any::<u64>().prop_map(U256::from),
            (0u64..4).prop_map(|d| U256::MAX - U256::from(d)),
            any::<[u8; 32]>().prop_map(U256::from_be_bytes),
        ]
    }

    proptest::proptest! {
        /// The decision the observer records is true exactly when the assertion holds, for
        /// every ordered comparison, signed and unsigned, equality of every one-word type
        /// and the absolute approximation.
        #[test]
        fn a_decision_holds_exactly_when_its_assertion_does(
            l in words(), r in words(), max in words(), flag in proptest::bool::ANY,
        ) {
            let (sl, sr) = (I256::from_raw(l), I256::from_raw(r));
            let cases: Vec<(&str, Vec<DynSolValue>)> = vec![
                ("assertEq(uint256,uint256)", vec![l.into(), r.into()]),
                ("assertNotEq(int256,int256)", vec![sl.into(), sr.into()]),
                ("assertEq(bytes32,bytes32)", vec![B256::from(l).into(), B256::from(r).into()]),
                ("assertEq(address,address)", vec![
                    Address::from_word(l.into()).into(), Address::from_word(r.into()).into(),
                ]),
                ("assertEq(bool,bool)", vec![flag.into(), (l.bit(0)).into()]),
                ("assertLt(uint256,uint256)", vec![l.into(), r.into()]),
                ("assertGt(int256,int256)", vec![sl.into(), sr.into()]),
                ("assertLe(uint256,uint256)", vec![l.into(), r.into()]),
                ("assertLe(int256,int256)", vec![sl.into(), sr.into()]),
                ("assertGe(uint256,uint256,string)", vec![l.into(), r.into(), text("e")]),
                ("assertGe(int256,int256)", vec![sl.into(), sr.into()]),
                ("assertLtDecimal(int256,int256,uint256)", vec![sl.into(), sr.into(), uint(6)]),
                ("assertApproxEqAbs(uint256,uint256,uint256)", vec![l.into(), r.into(), max.into()]),
                ("assertApproxEqAbs(int256,int256,uint256)", vec![sl.into(), sr.into(), max.into()]),
            ];
            for (signature, args) in cases {
                let function = Function::parse(signature).unwrap();
                let calldata = function.abi_encode_input(&args).unwrap();
                let asserted = run(function.selector(), &calldata).expect("an assertion");
                let d = asserted.decision.expect("a comparison of words");
                let decided = d.op.eval(d.lhs, d.rhs) != (d.negations % 2 == 1);
                proptest::prop_assert_eq!(decided, asserted.answer.is_ok(), "{} {:?}", signature, args);
            }
        }
    }

    #[test]
    fn assertions_without_one_distance_make_no_decision() {
        let words = |signature: &str, args: &[DynSolValue]| {
            let function = Function::parse(signature).unwrap();
            let calldata = function.abi_encode_input(args).unwrap();
            run(function.selector(), &calldata).unwrap().decision
        };
        assert_eq!(words("assertTrue(bool)", &[true.into()]), None);
        assert_eq!(
            words("assertEq(string,string)", &[text("a"), text("b")]),
            None
        );
        assert_eq!(
            words(
                "assertApproxEqRel(uint256,uint256,uint256)",
                &[uint(1), uint(2), uint(3)]
            ),
            None
        );
        assert_eq!(
            words(
                "assertEq(uint256[],uint256[])",
                &[
                    DynSolValue::Array(vec![uint(1)]),
                    DynSolValue::Array(vec![uint(1)]),
                ]
            ),
            None
        );
    }
}
