#[harvey::invariant(contract = "Vault", contracts = ["Vault", "Token"])]
fn contract_and_contracts(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(runs = 10)]
fn neither_contract_nor_setup(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant]
fn no_arguments(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(contract = "")]
fn empty_name(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(contract = Vault)]
fn name_not_a_string(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(contracts = [])]
fn empty_list(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(contracts = "Vault")]
fn list_not_a_list(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(contracts = ["Vault", 1])]
fn list_item_not_a_string(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

#[harvey::invariant(setup = "deploy_vault")]
fn setup_not_a_path(chain: &harvey::chain::Chain) -> bool {
    chain.senders().is_empty()
}

fn main() {}
