// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A minimal ERC20-style token whose balance read follows other reads (a pause flag, the
/// owner), as real tokens do: the fixture of `Chain::deal_token`'s tests.
contract PlainToken {
    address public owner;
    bool public paused;
    uint256 public totalSupply;
    mapping(address => uint256) internal balances;

    constructor(uint256 supply) {
        owner = msg.sender;
        balances[msg.sender] = supply;
        totalSupply = supply;
    }

    function balanceOf(address who) external view returns (uint256) {
        require(!paused || who == owner, "paused");
        return balances[who];
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        require(!paused, "paused");
        balances[msg.sender] -= amount;
        balances[to] += amount;
        return true;
    }
}

/// A token whose balances are computed from shares and an index: no storage slot holds a
/// balance, so it cannot be dealt.
contract SharesToken {
    uint256 public index = 2e18;
    mapping(address => uint256) internal shares;

    function balanceOf(address who) external view returns (uint256) {
        return shares[who] * index / 1e18;
    }

    function mint(uint256 amount) external {
        shares[msg.sender] += amount * 1e18 / index;
    }
}
