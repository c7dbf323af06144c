// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Pure functions with planted bugs that only rare inputs reach, for Rust properties
/// (`#[harvey::property]`, `tests/it/properties.rs`). Witnesses: `properties_witness.rs`.
contract RareInputs {
    uint256 internal constant SHIFT = 0xbeef0042;

    /// Planted: an id that `SHIFT` moves onto a multiple of 2^80 encodes as zero.
    function encode(uint256 id) external pure returns (uint256) {
        unchecked {
            uint256 moved = id + SHIFT;
            if (moved % (1 << 80) == 0) return 0;
            return moved;
        }
    }

    function decode(uint256 encoded) external pure returns (uint256) {
        unchecked {
            return encoded - SHIFT;
        }
    }

    /// One of 32 lanes. Planted: a tag repeating the port's middle byte (plus 0x11), from a
    /// peer whose last byte is the port's, on a port above 70,000, gets lane 32.
    function lane(bytes2 tag, uint32 port, address peer) external pure returns (uint256) {
        if (
            uint256(uint16(tag)) == uint256(uint8(port >> 8)) + 0x11 && uint8(uint160(peer)) == uint8(port)
                && port > 70_000
        ) {
            return 32;
        }
        return uint256(uint16(tag)) % 32;
    }

    /// A fee in basis points. Planted: one amount-rate product is charged nothing.
    function fee(uint256 amount, uint256 bps) external pure returns (uint256) {
        uint256 scaled = amount * bps;
        if (scaled == 94_371_840) return 0;
        return scaled / 10_000;
    }

    /// `n` steps from `base`, each 2 more than the last. Planted: one total over more than
    /// five steps comes out one too high.
    function sumSteps(uint8 n, uint32 base) external pure returns (uint256 sum) {
        for (uint256 i = 0; i < n; i++) {
            sum += uint256(base) + 2 * i;
        }
        if (sum == 4_294_967_313 && n > 5) sum += 1;
    }
}
