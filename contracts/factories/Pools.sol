// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Creates fee-charging pools with CREATE2 (one per fee). The planted bug lives only in
/// the pools: the fuzzer can reach it through a contract this factory creates.
contract PoolFactory {
    Pool[] public pools;

    function createPool(uint256 fee) external returns (Pool pool) {
        require(fee > 0 && fee < 100, "fee out of range");
        pool = new Pool{salt: bytes32(fee)}(fee);
        pools.push(pool);
    }

    function poolCount() external view returns (uint256) {
        return pools.length;
    }
}

/// A pool that takes its fee on withdrawals.
contract Pool {
    uint256 public immutable fee;
    uint256 public balance;

    constructor(uint256 fee_) {
        fee = fee_;
    }

    function deposit(uint256 amount) external {
        require(amount > 0 && amount <= 1e30, "amount out of range");
        balance += amount;
    }

    function withdraw(uint256 amount) external {
        require(amount > 0 && amount <= balance, "more than the balance");
        uint256 paid = amount - (amount * fee) / 100;
        balance -= amount;
        // Planted bug: the last withdrawal of a pool is meant to pay out in full, but the
        // fee is charged on it too (reached by createPool, deposit(a), withdraw(a) with a
        // large enough for the fee to round to at least 1).
        if (balance == 0) {
            assert(paid == amount);
        }
    }
}
