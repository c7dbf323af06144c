#[harvey::invariant(contract = "Vault")]
fn total_is_backed(chain: &harvey::chain::Chain) {
    assert!(chain.senders().is_empty());
}

fn main() {}
