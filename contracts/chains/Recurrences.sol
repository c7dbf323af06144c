// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Chains of state-dependent exact equalities (issue 15): each accepted step stores its
/// input, the next step's input must equal a function of it, and a wrong input resets the
/// chain. The planted bug is at the end of the chain. One contract per recurrence and length.

/// x(n+1) = 3·x(n) + 7, five steps from x(0) = 11.
contract LinearChain {
    uint256 public last = 11;
    uint256 public stage;

    function step(uint256 x) external {
        if (x == 3 * last + 7) {
            last = x;
            stage += 1;
            // Planted bug: the fifth accepted step.
            assert(stage < 5);
        } else {
            last = 11;
            stage = 0;
        }
    }
}

/// x(n+1) = x(n) xor 0x5eed, plus n: three steps from x(0) = 0xfeed.
contract XorChain {
    uint256 public last = 0xfeed;
    uint256 public stage;

    function step(uint256 x) external {
        if (x == (last ^ 0x5eed) + stage) {
            last = x;
            stage += 1;
            // Planted bug: the third accepted step.
            assert(stage < 3);
        } else {
            last = 0xfeed;
            stage = 0;
        }
    }
}

/// Two state variables feed each step (Fibonacci-like), eight steps, and a second function
/// that must be called between steps with the running sum.
contract FibonacciChain {
    uint256 public a = 1;
    uint256 public b = 2;
    uint256 public stage;
    bool public checked;

    function step(uint256 x) external {
        if (checked && x == a + b) {
            a = b;
            b = x;
            stage += 1;
            checked = false;
            // Planted bug: the eighth accepted step.
            assert(stage < 8);
        } else {
            a = 1;
            b = 2;
            stage = 0;
            checked = false;
        }
    }

    function check(uint256 sum) external {
        checked = sum == a + b;
    }
}

/// Two coupled arguments per step and a key no fuzzer guesses: each step names the key the
/// last step stored and an amount equal to what is stored under it plus the stage; the next
/// key is a hash of both. Four steps.
contract Ladder {
    mapping(uint256 => uint256) public rung;
    uint256 public key = 0x5eed;
    uint256 public stage;

    constructor() {
        rung[0x5eed] = 1000;
    }

    function climb(uint256 k, uint256 amount) external {
        if (k == key && amount == rung[k] + stage) {
            uint256 next = uint256(keccak256(abi.encode(k, amount))) % 1e18;
            rung[next] = amount * 2;
            key = next;
            stage += 1;
            // Planted bug: the fourth accepted step.
            assert(stage < 4);
        } else {
            key = 0x5eed;
            stage = 0;
        }
    }
}
