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

/// Two products equal to constants, then linear conjuncts that fix every word (issue 43,
/// the look-ahead). With the first product held, the second alone leaves a Diophantine
/// equation: `b` must divide the constants' difference, with every word a `uint64`,
/// whose few solutions z3 does not find in its budget; with the three linear conjuncts
/// that follow, a, c and d are fixed and b with them (the only solution: a =
/// 10_549_930_915_195, b = 2_894_575_460, c = 15_381_783_611_942, d = 124_822_813_536_262).
contract FixedFurtherOn {
    uint256 public probes;

    function probe(uint64 a, uint64 b, uint64 c, uint64 d) external {
        probes += 1;
        uint256 A = a;
        uint256 B = b;
        uint256 C = c;
        uint256 D = d;
        if (
            A + 44_523_733_363_607_545_228_125 == B * C && A + 361_309_052_899_669_874_415_325 == D * B
                && D + 4 * A + 6 * C == 259_313_238_868_694 && A + 8 * C == 133_604_199_810_731
                && C + 2 * D == 265_027_410_684_466
        ) {
            assert(false);
        }
    }
}
