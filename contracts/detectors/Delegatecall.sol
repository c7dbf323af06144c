// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A library contract the safe forwarders delegate to: it only counts calls.
contract CallCounter {
    uint256 public calls;

    function count() external {
        calls += 1;
    }
}

/// Planted bug (unsafe delegatecall): `forward` delegate-calls any address its caller
/// names, so a caller's code runs with this contract's storage and balance.
contract OpenForwarder {
    address public owner;

    constructor() {
        owner = msg.sender;
    }

    function forward(address target, bytes calldata data) external {
        (bool ok,) = target.delegatecall(data);
        require(ok, "delegatecall failed");
    }
}

/// Planted bug (unsafe delegatecall, over two calls): anyone sets the implementation,
/// and `run` delegate-calls whatever was set.
contract OpenUpgradeable {
    address public owner;
    address public implementation;

    constructor(address initial) {
        owner = msg.sender;
        implementation = initial;
    }

    function upgrade(address next) external {
        // Bug: missing `require(msg.sender == owner)`.
        implementation = next;
    }

    function run() external {
        (bool ok,) = implementation.delegatecall(abi.encodeWithSignature("count()"));
        require(ok, "delegatecall failed");
    }
}

/// `OpenUpgradeable` corrected: only the owner upgrades, and `run` delegates to the
/// implementation the owner chose.
contract OwnedUpgradeable {
    address public owner;
    address public implementation;

    constructor(address initial) {
        owner = msg.sender;
        implementation = initial;
    }

    function upgrade(address next) external {
        require(msg.sender == owner, "not the owner");
        implementation = next;
    }

    function run() external {
        (bool ok,) = implementation.delegatecall(abi.encodeWithSignature("count()"));
        require(ok, "delegatecall failed");
    }
}
