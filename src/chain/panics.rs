//! The set of Solidity Panic codes a campaign counts as violations (SWC-110): a failed
//! `assert` by default, others by name.

use super::PanicCode;
use crate::error::Error;

/// The Panic codes a campaign reports as violations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PanicSet {
    codes: Vec<PanicCode>,
}

impl Default for PanicSet {
    /// A failed `assert` (0x01) only, as forge's `fail_on_assert` and Medusa count by
    /// default. Checked arithmetic (0x11) is how Solidity 0.8 code checks balances
    /// (`balanceOf[from] -= amount` reverts on an overdraft by design), so counting it by
    /// default turns correct tokens into failures; the other codes are opt-in by name too.
    fn default() -> Self {
        PanicSet::of([PanicCode::Assert])
    }
}

impl PanicSet {
    /// Exactly `codes`.
    pub fn of(codes: impl IntoIterator<Item = PanicCode>) -> PanicSet {
        let mut set = PanicSet { codes: Vec::new() };
        for code in codes {
            if !set.codes.contains(&code) {
                set.codes.push(code);
            }
        }
        set
    }

    /// Every named code ([`PanicCode::NAMED`]).
    pub fn all() -> PanicSet {
        PanicSet::of(PanicCode::NAMED)
    }

    /// No Panic counts (only invariants do).
    pub fn none() -> PanicSet {
        PanicSet { codes: Vec::new() }
    }

    /// Whether `code` counts as a violation.
    pub fn contains(&self, code: PanicCode) -> bool {
        self.codes.contains(&code)
    }

    /// The codes, in the order given.
    pub fn codes(&self) -> &[PanicCode] {
        &self.codes
    }
}

/// The names [`PanicSet`]'s parser accepts, for error messages.
fn panic_names() -> String {
    let names: Vec<&str> = PanicCode::NAMED.iter().filter_map(|c| c.name()).collect();
    format!("{}, a code such as 0x11, `all` or `none`", names.join(", "))
}

impl std::str::FromStr for PanicSet {
    type Err = Error;

    /// Comma-separated code names (`"assert,overflow"`, see [`PanicCode::name`]) or hex codes
    /// (`"0x01,0x11"`), `"all"`, or `"none"` (only invariants count).
    fn from_str(text: &str) -> Result<PanicSet, Error> {
        let mut codes = Vec::new();
        for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match name.to_ascii_lowercase().as_str() {
                "none" => {}
                "all" => codes.extend(PanicCode::NAMED),
                lower => codes.push(PanicCode::from_name(lower).ok_or_else(|| {
                    Error::Config(format!(
                        "`{name}` is not a Panic code: use {}",
                        panic_names()
                    ))
                })?),
            }
        }
        Ok(PanicSet::of(codes))
    }
}

impl std::fmt::Display for PanicSet {
    /// The set as [`PanicSet`]'s parser reads it (`none` when empty).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.codes.is_empty() {
            return f.write_str("none");
        }
        let names: Vec<String> = self
            .codes
            .iter()
            .map(|c| match c.name() {
                Some(name) => name.to_string(),
                None => format!("{:#x}", c.code()),
            })
            .collect();
        f.write_str(&names.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_set_counts_failed_asserts_only() {
        let set = PanicSet::default();
        assert!(set.contains(PanicCode::Assert));
        assert!(!set.contains(PanicCode::ArithmeticOverflow));
        assert!(!PanicSet::none().contains(PanicCode::Assert));
        assert_eq!(PanicSet::all().codes().len(), PanicCode::NAMED.len());
    }

    #[test]
    fn sets_parse_from_names_codes_all_and_none() {
        let set: PanicSet = "assert, overflow,0x32".parse().unwrap();
        assert_eq!(
            set.codes(),
            [
                PanicCode::Assert,
                PanicCode::ArithmeticOverflow,
                PanicCode::ArrayOutOfBounds
            ]
        );
        assert_eq!(set.to_string(), "assert,overflow,out-of-bounds");
        assert_eq!("none".parse::<PanicSet>().unwrap(), PanicSet::none());
        assert_eq!("all".parse::<PanicSet>().unwrap(), PanicSet::all());
        assert_eq!(PanicSet::none().to_string(), "none");
        let odd: PanicSet = "0x99".parse().unwrap();
        assert_eq!(odd.to_string(), "0x99");
        for code in PanicCode::NAMED {
            let name = code.name().unwrap();
            assert_eq!(PanicCode::from_name(name), Some(code), "{name}");
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
}
