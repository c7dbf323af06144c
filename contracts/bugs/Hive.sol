// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Several independent bugs in one contract, for campaigns that keep fuzzing after the first
/// (`fail_fast = false`): three failed asserts on their own lines (one of them reached from
/// two functions), an `AssertionFailed` event (Echidna's and Medusa's convention), a Panic of
/// another kind, and a counter a Rust invariant bounds. Every function writes storage: the
/// fuzzer, as forge's, calls no `view` or `pure` function.
contract Hive {
    event AssertionFailed(string reason);

    uint256 public armed;
    uint256 public visits;
    uint256 public calls;

    /// Bug 1: a magic value.
    function knock(uint64 code) external {
        calls += 1;
        if (code == 0xBEE) {
            assert(false);
        }
    }

    /// Bug 2: two calls in order (arm, then fire).
    function arm(uint64 key) external {
        if (key == 77) {
            armed = 1;
        }
    }

    function fire() external {
        calls += 1;
        assert(armed == 0);
    }

    /// Bug 3: one failed assert reached from two functions is one bug (its line).
    function left(uint64 x) external {
        calls += 1;
        check(x);
    }

    function right(uint64 x) external {
        calls += 1;
        check(x + 1);
    }

    function check(uint64 x) internal pure {
        if (x == 500) {
            assert(false);
        }
    }

    /// Bug 4: the assertion-mode convention of Echidna and Medusa.
    function buzz(uint64 x) external {
        calls += 1;
        if (x == 4242) {
            emit AssertionFailed("buzzed the queen");
        }
    }

    /// Bug 5: division by zero (a Panic of another code, counted when asked for).
    function split(uint64 parts) external returns (uint256) {
        calls += 1;
        return 1000 / (parts % 7);
    }

    /// Bug 6: a Rust invariant says visits stay below 3.
    function visit() external {
        visits += 1;
    }
}
