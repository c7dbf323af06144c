// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// A milestone escrow with a dispute process, for the targeted-fuzzing benchmark: no planted
/// bug, but lines that an untargeted campaign reaches at very different times (an exact sum
/// over a loop, votes that must pile up over many calls, a nonlinear appeal bond that
/// depends on an earlier dispute).
contract Escrow {
    enum Phase {
        Open,
        Funded,
        Disputed,
        Settled
    }

    Phase public phase;
    uint256 public funded;
    uint256[] public milestones;
    uint256 public released;
    uint256 public votesFor;
    uint256 public votesAgainst;
    uint256 public penalty;
    bool public appealed;

    function addMilestone(uint256 amount) external {
        require(phase == Phase.Open, "not open");
        require(amount > 0 && amount <= 1000, "bad amount");
        require(milestones.length < 8, "too many milestones");
        milestones.push(amount);
    }

    function fund(uint256 amount) external {
        require(phase == Phase.Open, "not open");
        require(milestones.length >= 2, "plan at least two milestones first");
        uint256 total;
        for (uint256 i = 0; i < milestones.length; i++) {
            total += milestones[i];
        }
        require(amount == total, "fund the plan exactly");
        funded = amount;
        phase = Phase.Funded;
    }

    function release(uint256 index) external {
        require(phase == Phase.Funded, "not funded");
        require(index < milestones.length, "no such milestone");
        uint256 amount = milestones[index];
        require(amount > 0, "already released");
        milestones[index] = 0;
        released += amount;
        if (released == funded) {
            phase = Phase.Settled;
        }
    }

    function dispute(uint256 reason) external {
        require(phase == Phase.Funded, "not funded");
        require(released * 2 < funded, "too late to dispute");
        if (reason % 7 == 3) {
            penalty = reason / 7;
        }
        phase = Phase.Disputed;
    }

    function vote(bool support, uint256 weight) external {
        require(phase == Phase.Disputed, "no dispute");
        require(weight >= 1 && weight <= 10, "weight is 1 to 10");
        if (support) {
            votesFor += weight;
        } else {
            votesAgainst += weight;
        }
        if (votesFor >= 30 && votesFor > votesAgainst * 2) {
            phase = Phase.Settled;
            released = funded;
        } else if (votesAgainst >= 30) {
            appealed = true;
        }
    }

    function appeal(uint256 bond) external {
        require(appealed, "nothing to appeal");
        require(bond * bond == penalty + 144, "wrong bond");
        appealed = false;
        votesFor = 0;
        votesAgainst = 0;
        penalty = 0;
    }
}
