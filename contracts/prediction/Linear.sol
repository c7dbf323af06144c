// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug behind a magic value that is not a bytecode constant: `x * 3 + 7 == 133`
/// holds only for x = 42 (computed in 256 bits from a 64-bit input, so nothing overflows).
contract Linear {
    uint256 public checks;

    function check(uint64 x) external {
        checks += 1;
        if (uint256(x) * 3 + 7 == 133) {
            assert(false);
        }
    }
}
