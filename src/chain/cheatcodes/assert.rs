//! forge's assertion cheatcodes (`vm.assertEq` & co., which forge-std's `assertEq` calls):
//! whether each holds, and forge's message when not: `<err or "assertion failed">: <left>
//! <inverse operator> <right>`, values as forge prints them.

use alloy_dyn_abi::DynSolValue;
use alloy_primitives::{I256, U256, hex};

/// Checks assertion `name` on `args` (its parameters, the optional error string last):
/// `Ok` when it holds, else forge's message. `None` when `name` is not an assertion.
pub(super) fn check(name: &str, args: &[DynSolValue]) -> Option<Result<(), String>> {
    let (base, decimals) = match name.strip_suffix("Decimal") {
        Some(base) => (base, true),
        None => (name, false),
    };
    let operand_count = match base {
        "assertTrue" | "assertFalse" => 1,
        "assertApproxEqAbs" | "assertApproxEqRel" => 3,
        _ => 2,
    } + usize::from(decimals);
    let message = match args.get(operand_count) {
        Some(DynSolValue::String(err)) => Some(err.as_str()),
        _ => None,
    };
    let fail = |formatted: Option<String>| {
        let prefix = message.unwrap_or("assertion failed");
        Err(match formatted {
            Some(formatted) => format!("{prefix}: {formatted}"),
            None => prefix.to_string(),
        })
    };
    let decimals_arg = |index: usize| {
        args.get(index)
            .and_then(DynSolValue::as_uint)
            .map_or(0, |(v, _)| v.saturating_to::<u32>())
    };
    let show = |value: &DynSolValue, places: Option<u32>| match places {
        Some(places) => format_decimal(value, places),
        None => display(value),
    };
    let result = match (base, args) {
        ("assertTrue", [DynSolValue::Bool(b), ..]) => {
            if *b {
                Ok(())
            } else {
                fail(None)
            }
        }
        ("assertFalse", [DynSolValue::Bool(b), ..]) => {
            if *b {
                fail(None)
            } else {
                Ok(())
            }
        }
        ("assertEq" | "assertNotEq", [left, right, ..]) => {
            let equal = left == right;
            let places = decimals.then(|| decimals_arg(2));
            let (holds, op) = if base == "assertEq" {
                (equal, "!=")
            } else {
                (!equal, "==")
            };
            if holds {
                Ok(())
            } else {
                fail(Some(format!(
                    "{} {op} {}",
                    show(left, places),
                    show(right, places)
                )))
            }
        }
        ("assertLt" | "assertGt" | "assertLe" | "assertGe", [left, right, ..]) => {
            let ordering = compare(left, right)?;
            let places = decimals.then(|| decimals_arg(2));
            let (holds, inverse) = match base {
                "assertLt" => (ordering.is_lt(), ">="),
                "assertGt" => (ordering.is_gt(), "<="),
                "assertLe" => (ordering.is_le(), ">"),
                _ => (ordering.is_ge(), "<"),
            };
            if holds {
                Ok(())
            } else {
                fail(Some(format!(
                    "{} {inverse} {}",
                    show(left, places),
                    show(right, places)
                )))
            }
        }
        ("assertApproxEqAbs", [left, right, DynSolValue::Uint(max, _), ..]) => {
            let delta = distance(left, right)?;
            let places = decimals.then(|| decimals_arg(3));
            if delta <= *max {
                Ok(())
            } else {
                let number = |v: U256| show(&DynSolValue::Uint(v, 256), places);
                fail(Some(format!(
                    "{} !~= {} (max delta: {}, real delta: {})",
                    show(left, places),
                    show(right, places),
                    number(*max),
                    number(delta)
                )))
            }
        }
        ("assertApproxEqRel", [left, right, DynSolValue::Uint(max, _), ..]) => {
            let places = decimals.then(|| decimals_arg(3));
            let shown = format!("{} !~= {}", show(left, places), show(right, places));
            let percent = |v: U256| format!("{}%", format_units(v, 16));
            let right_magnitude = magnitude(right)?;
            if right_magnitude.is_zero() {
                if left == right {
                    Ok(())
                } else {
                    fail(Some(format!(
                        "{shown} (max delta: {}, real delta: undefined)",
                        percent(*max)
                    )))
                }
            } else {
                let delta = distance(left, right)?;
                match delta.checked_mul(U256::from(10u64.pow(18))) {
                    None => fail(Some("overflow in delta calculation".into())),
                    Some(scaled) => {
                        let relative = scaled / right_magnitude;
                        if relative <= *max {
                            Ok(())
                        } else {
                            fail(Some(format!(
                                "{shown} (max delta: {}, real delta: {})",
                                percent(*max),
                                percent(relative)
                            )))
                        }
                    }
                }
            }
        }
        _ => return None,
    };
    Some(result)
}

/// How forge prints a value in an assertion message: numbers in decimal, addresses
/// checksummed, bytes in lowercase hex, strings raw, arrays as `[a, b]`.
fn display(value: &DynSolValue) -> String {
    match value {
        DynSolValue::Bool(b) => b.to_string(),
        DynSolValue::Uint(v, _) => v.to_string(),
        DynSolValue::Int(v, _) => v.to_string(),
        DynSolValue::Address(a) => a.to_checksum(None),
        DynSolValue::FixedBytes(word, size) => hex::encode_prefixed(&word[..*size]),
        DynSolValue::Bytes(bytes) => hex::encode_prefixed(bytes),
        DynSolValue::String(s) => s.clone(),
        DynSolValue::Array(items) | DynSolValue::FixedArray(items) => {
            let items: Vec<String> = items.iter().map(display).collect();
            format!("[{}]", items.join(", "))
        }
        other => format!("{other:?}"),
    }
}

/// A number with `places` decimals (`format_units`): 1.5e18 with 18 is `1.500000000000000000`.
fn format_decimal(value: &DynSolValue, places: u32) -> String {
    match value {
        DynSolValue::Uint(v, _) => format_units(*v, places),
        DynSolValue::Int(v, _) => {
            let text = format_units(v.unsigned_abs(), places);
            if v.is_negative() {
                format!("-{text}")
            } else {
                text
            }
        }
        other => display(other),
    }
}

/// `value / 10^places` written out with all `places` decimals.
fn format_units(value: U256, places: u32) -> String {
    if places == 0 {
        return value.to_string();
    }
    let digits = value.to_string();
    let places = places as usize;
    let padded = format!("{digits:0>width$}", width = places + 1);
    let (whole, fraction) = padded.split_at(padded.len() - places);
    format!("{whole}.{fraction}")
}

/// The order of two numbers of the same kind.
fn compare(left: &DynSolValue, right: &DynSolValue) -> Option<std::cmp::Ordering> {
    match (left, right) {
        (DynSolValue::Uint(l, _), DynSolValue::Uint(r, _)) => Some(l.cmp(r)),
        (DynSolValue::Int(l, _), DynSolValue::Int(r, _)) => Some(l.cmp(r)),
        _ => None,
    }
}

/// `|left - right|` of two numbers of the same kind.
fn distance(left: &DynSolValue, right: &DynSolValue) -> Option<U256> {
    match (left, right) {
        (DynSolValue::Uint(l, _), DynSolValue::Uint(r, _)) => Some(l.abs_diff(*r)),
        (DynSolValue::Int(l, _), DynSolValue::Int(r, _)) => Some(int_distance(*l, *r)),
        _ => None,
    }
}

/// `|l - r|` without overflow (the difference of two int256 can exceed int256).
fn int_distance(l: I256, r: I256) -> U256 {
    if l.is_negative() == r.is_negative() {
        l.unsigned_abs().abs_diff(r.unsigned_abs())
    } else {
        l.unsigned_abs() + r.unsigned_abs()
    }
}

/// `|value|` of a number.
fn magnitude(value: &DynSolValue) -> Option<U256> {
    match value {
        DynSolValue::Uint(v, _) => Some(*v),
        DynSolValue::Int(v, _) => Some(v.unsigned_abs()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uint(v: u64) -> DynSolValue {
        DynSolValue::Uint(U256::from(v), 256)
    }

    fn int(v: i64) -> DynSolValue {
        DynSolValue::Int(I256::try_from(v).unwrap(), 256)
    }

    fn text(s: &str) -> DynSolValue {
        DynSolValue::String(s.into())
    }

    fn failure(name: &str, args: &[DynSolValue]) -> String {
        check(name, args).unwrap().unwrap_err()
    }

    #[test]
    fn messages_are_forges() {
        assert_eq!(
            failure("assertEq", &[uint(1), uint(2)]),
            "assertion failed: 1 != 2"
        );
        assert_eq!(
            failure("assertNotEq", &[uint(1), uint(1)]),
            "assertion failed: 1 == 1"
        );
        assert_eq!(
            failure("assertGt", &[uint(1), uint(2)]),
            "assertion failed: 1 <= 2"
        );
        assert_eq!(
            failure("assertLt", &[uint(2), uint(2), text("x small")]),
            "x small: 2 >= 2"
        );
        assert_eq!(
            failure("assertGe", &[int(-3), int(2)]),
            "assertion failed: -3 < 2"
        );
        assert_eq!(
            failure("assertLe", &[uint(3), uint(2)]),
            "assertion failed: 3 > 2"
        );
        assert_eq!(
            failure("assertTrue", &[DynSolValue::Bool(false)]),
            "assertion failed"
        );
        assert_eq!(
            failure("assertFalse", &[DynSolValue::Bool(true), text("no")]),
            "no"
        );
        let address = DynSolValue::Address(alloy_primitives::address!(
            "0x7109709ecfa91a80626ff3989d68f67f5b1dd12d"
        ));
        assert_eq!(
            failure(
                "assertEq",
                &[address, DynSolValue::Address(Default::default())]
            ),
            "assertion failed: 0x7109709ECfa91a80626fF3989D68f67F5b1DD12D != 0x0000000000000000000000000000000000000000"
        );
        let list = |v: &[u64]| DynSolValue::Array(v.iter().map(|&x| uint(x)).collect());
        assert_eq!(
            failure("assertEq", &[list(&[1, 2]), list(&[1])]),
            "assertion failed: [1, 2] != [1]"
        );
        assert_eq!(
            failure(
                "assertEqDecimal",
                &[uint(1_500_000_000_000_000_000), uint(1), uint(18)]
            ),
            "assertion failed: 1.500000000000000000 != 0.000000000000000001"
        );
        assert_eq!(
            failure("assertApproxEqAbs", &[uint(10), uint(20), uint(5)]),
            "assertion failed: 10 !~= 20 (max delta: 5, real delta: 10)"
        );
        assert_eq!(
            failure(
                "assertApproxEqRel",
                &[uint(110), uint(100), uint(10u64.pow(16))]
            ),
            "assertion failed: 110 !~= 100 (max delta: 1.0000000000000000%, real delta: 10.0000000000000000%)"
        );
        assert_eq!(
            failure("assertApproxEqRel", &[uint(1), uint(0), uint(1)]),
            "assertion failed: 1 !~= 0 (max delta: 0.0000000000000001%, real delta: undefined)"
        );
    }

    #[test]
    fn holding_assertions_pass_and_other_names_are_not_assertions() {
        assert_eq!(check("assertEq", &[text("a"), text("a")]), Some(Ok(())));
        assert_eq!(check("assertLe", &[int(-5), int(-5)]), Some(Ok(())));
        assert_eq!(
            check("assertApproxEqAbs", &[int(-2), int(2), uint(4)]),
            Some(Ok(()))
        );
        assert_eq!(
            check("assertApproxEqRel", &[uint(0), uint(0), uint(0)]),
            Some(Ok(()))
        );
        assert_eq!(check("warp", &[uint(1)]), None);
        assert_eq!(int_distance(I256::MIN, I256::MAX), U256::MAX);
    }
}
