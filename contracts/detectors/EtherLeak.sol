// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug (ether leak): `withdraw` checks the contract's balance instead of the
/// caller's deposit, so anyone takes the ether others (or the deployer) put in.
contract LeakyVault {
    mapping(address => uint256) public deposits;

    constructor() payable {}

    function deposit() external payable {
        deposits[msg.sender] += msg.value;
    }

    function withdraw(uint256 amount) external {
        require(amount <= address(this).balance, "not enough ether");
        // Bug: no `deposits[msg.sender] >= amount` check, nothing deducted.
        payable(msg.sender).transfer(amount);
    }
}

/// `LeakyVault` corrected: each caller withdraws at most what it deposited.
contract SafeVault {
    mapping(address => uint256) public deposits;

    constructor() payable {}

    function deposit() external payable {
        deposits[msg.sender] += msg.value;
    }

    function withdraw(uint256 amount) external {
        require(deposits[msg.sender] >= amount, "more than deposited");
        deposits[msg.sender] -= amount;
        payable(msg.sender).transfer(amount);
    }
}

/// Wrapped ether, correct: one sender deposits and hands the tokens to another, who
/// withdraws them. That sender never sent ether, yet nothing leaked: the attackers together
/// took out what they put in.
contract WrappedEther {
    mapping(address => uint256) public balanceOf;

    function deposit() external payable {
        balanceOf[msg.sender] += msg.value;
    }

    function transfer(address to, uint256 amount) external {
        require(balanceOf[msg.sender] >= amount, "balance");
        balanceOf[msg.sender] -= amount;
        balanceOf[to] += amount;
    }

    function withdraw(uint256 amount) external {
        require(balanceOf[msg.sender] >= amount, "balance");
        balanceOf[msg.sender] -= amount;
        payable(msg.sender).transfer(amount);
    }
}
