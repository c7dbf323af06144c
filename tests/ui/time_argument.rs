#[harvey::invariant(contract = "Vault", time = "1d")]
fn unknown_unit(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(contract = "Vault", time = "30")]
fn no_unit(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(contract = "Vault", time = "0s")]
fn zero(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(contract = "Vault", time = 30)]
fn not_a_string(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

fn main() {}
