#[harvey::invariant(contract = "Vault")]
fn no_parameter() -> bool {
    true
}

#[harvey::invariant(contract = "Vault")]
fn two_parameters(chain: &harvey::chain::Chain, runs: u64) -> bool {
    chain.senders().len() as u64 == runs
}

fn main() {}
