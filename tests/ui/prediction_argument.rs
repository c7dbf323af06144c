#[harvey::invariant(contract = "Vault", prediction = 0)]
fn numeric_switch(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(contract = "Vault", prediction = "off")]
fn string_switch(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

fn main() {}
