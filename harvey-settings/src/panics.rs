//! The Solidity Panic codes a campaign counts as violations (SWC-110, the `panics`
//! setting): a failed `assert` by default, others by name or number.
//!
//! The names exist once, in [`PANIC_NAMES`]; `harvey::chain::PanicCode` (the decoded
//! Panic of a transaction, with its 256-bit code) takes its names from there and converts
//! into a [`PanicNumber`], so this crate needs no big-integer dependency.

use std::fmt;

use crate::{Invalid, parse};

/// Every Panic code Solidity names, in numeric order, with the short name settings use
/// (`panics = ["assert", "overflow"]`, `HARVEY_PANICS=assert,overflow`).
pub const PANIC_NAMES: [(u8, &str); 10] = [
    (0x00, "generic"),
    (0x01, "assert"),
    (0x11, "overflow"),
    (0x12, "division-by-zero"),
    (0x21, "enum-conversion"),
    (0x22, "storage-encoding"),
    (0x31, "empty-pop"),
    (0x32, "out-of-bounds"),
    (0x41, "memory"),
    (0x51, "zero-function"),
];

/// The code of a failed `assert`, the one counted by default.
const ASSERT: u8 = 0x01;

/// A Panic code's number: a 256-bit unsigned integer as four 64-bit limbs, least
/// significant first (the layout of `alloy_primitives::U256::from_limbs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PanicNumber([u64; 4]);

impl PanicNumber {
    /// The number whose limbs, least significant first, are `limbs`.
    pub const fn from_limbs(limbs: [u64; 4]) -> PanicNumber {
        PanicNumber(limbs)
    }

    /// The limbs, least significant first.
    pub const fn limbs(self) -> [u64; 4] {
        self.0
    }

    /// The code named `name` ([`PANIC_NAMES`]), or written as a number: `0x`-hex or
    /// decimal, `_` ignored. Surrounding whitespace is ignored; names are case-sensitive.
    pub fn from_name(name: &str) -> Option<PanicNumber> {
        let name = name.trim();
        if let Some(&(code, _)) = PANIC_NAMES.iter().find(|(_, n)| *n == name) {
            return Some(PanicNumber::from(code));
        }
        match name.strip_prefix("0x") {
            Some(hex) => PanicNumber::from_digits(hex, 16),
            None => PanicNumber::from_digits(name, 10),
        }
    }

    /// The short name of a named code ([`PANIC_NAMES`]).
    pub fn name(self) -> Option<&'static str> {
        let [low, 0, 0, 0] = self.0 else { return None };
        PANIC_NAMES
            .iter()
            .find(|&&(code, _)| u64::from(code) == low)
            .map(|&(_, name)| name)
    }

    /// `digits` in `radix` (10 or 16), `_` ignored and no digit meaning zero; `None` for
    /// any other character or a number beyond 256 bits.
    fn from_digits(digits: &str, radix: u32) -> Option<PanicNumber> {
        let mut limbs = [0u64; 4];
        for c in digits.chars().filter(|&c| c != '_') {
            let mut carry = u128::from(c.to_digit(radix)?);
            for limb in &mut limbs {
                carry += u128::from(*limb) * u128::from(radix);
                *limb = carry as u64;
                carry >>= 64;
            }
            if carry > 0 {
                return None;
            }
        }
        Some(PanicNumber(limbs))
    }
}

impl From<u8> for PanicNumber {
    fn from(code: u8) -> PanicNumber {
        PanicNumber([u64::from(code), 0, 0, 0])
    }
}

impl fmt::LowerHex for PanicNumber {
    /// Without leading zeros, as `U256` writes it (`0x` with `{:#x}`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = String::new();
        for &limb in self.0.iter().rev() {
            if text.is_empty() {
                if limb != 0 {
                    text = format!("{limb:x}");
                }
            } else {
                text.push_str(&format!("{limb:016x}"));
            }
        }
        if text.is_empty() {
            text.push('0');
        }
        f.pad_integral(true, "0x", &text)
    }
}

/// The Panic codes a campaign reports as violations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PanicSet {
    codes: Vec<PanicNumber>,
}

impl Default for PanicSet {
    /// A failed `assert` (0x01) only, as forge's `fail_on_assert` and Medusa count by
    /// default. Checked arithmetic (0x11) is how Solidity 0.8 code checks balances
    /// (`balanceOf[from] -= amount` reverts on an overdraft by design), so counting it by
    /// default turns correct tokens into failures; the other codes are opt-in by name too.
    fn default() -> Self {
        PanicSet::of([ASSERT])
    }
}

impl PanicSet {
    /// Exactly `codes` (`harvey::chain::PanicCode`s, or numbers), each once.
    pub fn of<C: Into<PanicNumber>>(codes: impl IntoIterator<Item = C>) -> PanicSet {
        let mut set = PanicSet { codes: Vec::new() };
        for code in codes {
            let code = code.into();
            if !set.codes.contains(&code) {
                set.codes.push(code);
            }
        }
        set
    }

    /// Every named code ([`PANIC_NAMES`]).
    pub fn all() -> PanicSet {
        PanicSet::of(PANIC_NAMES.map(|(code, _)| code))
    }

    /// No Panic counts (only invariants do).
    pub fn none() -> PanicSet {
        PanicSet { codes: Vec::new() }
    }

    /// Whether `code` counts as a violation.
    pub fn contains(&self, code: impl Into<PanicNumber>) -> bool {
        self.codes.contains(&code.into())
    }

    /// The codes, in the order given.
    pub fn codes(&self) -> &[PanicNumber] {
        &self.codes
    }
}

/// The names [`PanicSet`]'s parser accepts, for error messages.
fn panic_names() -> String {
    let names: Vec<&str> = PANIC_NAMES.iter().map(|&(_, name)| name).collect();
    format!("{}, a code such as 0x11, `all` or `none`", names.join(", "))
}

impl std::str::FromStr for PanicSet {
    type Err = Invalid;

    /// Comma-separated code names (`"assert,overflow"`, see [`PANIC_NAMES`]) or numbers
    /// (`"0x01,0x11"`), `"all"`, or `"none"` (only invariants count), in any case.
    fn from_str(text: &str) -> Result<PanicSet, Invalid> {
        let codes = parse::names(text, &PanicSet::all().codes, |name| {
            PanicNumber::from_name(&name.to_ascii_lowercase()).ok_or_else(|| {
                Invalid::new(format!(
                    "`{name}` is not a Panic code: use {}",
                    panic_names()
                ))
            })
        })?;
        Ok(PanicSet::of(codes))
    }
}

impl fmt::Display for PanicSet {
    /// The set as [`PanicSet`]'s parser reads it (`none` when empty).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        parse::write_names(
            f,
            self.codes.iter().map(|c| match c.name() {
                Some(name) => name.to_string(),
                None => format!("{c:#x}"),
            }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_set_counts_failed_asserts_only() {
        let set = PanicSet::default();
        assert!(set.contains(ASSERT));
        assert!(!set.contains(0x11));
        assert!(!PanicSet::none().contains(ASSERT));
        assert_eq!(PanicSet::all().codes().len(), PANIC_NAMES.len());
    }

    #[test]
    fn sets_parse_from_names_codes_all_and_none() {
        let set: PanicSet = "assert, overflow,0x32".parse().unwrap();
        assert_eq!(
            set.codes(),
            [0x01, 0x11, 0x32].map(PanicNumber::from).as_slice()
        );
        assert_eq!(set.to_string(), "assert,overflow,out-of-bounds");
        assert_eq!("none".parse::<PanicSet>().unwrap(), PanicSet::none());
        assert_eq!("all".parse::<PanicSet>().unwrap(), PanicSet::all());
        assert_eq!("ALL".parse::<PanicSet>().unwrap(), PanicSet::all());
        assert_eq!(PanicSet::none().to_string(), "none");
        let odd: PanicSet = "0x99".parse().unwrap();
        assert_eq!(odd.to_string(), "0x99");
        for (code, name) in PANIC_NAMES {
            assert_eq!(PanicNumber::from_name(name), Some(code.into()), "{name}");
            assert_eq!(PanicNumber::from(code).name(), Some(name));
        }
        let err = "assert,overflw"
            .parse::<PanicSet>()
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`overflw`") && err.contains("division-by-zero"),
            "{err}"
        );
    }

    #[test]
    fn numbers_are_hex_or_decimal_up_to_256_bits() {
        assert_eq!(PanicNumber::from_name("17"), Some(0x11.into()));
        assert_eq!(PanicNumber::from_name("0x1_1"), Some(0x11.into()));
        assert_eq!(PanicNumber::from_name("0xFF"), Some(0xff.into()));
        let max = format!("0x{}", "f".repeat(64));
        assert_eq!(
            PanicNumber::from_name(&max),
            Some(PanicNumber::from_limbs([u64::MAX; 4]))
        );
        assert_eq!(PanicNumber::from_name(&format!("{max}0")), None);
        let big = PanicNumber::from_name("0x10000000000000000").unwrap();
        assert_eq!(big.limbs(), [0, 1, 0, 0]);
        assert_eq!(format!("{big:x}"), "10000000000000000");
        assert_eq!(format!("{:#x}", PanicNumber::from(0)), "0x0");
        for bad in ["0xg", "12a", "-1", "overflw"] {
            assert_eq!(PanicNumber::from_name(bad), None, "{bad}");
        }
    }
}
