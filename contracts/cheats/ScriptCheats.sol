// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// The scripting and testing cheatcodes harvey's tests call, as forge 1.7.1's `Vm` declares
/// them (the root project has no forge-std; `Vm` is `CheatUser.sol`'s).
interface ScriptVm {
    function broadcast() external;
    function broadcast(address signer) external;
    function broadcast(uint256 privateKey) external;
    function startBroadcast() external;
    function stopBroadcast() external;
    function prank(address msgSender) external;
    function addr(uint256 privateKey) external pure returns (address keyAddr);
    function rememberKey(uint256 privateKey) external returns (address keyAddr);
    function deriveKey(string calldata mnemonic, uint32 index) external pure returns (uint256 privateKey);
    function computeCreateAddress(address deployer, uint256 nonce) external pure returns (address);
    function computeCreate2Address(bytes32 salt, bytes32 initCodeHash) external pure returns (address);
    function getNonce(address account) external view returns (uint64 nonce);
    function getCode(string calldata artifactPath) external view returns (bytes memory creationBytecode);
    function getDeployedCode(string calldata artifactPath) external view returns (bytes memory runtimeBytecode);
    function expectRevert(uint64 count) external;
    function expectRevert(bytes calldata revertData, address reverter) external;
    function expectRevert(address reverter) external;
    function expectEmit(bool checkTopic1, bool checkTopic2, bool checkTopic3, bool checkData, address emitter) external;
    function mockCall(address callee, bytes calldata data, bytes calldata returnData) external;
    function mockCallRevert(address callee, bytes4 data, bytes calldata revertData) external;
    function clearMockedCalls() external;
    function snapshotState() external returns (uint256 snapshotId);
    function revertToState(uint256 snapshotId) external returns (bool success);
    function revertToStateAndDelete(uint256 snapshotId) external returns (bool success);
}

/// Records who created and last called it.
contract Who {
    address public sender;
    address public origin;

    event Seen(address indexed sender, uint256 value);

    error Nope(uint256 code);

    constructor() {
        sender = msg.sender;
        origin = tx.origin;
    }

    function see() external {
        sender = msg.sender;
        origin = tx.origin;
        emit Seen(msg.sender, 1);
    }

    function nope() external pure {
        revert Nope(7);
    }

    function price() external pure returns (uint256) {
        return 1;
    }
}

contract ScriptCheats {
    ScriptVm internal constant vm = ScriptVm(0x7109709ECfa91a80626fF3989D68f67F5b1DD12D);

    event Seen(address indexed sender, uint256 value);

    uint256 public counter;

    /// `startBroadcast()` without a key: the creation and the call are sent by `tx.origin`;
    /// the creation lands at the broadcaster's nonce.
    function broadcastDefault() external returns (address[5] memory seen, bool atNonce) {
        uint64 nonce = vm.getNonce(tx.origin);
        vm.startBroadcast();
        Who who = new Who();
        seen[0] = who.sender();
        seen[1] = who.origin();
        who.see();
        seen[2] = who.sender();
        seen[3] = who.origin();
        vm.stopBroadcast();
        who.see();
        seen[4] = who.sender();
        atNonce = address(who) == vm.computeCreateAddress(tx.origin, nonce);
    }

    /// `broadcast(key)` covers the next creation only; a remembered key is the broadcaster of
    /// a later `broadcast()`.
    function broadcastKeys(uint256 key, uint256 other) external returns (address[3] memory seen) {
        vm.broadcast(key);
        Who who = new Who();
        seen[0] = who.sender();
        who.see();
        seen[1] = who.sender();
        vm.broadcast(key);
        who.see();
        seen[2] = who.sender();
        // Two remembered keys: `broadcast()` falls back to tx.origin.
        vm.rememberKey(other);
        vm.broadcast();
        who.see();
        require(who.sender() == tx.origin, "two wallets: tx.origin broadcasts");
    }

    function broadcastTwice() external {
        vm.startBroadcast();
        vm.startBroadcast();
    }

    function stopWithout() external {
        vm.stopBroadcast();
    }

    function prankThenBroadcast() external {
        vm.prank(address(0xA11CE));
        vm.broadcast();
    }

    /// `expectRevert(2)` takes two reverting calls; a reverter must be the one that reverted.
    function expectCounts(bool wrongReverter) external {
        Who who = new Who();
        vm.expectRevert(uint64(2));
        who.nope();
        who.nope();
        vm.expectRevert(abi.encodeWithSelector(Who.Nope.selector, 7), address(who));
        who.nope();
        vm.expectRevert(wrongReverter ? address(this) : address(who));
        who.nope();
    }

    /// The emitted `Seen` is expected from `who.see()`; `wrongValue` expects other data.
    function expectSeen(bool wrongValue) external {
        Who who = new Who();
        vm.expectEmit(true, true, true, true, address(who));
        emit Seen(address(this), wrongValue ? 2 : 1);
        who.see();
    }

    /// A mocked return, then the real one after clearing; a mocked revert on an empty account.
    function mocked() external returns (uint256 mockedPrice, uint256 realPrice, bytes memory revertData) {
        Who who = new Who();
        vm.mockCall(address(who), abi.encodeWithSelector(Who.price.selector), abi.encode(uint256(42)));
        mockedPrice = who.price();
        vm.clearMockedCalls();
        realPrice = who.price();
        vm.mockCallRevert(address(0xdead), Who.price.selector, "mocked");
        try Who(address(0xdead)).price() returns (uint256) {} catch (bytes memory data) {
            revertData = data;
        }
    }

    /// Snapshots put storage back; a deleted one is gone.
    function snapshots() external returns (uint256 reverted, uint256 again, bool gone) {
        counter = 1;
        uint256 id = vm.snapshotState();
        counter = 2;
        vm.revertToState(id);
        reverted = counter;
        counter = 3;
        vm.revertToStateAndDelete(id);
        again = counter;
        gone = !vm.revertToState(id);
    }

    /// `getCode` deploys a `Who` whose runtime code is `getDeployedCode`'s.
    function codes() external returns (bool same) {
        bytes memory init = vm.getCode("ScriptCheats.sol:Who");
        address deployed;
        assembly {
            deployed := create(0, add(init, 0x20), mload(init))
        }
        same = deployed != address(0) && keccak256(deployed.code) == keccak256(vm.getDeployedCode("Who"));
    }

    function keyAddress(uint256 key) external pure returns (address) {
        return vm.addr(key);
    }

    /// The first test-mnemonic key, and a CREATE2 address from forge's deployer.
    function keys(bytes32 salt) external pure returns (uint256 key, address create2) {
        key = vm.deriveKey("test test test test test test test test test test test junk", 0);
        create2 = vm.computeCreate2Address(salt, keccak256(""));
    }
}
