#[harvey::invariant(contract = "Vault")]
fn total_is_backed<T: Default>(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

fn main() {}
