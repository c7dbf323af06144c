// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// HARVEY's running example (FSE'20, Fig. 1): five paths through nested signed checks on
/// three arguments and an equality on `a`. Arguments are 64-bit so the sum cannot overflow.
/// `lastPath` records which path the last call took (1-5).
contract Baz {
    int256 public lastPath;

    function baz(int64 a, int64 b, int64 c) external returns (int256) {
        int256 d = int256(b) + int256(c);
        if (d < 1) {
            if (b < 3) {
                return lastPath = 1;
            }
            if (a == 42) {
                return lastPath = 2;
            }
            return lastPath = 3;
        } else {
            if (c < 42) {
                return lastPath = 4;
            }
            return lastPath = 5;
        }
    }
}
