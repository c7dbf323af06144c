// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// After the running example of targeted fuzzing with lookahead (ICSE'20, Fig. 2): two
/// input-dependent loops on one side, a nonlinear check on the other, and state from earlier
/// transactions in between. The soundness test of the lookahead analysis runs it on random
/// inputs; the planted assertion needs `a * a == b + 7` with `b % 3 != 1` and a set `mode`.
contract Loops {
    uint256 public mode;
    uint256 public total;

    function setMode(uint256 m) external {
        mode = m % 4;
    }

    function run(uint256 a, uint256 b, uint8 n, uint8 k) external returns (uint256 r) {
        if (b % 3 == 1) {
            for (uint8 i = 0; i < n % 8; i++) {
                r += a % 1000;
            }
            for (uint8 j = 0; j < k % 8; j++) {
                r ^= b;
            }
            total += r % 100;
        } else if (mode == 2) {
            if (a % 1000 * (a % 1000) == b + 7) {
                assert(false);
            }
        } else {
            r = a ^ b;
        }
    }
}
