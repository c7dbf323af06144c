// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug needing a long sequence: 40 increments without an intervening reset.
contract Counter {
    uint256 public count;

    function increment() external {
        count += 1;
        if (count == 40) {
            assert(false);
        }
    }

    function reset() external {
        count = 0;
    }
}
