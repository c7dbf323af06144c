// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug beyond a short depth: the twentieth climb fails an assertion. Sequences of
/// at most 8 calls never climb that far; a random walk of more calls does, with rests
/// between the climbs that shrinking must take out.
contract Stairs {
    uint256 public step;
    uint256 public rests;

    function rest() external {
        rests += 1;
    }

    function climb() external {
        step += 1;
        assert(step != 20);
    }
}
