// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug (reentrancy, the DAO's): `withdraw` pays before it zeroes the balance, so a
/// contract that calls `withdraw` again from the payment is paid twice.
contract ReentrantBank {
    mapping(address => uint256) public balances;

    function deposit() external payable {
        balances[msg.sender] += msg.value;
    }

    function withdraw() external {
        uint256 amount = balances[msg.sender];
        require(amount > 0, "nothing to withdraw");
        (bool ok,) = msg.sender.call{value: amount}("");
        require(ok, "payment failed");
        balances[msg.sender] = 0;
    }
}

/// `ReentrantBank` corrected (checks, effects, interactions): the balance is zeroed before
/// the payment, so a re-entered `withdraw` finds nothing to pay.
contract CheckedBank {
    mapping(address => uint256) public balances;

    function deposit() external payable {
        balances[msg.sender] += msg.value;
    }

    function withdraw() external {
        uint256 amount = balances[msg.sender];
        require(amount > 0, "nothing to withdraw");
        balances[msg.sender] = 0;
        (bool ok,) = msg.sender.call{value: amount}("");
        require(ok, "payment failed");
    }
}
