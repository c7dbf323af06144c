// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// The cheatcodes harvey's tests call, as forge-std's `Vm.sol` declares them (the root
/// project has no forge-std). `ffi` is one harvey does not support.
interface Vm {
    function warp(uint256 newTimestamp) external;
    function roll(uint256 newHeight) external;
    function fee(uint256 newBasefee) external;
    function chainId(uint256 newChainId) external;
    function getBlockTimestamp() external view returns (uint256 timestamp);
    function deal(address account, uint256 newBalance) external;
    function label(address account, string calldata newLabel) external;
    function getLabel(address account) external view returns (string memory currentLabel);
    function addr(uint256 privateKey) external pure returns (address keyAddr);
    function store(address target, bytes32 slot, bytes32 value) external;
    function load(address target, bytes32 slot) external view returns (bytes32 data);
    function etch(address target, bytes calldata newRuntimeBytecode) external;
    function getNonce(address account) external view returns (uint64 nonce);
    function setNonce(address account, uint64 newNonce) external;
    function prank(address msgSender) external;
    function prank(address msgSender, address txOrigin) external;
    function startPrank(address msgSender) external;
    function stopPrank() external;
    function assume(bool condition) external pure;
    function ffi(string[] calldata commandInput) external returns (bytes memory result);
    function record() external;
    function envUint(string calldata name) external view returns (uint256 value);
    function envOr(string calldata name, uint256 defaultValue) external view returns (uint256 value);
    function expectRevert() external;
    function expectRevert(bytes calldata revertData) external;
    function accesses(address target) external returns (bytes32[] memory readSlots, bytes32[] memory writeSlots);
    function toString(address value) external pure returns (string memory stringifiedValue);
    function toString(int256 value) external pure returns (string memory stringifiedValue);
    function toString(bytes32 value) external pure returns (string memory stringifiedValue);
    function assertEq(uint256 left, uint256 right, string calldata error) external pure;
    function assertApproxEqRel(uint256 left, uint256 right, uint256 maxPercentDelta) external pure;
    struct Log {
        bytes32[] topics;
        bytes data;
        address emitter;
    }
    function recordLogs() external;
    function getRecordedLogs() external returns (Log[] memory logs);
}

/// Records who called it, for the prank tests.
contract Witness {
    address public lastSender;
    address public lastOrigin;
    uint256 public calls;

    function touch() external {
        lastSender = msg.sender;
        lastOrigin = tx.origin;
        calls += 1;
    }

    function boom() external pure {
        revert("boom");
    }
}

/// Deployed by `CheatUser.build`: its constructor records its deployer.
contract Built {
    address public deployer;

    constructor() {
        deployer = msg.sender;
    }
}

/// Calls forge's cheatcodes, one function per behaviour the tests check.
contract CheatUser {
    Vm internal constant vm = Vm(0x7109709ECfa91a80626fF3989D68f67F5b1DD12D);

    Witness public witness;
    uint256 public stored;
    event Seen(uint256 value);

    constructor() {
        witness = new Witness();
    }

    function timeAndBlock(uint256 time, uint256 height, uint256 basefee, uint256 id)
        external
        returns (uint256, uint256, uint256, uint256, uint256)
    {
        vm.warp(time);
        vm.roll(height);
        vm.fee(basefee);
        vm.chainId(id);
        return (block.timestamp, block.number, block.basefee, block.chainid, vm.getBlockTimestamp());
    }

    function now_() external view returns (uint256, uint256, uint256) {
        return (block.timestamp, block.number, block.chainid);
    }

    function dealAndRead(address who, uint256 amount) external returns (uint256) {
        vm.deal(who, amount);
        return who.balance;
    }

    function labelAndRead(address who, string calldata name) external returns (string memory) {
        vm.label(who, name);
        return vm.getLabel(who);
    }

    function addrOf(uint256 key) external pure returns (address) {
        return vm.addr(key);
    }

    function storeAndLoad(address target, bytes32 slot, bytes32 value) external returns (bytes32) {
        vm.store(target, slot, value);
        return vm.load(target, slot);
    }

    function etchAndCall(address target, bytes calldata code) external returns (bytes memory) {
        vm.etch(target, code);
        (bool ok, bytes memory out) = target.call("");
        require(ok, "etched code reverted");
        return out;
    }

    function nonces(address who, uint64 next) external returns (uint64, uint64) {
        uint64 before = vm.getNonce(who);
        vm.setNonce(who, next);
        return (before, vm.getNonce(who));
    }

    function lowerNonce(address who) external {
        vm.setNonce(who, 0);
    }

    /// One pranked call, then one that is not.
    function prankOnce(address as_, address origin) external returns (address, address, address) {
        vm.prank(as_, origin);
        witness.touch();
        address pranked = witness.lastSender();
        address prankedOrigin = witness.lastOrigin();
        witness.touch();
        return (pranked, prankedOrigin, witness.lastSender());
    }

    function startPranking(address as_) external {
        vm.startPrank(as_);
    }

    function prankTwice(address as_) external {
        vm.prank(as_);
        vm.prank(as_);
    }

    function touchWitness() external {
        witness.touch();
    }

    function stopPranking() external {
        vm.stopPrank();
    }

    function build(address as_) external returns (address, address) {
        vm.prank(as_);
        Built built = new Built();
        return (address(built), built.deployer());
    }

    function buildAndRevert() external {
        new Built();
        revert("undone");
    }

    function assumeIt(bool condition) external returns (uint256) {
        vm.assume(condition);
        stored += 1;
        return stored;
    }

    function useFfi() external {
        string[] memory command = new string[](1);
        command[0] = "true";
        vm.ffi(command);
    }

    function callUnknown() external {
        (bool ok, bytes memory out) = address(vm).call(abi.encodeWithSelector(0xb32e2421));
        if (!ok) {
            assembly {
                revert(add(out, 32), mload(out))
            }
        }
    }

    /// Writes storage, emits, deploys and sets forge's failure flag: everything a probe
    /// must leave no trace of.
    function messy() external {
        stored = 42;
        emit Seen(42);
        new Built();
        vm.store(address(vm), bytes32("failed"), bytes32(uint256(1)));
        vm.warp(1);
    }

    function checkEq(uint256 left, uint256 right) external pure {
        vm.assertEq(left, right, "sums differ");
    }

    function checkClose(uint256 left, uint256 right) external pure {
        vm.assertApproxEqRel(left, right, 0.01e18);
    }

    /// `stored` is slot 1: one read and one write of it.
    function recordAccesses() external returns (bytes32[] memory, bytes32[] memory) {
        vm.record();
        stored = stored + 1;
        return vm.accesses(address(this));
    }

    function strings() external pure returns (string memory, string memory, string memory) {
        return (
            vm.toString(address(0xdead)),
            vm.toString(int256(-5)),
            vm.toString(bytes32(uint256(1)))
        );
    }

    function expectBoom() external returns (uint256) {
        vm.expectRevert(bytes("boom"));
        witness.boom();
        return 7;
    }

    function expectOther() external {
        vm.expectRevert(bytes("other"));
        witness.boom();
    }

    function expectAnyButNone() external {
        vm.expectRevert();
        witness.touch();
    }

    function envOrDefault(string calldata name) external view returns (uint256) {
        return vm.envOr(name, uint256(5));
    }

    function envRequired(string calldata name) external view returns (uint256) {
        return vm.envUint(name);
    }

    function read() external view returns (uint256) {
        return stored;
    }

    event Noted(uint256 indexed what, string note);

    /// Emits two events while recording, then takes them: how many, the first's topics and
    /// data, its emitter, and how many a second take finds (none: taking drains).
    function recordedLogs() external returns (uint256, bytes32, bytes32, bytes memory, address, uint256) {
        vm.recordLogs();
        emit Noted(7, "seven");
        emit Noted(8, "eight");
        Vm.Log[] memory logs = vm.getRecordedLogs();
        uint256 again = vm.getRecordedLogs().length;
        return (logs.length, logs[0].topics[0], logs[0].topics[1], logs[0].data, logs[0].emitter, again);
    }
}
