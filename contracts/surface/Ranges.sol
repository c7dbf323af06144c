// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Parameters a setup bounds: `set` records whether it was ever called outside
/// 100..=1000 and -5..=5 (and chases a magic value outside the range, which input
/// prediction would reach if it ignored the bound); `over` fails an assert for any amount
/// of at least 50, so a shrunk failure shows where simplification stops.
contract Ranges {
    bool public strayed;
    uint256 public last;

    function set(uint256 amount, int64 delta) external {
        if (amount < 100 || amount > 1000) {
            strayed = true;
        }
        if (delta < -5 || delta > 5) {
            strayed = true;
        }
        if (amount == 7) {
            strayed = true;
        }
    }

    function over(uint256 amount) external {
        last = amount;
        assert(amount < 50);
    }
}
