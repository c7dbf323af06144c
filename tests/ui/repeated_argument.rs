#[harvey::invariant(contract = "Vault", runs = 10, runs = 20)]
fn total_is_backed(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

fn main() {}
