//! An invariant's body type-checks in every build, not only under `--test` (which alone
//! compiles `#[test]` functions): rustdoc compiles the README's and the book's examples
//! without it. This is the mistake the book once showed: `call_returning` takes
//! `&mut Chain`, and an invariant gets `&Chain`.
use harvey::prelude::*;

#[harvey::invariant(contract = "Vault")]
fn solvent(chain: &Chain) -> bool {
    let vault = chain.get("Vault");
    chain.balance(vault) >= chain.call_returning::<U256>(vault, "totalDeposits()", ()).unwrap()
}

fn main() {}
