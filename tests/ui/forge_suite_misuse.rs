// `#[harvey::forge_suite]` takes the suite's name first, settings after, and sits on an empty
// `fn name() {}`.

#[harvey::forge_suite(runs = 10)]
fn no_name() {}

#[harvey::forge_suite("VaultInvariants", contract = "Vault")]
fn not_a_suite_argument() {}

#[harvey::forge_suite("VaultInvariants", depth = 0)]
fn bad_setting() {}

#[harvey::forge_suite("VaultHarness", config = "foundry.toml")]
fn not_a_fuzzer_config() {}

#[harvey::forge_suite("VaultInvariants")]
fn with_a_body() {
    println!("never run");
}

#[harvey::forge_suite("VaultInvariants")]
fn with_parameters(chain: &harvey::chain::Chain) {}

fn main() {}
