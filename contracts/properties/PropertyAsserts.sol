// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Assertion helpers written in the style of crytic/properties' `PropertiesAsserts` (our own
/// code, the same shapes): a failed check emits an event saying what failed, then fails an
/// `assert` in this helper, so that every caller's failure is raised on the same lines here.
abstract contract PropertyAsserts {
    event LogString(string);
    event LogUint256(string, uint256);
    event LogAddress(string, address);

    event AssertFail(string);
    event AssertEqFail(string);
    event AssertNeqFail(string);
    event AssertGteFail(string);
    event AssertGtFail(string);
    event AssertLteFail(string);
    event AssertLtFail(string);

    /// Fails with `reason` unless `ok`.
    function assertWithMsg(bool ok, string memory reason) internal {
        if (!ok) {
            emit AssertFail(reason);
            assert(false);
        }
    }

    /// Fails unless `a == b`, saying both values and `reason`.
    function assertEq(uint256 a, uint256 b, string memory reason) internal {
        if (a != b) {
            emit AssertEqFail(
                string(abi.encodePacked("Invalid: ", decimal(a), "!=", decimal(b), ", reason: ", reason))
            );
            assert(false);
        }
    }

    /// Fails unless `a <= b`, saying both values and `reason`.
    function assertLte(uint256 a, uint256 b, string memory reason) internal {
        if (a > b) {
            emit AssertLteFail(
                string(abi.encodePacked("Invalid: ", decimal(a), ">", decimal(b), " failed, reason: ", reason))
            );
            assert(false);
        }
    }

    /// `x` in decimal digits.
    function decimal(uint256 x) internal pure returns (string memory) {
        if (x == 0) {
            return "0";
        }
        uint256 digits;
        for (uint256 y = x; y != 0; y /= 10) {
            digits++;
        }
        bytes memory text = new bytes(digits);
        for (; x != 0; x /= 10) {
            text[--digits] = bytes1(uint8(48 + (x % 10)));
        }
        return string(text);
    }
}
