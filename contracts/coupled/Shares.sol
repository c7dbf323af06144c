// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Share/asset rounding between two actors (issue 43): a pool of assets owned through
/// shares, whose price per share (assets / shares) every action must keep or raise, so
/// that no holder's stake loses value through another's action. Deposits round the shares
/// they mint down, as they must; the planted bug is in `withdraw`, which rounds the shares
/// it burns down too: a withdrawal of less than a share's worth burns nothing once the
/// price is above one (after `harvest`), and the assets leave at the other holders'
/// expense. Nothing in the code compares prices: the invariant `diluted() == false` does.
contract SharePool {
    uint256 public totalAssets;
    uint256 public totalShares;
    mapping(address => uint256) public sharesOf;

    /// The pool before the last action, and who took it.
    uint256 private assetsBefore;
    uint256 private sharesBefore;
    address private lastActor;
    /// Every holder ever, for the invariant.
    address[] private holders;
    mapping(address => bool) private listed;

    function deposit(uint256 assets) external {
        require(assets > 0 && assets <= 1e24, "assets");
        begin();
        uint256 shares = totalShares == 0 ? assets : (assets * totalShares) / totalAssets;
        require(shares > 0, "no shares");
        if (!listed[msg.sender]) {
            listed[msg.sender] = true;
            holders.push(msg.sender);
        }
        sharesOf[msg.sender] += shares;
        totalShares += shares;
        totalAssets += assets;
    }

    /// Yield: the pool's assets grow by a fixed amount, raising the price for every holder.
    function harvest() external {
        require(totalShares > 0, "empty");
        begin();
        totalAssets += 7;
    }

    function withdraw(uint256 assets) external {
        require(assets > 0 && assets <= totalAssets, "assets");
        begin();
        // Planted bug: rounded down; the pool's side needs it rounded up.
        uint256 shares = (assets * totalShares) / totalAssets;
        require(shares <= sharesOf[msg.sender], "over the shares");
        sharesOf[msg.sender] -= shares;
        totalShares -= shares;
        totalAssets -= assets;
    }

    /// Whether the last action lowered the price per share while someone other than its
    /// actor held shares: value taken from another holder.
    function diluted() external view returns (bool) {
        if (assetsBefore == 0 || sharesBefore == 0 || totalShares == 0) {
            return false;
        }
        bool lower = totalAssets * sharesBefore < assetsBefore * totalShares;
        if (!lower) {
            return false;
        }
        for (uint256 i = 0; i < holders.length; i++) {
            if (holders[i] != lastActor && sharesOf[holders[i]] > 0) {
                return true;
            }
        }
        return false;
    }

    function begin() private {
        assetsBefore = totalAssets;
        sharesBefore = totalShares;
        lastActor = msg.sender;
    }
}
