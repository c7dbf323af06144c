// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {WETH} from "./WETH.sol";

/// WETH9 with a planted bug: a plain ether transfer (`receive()`) is accepted without
/// crediting the sender, so the ether held exceeds the sum of balances. `deposit()` is
/// correct: only a call with empty calldata (and some value) reaches the bug.
contract LeakyWETH is WETH {
    receive() external payable override {
        // BUG: the ether stays, but nobody is credited for it.
        emit Deposit(msg.sender, msg.value);
    }
}
