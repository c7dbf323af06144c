// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// One function per kind of transaction outcome, for harvey's outcome-decoding tests.
contract Outcomes {
    enum Color {
        Red,
        Green
    }

    error Custom(uint256 code, address who, string why);

    uint256[] internal items;

    function succeed(uint256 x) external pure returns (uint256, bool) {
        return (x + 1, true);
    }

    function requireFails(uint256 x) external pure {
        require(x == 0, "x must be zero");
    }

    function customError(uint256 code) external view {
        revert Custom(code, msg.sender, "because");
    }

    function assertFails(uint256 x) external pure {
        assert(x == 0);
    }

    function overflow(uint256 x) external pure returns (uint256) {
        return x + type(uint256).max;
    }

    function divide(uint256 a, uint256 b) external pure returns (uint256) {
        return a / b;
    }

    function toColor(uint256 x) external pure returns (Color) {
        return Color(x);
    }

    function popEmpty() external {
        items.pop();
    }

    function outOfBounds(uint256 i) external view returns (uint256) {
        return items[i];
    }

    function tooMuchMemory(uint256 n) external pure returns (uint256) {
        uint256[] memory big = new uint256[](n);
        return big.length;
    }

    function zeroFunction() external pure {
        function() internal pure f;
        f();
    }

    function bareRevert() external pure {
        revert();
    }

    function burnGas(uint256 n) external pure returns (uint256 s) {
        for (uint256 i = 0; i < n; i++) {
            s += i;
        }
    }

    function invalidOpcode() external pure {
        assembly {
            invalid()
        }
    }

    function nested(Thrower other, uint256 x) external pure {
        other.boom(x);
    }
}

/// Reverts with a custom error that `Outcomes` does not declare: decoding must find it in
/// another contract's ABI.
contract Thrower {
    error Boom(uint256 x);

    function boom(uint256 x) external pure {
        revert Boom(x);
    }
}

/// A constructor that rejects small arguments.
contract RevertingConstructor {
    error TooLarge(uint256 x, uint256 max);

    constructor(uint256 x) {
        require(x > 10, "x too small");
        if (x > 1000) revert TooLarge(x, 1000);
    }
}
