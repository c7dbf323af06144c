// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// An Echidna/Medusa-style property contract of harvey's own: its functions are the fuzzed
/// surface, its `echidna_`/`property_` functions the properties, and its one bug is planted
/// in `boost` (witness: `tests/it/forge_suites.rs`, `the_thermostat_overheats_by_direct_calls`).
contract Thermostat {
    uint256 public constant MAX = 30;
    uint256 public temperature = 26;
    bool public boosted;

    function up() external {
        if (temperature < MAX) temperature += 1;
    }

    function down() external {
        if (temperature > 0) temperature -= 1;
    }

    /// The bug: a boost at exactly MAX - 1 skips the cap check.
    function boost() external {
        if (boosted) return;
        boosted = true;
        if (temperature == MAX - 1) {
            temperature += 2;
        } else if (temperature + 2 <= MAX) {
            temperature += 2;
        }
    }

    function echidna_never_overheats() external view returns (bool) {
        return temperature <= MAX;
    }

    function property_boost_is_spent_once() external view returns (bool) {
        return temperature <= MAX + 2;
    }
}
