//! Every cheatcode forge 1.7.1 has, by selector (`forge-1.7.1.txt`: the signatures of its
//! `cheatcodes.json`, one a line), so that a call harvey does not implement is named even
//! when the project's `Vm` interface lacks it (another forge-std version, or a hand-written
//! `Vm`): "harvey does not support `startBroadcast()`", not an unknown selector.

use std::collections::HashMap;
use std::sync::LazyLock;

use alloy_primitives::{Selector, keccak256};

/// forge 1.7.1's cheatcode signatures by selector.
static FORGE: LazyLock<HashMap<Selector, &'static str>> = LazyLock::new(|| {
    include_str!("forge-1.7.1.txt")
        .lines()
        .filter(|line| !line.is_empty())
        .map(|signature| (Selector::from_slice(&keccak256(signature)[..4]), signature))
        .collect()
});

/// The signature of forge 1.7.1's cheatcode with `selector`, if it has one.
pub(super) fn forge_signature(selector: Selector) -> Option<&'static str> {
    FORGE.get(&selector).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::hex;

    #[test]
    fn forge_cheatcodes_are_named_by_selector() {
        assert_eq!(FORGE.len(), 547);
        assert_eq!(
            forge_signature(Selector::from(hex!("7fb5297f"))),
            Some("startBroadcast()")
        );
        assert_eq!(forge_signature(Selector::from(hex!("b32e2421"))), None);
    }
}
