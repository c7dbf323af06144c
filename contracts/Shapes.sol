// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Functions taking every kind of ABI parameter. solc's ABI decoder reverts on any
/// malformed input, so a campaign in which none of these calls revert shows that the fuzzer
/// encodes every type correctly. `register` takes a function pointer, which the fuzzer
/// skips with a warning.
contract Shapes {
    struct Point {
        int8 x;
        uint24 y;
        bytes3 tag;
    }

    uint256 public calls;

    function scalars(int8 a, uint24 b, int256 c, bool d, address e, bytes3 f, bytes32 g) external {
        calls += 1;
    }

    function dynamic(bytes calldata a, string calldata b, uint16[] calldata c) external {
        calls += 1;
    }

    function nested(Point calldata p, Point[] calldata ps, uint8[3] calldata fixedArray, bytes[] calldata blobs)
        external
    {
        calls += 1;
    }

    function deep(uint256[][2] calldata grid, string[] calldata words) external payable {
        calls += 1;
    }

    function register(function(uint256) external returns (uint256) callback) external {
        calls += 1;
    }
}
