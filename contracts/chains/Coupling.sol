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

/// Three senders coupled: an owner deposits and authorises a relayer, who pays a third party
/// out of the owner's deposit. The planted bug needs the relayer to pay someone who is
/// neither of them exactly the whole deposit.
contract EscrowRelay {
    mapping(address => uint256) public deposited;
    mapping(address => address) public relayerOf;

    function deposit(uint256 amount) external {
        require(amount > 0 && amount <= 1e30, "amount");
        deposited[msg.sender] += amount;
    }

    function authorise(address relayer) external {
        require(relayer != msg.sender, "self");
        relayerOf[msg.sender] = relayer;
    }

    function relay(address owner, address to, uint256 amount) external {
        require(relayerOf[owner] == msg.sender, "not the relayer");
        uint256 held = deposited[owner];
        require(amount <= held, "over the deposit");
        deposited[owner] = held - amount;
        // Planted bug: a third party paid the whole of a deposit above a million.
        assert(!(to != owner && to != msg.sender && amount == held && amount > 1e6));
    }
}

/// A spender drawing on another sender's allowance in instalments: the planted bug needs an
/// approved spender to call `transferFrom(owner, to, amount)` for the same owner at least
/// twice since the owner's last approval, the last instalment paying a third address exactly
/// what is left of the allowance. A whole allowance spent at once (`AllowanceToken`'s bug)
/// does not reach it: the first instalment must leave a remainder for the second.
contract InstalmentToken {
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    /// Transfers each spender made from each owner since the owner's last approval.
    mapping(address => mapping(address => uint256)) public instalments;

    function mint(uint256 amount) external {
        require(amount <= 1e24, "too much");
        balanceOf[msg.sender] += amount;
    }

    function approve(address spender, uint256 amount) external {
        allowance[msg.sender][spender] = amount;
        instalments[msg.sender][spender] = 0;
    }

    function transferFrom(address from, address to, uint256 amount) external {
        require(amount > 0, "nothing to transfer");
        uint256 allowed = allowance[from][msg.sender];
        require(amount <= allowed, "over the allowance");
        require(amount <= balanceOf[from], "over the balance");
        uint256 remaining = allowed - amount;
        allowance[from][msg.sender] = remaining;
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
        uint256 made = instalments[from][msg.sender] + 1;
        instalments[from][msg.sender] = made;
        // Planted bug: a spender's second or later instalment from another sender using up
        // the allowance exactly, more than 1000 paid to a third address.
        bool thirdParty = to != from && to != msg.sender;
        assert(!(made >= 2 && from != msg.sender && thirdParty && remaining == 0 && amount > 1000));
    }
}
