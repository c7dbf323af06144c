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

/// Planted bug (reentrancy with an argument): `withdraw(amount)` pays before it deducts, so
/// the attacker contract, re-entering with the same 36 bytes of calldata, is paid twice.
contract ReentrantPartialBank {
    mapping(address => uint256) public balances;

    function deposit() external payable {
        balances[msg.sender] += msg.value;
    }

    function withdraw(uint256 amount) external {
        require(amount <= balances[msg.sender], "more than deposited");
        (bool ok,) = msg.sender.call{value: amount}("");
        require(ok, "payment failed");
        unchecked {
            balances[msg.sender] -= amount;
        }
    }
}
