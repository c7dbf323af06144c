//! Names for accounts, for reports: what [`Chain::label`](super::Chain::label) and the
//! chain's deployments name.

use std::collections::BTreeMap;

use alloy_primitives::Address;

/// Names for accounts in reports: every contract deployed through the chain by its
/// contract name, the deployer as `deployer`, and whatever
/// [`Chain::label`](crate::chain::Chain::label) named. Reports show an account as
/// `Vault@0x5FbD…0aa3`: its name beside its short address.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Labels {
    names: BTreeMap<Address, String>,
}

impl Labels {
    /// Names `address` (replacing an earlier name).
    pub fn insert(&mut self, address: Address, name: impl Into<String>) {
        self.names.insert(address, name.into());
    }

    /// The name of `address`, if it has one.
    pub fn get(&self, address: Address) -> Option<&str> {
        self.names.get(&address).map(String::as_str)
    }

    /// Whether more than one account has the name `name` (two deployments of one contract):
    /// reports then add the address wherever they would show the name alone.
    pub fn is_ambiguous(&self, name: &str) -> bool {
        self.names.values().filter(|n| *n == name).count() > 1
    }

    /// Every named account, by address.
    pub fn iter(&self) -> impl Iterator<Item = (Address, &str)> {
        self.names.iter().map(|(a, n)| (*a, n.as_str()))
    }
}
