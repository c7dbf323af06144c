// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A planted bug behind a modular product (issue 30's solver-backed step): the residue of
/// `a * b` modulo a prime jumps by `b` (mod the prime) at each step of `a`, so neither the
/// secant method nor joint prediction's finite differences see a line to follow, and
/// random inputs hit one residue in a million. z3 solves it on the path condition:
/// a = 1001, b = 545_880 is one solution.
contract ModularProduct {
    uint256 public probes;

    function probe(uint64 a, uint64 b) external {
        probes += 1;
        if (a > 1000 && b > 1000) {
            uint128 product = uint128(a) * uint128(b);
            if (product % 1_000_003 == 424_242) {
                assert(false);
            }
        }
    }
}
