#[harvey::invariant(contract = "Vault", colour = 1)]
fn total_is_backed(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

fn main() {}
