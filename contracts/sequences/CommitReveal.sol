// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug needing the same value in two transactions: `reveal` must repeat the value
/// the same sender passed to `commit`.
contract CommitReveal {
    mapping(address => uint256) public commitment;
    uint256 public reveals;

    function commit(uint256 value) external {
        if (value != 0) {
            commitment[msg.sender] = uint256(keccak256(abi.encode(msg.sender, value)));
        }
    }

    function reveal(uint256 value) external {
        reveals += 1;
        uint256 committed = commitment[msg.sender];
        if (committed != 0 && committed == uint256(keccak256(abi.encode(msg.sender, value)))) {
            assert(false);
        }
    }
}
