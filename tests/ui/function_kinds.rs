use harvey::chain::Chain;

#[harvey::invariant(contract = "Vault")]
unsafe fn unsafe_invariant(chain: &Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(contract = "Vault")]
extern "C" fn extern_invariant(chain: &Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(contract = "Vault")]
#[test]
fn already_a_test(chain: &Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(contracts = ["Vault", "Token", "Vault"])]
fn listed_twice(chain: &Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(contract = "Vault", runs = 10u8)]
fn suffixed(chain: &Chain) -> bool {
    chain.senders().is_empty()
}

fn main() {}
