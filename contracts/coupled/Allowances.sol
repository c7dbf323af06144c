// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Coupled senders and amounts behind an invariant, not an assert (issue 43): an owner
/// approves a spender; the spender pulls twice to a third address. The planted bug is
/// bookkeeping: a pull to an address that is neither the owner nor the spender leaves the
/// allowance where it was, so two pulls, each within the allowance and the owner's
/// balance, move more than was approved. No comparison in the code says so: the invariant
/// `overdrawn() == false` does.
contract PullToken {
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    /// What the owner last approved the spender for, and what the spender pulled since.
    mapping(address => mapping(address => uint256)) public approved;
    mapping(address => mapping(address => uint256)) public pulled;

    /// Every (owner, spender) pair ever approved, for the invariant.
    address[] private owners;
    address[] private spenders;
    mapping(address => mapping(address => bool)) private listed;

    function mint(uint256 amount) external {
        require(amount <= 1e24, "too much");
        balanceOf[msg.sender] += amount;
    }

    function approve(address spender, uint256 amount) external {
        require(spender != msg.sender, "self");
        if (!listed[msg.sender][spender]) {
            listed[msg.sender][spender] = true;
            owners.push(msg.sender);
            spenders.push(spender);
        }
        allowance[msg.sender][spender] = amount;
        approved[msg.sender][spender] = amount;
        pulled[msg.sender][spender] = 0;
    }

    function transferFrom(address from, address to, uint256 amount) external {
        uint256 allowed = allowance[from][msg.sender];
        require(amount <= allowed, "over the allowance");
        require(amount <= balanceOf[from], "over the balance");
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
        pulled[from][msg.sender] += amount;
        // Planted bug: the allowance is spent only when the tokens go to the owner or the
        // spender itself.
        if (to == from || to == msg.sender) {
            allowance[from][msg.sender] = allowed - amount;
        }
    }

    /// Whether some spender has pulled more from an owner than the owner last approved.
    function overdrawn() external view returns (bool) {
        for (uint256 i = 0; i < owners.length; i++) {
            if (pulled[owners[i]][spenders[i]] > approved[owners[i]][spenders[i]]) {
                return true;
            }
        }
        return false;
    }
}
