// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A wallet that accepts calls it does not know in its fallback (a forwarder's catch-all).
/// Planted bug: a leftover maintenance hatch in the fallback hands ownership to whoever
/// sends calldata starting with byte 0xff. No function reaches it; only calldata that
/// matches no selector does.
contract Wallet {
    address public owner;
    uint256 public pings;
    uint256 public unknownCalls;

    constructor() {
        owner = msg.sender;
    }

    function ping() external {
        pings += 1;
    }

    fallback() external {
        unknownCalls += 1;
        if (msg.data.length > 0 && msg.data[0] == 0xff) {
            // BUG: a maintenance hatch left in.
            owner = msg.sender;
        }
    }
}
