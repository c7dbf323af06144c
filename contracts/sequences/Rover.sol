// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// State novelty's shape (issue 43): a rover on a 6x6 grid, moved one cell per call by
/// `east()` and `north()` (and back by `west()` and `south()`), each writing one
/// coordinate. The planted bug is docking at the far corner, ten moves from the start, and
/// no call's branches tell the cells on the way apart: a move takes the same path in every
/// cell it can leave, and `dock()` compares one number with the corner's. Path ids keep no
/// sequence on the way there; the states the moves leave do.
contract Rover {
    uint256 public x;
    uint256 public y;

    function east() external {
        require(x < 5, "edge");
        x += 1;
    }

    function west() external {
        require(x > 0, "edge");
        x -= 1;
    }

    function north() external {
        require(y < 5, "edge");
        y += 1;
    }

    function south() external {
        require(y > 0, "edge");
        y -= 1;
    }

    event Docked(uint256 x, uint256 y);

    function dock() external {
        emit Docked(x, y);
        // Planted bug: docking at the far corner (5, 5).
        assert(x * 6 + y != 35);
    }
}
