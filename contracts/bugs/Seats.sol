// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug: two seats taken in order by different senders. The founder (the first
/// taker) must keep the first seat, but `promote` checks the wrong seat, so the second
/// taker can promote themselves. Broken only by the sender ordering
/// `take()` from A, `take()` from B != A, `promote()` from B.
contract Seats {
    /// The first taker; never changes.
    address public founder;
    address public first;
    address public second;

    function take() external {
        if (first == address(0)) {
            first = msg.sender;
            founder = msg.sender;
        } else if (second == address(0) && msg.sender != first) {
            second = msg.sender;
        }
    }

    function leave() external {
        if (msg.sender == second) {
            second = address(0);
        }
    }

    /// Meant for the founder to hand the first seat to the second taker.
    function promote() external {
        // Bug: should be `msg.sender == first`.
        if (second != address(0) && msg.sender == second) {
            first = second;
            second = address(0);
        }
    }
}
