#[harvey::invariant(contract = "Vault", lookahead = "fast")]
fn unknown_configuration(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(contract = "Vault", lookahead = 1)]
fn numeric_switch(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(contract = "Vault", lookahead = "no-analysis")]
fn an_ablation_is_accepted(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

fn main() {}
