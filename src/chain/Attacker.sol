// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// harvey's attacker contract: the code of the fuzzed sender that calls back. Before each
/// transaction it sends, the executor arms it (slot 0: the transaction's target, slot 1:
/// re-entries left, slot 2: the calldata to re-enter with); when the target then calls or
/// pays it, it calls the target again with that calldata, once. Unarmed, it accepts and
/// returns; a payment with a `send`'s or `transfer`'s 2,300 gas it refuses (reverts), as
/// a contract wallet whose `receive` needs more gas does. To a token callback
/// (`onERC721Received`, `onERC1155Received`, ...) it answers with the callback's own
/// selector, which is what the token expects. Compiled into `attacker.rs` (optimizer on, 200 runs, no metadata); a test checks
/// that the bytes there are this source's.
contract HarveyAttacker {
    address private target;
    uint256 private reentries;
    bytes private payload;

    fallback(bytes calldata input) external payable returns (bytes memory) {
        reenter();
        bytes4 selector = input.length >= 4 ? bytes4(input[:4]) : bytes4(0);
        return abi.encode(selector);
    }

    receive() external payable {
        reenter();
    }

    function reenter() private {
        if (gasleft() < 50_000) {
            // Paid with the 2,300-gas stipend of `send` or `transfer`: refused, as by a
            // contract wallet whose `receive` needs more gas. This is how a send fails.
            require(msg.value == 0, "stipend refused");
            return;
        }
        if (reentries == 0) {
            return;
        }
        reentries -= 1;
        (bool ok,) = target.call(payload);
        ok;
    }
}
