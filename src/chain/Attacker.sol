// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// harvey's attacker contract: the code of the fuzzed sender that calls back. Before each
/// transaction it sends, the executor arms it (slot 0: the transaction's target, slot 1:
/// re-entries left, slot 2: the calldata to re-enter with); when the target then calls or
/// pays it, it calls the target again with that calldata, once. Unarmed, or with too little
/// gas to call (a `transfer`'s 2,300), it accepts and returns. To a token callback
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
        if (gasleft() < 50_000 || reentries == 0) {
            return;
        }
        reentries -= 1;
        (bool ok,) = target.call(payload);
        ok;
    }
}
