#[harvey::invariant(contract = "Vault")]
struct TotalIsBacked;

fn main() {}
