//! The value syntaxes both tools share: hex addresses (`"0x10000"`, short forms padded as
//! both tools pad them) and 256-bit integers written in decimal, hex or scientific notation
//! (`1010e18`, `"0x36c090d0ca68880000"`, `1.5e18`), read exactly.

use alloy_primitives::{Address, U256};

/// `text` as an address: hex digits with or without `0x`, at most 40, left-padded with zeros.
pub(super) fn address(text: &str) -> Result<Address, String> {
    let digits = text
        .trim()
        .strip_prefix("0x")
        .or_else(|| text.trim().strip_prefix("0X"))
        .unwrap_or(text.trim());
    if digits.is_empty() || digits.len() > 40 || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("`{text}` is not an address (up to 40 hex digits)"));
    }
    let padded = format!("{digits:0>40}");
    padded
        .parse::<Address>()
        .map_err(|e| format!("`{text}` is not an address: {e}"))
}

/// `text` as a 256-bit unsigned integer: decimal digits, `0x` hex, or a decimal with an
/// exponent (`1010e18`, `1.5e18`) whose value is a whole number. `_` separators are allowed.
pub(super) fn integer(text: &str) -> Result<U256, String> {
    let trimmed = text.trim().replace('_', "");
    let not_a_number = || format!("`{text}` is not a whole number below 2^256");
    if let Some(hex) = trimmed
        .strip_prefix("0x")
        .or_else(|| trimmed.strip_prefix("0X"))
    {
        if hex.is_empty() {
            return Err(not_a_number());
        }
        return U256::from_str_radix(hex, 16).map_err(|_| not_a_number());
    }
    let (mantissa, exponent) = match trimmed.split_once(['e', 'E']) {
        Some((m, e)) => (
            m,
            e.trim_start_matches('+')
                .parse::<u32>()
                .map_err(|_| not_a_number())?,
        ),
        None => (trimmed.as_str(), 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    // A fraction moves digits from the exponent: 1.5e18 = 15e17.
    let fraction = fraction.trim_end_matches('0');
    let shift = u32::try_from(fraction.len()).map_err(|_| not_a_number())?;
    let exponent = exponent.checked_sub(shift).ok_or_else(not_a_number)?;
    let digits = format!("{whole}{fraction}");
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err(not_a_number());
    }
    let base = U256::from_str_radix(&digits, 10).map_err(|_| not_a_number())?;
    U256::from(10u8)
        .checked_pow(U256::from(exponent))
        .and_then(|scale| base.checked_mul(scale))
        .ok_or_else(not_a_number)
}

/// `text` as a `u64` ([`integer`]'s syntax).
pub(super) fn small(text: &str) -> Result<u64, String> {
    let value = integer(text)?;
    u64::try_from(value).map_err(|_| format!("`{text}` is larger than 2^64"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn addresses_are_padded_hex() {
        assert_eq!(
            address("0x10000").unwrap(),
            "0x0000000000000000000000000000000000010000"
                .parse::<Address>()
                .unwrap()
        );
        assert_eq!(address("30000").unwrap(), address("0x30000").unwrap());
        assert!(address("0x").is_err());
        assert!(address("0xzz").is_err());
        assert!(address(&format!("0x{}", "1".repeat(41))).is_err());
    }

    #[test]
    fn integers_in_every_notation() {
        let eth = U256::from(10u8).pow(U256::from(18));
        assert_eq!(integer("1010e18").unwrap(), U256::from(1010) * eth);
        assert_eq!(
            integer("1010000000000000000000").unwrap(),
            U256::from(1010) * eth
        );
        assert_eq!(
            integer("0x36c090d0ca68880000").unwrap(),
            U256::from(1010) * eth
        );
        assert_eq!(
            integer("1.5e18").unwrap(),
            U256::from(15) * eth / U256::from(10)
        );
        assert_eq!(integer("1_000").unwrap(), U256::from(1000));
        assert_eq!(integer("2.50E1").unwrap(), U256::from(25));
        for bad in ["1.5", "1e-3", "", "e18", "0x", "-1", "1e99", "12a"] {
            assert!(integer(bad).is_err(), "{bad}");
        }
        assert_eq!(small("0xffffffff").unwrap(), 0xffff_ffff);
        assert!(small("1e30").is_err());
    }

    proptest! {
        #[test]
        fn every_notation_reads_back_the_number(value in any::<u128>(), zeros in 0u32..20) {
            let number = U256::from(value) * U256::from(10u8).pow(U256::from(zeros));
            prop_assert_eq!(integer(&number.to_string()).unwrap(), number);
            prop_assert_eq!(integer(&format!("{number:#x}")).unwrap(), number);
            prop_assert_eq!(integer(&format!("{value}e{zeros}")).unwrap(), number);
        }
    }
}
