// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug: `spend` subtracts from the spender's points in an `unchecked` block without
/// checking them, so a sender who spends points another sender earned wraps around to a
/// huge balance; their next `earn` then overflows and panics (Panic 0x11). Needs
/// `earn` from A, `spend` from B != A (at most the total), `earn` from B.
contract Rewards {
    mapping(address => uint256) public points;
    uint256 public total;

    function earn(uint8 amount) external {
        points[msg.sender] += amount;
        total += amount;
    }

    function spend(uint256 amount) external {
        if (amount == 0 || amount > total) {
            return;
        }
        // Bug: no `points[msg.sender] >= amount` check; the subtraction wraps.
        unchecked {
            points[msg.sender] -= amount;
        }
        total -= amount;
    }
}
