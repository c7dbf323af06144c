//! Compiling Solidity with foundry-compilers and a real solc (the repo's solcjs shim):
//! cache hits, the pc → line index, and the errors a user sees for bad input.

use std::path::Path;
use std::sync::Arc;

use harvey::Error;
use harvey::project::{ProjectConfig, compiled};

use crate::support::{artifacts, environment, project, repo, shim};

const GUARD: &str = "// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Guard {
    function check(uint256 x) external pure returns (uint256) {
        require(x != 7, \"seven\");
        return x + 1;
    }
}
";

/// `ProjectConfig::discover` in the tests' [`environment`].
fn discover(root: &Path) -> harvey::Result<ProjectConfig> {
    ProjectConfig::discover_in(root, &environment())
}

#[test]
fn second_compile_is_a_cache_hit() {
    let dir = project("", &[("Guard.sol", GUARD)]);
    let config = discover(dir.path()).unwrap();
    let first = config.compile_in(&environment()).unwrap();
    assert!(!first.cache_hit(), "a fresh project must be compiled");
    let second = config.compile_in(&environment()).unwrap();
    assert!(
        second.cache_hit(),
        "unchanged sources must not be recompiled"
    );
    let (a, b) = (first.get("Guard").unwrap(), second.get("Guard").unwrap());
    assert_eq!(a.runtime_code, b.runtime_code);
    assert_eq!(a.runtime_source_map, b.runtime_source_map);
    assert_eq!(
        b.sources.iter().count(),
        1,
        "cached builds keep their source table"
    );
}

#[test]
fn a_source_deleted_since_the_last_compile_is_gone_not_an_error() {
    let gate = GUARD.replace("Guard", "Gate");
    let dir = project("", &[("Guard.sol", GUARD), ("Gate.sol", gate.as_str())]);
    let config = discover(dir.path()).unwrap();
    let first = config.compile_in(&environment()).unwrap();
    assert!(first.get("Gate").is_ok());
    // The cached build that compiled both files still lists the deleted one.
    std::fs::remove_file(dir.path().join("contracts").join("Gate.sol")).unwrap();
    let second = config.compile_in(&environment()).unwrap();
    assert_eq!(
        second.get("Guard").unwrap().runtime_code,
        first.get("Guard").unwrap().runtime_code
    );
    let gone = second.get("Gate").unwrap_err().to_string();
    assert!(gone.contains("Guard"), "{gone}");
}

#[test]
fn artifacts_carry_abi_bytecode_and_a_pc_to_line_index() {
    let dir = project("", &[("Guard.sol", GUARD)]);
    let artifacts = discover(dir.path())
        .unwrap()
        .compile_in(&environment())
        .unwrap();
    let guard = artifacts.get("Guard").unwrap();
    assert_eq!(guard.source_path, Path::new("contracts/Guard.sol"));
    assert!(guard.abi.function("check").is_some());
    assert!(guard.is_deployable() && !guard.runtime_code.is_empty());
    // The condition `x != 7` on line 5 has instructions of its own (solc 0.8.28 emits a SUB),
    // and the require's branch (a JUMPI, 0x57) maps to the same line.
    let text_of = |loc: &harvey::project::SourceLocation<'_>| {
        loc.file.content[loc.offset as usize..(loc.offset + loc.length) as usize].to_string()
    };
    let condition: Vec<_> = guard
        .source_locations()
        .filter(|(_, loc)| text_of(loc) == "x != 7")
        .collect();
    assert!(!condition.is_empty(), "no instruction maps to `x != 7`");
    assert!(
        condition
            .iter()
            .all(|(_, loc)| loc.line == 5 && loc.end_line == 5)
    );
    const JUMPI: u8 = 0x57;
    assert!(
        guard
            .source_locations()
            .any(|(pc, loc)| guard.runtime_code[pc] == JUMPI && loc.line == 5),
        "the require's branch is not on line 5"
    );
    for (_, loc) in guard.source_locations() {
        assert!(loc.line <= loc.end_line && loc.file.line_text(loc.end_line).is_some());
    }
}

#[test]
fn compile_errors_show_solc_messages_with_file_line_column() {
    let broken = "pragma solidity ^0.8.0;\ncontract Broken {\n    function f() external { undefinedThing(); }\n}\n";
    let dir = project("", &[("Broken.sol", broken)]);
    let err = discover(dir.path())
        .unwrap()
        .compile_in(&environment())
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::Compile { .. }), "{err:?}");
    assert!(text.contains("Undeclared identifier"), "{text}");
    assert!(text.contains("contracts/Broken.sol:3:29"), "{text}");
}

#[test]
fn unknown_and_ambiguous_contract_names_list_the_choices() {
    let token = |file: &str| {
        format!("pragma solidity ^0.8.0;\ncontract Token {{ uint256 public {file}; }}\n")
    };
    let (a, b) = (token("a"), token("b"));
    let dir = project("", &[("A.sol", &a), ("B.sol", &b), ("Guard.sol", GUARD)]);
    let artifacts = discover(dir.path())
        .unwrap()
        .compile_in(&environment())
        .unwrap();

    let err = artifacts.get("Vault").unwrap_err().to_string();
    assert!(err.contains("unknown contract `Vault`"), "{err}");
    assert!(
        err.contains("Guard") && err.contains("contracts/A.sol:Token"),
        "{err}"
    );

    let err = artifacts.get("Token").unwrap_err().to_string();
    assert!(
        err.contains("ambiguous") && err.contains("contracts/B.sol:Token"),
        "{err}"
    );
    let b = artifacts.get("contracts/B.sol:Token").unwrap();
    assert!(b.abi.function("b").is_some());
}

#[test]
fn a_configured_solc_that_does_not_exist_is_a_clear_error() {
    let dir = project("", &[("Guard.sol", GUARD)]);
    let toml = "[profile.default]\nsrc = \"contracts\"\nsolc = \"bin/solc-missing\"\n";
    std::fs::write(dir.path().join("foundry.toml"), toml).unwrap();
    let err = discover(dir.path())
        .unwrap()
        .compile_in(&environment())
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::SolcNotFound { .. }), "{err:?}");
    assert!(
        text.contains("foundry.toml `solc` = \"bin/solc-missing\""),
        "{text}"
    );
    assert!(text.contains("Fix:"), "{text}");
}

#[test]
fn a_project_without_sources_says_where_it_looked() {
    let dir = project("", &[]);
    let text = discover(dir.path())
        .unwrap()
        .compile_in(&environment())
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("no Solidity sources") && text.contains("contracts"),
        "{text}"
    );
}

#[test]
fn compiled_shares_one_compilation_per_process() {
    // The first compilation of a root is the process' (here in the tests' environment, as
    // `artifacts` compiles it); later calls, whatever their environment, share it.
    let first = artifacts();
    let second = compiled(repo()).unwrap();
    assert!(Arc::ptr_eq(&first, &second));
    assert!(
        first.contracts().next().is_some(),
        "the repo's contracts/ compile"
    );
}

#[test]
fn a_remapping_whose_target_is_missing_is_kept_and_named_when_an_import_needs_it() {
    let toml = |dir: &Path| {
        let text = format!(
            "[profile.default]\nsrc = \"contracts\"\nsolc = {:?}\nremappings = [\"gone/=lib/gone/src/\"]\n",
            shim().display().to_string()
        );
        std::fs::write(dir.join("foundry.toml"), text).unwrap();
    };
    // As forge: a remapping no import uses does not stop the build.
    let unused = project("", &[("Guard.sol", GUARD)]);
    toml(unused.path());
    let artifacts = discover(unused.path())
        .unwrap()
        .compile_in(&environment())
        .unwrap();
    assert!(artifacts.get("Guard").is_ok());
    // An import through it fails with solc's message and the remapping named.
    let user = "pragma solidity ^0.8.0;\nimport {Gone} from \"gone/Gone.sol\";\ncontract User {}\n";
    let used = project("", &[("User.sol", user)]);
    toml(used.path());
    let err = discover(used.path())
        .unwrap()
        .compile_in(&environment())
        .unwrap_err();
    assert!(matches!(err, Error::Compile { .. }), "{err:?}");
    let text = err.to_string();
    for part in [
        "gone/Gone.sol",
        "`gone/=lib/gone/src/`",
        "foundry.toml `remappings`",
        "lib/gone/src",
        "does not exist",
    ] {
        assert!(text.contains(part), "`{part}` missing from:\n{text}");
    }
}

#[test]
fn an_explicit_solc_is_binding_and_a_pragma_it_fails_names_the_file() {
    let pinned = "pragma solidity =0.8.7;\ncontract Pinned {}\n";
    let dir = project("", &[("Guard.sol", GUARD), ("Pinned.sol", pinned)]);
    let err = discover(dir.path())
        .unwrap()
        .compile_in(&environment())
        .unwrap_err();
    assert!(matches!(err, Error::NoSolcForPragma { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("contracts/Pinned.sol =0.8.7"), "{text}");
    assert!(text.contains("foundry.toml `solc`"), "{text}");
    assert!(text.contains("is used for every file"), "{text}");
    assert!(!text.contains("Guard.sol"), "{text}");
}

#[test]
fn a_library_that_cannot_be_deployed_is_a_link_error_naming_it_and_its_user() {
    // The library's runtime code exceeds the 24 KiB code size limit foundry.toml sets, so
    // deploying it fails.
    let big = format!(
        "pragma solidity ^0.8.0;\nlibrary Big {{\n    function blob() external pure returns (bytes memory) {{ return hex\"{}\"; }}\n}}\n",
        "ab".repeat(25_000)
    );
    let user = "pragma solidity ^0.8.0;\nimport {Big} from \"./Big.sol\";\ncontract User {\n    function size() external pure returns (uint256) { return Big.blob().length; }\n}\n";
    let dir = project(
        "code_size_limit = 24576\n",
        &[("Big.sol", &big), ("User.sol", user)],
    );
    let artifacts = Arc::new(
        discover(dir.path())
            .unwrap()
            .compile_in(&environment())
            .unwrap(),
    );
    let user = artifacts.get("User").unwrap();
    assert_eq!(user.libraries.len(), 1);
    assert_eq!(user.libraries[0].qualified_name(), "contracts/Big.sol:Big");
    let mut chain = harvey::chain::Chain::new(artifacts);
    let err = chain.deploy("User", ()).unwrap_err();
    assert!(matches!(err, Error::Link { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("cannot link library `contracts/Big.sol:Big` into `contracts/User.sol:User`"),
        "{text}"
    );
    assert!(text.contains("deploying it failed"), "{text}");
    assert!(!text.contains("no creation code"), "{text}");
}
