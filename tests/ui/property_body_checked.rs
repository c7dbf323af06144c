//! A property's body type-checks in every build, not only under `--test`.
use harvey::prelude::*;

#[harvey::property(contract = "Vault")]
fn shares_round_down(chain: &mut Chain, assets: U256) -> bool {
    let vault = chain.get("Vault");
    let shares: u64 = chain.view::<U256>(vault, "toShares(uint256)", (assets,)).unwrap();
    shares > 0
}

fn main() {}
