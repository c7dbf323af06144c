// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug behind a masked magic value: `(a ^ K) == M` holds only for a = K ^ M, which
/// is not a bytecode constant (K and M are).
contract Xor {
    uint256 public checks;

    function check(uint256 a) external {
        checks += 1;
        if ((a ^ 0x5a5a5a5a5a5a5a5a) == 0x1234567890abcdef) {
            assert(false);
        }
    }
}
