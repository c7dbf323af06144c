// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Planted bug (block dependency, SWC-120): the raffle's winner is drawn from the block's
/// timestamp and randomness beacon, which the block's producer chooses: a validator that
/// entered picks the block that makes it win.
contract BlockRaffle {
    address[] public players;

    function enter() external payable {
        require(msg.value == 0.01 ether, "ticket is 0.01 ether");
        players.push(msg.sender);
    }

    function draw() external {
        require(players.length > 0, "no players");
        // Bug: the winner is a function of block data.
        uint256 seed = uint256(keccak256(abi.encode(block.timestamp, block.prevrandao)));
        address winner = players[seed % players.length];
        delete players;
        payable(winner).transfer(address(this).balance);
    }
}

/// `BlockRaffle` corrected for this detector: the winner is drawn from numbers the players
/// chose when they entered, not from block data. (It is not safe either: the last entrant's
/// pick decides the winner, a transaction-order dependency the tests expect reported.)
contract PickRaffle {
    address[] public players;
    uint256 public picks;

    function enter(uint256 pick) external payable {
        require(msg.value == 0.01 ether, "ticket is 0.01 ether");
        players.push(msg.sender);
        picks ^= pick;
    }

    function draw() external {
        require(players.length > 0, "no players");
        address winner = players[picks % players.length];
        delete players;
        picks = 0;
        payable(winner).transfer(address(this).balance);
    }
}
