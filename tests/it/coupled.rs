//! Issue 43's coupled senders and amounts behind an invariant, not an assert
//! (`contracts/coupled/`): a witness reaches each planted bug by direct calls. (No campaign
//! finds `PullToken`'s yet: seed 1 misses it in 200,000 sequences.)

use harvey::chain::TxOptions;
use harvey::prelude::*;

use crate::support::chain;

/// `PullToken`'s invariant: no spender has pulled more from an owner than approved.
fn not_overdrawn(chain: &Chain) -> harvey::Result<bool> {
    let token = chain.get("PullToken");
    let overdrawn: bool = chain.view(token, "overdrawn()", ())?;
    Ok(!overdrawn)
}

/// `from` calls `signature` on `to` with `args`; whether it succeeded.
fn succeeds(
    chain: &mut Chain,
    from: Address,
    to: Address,
    signature: &str,
    args: impl harvey::chain::SolArgs,
) -> bool {
    let options = TxOptions {
        sender: Some(from),
        value: U256::ZERO,
    };
    chain
        .try_call_with(to, signature, args, options)
        .unwrap_or_else(|e| panic!("{signature}: {e}"))
        .is_success()
}

#[test]
fn two_pulls_to_a_third_address_overdraw_an_allowance() {
    let mut chain = chain();
    let token = chain.deploy("PullToken", ()).unwrap();
    let [owner, spender, third] = [chain.senders()[0], chain.senders()[1], chain.senders()[2]];
    let pull = "transferFrom(address,address,uint256)";
    assert!(succeeds(
        &mut chain,
        owner,
        token,
        "mint(uint256)",
        (U256::from(5_000),)
    ));
    assert!(succeeds(
        &mut chain,
        owner,
        token,
        "approve(address,uint256)",
        (spender, U256::from(3_000))
    ));
    // Within the allowance and the balance, to the spender itself: the allowance is spent.
    assert!(succeeds(
        &mut chain,
        spender,
        token,
        pull,
        (owner, spender, U256::from(1_000))
    ));
    assert!(!succeeds(
        &mut chain,
        spender,
        token,
        pull,
        (owner, spender, U256::from(2_001))
    ));
    assert!(not_overdrawn(&chain).unwrap());
    // To a third address: the allowance stays at 2,000, so two pulls of 2,000 overdraw it.
    assert!(succeeds(
        &mut chain,
        spender,
        token,
        pull,
        (owner, third, U256::from(2_000))
    ));
    assert!(
        not_overdrawn(&chain).unwrap(),
        "3,000 pulled of 3,000 approved"
    );
    assert!(succeeds(
        &mut chain,
        spender,
        token,
        pull,
        (owner, third, U256::from(1))
    ));
    assert!(!not_overdrawn(&chain).unwrap());
    // A new approval starts the count again.
    assert!(succeeds(
        &mut chain,
        owner,
        token,
        "approve(address,uint256)",
        (spender, U256::from(10))
    ));
    assert!(not_overdrawn(&chain).unwrap());
}
