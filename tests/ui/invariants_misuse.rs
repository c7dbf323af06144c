// `#[harvey::invariants]` sits on an inline module whose every function is an invariant.
// (An out-of-line `mod name;` is refused by rustc itself: file modules in proc macro input
// are unstable.)

#[harvey::invariants(contract = "Vault")]
mod with_a_helper {
    use harvey::prelude::*;

    fn solvent(chain: &Chain) -> bool {
        total(chain) > 0
    }

    fn total(_chain: &Chain, extra: u64) -> u64 {
        extra
    }
}

#[harvey::invariants(contract = "Vault")]
mod empty {}

#[harvey::invariants(contract = "Vault")]
mod test_attribute_on_a_function {
    use harvey::prelude::*;

    #[should_panic]
    fn solvent(_chain: &Chain) -> bool {
        true
    }
}

#[harvey::invariants(contract = "Vault", root = "/abs")]
mod absolute_root {
    use harvey::prelude::*;

    fn solvent(_chain: &Chain) -> bool {
        true
    }
}

fn main() {}
