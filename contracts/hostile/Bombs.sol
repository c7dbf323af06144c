// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Everything that should make a fuzzer run out of memory or time, and must only make the
/// EVM run out of gas: return-data bombs, huge memory offsets, garbage to every
/// precompile, creations of garbage code. No bug: a campaign must finish and report none.
contract Bombs {
    function returnBomb() external pure {
        assembly {
            return(0, 0xffffffff)
        }
    }

    function revertBomb() external pure {
        assembly {
            revert(0, 0xffffffff)
        }
    }

    /// Calls a bomb and copies all its return data (Solidity does, for `bytes memory`).
    function swallow(bool reverting) external view returns (uint256) {
        (, bytes memory data) = address(this).staticcall(
            abi.encodeWithSelector(reverting ? this.revertBomb.selector : this.returnBomb.selector)
        );
        return data.length;
    }

    function touch(uint256 offset) external pure {
        assembly {
            mstore8(offset, 1)
        }
    }

    /// Garbage to a precompile (0x01 to 0x11, and P-256's 0x100).
    function precompile(uint16 which, bytes calldata input) external view returns (bool ok) {
        address target = address(uint160(which % 18 == 0 ? 0x100 : which % 18));
        (ok, ) = target.staticcall(input);
    }

    function createGarbage(bytes calldata initcode) external returns (address created) {
        bytes memory code = initcode;
        assembly {
            created := create(0, add(code, 0x20), mload(code))
        }
    }
}
