// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Address arguments that must equal another transaction's sender, with amounts bounded by
/// storage (issue 15): one sender approves another, who then acts naming the first.

/// An allowance token: the planted bug is in `transferFrom` spending a whole allowance.
contract AllowanceToken {
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    function mint(uint256 amount) external {
        require(amount <= 1e24, "too much");
        balanceOf[msg.sender] += amount;
    }

    function approve(address spender, uint256 amount) external {
        allowance[msg.sender][spender] = amount;
    }

    function transferFrom(address from, address to, uint256 amount) external {
        uint256 allowed = allowance[from][msg.sender];
        require(amount <= allowed, "over the allowance");
        require(amount <= balanceOf[from], "over the balance");
        allowance[from][msg.sender] = allowed - amount;
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
        // Planted bug: a spender (not the owner) using up a non-trivial allowance exactly.
        assert(!(from != msg.sender && amount > 1000 && amount == allowed));
    }
}

/// Delegated votes: a voter delegates to another sender, who votes naming the voter; the
/// planted bug needs the delegate to vote the voter's full weight for a proposal the voter
/// registered.
contract Delegation {
    mapping(address => uint256) public weight;
    mapping(address => address) public delegateOf;
    mapping(address => uint256) public proposalOf;
    uint256 public votesCast;

    function register(uint256 proposal, uint256 w) external {
        require(w > 0 && w <= 1e6, "weight");
        proposalOf[msg.sender] = proposal;
        weight[msg.sender] = w;
    }

    function delegate(address to) external {
        require(to != msg.sender, "self");
        delegateOf[msg.sender] = to;
    }

    function voteFor(address voter, uint256 proposal, uint256 w) external {
        require(delegateOf[voter] == msg.sender, "not the delegate");
        require(w <= weight[voter], "over the weight");
        votesCast += w;
        // Planted bug: the whole weight for the voter's own proposal.
        assert(!(proposal == proposalOf[voter] && w == weight[voter] && w > 10));
    }
}
