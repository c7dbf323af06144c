// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// No bug, but an assertion that only fuzzed storage can reach: `level` never leaves 0..9, so
/// `probe` can never see 1000, yet an aggressive run that writes 1000 into `level` makes it
/// fail. Demand-driven fuzzing must learn from that run and never report it.
contract Guarded {
    uint256 public level;

    function raise(uint256 by) external {
        if (by < 10 && level + by < 10) {
            level += by;
        }
    }

    function lower() external {
        if (level > 0) {
            level -= 1;
        }
    }

    function probe() external {
        if (level == 1000) {
            assert(false);
        }
    }
}
