// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A Panic raised one call deep: `Gate.enter` calls `Lock.turn`, whose assert fails for one
/// key. The violation's place is the callee's statement, where the bug is, not the caller's
/// call that only passed the revert on.
contract Lock {
    function turn(uint64 key) external pure returns (bool) {
        if (key == 0x5AFE) {
            assert(false);
        }
        return true;
    }
}

contract Gate {
    Lock public immutable lock;
    uint256 public entries;

    constructor(Lock lock_) {
        lock = lock_;
    }

    function enter(uint64 key) external {
        entries += 1;
        lock.turn(key);
    }
}
