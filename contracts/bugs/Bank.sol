// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A correct contract: per-sender balances that always add up to the total and are backed
/// by the contract's ether. Campaigns on it must pass.
contract Bank {
    mapping(address => uint256) public balanceOf;
    uint256 public total;

    function deposit() external payable {
        balanceOf[msg.sender] += msg.value;
        total += msg.value;
    }

    function withdraw(uint256 amount) external {
        if (amount > balanceOf[msg.sender]) {
            return;
        }
        balanceOf[msg.sender] -= amount;
        total -= amount;
        (bool ok,) = msg.sender.call{value: amount}("");
        require(ok, "transfer failed");
    }

    function transfer(address to, uint256 amount) external {
        if (amount > balanceOf[msg.sender]) {
            return;
        }
        balanceOf[msg.sender] -= amount;
        balanceOf[to] += amount;
    }
}
