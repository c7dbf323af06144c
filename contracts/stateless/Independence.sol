// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Contracts whose fuzzed calls are, or are not, independent of one another (issue 41): what
/// `Chain::fuzzed_calls_are_independent` reads from code, held to execution by
/// `tests/it/independence.rs`. No planted bugs: every function returns what it saw.

/// A pure helper, reached by STATICCALL.
contract Doubler {
    function twice(uint256 x) external pure returns (uint256) {
        unchecked {
            return x * 2;
        }
    }
}

/// Independent: arithmetic over its input and a STATICCALL to a helper that reads nothing.
/// Not `view`, so that a campaign fuzzes it.
contract Steps {
    Doubler internal immutable doubler = new Doubler();

    function step(uint256 x) external returns (uint256) {
        emit Stepped(x);
        return doubler.twice(x) + 1;
    }

    event Stepped(uint256 x);
}

/// Not independent: it counts its calls.
contract Tally {
    uint256 public calls;

    function hit(uint256 x) external returns (uint256) {
        calls += 1;
        return calls + x;
    }
}

/// Not independent where calls send ether: it reads its own balance.
contract Till {
    function pay(uint256 x) external payable returns (uint256) {
        return address(this).balance + x;
    }
}

/// Not independent where the block moves: it reads the clock.
contract Stamp {
    function at(uint256 x) external returns (uint256) {
        emit Seen(block.timestamp);
        return block.timestamp + x;
    }

    event Seen(uint256 at);
}

/// forge's view cheatcodes read what changes between calls (nonces, the clock).
interface ClockCheat {
    function getBlockTimestamp() external view returns (uint256);
}

/// Not independent: it names the cheatcode address, if only through a STATICCALL.
contract CheatClock {
    function at(uint256 x) external returns (uint256) {
        emit Seen(x);
        return ClockCheat(0x7109709ECfa91a80626fF3989D68f67F5b1DD12D).getBlockTimestamp();
    }

    event Seen(uint256 x);
}
