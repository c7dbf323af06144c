// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug behind a nonlinear check: `3a² + 7a + 101 == 5687` holds only for a = 42.
/// The secant method needs several steps to get there.
contract Quadratic {
    uint256 public checks;

    function check(uint64 a) external {
        checks += 1;
        uint256 x = a;
        if (3 * x * x + 7 * x + 101 == 5687) {
            assert(false);
        }
    }
}
