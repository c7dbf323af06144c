// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A handler that reverts until its state is set up by others (issue 43, "handlers that
/// always revert"): `liquidate` succeeds only on a position that is underwater, which takes
/// collateral, a loan near the limit and prices that fell after it. Every call of it
/// before that reverts on the health check. The planted bug: a liquidation seizes the
/// collateral but leaves `totalCollateral` as it was, so the books no longer add up;
/// `unbalanced()` says so.
contract MarginDesk {
    uint256 public constant LLTV_BPS = 8_000;
    uint256 public constant MIN_PRICE = 1e17;
    uint256 public constant MAX_PRICE = 1e19;

    /// Collateral's price in loan units, 18 decimals.
    uint256 public price = 1e18;
    mapping(address => uint256) public collateral;
    mapping(address => uint256) public debt;
    uint256 public totalCollateral;
    uint256 public totalDebt;

    address[] private accounts;
    mapping(address => bool) private listed;

    function deposit(uint256 amount) external {
        require(amount > 0 && amount <= 1e24, "amount");
        if (!listed[msg.sender]) {
            listed[msg.sender] = true;
            accounts.push(msg.sender);
        }
        collateral[msg.sender] += amount;
        totalCollateral += amount;
    }

    function withdraw(uint256 amount) external {
        require(amount <= collateral[msg.sender], "over the collateral");
        collateral[msg.sender] -= amount;
        totalCollateral -= amount;
        require(healthy(msg.sender), "unhealthy");
    }

    function borrow(uint256 amount) external {
        require(amount > 0, "amount");
        debt[msg.sender] += amount;
        totalDebt += amount;
        require(healthy(msg.sender), "unhealthy");
    }

    function repay(uint256 amount) external {
        require(amount <= debt[msg.sender], "over the debt");
        debt[msg.sender] -= amount;
        totalDebt -= amount;
    }

    /// The oracle moves by at most 10% a call, within its bounds.
    function movePrice(uint256 changeBps) external {
        uint256 next = price * (9_000 + changeBps % 2_001) / 10_000;
        require(next >= MIN_PRICE && next <= MAX_PRICE, "price bounds");
        price = next;
    }

    /// Anyone may close an underwater position: the debt is written off against all of
    /// its collateral.
    function liquidate(address account) external {
        require(account != msg.sender, "self");
        require(debt[account] > 0 && !healthy(account), "healthy");
        totalDebt -= debt[account];
        debt[account] = 0;
        // Planted bug: the seized collateral stays in `totalCollateral`.
        collateral[account] = 0;
    }

    function healthy(address account) public view returns (bool) {
        return debt[account] <= collateral[account] * price / 1e18 * LLTV_BPS / 10_000;
    }

    /// Whether the accounts' collateral no longer adds up to the total.
    function unbalanced() external view returns (bool) {
        uint256 sum;
        for (uint256 i = 0; i < accounts.length; i++) {
            sum += collateral[accounts[i]];
        }
        return sum != totalCollateral;
    }
}
