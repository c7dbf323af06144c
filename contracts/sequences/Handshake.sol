// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug needing two different senders: one proposes, another accepts, and the
/// proposer can then `settle` twice because acceptance does not clear the proposal.
contract Handshake {
    address public proposer;
    address public acceptor;
    uint256 public settlements;

    function propose() external {
        if (proposer == address(0)) {
            proposer = msg.sender;
        }
    }

    function accept() external {
        if (proposer != address(0) && msg.sender != proposer && acceptor == address(0)) {
            acceptor = msg.sender;
        }
    }

    function settle() external {
        if (acceptor != address(0) && msg.sender == proposer) {
            settlements += 1;
            // Bug: the handshake is never cleared, so a second settlement goes through.
            assert(settlements < 2);
        }
    }
}
