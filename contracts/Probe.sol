// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Known branches, storage accesses, calls and a selfdestruct, for harvey's observer tests.
contract Probe {
    uint256 public hits;
    mapping(uint256 => uint256) public data;

    function check(uint256 x) external returns (bool) {
        if (x == 42) {
            hits += 1;
            return true;
        }
        return false;
    }

    function below(uint256 x) external pure returns (bool) {
        return x < 10 ? true : false;
    }

    function signedAbove(int256 x) external pure returns (uint256) {
        if (x > -5) {
            return 1;
        }
        return 2;
    }

    function nonZero(uint256 x) external pure returns (uint256) {
        if (x != 0) {
            return 1;
        }
        return 2;
    }

    function store(uint256 key, uint256 value) external {
        data[key] = value;
    }

    function bump() external returns (uint256) {
        hits = hits + 1;
        return hits;
    }
}

/// Calls into a `Probe` and can destroy itself.
contract ProbeCaller {
    function ping(Probe probe, uint256 x) external returns (bool) {
        return probe.check(x);
    }

    function peek(Probe probe) external view returns (uint256) {
        return probe.hits();
    }

    function spawn(bytes32 salt) external returns (Probe plain, Probe salted) {
        plain = new Probe();
        salted = new Probe{salt: salt}();
    }

    function destroy(address payable beneficiary) external {
        selfdestruct(beneficiary);
    }

    receive() external payable {}
}
