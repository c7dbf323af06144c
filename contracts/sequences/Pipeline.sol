// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug needing three calls in order: `set` a value, `copy` it, then `check` with an
/// argument derived from the copy (not a literal anywhere in the bytecode).
contract Pipeline {
    uint256 public staged;
    uint256 public mirror;
    uint256 public checks;

    function set(uint256 value) external {
        staged = value;
    }

    function copy() external {
        if (staged != 0) {
            mirror = staged;
        }
    }

    function check(uint256 guess) external {
        checks += 1;
        if (mirror != 0 && guess == mirror + 7) {
            assert(false);
        }
    }
}
