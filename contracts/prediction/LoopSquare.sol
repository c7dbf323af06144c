// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Issue 30's loop-then-quadratic shape: two loops whose trip counts two small arguments
/// set (every count a new path, so a new corpus entry and a new site for prediction's
/// give-ups), then a quadratic equality on a third, full-width argument. `x * x` is
/// checked: any `x` of 2^128 or more reverts with Panic 0x11 before the comparison, so
/// random words never reach it; the secant method converges on the square only from
/// nearby points, and the solver answers `x = 1111` at once.
contract LoopsThenSquare {
    uint256 public calls;

    function f(uint8 n, uint8 m, uint256 x) external returns (uint256 r) {
        calls += 1;
        for (uint256 i = 0; i < n; i++) {
            r += i;
        }
        for (uint256 j = 0; j < m; j++) {
            r += 2;
        }
        if (x * x == 1_234_321) {
            assert(false);
        }
    }
}
