#[harvey::invariant(contract = "Vault", runs = "many")]
fn runs_is_a_string(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(contract = "Vault", depth = -1)]
fn depth_is_negative(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(contract = "Vault", seed = 1.5)]
fn seed_is_a_float(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(contract = "Vault", workers = 0)]
fn workers_is_zero(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(contract = "Vault", runs = 0)]
fn runs_is_zero(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(contract = "Vault", depth = 5000000000)]
fn depth_is_too_large(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(contract = "Vault", seed = 18446744073709551616)]
fn seed_is_too_large(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

fn main() {}
