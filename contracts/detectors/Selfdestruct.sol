// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug (unprotected selfdestruct): `close` has no owner check, so anyone destroys
/// the contract and sweeps its ether.
contract Closable {
    address public owner;

    constructor() payable {
        owner = msg.sender;
    }

    function close() external {
        // Bug: missing `require(msg.sender == owner)`.
        selfdestruct(payable(msg.sender));
    }
}

/// `Closable` corrected: only the owner closes it.
contract OwnedClosable {
    address public owner;

    constructor() payable {
        owner = msg.sender;
    }

    function close() external {
        require(msg.sender == owner, "not the owner");
        selfdestruct(payable(msg.sender));
    }
}

/// Destroys itself in its constructor, handing back what it was given: the one-shot
/// contract some factories create to do a thing in a single transaction.
contract OneShot {
    constructor() payable {
        selfdestruct(payable(msg.sender));
    }
}

/// Anyone may spawn a `OneShot`: what destroys itself is a contract the same transaction
/// created, which held nothing before it (no unprotected selfdestruct).
contract OneShotFactory {
    uint256 public spawned;

    function spawn() external returns (address) {
        spawned += 1;
        return address(new OneShot());
    }
}
