// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug after HARVEY's crowdsale example: the sale flips to its success phase only on
/// an investment made after the goal was reached, and then anyone — not just the owner —
/// can withdraw the funds. `withdrawnBy` records who did.
contract Crowdsale {
    uint256 public constant GOAL = 1000 ether;

    address public owner;
    uint256 public raised;
    bool public succeeded;
    address public withdrawnBy;
    mapping(address => uint256) public invested;

    constructor() {
        owner = msg.sender;
    }

    function invest() external payable {
        if (succeeded || msg.value == 0) {
            return;
        }
        if (raised >= GOAL) {
            // The phase flips on the first investment after the goal (and refunds it).
            succeeded = true;
            payable(msg.sender).transfer(msg.value);
            return;
        }
        invested[msg.sender] += msg.value;
        raised += msg.value;
    }

    function withdraw() external {
        // Bug: should also require msg.sender == owner.
        if (succeeded && withdrawnBy == address(0)) {
            withdrawnBy = msg.sender;
            payable(msg.sender).transfer(address(this).balance);
        }
    }
}
