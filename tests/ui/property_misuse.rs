// `#[harvey::property]` takes value inputs after an optional `&mut Chain`, and returns a check.
use harvey::prelude::*;

// No inputs: an invariant, not a property.
#[harvey::property(contract = "Vault")]
fn no_inputs(chain: &mut Chain) -> bool {
    let _ = chain;
    true
}

// A reference input.
#[harvey::property(contract = "Vault")]
fn borrowed(chain: &mut Chain, amounts: &[U256]) -> bool {
    let _ = (chain, amounts);
    true
}

// No return type.
#[harvey::property(contract = "Vault")]
fn returns_nothing(amount: U256) {
    let _ = amount;
}

fn main() {}
