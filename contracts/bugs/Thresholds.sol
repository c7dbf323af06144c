// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A float paid out in releases. Planted bug: `release` subtracts inside `unchecked` without
/// checking the float, so any amount above it wraps the float around and breaks
/// `float() <= INITIAL`. Fuzzing finds it at once with huge amounts; the smallest breaking
/// amount is exactly `INITIAL + 1` (1000 ether and 1 wei), the boundary shrinking must find.
contract Reserve {
    uint256 public constant INITIAL = 1_000 ether;
    uint256 public float = INITIAL;
    address public immutable owner = msg.sender;

    function release(uint256 amount) external {
        unchecked {
            float -= amount;
        }
    }

    /// Only the deployer may close the reserve: every fuzzed call reverts, which the
    /// summary flags once there were enough calls to tell.
    function close() external {
        require(msg.sender == owner, "only the owner");
        float = 0;
    }
}

/// A tip jar. Planted bug: the `assert` meant as a cap fails for any tip above 1 ether
/// (Panic 0x01); the smallest failing `msg.value` is 1 ether and 1 wei, whatever the note.
contract TipJar {
    uint256 public constant CAP = 1 ether;
    uint256 public tips;

    event Tipped(address indexed from, uint256 note);

    function tip(uint256 note) external payable {
        assert(msg.value <= CAP);
        tips += msg.value;
        emit Tipped(msg.sender, note);
    }
}

/// A one-shot time lock. Planted bug: `lock` accepts any amount, and `release` asserts the
/// limit `lock` should have enforced, so releasing more than `LIMIT` after the delay fails
/// the assert (Panic 0x01). The smallest failing sequence is `lock(LIMIT + 1)`, then
/// `release()` one second after the delay (`DELAY + 1` seconds later): two boundaries,
/// one of them a time warp, that shrinking must find.
contract Timelock {
    uint256 public constant DELAY = 1 days;
    uint256 public constant LIMIT = 1_000;
    uint256 public lockedAt;
    uint256 public locked;

    function lock(uint256 amount) external {
        require(lockedAt == 0, "already locked");
        lockedAt = block.timestamp;
        locked = amount;
    }

    function release() external {
        require(lockedAt != 0, "nothing locked");
        require(block.timestamp > lockedAt + DELAY, "still locked");
        assert(locked <= LIMIT);
        locked = 0;
    }
}
