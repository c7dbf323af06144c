// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug: an `assert` that fails only when `arm` was called with the magic key before
/// `fire`. The key is a bytecode constant, so a fuzzer with a constant dictionary reaches it.
/// No other call reverts, so a peer fuzzer that fails on any revert sees exactly this bug.
contract TwoStep {
    bool public armed;
    uint256 public shots;

    function arm(uint256 key) external {
        if (key == 0xC0FFEE) {
            armed = true;
        }
    }

    function disarm() external {
        armed = false;
    }

    function fire() external {
        shots += 1;
        // Bug: firing while armed breaks the contract's own assumption.
        assert(!armed);
    }
}
