// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Thermostat} from "./Thermostat.sol";

/// A harness whose constructor deploys the system and whose only function is a property:
/// Echidna and Medusa fuzz the `Thermostat` it deployed only under `allContracts` /
/// `testAllContracts`, which no config here gives, so there is nothing to fuzz.
contract Greenhouse {
    Thermostat internal thermostat = new Thermostat();

    function echidna_not_too_hot() public view returns (bool) {
        return thermostat.temperature() <= thermostat.MAX();
    }
}
