//! foundry.toml's execution keys (`evm_version`, `code_size_limit`, `gas_limit`, `chain_id`,
//! `block_timestamp`, `block_number`) change how a chain executes, as they do under forge.

use harvey::chain::{CHAIN_ID, GENESIS_NUMBER, GENESIS_TIMESTAMP};
use harvey::prelude::*;
use harvey::project::ProjectConfig;

use crate::support::{environment, project};

const PROBE: &str = "// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract EnvProbe {
    function env() external view returns (uint256 chain, uint256 time, uint256 number, uint256 gas) {
        return (block.chainid, block.timestamp, block.number, gasleft());
    }
    /// Whether 0x0a answers as a precompile (Cancun's point evaluation rejects empty input).
    function pointEvaluationExists() external view returns (bool) {
        (bool ok, ) = address(0x0a).staticcall(\"\");
        return !ok;
    }
}
";

/// A contract whose runtime code (a 25,000-byte literal) exceeds EIP-170's 24,576 bytes.
fn big_contract() -> String {
    format!(
        "// SPDX-License-Identifier: MIT\npragma solidity ^0.8.0;\ncontract Big {{\n    function blob() external pure returns (bytes memory) {{\n        return hex\"{}\";\n    }}\n}}\n",
        "ab".repeat(25_000)
    )
}

/// A chain over a throwaway project whose foundry.toml adds `keys`.
fn chain_with(keys: &str) -> Chain {
    let big = big_contract();
    let dir = project(keys, &[("EnvProbe.sol", PROBE), ("Big.sol", &big)]);
    let env = environment();
    let artifacts = ProjectConfig::discover_in(dir.path(), &env)
        .unwrap()
        .compile_in(&env)
        .unwrap();
    Chain::new(std::sync::Arc::new(artifacts))
}

type Env = (U256, U256, U256, U256);

#[test]
fn defaults_apply_without_execution_keys() {
    let mut chain = chain_with("");
    let probe = chain.deploy("EnvProbe", ()).unwrap();
    let (chain_id, time, number, gas): Env = chain.view(probe, "env()", ()).unwrap();
    assert_eq!(chain_id, U256::from(CHAIN_ID));
    assert_eq!(time, U256::from(GENESIS_TIMESTAMP));
    assert_eq!(number, U256::from(GENESIS_NUMBER));
    assert!(gas < U256::from(16_000_000u64), "{gas}");
    assert!(
        chain
            .view::<bool>(probe, "pointEvaluationExists()", ())
            .unwrap()
    );
    // As forge's tests: no EIP-170 limit unless foundry.toml sets one.
    let big = chain.deploy("Big", ()).unwrap();
    assert!(chain.code(big).len() > 24_576);
    let mut limited = chain_with("code_size_limit = 24576\n");
    let err = limited.deploy("Big", ()).unwrap_err().to_string();
    assert!(
        err.contains("deploying `Big` failed") && err.contains("`code_size_limit`"),
        "{err}"
    );
}

#[test]
fn execution_keys_change_the_chain() {
    let mut chain = chain_with(
        "evm_version = \"paris\"\ncode_size_limit = 40000\ngas_limit = \"1073741824\"\n\
         chain_id = 10\nblock_timestamp = 1_680_220_800\nblock_number = 19000000\n",
    );
    let probe = chain.deploy("EnvProbe", ()).unwrap();
    let (chain_id, time, number, gas): Env = chain.view(probe, "env()", ()).unwrap();
    assert_eq!(chain_id, U256::from(10));
    assert_eq!(time, U256::from(1_680_220_800u64));
    assert_eq!(number, U256::from(19_000_000u64));
    assert!(
        gas > U256::from(1_000_000_000u64),
        "the gas limit is lifted: {gas}"
    );
    assert!(
        !chain
            .view::<bool>(probe, "pointEvaluationExists()", ())
            .unwrap(),
        "paris has no point-evaluation precompile"
    );
    let big = chain.deploy("Big", ()).unwrap();
    assert!(chain.code(big).len() > 24_576);
}
