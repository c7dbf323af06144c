// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A per-account cap bypassed through a second account (issue 43): each staker may stake at
/// most `CAP` of its own, and stake moves between accounts. The planted bug: a move checks
/// the sender's side only, so a second account topping up a staker already near the cap
/// pushes it over. The invariant `overCap() == false` says so; no comparison of the
/// receiving side is in the code.
contract CappedStake {
    uint256 public constant CAP = 1e21;

    mapping(address => uint256) public staked;
    address[] private stakers;
    mapping(address => bool) private listed;

    function stake(uint256 amount) external {
        require(amount > 0, "nothing");
        require(staked[msg.sender] + amount <= CAP, "over the cap");
        note(msg.sender);
        staked[msg.sender] += amount;
    }

    function unstake(uint256 amount) external {
        require(amount <= staked[msg.sender], "over the stake");
        staked[msg.sender] -= amount;
    }

    function move(address to, uint256 amount) external {
        require(to != msg.sender, "self");
        require(amount <= staked[msg.sender], "over the stake");
        // Planted bug: the receiving side's cap is never checked.
        note(to);
        staked[msg.sender] -= amount;
        staked[to] += amount;
    }

    /// Whether some staker holds more than the cap.
    function overCap() external view returns (bool) {
        for (uint256 i = 0; i < stakers.length; i++) {
            if (staked[stakers[i]] > CAP) {
                return true;
            }
        }
        return false;
    }

    function note(address account) private {
        if (!listed[account]) {
            listed[account] = true;
            stakers.push(account);
        }
    }
}
