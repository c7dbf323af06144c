// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Calls itself: `dive(n)` recurses n external calls deep. Fuzzing it sends calls to the
/// call-depth limit and beyond (they fail, and must fail quietly). Planted bug: a dive of
/// exactly 200 levels fails an assertion after the recursion returns.
contract Recursor {
    function dive(uint256 n) external returns (uint256 depth) {
        if (n == 0) {
            return 0;
        }
        return this.dive(n - 1) + 1;
    }

    function plunge(uint256 n) external {
        if (this.dive(n % 2000) == 200) {
            assert(false);
        }
    }
}
