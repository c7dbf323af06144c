//! harvey on a project laid out like a stock Foundry repository
//! (`tests/fixtures/foundry-project`): inferred remappings over `lib/` (one library nested in
//! another's `lib/`) and npm's `node_modules/` (OpenZeppelin 5, solmate), no remappings.txt,
//! no solc pin with pragmas needing two compilers (0.8.28 and 0.8.7), an external library
//! linked at deploy, mocks and a handler in `test/`, a script that is not compiled. Witness
//! tests reach each planted bug by direct calls and check the correct contracts.
//!
//! The compilers come from a fake svm directory (`<data>/svm/<v>/solc-<v>` scripts running the
//! repo's solcjs shims), set up once per process. Discovery is told about it through an
//! explicit `Environment` (`XDG_DATA_HOME` pointing at it, no `HARVEY_SOLC`, `HARVEY_SKIP` or
//! `FOUNDRY_PROFILE`) rather than through the process environment, which the other tests of
//! this binary read on other threads.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use alloy_dyn_abi::DynSolValue;
use harvey::Error;
use harvey::chain::{Chain, PanicCode, RevertReason, Tx, TxOptions};
use harvey::prelude::*;
use harvey::project::{Artifacts, Environment, ProjectConfig, compiled_in};

use crate::support::{self, ether, repo};

fn fixture() -> PathBuf {
    repo().join("tests/fixtures/foundry-project")
}

/// Installs the fixture's npm dependencies and sets up a fake svm directory holding solc
/// 0.8.28 (the shim) and 0.8.7 (npm's `solc@0.8.7-fixed`), once per process; returns the
/// environment that points svm discovery at it, with nothing else choosing the compiler or
/// the files (`HARVEY_SOLC`, `HARVEY_SKIP`, `FOUNDRY_PROFILE` unset).
fn environment() -> &'static Environment {
    static ENVIRONMENT: OnceLock<Environment> = OnceLock::new();
    ENVIRONMENT.get_or_init(|| {
        support::npm_install(&fixture());
        let data = Path::new(env!("CARGO_TARGET_TMPDIR")).join("foundry-project-data");
        let shims = repo().join("tools/solc-shim");
        for (version, command) in [
            ("0.8.28", format!("{}/solc", shims.display())),
            ("0.8.7", format!("{}/solc-at 0.8.7-fixed", shims.display())),
        ] {
            let dir = data.join("svm").join(version);
            std::fs::create_dir_all(&dir).unwrap();
            let script = dir.join(format!("solc-{version}"));
            std::fs::write(&script, format!("#!/bin/sh\nexec {command} \"$@\"\n")).unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        Environment {
            xdg_data_home: Some(data),
            ..support::environment()
        }
    })
}

/// The fixture compiled in [`environment`], once per process. Whatever else compiles the
/// fixture's root in this process (a `Campaign` on it) shares this compilation, so it must
/// come first.
fn artifacts() -> Arc<Artifacts> {
    compiled_in(&fixture(), environment()).unwrap_or_else(|e| panic!("the fixture compiles:\n{e}"))
}

/// The solc version in a runtime code's CBOR metadata (`64 736f6c63 43 <major minor patch>`).
fn solc_version_of(code: &[u8]) -> Option<[u8; 3]> {
    let at = code
        .windows(6)
        .rposition(|w| w == [0x64, 0x73, 0x6f, 0x6c, 0x63, 0x43])?;
    code.get(at + 6..at + 9)?.try_into().ok()
}

#[test]
fn remappings_are_inferred_as_forge_1_7_1_infers_them() {
    let config = ProjectConfig::discover_in(&fixture(), environment()).unwrap();
    let mut remappings = config.remappings.clone();
    remappings.sort();
    // `forge remappings` of forge 1.7.1 in the fixture, sorted.
    assert_eq!(
        remappings,
        [
            "@openzeppelin/=node_modules/@openzeppelin/",
            "castlib/=lib/vaultkit/lib/castlib/src/",
            "solmate/=node_modules/solmate/",
            "vaultkit/=lib/vaultkit/src/",
        ]
    );
}

#[test]
fn sources_and_test_helpers_compile_with_two_solc_versions_and_scripts_do_not() {
    let artifacts = artifacts();
    for name in [
        "Vault",
        "Token",
        "WETH",
        "Treasury",
        "FeeMath",
        "MockAsset",
        "WETHHandler",
    ] {
        let artifact = artifacts.get(name).unwrap();
        assert!(artifact.is_deployable(), "{name} is deployable");
    }
    assert!(
        artifacts.get("Deploy").is_err(),
        "script/ must not be compiled"
    );
    let version = |name: &str| solc_version_of(&artifacts.get(name).unwrap().runtime_code);
    // `pragma solidity 0.8.7` and its importer (the handler, `^0.8.0`) need 0.8.7; the
    // OpenZeppelin and solmate contracts need >=0.8.20: the newest installed, 0.8.28.
    assert_eq!(version("WETH"), Some([0, 8, 7]));
    assert_eq!(version("WETHHandler"), Some([0, 8, 7]));
    assert_eq!(version("Vault"), Some([0, 8, 28]));
    assert_eq!(version("Token"), Some([0, 8, 28]));
    // Source ids are per build: each contract's source map resolves in its own build.
    for name in ["WETH", "Vault"] {
        let artifact = artifacts.get(name).unwrap();
        let file = format!("src/{name}.sol");
        assert!(
            artifact
                .source_locations()
                .any(|(_, loc)| loc.file.path == Path::new(&file)),
            "{name}'s source map does not reach {file}"
        );
    }
}

#[test]
fn skip_globs_narrow_what_is_compiled() {
    let mut config = ProjectConfig::discover_in(&fixture(), environment()).unwrap();
    config.skip = vec!["test/**".into(), "Vault.sol".into()];
    config.cache_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("foundry-project-skip");
    let artifacts = config.compile_in(environment()).unwrap();
    assert!(artifacts.get("Token").is_ok());
    for skipped in ["MockAsset", "WETHHandler", "Vault"] {
        assert!(artifacts.get(skipped).is_err(), "{skipped} was compiled");
    }
}

#[test]
fn openzeppelin_vault_keeps_assets_above_share_value() {
    let mut chain = Chain::new(artifacts());
    let asset = chain.deploy("MockAsset", ()).unwrap();
    let vault = chain.deploy("Vault", (asset,)).unwrap();
    let alice = chain.senders()[0];
    let as_alice = TxOptions {
        sender: Some(alice),
        value: U256::ZERO,
    };
    let ok =
        |outcome: harvey::chain::TxOutcome| assert!(outcome.is_success(), "{}", outcome.status);
    ok(chain
        .try_call(
            asset,
            "mint(address,uint256)",
            &[alice.into(), ether(10).into()],
        )
        .unwrap());
    ok(chain
        .try_call_with(
            asset,
            "approve(address,uint256)",
            &[vault.into(), U256::MAX.into()],
            as_alice,
        )
        .unwrap());
    ok(chain
        .try_call_with(
            vault,
            "deposit(uint256,address)",
            &[ether(4).into(), alice.into()],
            as_alice,
        )
        .unwrap());
    // A donation straight to the vault raises the share price; the invariant still holds.
    ok(chain
        .try_call_with(
            asset,
            "transfer(address,uint256)",
            &[vault.into(), ether(1).into()],
            as_alice,
        )
        .unwrap());
    let invariant = |chain: &Chain| {
        let total_assets: U256 = chain.view(vault, "totalAssets()", ()).unwrap();
        let supply: U256 = chain.view(vault, "totalSupply()", ()).unwrap();
        let value: U256 = chain
            .view(vault, "convertToAssets(uint256)", (supply,))
            .unwrap();
        assert!(supply > U256::ZERO);
        total_assets >= value
    };
    assert!(invariant(&chain));
    let shares: U256 = chain.view(vault, "balanceOf(address)", (alice,)).unwrap();
    ok(chain
        .try_call_with(
            vault,
            "redeem(uint256,address,address)",
            &[(shares / U256::from(2)).into(), alice.into(), alice.into()],
            as_alice,
        )
        .unwrap());
    assert!(invariant(&chain));
}

#[test]
fn solmate_token_reverts_transfers_above_the_balance_by_checked_arithmetic() {
    let mut chain = Chain::new(artifacts());
    let token = chain.deploy("Token", (U256::from(1000),)).unwrap();
    let bob = chain.senders()[1];
    let over = chain
        .try_call(
            token,
            "transfer(address,uint256)",
            &[bob.into(), U256::from(1001).into()],
        )
        .unwrap();
    assert_eq!(
        over.revert_reason(),
        Some(&RevertReason::Panic(PanicCode::ArithmeticOverflow))
    );
    let within = chain
        .try_call(
            token,
            "transfer(address,uint256)",
            &[bob.into(), U256::from(10).into()],
        )
        .unwrap();
    assert!(within.is_success(), "{}", within.status);
    let balance: U256 = chain.view(token, "balanceOf(address)", (bob,)).unwrap();
    assert_eq!(balance, U256::from(10));
}

#[test]
fn weth_receive_takes_ether_without_crediting_anyone() {
    let mut chain = Chain::new(artifacts());
    let weth = chain.deploy("WETH", ()).unwrap();
    let alice = chain.senders()[0];
    let solvent = |chain: &Chain| {
        let supply: U256 = chain.view(weth, "totalSupply()", ()).unwrap();
        chain.balance(weth) == supply
    };
    let deposit = chain
        .try_call_with(
            weth,
            "deposit()",
            &[],
            TxOptions {
                sender: Some(alice),
                value: ether(2),
            },
        )
        .unwrap();
    assert!(deposit.is_success() && solvent(&chain), "deposit() credits");
    // The planted bug: a plain ether transfer (empty calldata) runs receive(), which keeps
    // the ether and credits nobody.
    let plain = chain
        .execute(&Tx {
            sender: alice,
            to: weth,
            calldata: Bytes::new(),
            value: ether(1),
            ..Tx::default()
        })
        .unwrap();
    assert!(plain.is_success(), "{}", plain.status);
    assert!(
        !solvent(&chain),
        "ether held must exceed the sum of balances"
    );
    let credited: U256 = chain.view(weth, "balanceOf(address)", (alice,)).unwrap();
    assert_eq!(credited, ether(2));
}

#[test]
fn weth_handler_from_test_dir_drives_the_receive_bug_too() {
    let mut chain = Chain::new(artifacts());
    let weth = chain.deploy("WETH", ()).unwrap();
    let handler = chain
        .deploy_with(
            "WETHHandler",
            &[DynSolValue::Address(weth)],
            TxOptions {
                sender: None,
                value: ether(5),
            },
        )
        .unwrap();
    let sent = chain
        .try_call(handler, "sendPlain(uint256)", &[ether(1).into()])
        .unwrap();
    assert!(sent.is_success(), "{}", sent.status);
    let ghost: U256 = chain.view(handler, "ghostDeposited()", ()).unwrap();
    let held: U256 = chain.view(weth, "balanceOf(address)", (handler,)).unwrap();
    assert_eq!(ghost, ether(1));
    assert_eq!(
        held,
        U256::ZERO,
        "the handler's plain send was not credited"
    );
}

#[test]
fn treasury_links_fee_math_once_and_pays_out_more_than_it_debits() {
    let mut chain = Chain::new(artifacts());
    let treasury = chain.deploy("Treasury", ()).unwrap();
    let second = chain.deploy("Treasury", ()).unwrap();
    let libraries: Vec<_> = chain
        .deployed()
        .iter()
        .filter(|(name, _)| name == "FeeMath")
        .collect();
    assert_eq!(libraries.len(), 1, "FeeMath is deployed once per chain");
    let fee_math = libraries[0].1;
    for address in [treasury, second] {
        let code = chain.code(address);
        assert!(
            code.windows(20).any(|w| w == fee_math.as_slice()),
            "the deployed Treasury calls FeeMath at its address"
        );
    }
    // The linked runtime code keeps its source map: the library call maps to its line.
    let artifact = chain.artifact_at(treasury).unwrap();
    assert_eq!(artifact.runtime_code, chain.code(treasury));
    assert!(artifact.source_locations().any(|(_, loc)| {
        loc.file.path == Path::new("src/Treasury.sol")
            && loc
                .file
                .line_text(loc.line)
                .unwrap()
                .contains("FeeMath.fee(")
    }));

    let alice = chain.senders()[0];
    let as_alice = |value| TxOptions {
        sender: Some(alice),
        value,
    };
    let solvent = |chain: &Chain| {
        let owed: U256 = chain.view(treasury, "owed()", ()).unwrap();
        chain.balance(treasury) >= owed
    };
    let deposit = chain
        .try_call_with(treasury, "deposit()", &[], as_alice(ether(1)))
        .unwrap();
    assert!(deposit.is_success() && solvent(&chain));
    // The planted bug: withdrawing pays `amount` but debits `amount - fee`.
    let withdraw = chain
        .try_call_with(
            treasury,
            "withdraw(uint256)",
            &[ether(1).into()],
            as_alice(U256::ZERO),
        )
        .unwrap();
    assert!(withdraw.is_success(), "{}", withdraw.status);
    assert!(!solvent(&chain), "the treasury owes more than it holds");
}

#[test]
fn a_pragma_no_installed_compiler_satisfies_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("foundry.toml"), "[profile.default]\n").unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/Old.sol"),
        "pragma solidity =0.8.5;\ncontract Old {}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("src/New.sol"),
        "pragma solidity ^0.8.20;\ncontract New {}\n",
    )
    .unwrap();
    let err = ProjectConfig::discover_in(dir.path(), environment())
        .unwrap()
        .compile_in(environment())
        .unwrap_err();
    assert!(matches!(err, Error::NoSolcForPragma { .. }), "{err:?}");
    let text = err.to_string();
    for part in ["src/Old.sol =0.8.5", "0.8.28", "0.8.7", "svm install 0.8.5"] {
        assert!(text.contains(part), "`{part}` missing from:\n{text}");
    }
    assert!(!text.contains("src/New.sol"), "{text}");
}

// ------------------------------------------------------------------ campaigns on the fixture

/// A campaign on the fixture with seed 1 and `runs` sequences. The campaign compiles its
/// root through the per-process memo, so the fixture is compiled in its environment first.
fn campaign<'a>(runs: u64) -> Campaign<'a> {
    artifacts();
    Campaign::new(fixture()).seed(1).runs(runs)
}

#[test]
fn campaign_on_the_openzeppelin_vault_finds_no_violation() {
    let outcome = campaign(3_000)
        .setup(|chain: &mut Chain| {
            let asset = chain.deploy("MockAsset", ())?;
            let vault = chain.deploy("Vault", (asset,))?;
            for sender in chain.senders().to_vec() {
                chain.call(asset, "mint(address,uint256)", (sender, ether(1_000)))?;
                chain.call_as(
                    sender,
                    asset,
                    "approve(address,uint256)",
                    (vault, U256::MAX),
                )?;
            }
            chain.fuzz(vault);
            chain.fuzz(asset);
            Ok(())
        })
        .invariant("assets cover the value of every share", |chain: &Chain| {
            let vault = chain.get("Vault");
            let total_assets: U256 = chain.view(vault, "totalAssets()", ()).unwrap();
            let supply: U256 = chain.view(vault, "totalSupply()", ()).unwrap();
            let value: U256 = chain
                .view(vault, "convertToAssets(uint256)", (supply,))
                .unwrap();
            total_assets >= value
        })
        .run()
        .unwrap();
    assert!(outcome.passed(), "{:?}", outcome.failures);
    // The vault was really exercised: deposits succeeded, not only reverts.
    let deposits = outcome
        .stats
        .functions
        .iter()
        .find(|f| f.signature == "deposit(uint256,address)")
        .expect("deposit is fuzzed");
    assert!(deposits.calls > deposits.reverts, "{deposits:?}");
}

#[test]
fn campaign_on_the_solmate_token_counts_no_checked_arithmetic_revert() {
    // Holders come from the Transfer logs: the fuzzer may send tokens to any address, and the
    // invariant still sums every balance (no ghost variables, no false positive).
    let outcome = campaign(3_000)
        .setup(|chain: &mut Chain| {
            let token = chain.deploy("Token", (ether(1_000_000),))?;
            for sender in chain.senders().to_vec() {
                chain.call(token, "transfer(address,uint256)", (sender, ether(100)))?;
            }
            chain.fuzz(token);
            Ok(())
        })
        .invariant(
            "the supply is the sum of every holder's balance",
            |chain: &Chain| {
                let token = chain.get("Token");
                let mut holders: Vec<Address> = chain
                    .events_of("Transfer(address,address,uint256)")
                    .unwrap()
                    .into_iter()
                    .filter_map(|(_, values)| values[1].as_address())
                    .collect();
                holders.sort();
                holders.dedup();
                let sum = holders.iter().fold(U256::ZERO, |sum, holder| {
                    sum + chain
                        .view::<U256>(token, "balanceOf(address)", (*holder,))
                        .unwrap()
                });
                chain.view::<U256>(token, "totalSupply()", ()).unwrap() == sum
            },
        )
        .run()
        .unwrap();
    assert!(outcome.passed(), "{:?}", outcome.failures);
    let transfers = outcome
        .stats
        .functions
        .iter()
        .find(|f| f.signature == "transfer(address,uint256)")
        .expect("transfer is fuzzed");
    assert!(
        transfers.reverts > 0 && transfers.calls > transfers.reverts,
        "transfers both within and above balances: {transfers:?}"
    );
}

#[test]
fn campaign_finds_the_treasury_paying_out_more_than_it_debits() {
    let outcome = campaign(20_000)
        .contract("Treasury")
        .invariant("the treasury holds what it owes", |chain: &Chain| {
            let treasury = chain.get("Treasury");
            let owed: U256 = chain.view(treasury, "owed()", ()).unwrap();
            chain.balance(treasury) >= owed
        })
        .run()
        .unwrap();
    let failure = outcome
        .failure()
        .cloned()
        .expect("the planted bug is found");
    let calls: Vec<&str> = failure.calls.iter().map(|c| c.signature.as_str()).collect();
    assert_eq!(calls, ["deposit()", "withdraw(uint256)"], "{failure:?}");
}

#[test]
fn campaign_finds_the_weth_receive_bug_with_the_exact_solvency_invariant() {
    // The exact invariant forge's handler suite checks (ether held == sum of balances), over
    // every account that can hold WETH: address arguments are kept to the senders and the
    // deployed contracts, so no transfer reaches an account the sum misses.
    let outcome = campaign(20_000)
        .setup(|chain: &mut Chain| {
            let weth = chain.deploy("WETH", ())?;
            chain.set_address_args(AddressArgs::SendersAndContracts)?;
            chain.fuzz(weth);
            Ok(())
        })
        .invariant("ether held == sum of balances", |chain: &Chain| {
            let weth = chain.get("WETH");
            let mut holders = chain.senders().to_vec();
            holders.extend(chain.deployed().iter().map(|(_, address)| *address));
            let sum = holders.iter().fold(U256::ZERO, |sum, holder| {
                sum + chain
                    .view::<U256>(weth, "balanceOf(address)", (*holder,))
                    .unwrap()
            });
            chain.balance(weth) == sum
        })
        .run()
        .unwrap();
    let failure = outcome
        .failure()
        .cloned()
        .expect("the planted bug is found");
    let calls: Vec<&str> = failure.calls.iter().map(|c| c.signature.as_str()).collect();
    assert_eq!(calls, ["receive()"], "{failure:?}");
    assert!(!failure.calls[0].value.is_zero());
}
