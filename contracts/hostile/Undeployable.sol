// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A constructor that always reverts: a campaign on it is a setup error naming it.
contract AlwaysReverts {
    constructor() {
        revert("no deployment today");
    }

    function poke() external {}
}

/// A constructor that self-destructs: nothing is left to fuzz (EIP-6780 deletes a contract
/// destroyed in the transaction that created it).
contract SelfDestructs {
    constructor() payable {
        selfdestruct(payable(msg.sender));
    }

    function poke() external {}
}
