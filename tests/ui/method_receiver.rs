struct Checks;

impl Checks {
    #[harvey::invariant(contract = "Vault")]
    fn total_is_backed(&self) -> bool {
        true
    }
}

fn main() {
    let _ = Checks;
}
