//! The parsers shared by several settings: counts, seeds, switches, durations. Each reads
//! the text an attribute literal becomes (`runs = 2_000` → `2000`) or a `HARVEY_*`
//! variable's value, and names the text and the accepted spellings when it rejects it.

use std::time::Duration;

use crate::Invalid;

/// A comma-separated list of names read by `one`, where `all` stands for every item of
/// `all` and `none` for nothing (both in any case); empty names are skipped. The set types
/// (`PanicSet`, `DetectorSet`) read their text with it.
pub(crate) fn names<T: Clone>(
    text: &str,
    all: &[T],
    one: impl Fn(&str) -> Result<T, Invalid>,
) -> Result<Vec<T>, Invalid> {
    let mut items = Vec::new();
    for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        match name.to_ascii_lowercase().as_str() {
            "none" => {}
            "all" => items.extend_from_slice(all),
            _ => items.push(one(name)?),
        }
    }
    Ok(items)
}

/// `names` joined as [`names`] reads them back, or `none` when there are none.
pub(crate) fn write_names(
    f: &mut std::fmt::Formatter<'_>,
    names: impl Iterator<Item = String>,
) -> std::fmt::Result {
    let names: Vec<String> = names.collect();
    if names.is_empty() {
        return f.write_str("none");
    }
    f.write_str(&names.join(","))
}

/// A positive integer; surrounding whitespace and `_` separators are ignored (`2_000`).
pub(crate) fn count(text: &str) -> Result<u64, Invalid> {
    match text.trim().replace('_', "").parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(Invalid::new(format!(
            "`{text}` is not a positive integer (at least 1)"
        ))),
    }
}

/// A whole number (zero included) that fits in a `u32`; surrounding whitespace and `_`
/// separators are ignored (`604_800`).
pub(crate) fn whole(text: &str) -> Result<u32, Invalid> {
    text.trim().replace('_', "").parse::<u32>().map_err(|_| {
        Invalid::new(format!(
            "`{text}` is not a whole number from 0 to {}",
            u32::MAX
        ))
    })
}

/// A percentage: a whole number from 0 to 100.
pub(crate) fn percent(text: &str) -> Result<u32, Invalid> {
    whole(text).ok().filter(|&n| n <= 100).ok_or_else(|| {
        Invalid::new(format!(
            "`{text}` is not a percentage (a whole number from 0 to 100)"
        ))
    })
}

/// A positive integer that fits in a `u32` (depth, workers).
pub(crate) fn small_count(text: &str) -> Result<u32, Invalid> {
    u32::try_from(count(text)?)
        .map_err(|_| Invalid::new(format!("`{text}` is too large: at most {}", u32::MAX)))
}

/// A `u64`, decimal or `0x`-hex.
pub(crate) fn seed(text: &str) -> Result<u64, Invalid> {
    let t = text.trim();
    let parsed = match t.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse(),
    };
    parsed.map_err(|_| Invalid::new(format!("`{text}` is not a u64 (decimal or 0x-hex)")))
}

/// `1`/`true`/`on`/`yes` or `0`/`false`/`off`/`no`, in any case.
pub(crate) fn switch(text: &str) -> Result<bool, Invalid> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "on" | "yes" => Ok(true),
        "0" | "false" | "off" | "no" => Ok(false),
        _ => Err(Invalid::new(format!(
            "`{text}` is not a switch: use 1 or 0 (true/false, on/off, yes/no)"
        ))),
    }
}

/// A path: any text but blank or holding a NUL byte (no file system takes it).
pub(crate) fn path(text: &str) -> Result<std::path::PathBuf, Invalid> {
    match text.trim() {
        "" => Err(Invalid::new(format!("`{text}` is not a path: it is empty"))),
        path if path.contains('\0') => Err(Invalid::new(format!(
            "`{text}` is not a path: it holds a NUL byte"
        ))),
        path => Ok(path.into()),
    }
}

/// A positive whole number of `ms`, `s`, `m` or `h`: `500ms`, `30s`, `5m`, `1h`.
pub(crate) fn duration(text: &str) -> Result<Duration, Invalid> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let scale: u64 = match unit.trim() {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => 0,
    };
    number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .filter(|&ms| ms > 0)
        .map(Duration::from_millis)
        .ok_or_else(|| {
            Invalid::new(format!(
                "`{text}` is not a positive duration like 500ms, 30s, 5m or 1h"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_positive_and_may_have_separators() {
        assert_eq!(count("2_000"), Ok(2000));
        assert_eq!(count(" 7 "), Ok(7));
        for bad in ["0", "", "lots", "-1", "1.5", "18446744073709551616"] {
            assert!(count(bad).is_err(), "{bad}");
        }
        assert_eq!(small_count("4294967295"), Ok(u32::MAX));
        let err = small_count("5000000000").unwrap_err();
        assert!(err.message().contains("at most 4294967295"), "{err}");
    }

    #[test]
    fn seeds_are_decimal_or_hex() {
        assert_eq!(seed("0x10"), Ok(16));
        assert_eq!(seed("0"), Ok(0));
        assert_eq!(seed("18446744073709551615"), Ok(u64::MAX));
        for bad in ["x", "18446744073709551616", "-1", ""] {
            assert!(seed(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn switches_take_the_usual_spellings() {
        for on in ["1", "true", "ON", "yes"] {
            assert_eq!(switch(on), Ok(true), "{on}");
        }
        for off in ["0", "false", "Off", "no"] {
            assert_eq!(switch(off), Ok(false), "{off}");
        }
        assert!(switch("maybe").unwrap_err().message().contains("`maybe`"));
    }

    #[test]
    fn durations_have_a_unit_and_are_positive() {
        assert_eq!(duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(duration(" 3 s "), Ok(Duration::from_secs(3)));
        for bad in ["", "s", "30", "0s", "1d", "-1s", "99999999999999999999h"] {
            assert!(duration(bad).is_err(), "{bad}");
        }
    }
}
