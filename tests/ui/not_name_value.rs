#[harvey::invariant(contract("Vault"))]
fn total_is_backed(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

fn main() {}
