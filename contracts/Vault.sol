// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A small ether vault: the fixture of harvey's own chain tests and the README example.
contract Vault {
    error InsufficientBalance(uint256 have, uint256 want);

    event Deposited(address indexed who, uint256 amount);

    mapping(address => uint256) public balanceOf;
    uint256 public totalDeposits;
    uint256 public immutable cap;
    address public owner;

    constructor(uint256 cap_) {
        require(cap_ > 0, "cap must be positive");
        cap = cap_;
        owner = msg.sender;
    }

    function deposit() external payable {
        require(msg.value > 0, "zero deposit");
        require(totalDeposits + msg.value <= cap, "cap exceeded");
        balanceOf[msg.sender] += msg.value;
        totalDeposits += msg.value;
        emit Deposited(msg.sender, msg.value);
    }

    function withdraw(uint256 amount) external {
        uint256 have = balanceOf[msg.sender];
        if (have < amount) revert InsufficientBalance(have, amount);
        balanceOf[msg.sender] = have - amount;
        totalDeposits -= amount;
        (bool ok,) = msg.sender.call{value: amount}("");
        require(ok, "transfer failed");
    }

    function name() external pure returns (string memory) {
        return "Vault";
    }

    function stats() external view returns (uint256, address) {
        return (totalDeposits, owner);
    }

    function describe() external view returns (uint256 total, string memory label) {
        return (totalDeposits, "vault");
    }

    function stamp() external view returns (uint256 time, uint256 number) {
        return (block.timestamp, block.number);
    }
}
