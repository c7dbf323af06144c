// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Records whether any address argument, plain, in an array or in a struct, was one the
/// deployer did not allow: campaigns that restrict address arguments check `strayed()`.
contract Recorder {
    struct Pair {
        address who;
        uint256 amount;
    }

    mapping(address => bool) public allowed;
    bool public strayed;
    uint256 public seen;

    /// Allows `ok` and this contract itself.
    constructor(address[] memory ok) {
        for (uint256 i = 0; i < ok.length; i++) {
            allowed[ok[i]] = true;
        }
        allowed[address(this)] = true;
    }

    function one(address a) external {
        check(a);
    }

    function many(address[] calldata list, Pair calldata pair) external {
        for (uint256 i = 0; i < list.length; i++) {
            check(list[i]);
        }
        check(pair.who);
    }

    function check(address a) internal {
        seen += 1;
        if (!allowed[a]) {
            strayed = true;
        }
    }
}
