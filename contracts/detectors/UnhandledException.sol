// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug (unhandled exception, SWC-104): `payOut` ignores what `send` returns, so a
/// payee that refuses the payment is marked paid all the same and its ether is stuck.
contract UncheckedPayout {
    mapping(address => uint256) public owed;

    function deposit() external payable {
        owed[msg.sender] += msg.value;
    }

    function payOut() external {
        uint256 amount = owed[msg.sender];
        owed[msg.sender] = 0;
        // Bug: the failure of `send` goes unnoticed.
        payable(msg.sender).send(amount);
    }
}

/// `UncheckedPayout` corrected: a refused payment reverts, and what is owed stays owed.
contract CheckedPayout {
    mapping(address => uint256) public owed;

    function deposit() external payable {
        owed[msg.sender] += msg.value;
    }

    function payOut() external {
        uint256 amount = owed[msg.sender];
        owed[msg.sender] = 0;
        require(payable(msg.sender).send(amount), "payment refused");
    }
}
