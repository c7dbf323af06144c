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
