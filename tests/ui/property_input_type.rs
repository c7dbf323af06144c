// A property input must be a type harvey generates as a Solidity value.
use harvey::prelude::*;

#[harvey::property(contract = "Vault")]
fn float_input(chain: &mut Chain, amount: f64) -> bool {
    let _ = chain;
    amount >= 0.0
}

fn main() {}
