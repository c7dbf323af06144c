// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug (integer overflow, SWC-101): `transfer` skips the balance check "to save
/// gas" inside `unchecked`, so sending more than you hold wraps your balance around to
/// nearly 2^256 tokens.
contract UncheckedToken {
    mapping(address => uint256) public balanceOf;
    uint256 public totalSupply;

    constructor() {
        balanceOf[msg.sender] = 1_000;
        totalSupply = 1_000;
    }

    function transfer(address to, uint256 amount) external {
        unchecked {
            // Bug: no `amount <= balanceOf[msg.sender]` first.
            balanceOf[msg.sender] -= amount;
            balanceOf[to] += amount;
        }
    }
}

/// `UncheckedToken` corrected: the balance is checked before the unchecked arithmetic, which
/// then cannot wrap. It also keeps a signed running total (solc's checked `int256`
/// arithmetic wraps as unsigned and compares the result: no finding) and computes a fee
/// from a 512-bit product whose words wrap and are range-checked, as full-precision
/// `mulDiv`s do.
contract CheckedToken {
    mapping(address => uint256) public balanceOf;
    uint256 public totalSupply;
    int256 public netFlow;
    uint256 public lastFee;

    constructor() {
        balanceOf[msg.sender] = 1_000;
        totalSupply = 1_000;
    }

    function transfer(address to, uint256 amount) external {
        require(amount <= balanceOf[msg.sender], "balance too low");
        unchecked {
            balanceOf[msg.sender] -= amount;
            balanceOf[to] += amount;
        }
    }

    function record(int256 delta) external {
        netFlow += delta;
    }

    /// `a * b / 2^256`, refused when it does not fit in 128 bits: the high word of the
    /// 512-bit product, from the low word (which wraps) and the product modulo 2^256 - 1.
    function fee(uint256 a, uint256 b) external {
        uint256 high;
        assembly {
            let mm := mulmod(a, b, not(0))
            let low := mul(a, b)
            high := sub(sub(mm, low), lt(mm, low))
        }
        require(high < 2 ** 128, "fee too large");
        lastFee = high;
    }
}

/// A checksum kept in `unchecked` arithmetic on purpose: its additions and products wrap on
/// large operands, and each result is stored. The sparse-loop test calls it so that an
/// `ADD` or `MUL` that wraps (a data-flow source only on such operands) starts a flow.
contract Checksum {
    uint256 public sum;

    function add(uint256 word) external {
        unchecked {
            sum += word;
        }
    }

    function scale(uint256 factor) external {
        unchecked {
            sum *= factor;
        }
    }
}
