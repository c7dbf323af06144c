#[harvey::invariant(contract = "Vault", colour = 1)]
fn total_is_backed(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

// A typo is told the name it is nearest to.
#[harvey::invariant(contract = "Vault", fail_on_reverts = true)]
fn misspelt(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

fn main() {}
