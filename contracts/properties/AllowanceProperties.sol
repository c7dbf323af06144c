// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

import {PropertyAsserts} from "./PropertyAsserts.sol";

/// A token whose `approve` stores one less than asked for above 4: the planted bug of the
/// property harness below.
contract ShortAllowanceToken {
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    uint256 public totalSupply;

    constructor() {
        balanceOf[msg.sender] = 1000;
        totalSupply = 1000;
    }

    function approve(address spender, uint256 amount) public returns (bool) {
        allowance[msg.sender][spender] = amount > 4 ? amount - 1 : amount;
        return true;
    }
}

/// An Echidna/Medusa-style property harness (as crytic/properties' ERC20 ones): the
/// harness is the token, its `test_*` functions are the properties, and failures go through
/// the inherited helpers in another file.
contract AllowanceProperties is ShortAllowanceToken, PropertyAsserts {
    function test_approve_sets_allowance(address spender, uint256 amount) public {
        emit LogAddress("spender", spender);
        emit LogUint256("amount", amount);
        approve(spender, amount);
        assertEq(allowance[msg.sender][spender], amount, "Allowance not updated correctly");
    }

    function test_balance_within_supply() public {
        emit LogString("checking the sender's balance");
        assertLte(balanceOf[msg.sender], totalSupply, "User balance higher than total supply");
    }
}
