// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug (strict ether equality, SWC-132): the goal counts as reached only when the
/// balance equals it exactly; ether forced in by a selfdestruct (or one contribution that
/// overshoots) makes it unreachable, and the contributions are stuck.
contract ExactGoal {
    uint256 public constant GOAL = 1 ether;
    bool public reached;
    mapping(address => uint256) public given;

    function contribute() external payable {
        given[msg.sender] += msg.value;
        // Bug: `==` on a balance.
        if (address(this).balance == GOAL) {
            reached = true;
        }
    }
}

/// `ExactGoal` corrected: the goal is reached at or above it.
contract AtLeastGoal {
    uint256 public constant GOAL = 1 ether;
    bool public reached;
    mapping(address => uint256) public given;

    function contribute() external payable {
        given[msg.sender] += msg.value;
        if (address(this).balance >= GOAL) {
            reached = true;
        }
    }
}
