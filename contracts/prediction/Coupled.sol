// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bugs behind comparisons that couple several inputs (issue 30): satisfying the
/// last one by moving one input breaks one the path already satisfied, so HARVEY's secant
/// method, which moves one input at a time, cannot reach them; moving the inputs together
/// can. Arithmetic in 256 bits from 64-bit inputs, so nothing overflows.

/// a + b == 1_000_000_008 and a - b == 122_956: only a = 500_061_482, b = 499_938_526.
contract CoupledSums {
    uint256 public probes;

    function probe(uint64 a, uint64 b) external {
        probes += 1;
        uint256 A = a;
        uint256 B = b;
        if (A + B == 1_000_000_008 && A + 500 == B + 123_456) {
            assert(false);
        }
    }
}

/// b == c * c, a == d * c + 7 and a >= b + 5 (so d >= c), with c > 1000.
contract CoupledProducts {
    uint256 public probes;

    function probe(uint64 a, uint64 b, uint64 c, uint64 d) external {
        probes += 1;
        uint256 A = a;
        uint256 B = b;
        uint256 C = c;
        uint256 D = d;
        if (C > 1000 && B == C * C && A == D * C + 7 && A >= B + 5) {
            assert(false);
        }
    }
}

/// A conjunction of products that opens one conjunct at a time: `a * b == c * c + 12_345`,
/// `c * d == a * a + 777` and `b + d > c + 424_242`, with a > 1000 (e.g. a = 12_346, b = 1,
/// c = 1, d = 152_424_493). solc tests a failing conjunct again at every later short-circuit
/// JUMPI, and checks each sum and product for overflow between the conjuncts.
contract ProductSteps {
    uint256 public probes;

    function probe(uint64 a, uint64 b, uint64 c, uint64 d) external {
        probes += 1;
        uint256 A = a;
        uint256 B = b;
        uint256 C = c;
        uint256 D = d;
        if (A > 1000 && A * B == C * C + 12_345 && C * D == A * A + 777 && B + D > C + 424_242) {
            assert(false);
        }
    }
}
