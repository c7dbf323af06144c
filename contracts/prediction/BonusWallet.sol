// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted arbitrary storage write (SWC-124), after the USCC'17 wallet in HARVEY's Fig. 3:
/// `popCode` decrements the array length in assembly without checking that it is positive,
/// so popping an empty array makes the length 2^256 - 1 and `setCodeAt` can then write any
/// slot, the owner's included.
contract BonusWallet {
    address public owner;
    uint256[] private bonusCodes;

    constructor() {
        owner = msg.sender;
    }

    function pushCode(uint256 code) external {
        bonusCodes.push(code);
    }

    function popCode() external {
        // Bug: should require bonusCodes.length > 0.
        assembly {
            sstore(bonusCodes.slot, sub(sload(bonusCodes.slot), 1))
        }
    }

    function setCodeAt(uint256 index, uint256 code) external {
        require(index < bonusCodes.length, "no such code");
        bonusCodes[index] = code;
    }

    function codes() external view returns (uint256) {
        return bonusCodes.length;
    }
}
