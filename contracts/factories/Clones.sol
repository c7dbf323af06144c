// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Opens a vault per user as an EIP-1167 minimal proxy of one implementation (the clone
/// code of OpenZeppelin's `Clones.clone`). The planted bug lives in the vault's code, which
/// the fuzzer can only call through a clone: the implementation itself is never initialized.
contract VaultCloner {
    address public immutable implementation;
    address[] public vaults;

    constructor() {
        implementation = address(new CloneVault());
    }

    function open() external returns (address vault) {
        vault = clone(implementation);
        CloneVault(vault).initialize(msg.sender);
        vaults.push(vault);
    }

    function clone(address impl) internal returns (address instance) {
        assembly {
            mstore(0x00, or(shr(0xe8, shl(0x60, impl)), 0x3d602d80600a3d3981f3363d3d373d3d3d363d73000000))
            mstore(0x20, or(shl(0x78, impl), 0x5af43d82803e903d91602b57fd5bf3))
            instance := create(0, 0x09, 0x37)
        }
        require(instance != address(0), "clone failed");
    }
}

/// A vault of credits its owner spends.
contract CloneVault {
    address public owner;
    uint256 public credits;

    function initialize(address owner_) external {
        require(owner == address(0), "initialized");
        owner = owner_;
    }

    function credit(uint256 amount) external {
        require(msg.sender == owner, "not the owner");
        require(amount <= 1e30, "amount out of range");
        credits += amount;
    }

    function spend(uint256 amount) external {
        require(msg.sender == owner, "not the owner");
        require(amount <= credits, "more than the credits");
        credits -= amount;
        // Planted bug: emptying a vault of more than 1000 credits in one go is meant to be
        // impossible (reached by open, credit(a), spend(a) with a > 1000, one sender).
        if (credits == 0) {
            assert(amount <= 1000);
        }
    }
}
