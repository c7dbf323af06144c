// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// A branch on a constant that no call can take, for coverage reports that mark the lines the
/// static lookahead analysis proves unreachable (`lookahead::reachable_blocks`). Without the
/// optimizer (this repository's foundry.toml leaves it off) the dead branch is still in the
/// bytecode, behind a jump on a condition the analysis folds. No planted bug.
contract DeadBranch {
    uint256 constant MODE = 1;

    uint256 public value;

    function set(uint256 v) external {
        value = v;
    }

    function halve() external returns (uint256) {
        if (MODE == 2) {
            value = 0;
        }
        value /= 2;
        return value;
    }
}
