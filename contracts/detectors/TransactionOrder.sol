// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug (transaction-order dependency, SWC-114): the whole prize goes to the first
/// correct answer. A solver's answer sits in the mempool before it is mined: anyone who
/// copies it with a higher gas price is paid instead. (A real bounty checks a hash
/// preimage; here the answer is 42, and the fuzzer plays solvers who know it.)
contract RaceBounty {
    bool public claimed;

    constructor() payable {}

    function claim(uint256 answer) external {
        require(answer == 42, "wrong answer");
        require(!claimed, "already claimed");
        claimed = true;
        payable(msg.sender).transfer(address(this).balance);
    }
}

/// `RaceBounty` corrected: every solver is paid the same reward, once, whatever the order
/// (the funding covers every solver there can be). Solvers are counted in shared state, so
/// consecutive claims still read what the one before wrote; only the payments no longer
/// depend on who came first.
contract SharedBounty {
    uint256 public constant REWARD = 0.1 ether;
    mapping(address => bool) public paid;
    uint256 public solvers;

    constructor() payable {}

    function claim(uint256 answer) external {
        require(answer == 42, "wrong answer");
        require(!paid[msg.sender], "already paid");
        paid[msg.sender] = true;
        solvers += 1;
        payable(msg.sender).transfer(REWARD);
    }
}
