//! The public suites the bench runs, each at a pinned commit, with what materialising it
//! takes, the settings both tools run it with, and its planted bugs. `README.md` beside this
//! file has the same table for people, with forge's results checked by hand.

use super::weth;

/// A public invariant or property suite at a pinned commit.
pub(crate) struct Suite {
    /// Short name (`HARVEY_SUITES_ONLY`, the scratch directory, the table).
    pub(crate) name: &'static str,
    /// `<owner>+<name>` under the mirrors directory.
    pub(crate) mirror: &'static str,
    /// The pinned commit.
    pub(crate) commit: &'static str,
    /// Only these paths of the repository are extracted (`git archive <commit> <paths>`);
    /// empty: all of it.
    pub(crate) paths: &'static [&'static str],
    /// The forge project's directory inside the copy ("" for the repository's root).
    pub(crate) root: &'static str,
    /// Libraries put where the suite's submodules would be, relative to the copy.
    pub(crate) deps: &'static [Dep],
    /// Files and directories of the copy left out (they need what the bench does not
    /// install, or clash with the suite's contract names).
    pub(crate) exclude: &'static [&'static str],
    /// foundry.toml for a project that has none (Echidna exercises); else the project's own
    /// is kept. Either way the bench adds `solc` (the shim) and `offline = true`.
    pub(crate) foundry_toml: Option<&'static str>,
    /// remappings.txt written over the project's (weth: forge-std's npm layout).
    pub(crate) remappings: Option<&'static str>,
    /// solcjs version for suites pinning an exact older pragma (`solc-at <version>`);
    /// `None`: the shim's default 0.8.28.
    pub(crate) solc_at: Option<&'static str>,
    /// The Echidna yaml or medusa.json the suite's own command line names (`echidna <file>
    /// --config <config>`), relative to the project's directory: given to harvey as
    /// `Campaign::suite_config`. `None`: harvey's rule finds the config, if any.
    pub(crate) config: Option<&'static str>,
    /// The test contract.
    pub(crate) test_contract: &'static str,
    /// How the suite is written (for the table).
    pub(crate) style: &'static str,
    /// The cheatcodes its setUp and handlers call (for the table; see README.md).
    pub(crate) cheatcodes: &'static str,
    /// How harvey runs it: the suite's own `[invariant]`/Echidna settings.
    pub(crate) depth: u32,
    /// forge's `[invariant] fail_on_revert` of the profile the suite is run with.
    pub(crate) fail_on_revert: bool,
    /// How forge runs it, or why it cannot.
    pub(crate) forge: Forge,
    /// A fix applied to every copy (challenges whose published code is the bug); the
    /// repository's own code is then one of the bugs.
    pub(crate) fix: Option<Patch>,
    /// The planted bugs.
    pub(crate) bugs: &'static [Bug],
}

/// How forge runs a suite.
pub(crate) enum Forge {
    /// `forge test --mc <test contract>`; unpatched, every `invariant*` function, each with
    /// an equal share of the budget.
    Invariants {
        /// `FOUNDRY_PROFILE` the suite's docs run it with.
        profile: Option<&'static str>,
        /// The suite's invariants.
        invariants: &'static [&'static str],
        /// Directories deleted before each run besides `cache/invariant` (a corpus forge
        /// would replay).
        state: &'static [&'static str],
    },
    /// forge has no way to run the suite; the reason (what it does instead) is printed.
    NotApplicable(&'static str),
}

/// A library put into the copy.
pub(crate) enum Dep {
    /// A repository's files at a commit (the suite's submodule pin), from the mirrors.
    Mirror {
        path: &'static str,
        mirror: &'static str,
        commit: &'static str,
    },
    /// An npm package's files (`npm pack`), e.g. `@openzeppelin/contracts@4.8.3`.
    Npm {
        path: &'static str,
        package: &'static str,
    },
    /// forge-std 1.9.7 as bundled by `@layerzerolabs/toolbox-foundry@0.1.13`.
    ForgeStdNpm { path: &'static str },
}

/// `from` replaced by `to` in `file` (relative to the copy), which must hold `from` once.
pub(crate) struct Patch {
    pub(crate) file: &'static str,
    pub(crate) from: &'static str,
    pub(crate) to: &'static str,
}

/// One planted bug.
pub(crate) struct Bug {
    /// Short name, also the copy's directory name.
    pub(crate) name: &'static str,
    /// The bug as a replacement; `None` for the repository's own code when the suite has a
    /// `fix` (the bug is the fix left out).
    pub(crate) patch: Option<Patch>,
    /// What a tool must report for the bug to count as found.
    pub(crate) expect: Expect,
    /// The invariant forge fuzzes for it (forge runs one invariant per campaign).
    pub(crate) forge_invariant: Option<&'static str>,
    /// Direct calls showing the bug on the patched copy and not on the unpatched one
    /// (checked before measuring); weth only.
    pub(crate) witness: Option<fn(&mut weth::Witness) -> bool>,
}

/// What counts as finding a bug.
pub(crate) enum Expect {
    /// One of these invariants (`invariant*`, `echidna_*`, `property_*`) is reported broken.
    Invariant(&'static [&'static str]),
    /// A fuzzed call ended in Panic `code` raised in `contract`'s code: harvey's Panic
    /// violation, or its revert (`fail_on_revert`) whose reason is that Panic, placed in
    /// `contract`; forge's `[FAIL: panic: … (0x..)]`, whose text is all forge gives.
    PanicIn { code: u8, contract: &'static str },
    /// Assertion mode: an assertion failed (Panic 0x01, an `AssertionFailed` event, or a
    /// failed forge-std assertion's revert) in a call to one of these functions, the failing
    /// sequence's last call.
    AssertionIn(&'static [&'static str]),
}

impl Expect {
    /// For the table.
    pub(crate) fn describe(&self) -> String {
        match self {
            Expect::Invariant(names) => names.join(" or "),
            Expect::PanicIn { code, contract } => format!("Panic 0x{code:02x} in {contract}"),
            Expect::AssertionIn(calls) => format!("assertion in {}", calls.join(" or ")),
        }
    }
}

/// forge-std for the suites that pin no usable version (weth's pin is not in its mirror's
/// archive: the submodules are empty).
const FORGE_STD: &str = "foundry-rs+forge-std";

pub(crate) const SUITES: &[Suite] = &[
    Suite {
        name: "weth",
        mirror: "horsefacts+weth-invariant-testing",
        commit: "652820729e1e37e5517edcd3cba60875dd32fd46",
        paths: &[],
        root: "",
        deps: &[Dep::ForgeStdNpm {
            path: "lib/forge-std",
        }],
        exclude: &["test/WETH9.symbolic.t.sol"],
        foundry_toml: None,
        remappings: Some("forge-std/=lib/forge-std/\n"),
        solc_at: None,
        config: None,
        test_contract: "WETH9Invariants",
        style: "forge handler (ghost variables, actors, targetSelector)",
        cheatcodes: "prank, startPrank, stopPrank, deal",
        depth: 25,
        fail_on_revert: false,
        forge: Forge::Invariants {
            profile: None,
            invariants: &[
                "invariant_conservationOfETH",
                "invariant_solvencyDeposits",
                "invariant_solvencyBalances",
                "invariant_depositorBalances",
                "invariant_callSummary",
            ],
            state: &[],
        },
        fix: None,
        bugs: &weth::BUGS,
    },
    Suite {
        name: "lucas-4626",
        mirror: "lucas-manuel+invariant-examples",
        commit: "ecca083dbda5419c3a6c3d09555938350944ba82",
        paths: &[],
        root: "",
        deps: &[
            Dep::Mirror {
                path: "lib/forge-std",
                mirror: FORGE_STD,
                commit: "405727dc7580aaaa6e5b626638dd37ff171beae3",
            },
            Dep::Mirror {
                path: "lib/forge-std/lib/ds-test",
                mirror: "dapphub+ds-test",
                commit: "cd98eff28324bfac652e63a239a60632a761790b",
            },
            Dep::Mirror {
                path: "lib/erc20",
                mirror: "maple-labs+erc20",
                commit: "b2fd236e9a69a96d8eb3d5ac86e3260904d1d04b",
            },
        ],
        // maple's own tests need its contract-test-utils submodule.
        exclude: &[
            "lib/erc20/contracts/test/ERC20.t.sol",
            "lib/erc20/contracts/test/accounts",
        ],
        foundry_toml: None,
        remappings: None,
        solc_at: Some("0.8.7-fixed"),
        config: None,
        test_contract: "BoundedInvariants",
        style: "forge handler (bounded LP/transfer handlers), fail_on_revert",
        cheatcodes: "startPrank, stopPrank, prank, store/load (DSTest fail)",
        depth: 200,
        fail_on_revert: true,
        forge: Forge::Invariants {
            profile: Some("no_revert"),
            invariants: &[
                "invariant_A",
                "invariant_B",
                "invariant_C",
                "invariant_D_E_F",
                "invariant_call_summary",
            ],
            state: &[],
        },
        fix: None,
        bugs: &[Bug {
            name: "deposit-mints-assets-as-supply",
            patch: Some(Patch {
                file: "src/Basic4626Deposit.sol",
                from: "totalSupply += shares_;",
                to: "totalSupply += assets_;",
            }),
            expect: Expect::Invariant(&["invariant_C", "invariant_A", "invariant_D_E_F"]),
            forge_invariant: Some("invariant_C"),
            witness: None,
        }],
    },
    Suite {
        name: "dsc",
        mirror: "Cyfrin+foundry-defi-stablecoin-cu",
        commit: "d8e2eb6c17fc6577439a2f4552fd247fda1f91c3",
        paths: &[],
        root: "",
        deps: &[
            Dep::Mirror {
                path: "lib/forge-std",
                mirror: FORGE_STD,
                commit: "fc560fa34fa12a335a50c35d92e55a6628ca467c",
            },
            Dep::Mirror {
                path: "lib/forge-std/lib/ds-test",
                mirror: "dapphub+ds-test",
                commit: "e282159d5170298eb2455a6c05280ab5a73a4ef0",
            },
            Dep::Npm {
                path: "lib/openzeppelin-contracts/contracts",
                package: "@openzeppelin/contracts@4.8.3",
            },
            Dep::Npm {
                path: "lib/chainlink-brownie-contracts/contracts",
                package: "@chainlink/contracts@0.6.1",
            },
        ],
        exclude: &[],
        foundry_toml: None,
        remappings: None,
        solc_at: Some("0.8.19"),
        config: None,
        test_contract: "StopOnRevertInvariants",
        style: "DeFi; setUp runs the deploy script (startBroadcast), Chainlink staleness check, fail_on_revert",
        cheatcodes: "startBroadcast(), startBroadcast(uint256), stopBroadcast, startPrank, stopPrank, prank, addr, label",
        depth: 64,
        fail_on_revert: true,
        forge: Forge::Invariants {
            profile: None,
            invariants: &[
                "invariant_protocolMustHaveMoreValueThatTotalSupplyDollars",
                "invariant_gettersCantRevert",
            ],
            state: &[],
        },
        fix: None,
        bugs: &[Bug {
            name: "health-factor-divides-by-zero-debt",
            patch: Some(Patch {
                file: "src/DSCEngine.sol",
                from: "        if (totalDscMinted == 0) return type(uint256).max;\n",
                to: "",
            }),
            expect: Expect::PanicIn {
                code: 0x12,
                contract: "DSCEngine",
            },
            forge_invariant: Some("invariant_protocolMustHaveMoreValueThatTotalSupplyDollars"),
            witness: None,
        }],
    },
    Suite {
        name: "chimera-counter",
        mirror: "Recon-Fuzz+create-chimera-app",
        commit: "3620e32076c383818795a126d6f4ffb84851cb9f",
        paths: &[],
        root: "",
        deps: &[
            Dep::Mirror {
                path: "lib/forge-std",
                mirror: FORGE_STD,
                commit: "1801b0541f4fda118a10798fd3486bb7051c5dd6",
            },
            Dep::Mirror {
                path: "lib/chimera",
                mirror: "Recon-Fuzz+chimera",
                commit: "aaa856e70f2756fd3762bd7665262dba13ff0dd7",
            },
            Dep::Mirror {
                path: "lib/setup-helpers",
                mirror: "Recon-Fuzz+setup-helpers",
                commit: "0f7abac8f096768817cc7a1d2dcdb01ee8fb278e",
            },
        ],
        exclude: &[],
        foundry_toml: None,
        remappings: None,
        solc_at: None,
        config: None,
        test_contract: "CryticToFoundry",
        style: "Chimera (handlers on the test contract, assertions in handlers), via-IR",
        cheatcodes: "startPrank, stopPrank, prank, assertTrue/assertGt",
        depth: 500,
        fail_on_revert: false,
        forge: Forge::Invariants {
            profile: Some("invariants"),
            invariants: &["invariant_number_never_zero"],
            state: &["foundry/corpus"],
        },
        fix: None,
        bugs: &[Bug {
            name: "setNumber-accepts-zero",
            patch: Some(Patch {
                file: "src/Counter.sol",
                from: "        if (newNumber != 0) {\n            number = newNumber;\n        }",
                to: "        number = newNumber;",
            }),
            expect: Expect::Invariant(&["invariant_number_never_zero"]),
            forge_invariant: Some("invariant_number_never_zero"),
            witness: None,
        }],
    },
    Suite {
        name: "vesting",
        mirror: "devdacian+solidity-fuzzing-comparison",
        commit: "125071f38b632b9df2c3e9c3b228b30d0a88826c",
        paths: &[],
        root: "",
        deps: VESTING_DEPS,
        // The other challenges (they need OpenZeppelin's submodules) and their harnesses.
        exclude: VESTING_EXCLUDE,
        foundry_toml: None,
        remappings: None,
        solc_at: None,
        config: None,
        test_contract: "VestingCryticToFoundry",
        style: "Chimera handler suite (property_* wrapped in invariant_*), targetSelector",
        cheatcodes: "prank, assertTrue",
        depth: 500,
        fail_on_revert: false,
        forge: Forge::Invariants {
            profile: None,
            invariants: &["invariant_users_points_sum_eq_total_points"],
            state: &[],
        },
        fix: Some(VESTING_FIX),
        bugs: &[Bug {
            name: "self-transfer-doubles-points",
            patch: None,
            expect: Expect::Invariant(&["invariant_users_points_sum_eq_total_points"]),
            forge_invariant: Some("invariant_users_points_sum_eq_total_points"),
            witness: None,
        }],
    },
    Suite {
        name: "vesting-echidna",
        mirror: "devdacian+solidity-fuzzing-comparison",
        commit: "125071f38b632b9df2c3e9c3b228b30d0a88826c",
        paths: &[],
        root: "",
        deps: VESTING_DEPS,
        exclude: VESTING_EXCLUDE,
        foundry_toml: None,
        remappings: None,
        solc_at: None,
        config: None,
        test_contract: "VestingCryticTester",
        style: "Chimera for Echidna/Medusa: property_* returning bool, constructor setup, \
                handler with hevm.prank",
        cheatcodes: "prank",
        depth: 100,
        fail_on_revert: false,
        forge: Forge::NotApplicable("no test* or invariant* function: forge finds no tests"),
        fix: Some(VESTING_FIX),
        bugs: &[Bug {
            name: "self-transfer-doubles-points",
            patch: None,
            expect: Expect::Invariant(&["property_users_points_sum_eq_total_points"]),
            forge_invariant: None,
            witness: None,
        }],
    },
    Suite {
        name: "crytic-erc20",
        mirror: "crytic+properties",
        commit: "c793cd93c8f583471842f53029e325aec94f96b5",
        paths: &[],
        root: "tests/ERC20/foundry",
        deps: &[
            Dep::Npm {
                path: "lib/openzeppelin-contracts/contracts",
                package: "@openzeppelin/contracts@4.8.0",
            },
            Dep::Mirror {
                path: "lib/forge-std",
                mirror: FORGE_STD,
                commit: "5bbb2aa82d86456dbf03305c3704cbd4fa93473f",
            },
            Dep::Mirror {
                path: "lib/forge-std/lib/ds-test",
                mirror: "dapphub+ds-test",
                commit: "cd98eff28324bfac652e63a239a60632a761790b",
            },
            // The project's remappings.txt also points `forge-std/` and `ds-test/` into
            // its own `lib/` (which its empty .gitmodules never fills): forge ignores
            // remappings no import uses, harvey refuses one whose directory is missing, so
            // forge-std is put there too.
            Dep::Mirror {
                path: "tests/ERC20/foundry/lib/forge-std",
                mirror: FORGE_STD,
                commit: "5bbb2aa82d86456dbf03305c3704cbd4fa93473f",
            },
            Dep::Mirror {
                path: "tests/ERC20/foundry/lib/forge-std/lib/ds-test",
                mirror: "dapphub+ds-test",
                commit: "cd98eff28324bfac652e63a239a60632a761790b",
            },
        ],
        exclude: &[],
        foundry_toml: None,
        remappings: None,
        solc_at: None,
        config: None,
        test_contract: "CryticERC20InternalHarness",
        style: "Echidna/Medusa assertion mode, test_ERC20_* properties, constructor setup",
        cheatcodes: "none",
        depth: 100,
        fail_on_revert: false,
        forge: Forge::NotApplicable(
            "forge runs test_* as stateless fuzz tests from its own sender: 12 of 17 fail \
             on the clean token (their require preconditions revert)",
        ),
        fix: None,
        bugs: &[Bug {
            name: "transferFrom-keeps-allowance",
            patch: Some(Patch {
                file: "lib/openzeppelin-contracts/contracts/token/ERC20/ERC20.sol",
                from: "        _spendAllowance(from, spender, amount);\n",
                to: "",
            }),
            // Both properties check that `transferFrom` spends the allowance ("Allowance
            // not updated correctly"): the bug breaks each.
            expect: Expect::AssertionIn(&[
                "test_ERC20_transferFrom",
                "test_ERC20_spendAllowanceAfterTransfer",
            ]),
            forge_invariant: None,
            witness: None,
        }],
    },
    Suite {
        name: "crytic-erc4626",
        mirror: "crytic+properties",
        commit: "c793cd93c8f583471842f53029e325aec94f96b5",
        paths: &[],
        root: "tests/ERC4626/foundry",
        deps: &[
            Dep::Npm {
                path: "lib/openzeppelin-contracts/contracts",
                package: "@openzeppelin/contracts@4.8.0",
            },
            Dep::Mirror {
                path: "lib/solmate",
                mirror: "transmissions11+solmate",
                commit: "1b3adf677e7e383cc684b5d5bd441da86bf4bf1c",
            },
            Dep::Mirror {
                path: "lib/forge-std",
                mirror: FORGE_STD,
                commit: "5bbb2aa82d86456dbf03305c3704cbd4fa93473f",
            },
            Dep::Mirror {
                path: "lib/forge-std/lib/ds-test",
                mirror: "dapphub+ds-test",
                commit: "cd98eff28324bfac652e63a239a60632a761790b",
            },
        ],
        exclude: &[],
        foundry_toml: None,
        remappings: None,
        solc_at: None,
        config: None,
        test_contract: "CryticERC4626InternalHarness",
        style: "Echidna/Medusa assertion mode, verify_* properties over a solmate vault",
        cheatcodes: "none",
        depth: 100,
        fail_on_revert: false,
        forge: Forge::NotApplicable("no test* or invariant* function: forge finds no tests"),
        fix: None,
        bugs: &[Bug {
            name: "withdraw-keeps-allowance",
            patch: Some(Patch {
                file: "lib/solmate/src/mixins/ERC4626.sol",
                from: "rounds up.\n\n        if (msg.sender != owner) {\n            \
                       uint256 allowed = allowance[owner][msg.sender]; \
                       // Saves gas for limited approvals.\n\n            \
                       if (allowed != type(uint256).max) \
                       allowance[owner][msg.sender] = allowed - shares;\n",
                to: "rounds up.\n\n        if (msg.sender != owner) {\n            \
                     uint256 allowed = allowance[owner][msg.sender]; \
                     // Saves gas for limited approvals.\n\n",
            }),
            // Without the allowance spent, a withdraw through an approved proxy leaves the
            // allowance as it was, and one without approval no longer reverts.
            expect: Expect::AssertionIn(&[
                "verify_withdrawViaApprovalProxy",
                "verify_withdrawRequiresTokenApproval",
            ]),
            forge_invariant: None,
            witness: None,
        }],
    },
    Suite {
        name: "bsc-exercise2",
        mirror: "crytic+building-secure-contracts",
        commit: "2de122e3a6b63bc450a1ec41215f0c44d72fb96b",
        paths: &[BSC_EXERCISE2],
        root: BSC_EXERCISE2,
        deps: &[],
        exclude: &["program-analysis/echidna/exercises/exercise2/template.sol"],
        foundry_toml: Some(EXERCISE_TOML),
        remappings: None,
        solc_at: None,
        config: None,
        test_contract: "TestToken",
        style: "Echidna property mode (echidna_* returns bool)",
        cheatcodes: "none",
        depth: 100,
        fail_on_revert: false,
        forge: Forge::NotApplicable("no test* or invariant* function: forge finds no tests"),
        fix: Some(Patch {
            file: "program-analysis/echidna/exercises/exercise2/token.sol",
            from: "function Owner() public {",
            to: "function Owner() public onlyOwner {",
        }),
        bugs: &[Bug {
            name: "anyone-becomes-owner",
            patch: None,
            expect: Expect::Invariant(&["echidna_no_transfer"]),
            forge_invariant: None,
            witness: None,
        }],
    },
    Suite {
        name: "bsc-exercise4",
        mirror: "crytic+building-secure-contracts",
        commit: "2de122e3a6b63bc450a1ec41215f0c44d72fb96b",
        paths: &[BSC_EXERCISE4],
        root: BSC_EXERCISE4,
        deps: &[],
        exclude: &["program-analysis/echidna/exercises/exercise4/template.sol"],
        foundry_toml: Some(EXERCISE_TOML),
        remappings: None,
        solc_at: None,
        config: None,
        test_contract: "TestToken",
        style: "Echidna assertion mode (assert in an overriding transfer)",
        cheatcodes: "none",
        depth: 100,
        fail_on_revert: false,
        forge: Forge::NotApplicable("no test* or invariant* function: forge finds no tests"),
        fix: Some(Patch {
            file: "program-analysis/echidna/exercises/exercise4/token.sol",
            from: "        unchecked {\n            balances[msg.sender] -= value;\n            \
                   balances[to] += value;\n        }",
            to: "        balances[msg.sender] -= value;\n        balances[to] += value;",
        }),
        bugs: &[Bug {
            name: "unchecked-transfer-underflows",
            patch: None,
            expect: Expect::AssertionIn(&["transfer"]),
            forge_invariant: None,
            witness: None,
        }],
    },
    echidna_test(EchidnaTest {
        name: "echidna-multisender",
        dir: "tests/solidity/basic",
        paths: &[
            "tests/solidity/basic/multisender.sol",
            "tests/solidity/basic/multisender.yaml",
        ],
        config: "multisender.yaml",
        contract: "C",
        style: "Echidna property mode; `sender: [0x1, 0x2, 0x3]`: each of three functions needs its own sender",
        solc_at: None,
        fix: Some(Patch {
            file: "tests/solidity/basic/multisender.sol",
            from: "require(msg.sender == address(0x3));",
            to: "require(msg.sender == address(0x4));",
        }),
        bugs: &[Bug {
            name: "three-senders-set-all-states",
            patch: None,
            expect: Expect::Invariant(&["echidna_all_sender"]),
            forge_invariant: None,
            witness: None,
        }],
    }),
    echidna_test(EchidnaTest {
        name: "echidna-allcontracts",
        dir: "tests/solidity/basic",
        paths: &[
            "tests/solidity/basic/allContracts.sol",
            "tests/solidity/basic/allContracts.yaml",
        ],
        config: "allContracts.yaml",
        contract: "B",
        style: "Echidna property mode; `allContracts: true`: the bug is in `A`, which the harness `B` deploys",
        solc_at: None,
        fix: Some(Patch {
            file: "tests/solidity/basic/allContracts.sol",
            from: "public{\n        bug = false;",
            to: "public{\n        bug = true;",
        }),
        bugs: &[Bug {
            name: "deployed-contract-clears-the-flag",
            patch: None,
            expect: Expect::Invariant(&["echidna_test"]),
            forge_invariant: None,
            witness: None,
        }],
    }),
    echidna_test(EchidnaTest {
        name: "echidna-assert-multi",
        dir: "tests/solidity/assert",
        paths: &[
            "tests/solidity/assert/multi.sol",
            "tests/solidity/assert/multi.yaml",
        ],
        config: "multi.yaml",
        contract: "Test",
        style: "Echidna assertion mode (`testMode: assertion`) with `allContracts: true`: an `AssertionFailed` event in `TestAssert`, which the harness deploys",
        solc_at: None,
        fix: Some(Patch {
            file: "tests/solidity/assert/multi.sol",
            from: "if(val > 128)",
            to: "if(val > 128 && val < 128)",
        }),
        bugs: &[Bug {
            name: "event-assertion-in-deployed-contract",
            patch: None,
            expect: Expect::AssertionIn(&["fail"]),
            forge_invariant: None,
            witness: None,
        }],
    }),
    echidna_test(EchidnaTest {
        name: "echidna-balance",
        dir: "tests/solidity/basic",
        paths: &[
            "tests/solidity/basic/balance.sol",
            "tests/solidity/basic/balance.yaml",
        ],
        config: "balance.yaml",
        contract: "C",
        style: "Echidna property mode; `deployer`, `sender`, `psender` `0x42`, `balanceAddr` 42, `balanceContract` 123 (a payable constructor that pays it back)",
        // `msg.sender.transfer`: before 0.8 (Echidna runs this test only below 0.8).
        solc_at: Some("0.7.6"),
        fix: None,
        bugs: &[Bug {
            name: "constructor-keeps-a-wei",
            patch: Some(Patch {
                file: "tests/solidity/basic/balance.sol",
                from: "msg.sender.transfer(123);",
                to: "msg.sender.transfer(122);",
            }),
            expect: Expect::Invariant(&["echidna_balance"]),
            forge_invariant: None,
            witness: None,
        }],
    }),
    echidna_test(EchidnaTest {
        name: "echidna-no-delay",
        dir: "tests/solidity/basic",
        paths: &[
            "tests/solidity/basic/no-delay.sol",
            "tests/solidity/basic/no-delay.yaml",
        ],
        config: "no-delay.yaml",
        contract: "C",
        style: "Echidna property mode; `maxTimeDelay: 0`, `maxBlockDelay: 0`: the properties hold only if time never moves",
        solc_at: None,
        fix: None,
        bugs: &[Bug {
            name: "g-records-a-later-time",
            patch: Some(Patch {
                file: "tests/solidity/basic/no-delay.sol",
                from: "    blockB = block.number;\n    timeB = block.timestamp;\n  }\n\n  function echidna_block_number",
                to: "    blockB = block.number;\n    timeB = block.timestamp + 1;\n  }\n\n  function echidna_block_number",
            }),
            expect: Expect::Invariant(&["echidna_timestamp"]),
            forge_invariant: None,
            witness: None,
        }],
    }),
    echidna_test(EchidnaTest {
        name: "echidna-whitelist",
        dir: "tests/solidity/basic",
        paths: &[
            "tests/solidity/basic/flags.sol",
            "tests/solidity/basic/whitelist.yaml",
        ],
        config: "whitelist.yaml",
        contract: "Test",
        style: "Echidna property mode; `filterFunctions: [\"Test.set0(int256)\"]`, `filterBlacklist: false`: only `set0` is called; `echidna_revert_always` must revert",
        solc_at: None,
        fix: None,
        bugs: &[Bug {
            name: "set0-clears-flag1",
            patch: Some(Patch {
                file: "tests/solidity/basic/flags.sol",
                from: "flag0 = false;",
                to: "flag1 = false;",
            }),
            expect: Expect::Invariant(&["echidna_sometimesfalse"]),
            forge_invariant: None,
            witness: None,
        }],
    }),
];

const BSC_EXERCISE2: &str = "program-analysis/echidna/exercises/exercise2";
/// crytic/echidna's own test suite (`tests/solidity`, each contract with the yaml its
/// Haskell tests run it with, `src/test/Tests/*.hs` saying which properties are solved).
const ECHIDNA: &str = "crytic+echidna";
const ECHIDNA_COMMIT: &str = "4454f3a337ed58e89a3be488b8eac03e83cd40f2";
/// Why forge cannot run Echidna's tests.
const NO_FORGE_TESTS: Forge =
    Forge::NotApplicable("no test* or invariant* function: forge finds no tests");
const BSC_EXERCISE4: &str = "program-analysis/echidna/exercises/exercise4";

/// An Echidna exercise or test directory has no foundry.toml: its directory is the project.
const EXERCISE_TOML: &str = "[profile.default]\nsrc = \".\"\nout = \"out\"\nlibs = []\n";

/// forge-std and chimera at the commits devdacian/solidity-fuzzing-comparison pins.
const VESTING_DEPS: &[Dep] = &[
    Dep::Mirror {
        path: "lib/forge-std",
        mirror: FORGE_STD,
        commit: "035de35f5e366c8d6ed142aec4ccb57fe2dd87d4",
    },
    Dep::Mirror {
        path: "lib/chimera",
        mirror: "Recon-Fuzz+chimera",
        commit: "d5cf52bc5bbf75f988f8aada23fd12d0bcf7798a",
    },
];

/// Challenge 09's fix: its published code lets a recipient transfer points to itself, which
/// doubles them (the challenge's bug, the bug case of both vesting suites).
const VESTING_FIX: Patch = Patch {
    file: "src/09-vesting/Vesting.sol",
    from: "require(points != 0, \"Zero points invalid\");\n",
    to: "require(points != 0, \"Zero points invalid\");\n        \
         require(to != msg.sender, \"Self transfer invalid\");\n",
};

/// Every challenge of devdacian/solidity-fuzzing-comparison but 09-vesting.
const VESTING_EXCLUDE: &[&str] = &[
    "src/01-naive-receiver",
    "src/02-unstoppable",
    "src/03-proposal",
    "src/04-voting-nft",
    "src/05-token-sale",
    "src/06-rarely-false",
    "src/07-byte-battle",
    "src/08-omni-protocol",
    "src/10-vesting-ext",
    "src/11-op-reg",
    "src/12-liquidate-dos",
    "src/13-stability-pool",
    "src/14-priority",
    "src/MockERC20.sol",
    "src/TestToken.sol",
    "src/TestToken2.sol",
    "test/01-naive-receiver",
    "test/02-unstoppable",
    "test/03-proposal",
    "test/04-voting-nft",
    "test/05-token-sale",
    "test/06-rarely-false",
    "test/07-byte-battle",
    "test/08-omni-protocol",
    "test/10-vesting-ext",
    "test/11-op-reg",
    "test/12-liquidate-dos",
    "test/13-stability-pool",
    "test/14-priority",
];

/// One of crytic/echidna's own tests (a contract in `dir` with the yaml its Haskell test runs
/// it with): the two files alone make the project.
struct EchidnaTest {
    name: &'static str,
    dir: &'static str,
    /// The test's contract and its yaml, relative to the repository.
    paths: &'static [&'static str],
    config: &'static str,
    contract: &'static str,
    style: &'static str,
    solc_at: Option<&'static str>,
    fix: Option<Patch>,
    bugs: &'static [Bug],
}

/// The suite of an Echidna test: property or assertion mode, depth Echidna's default
/// `seqLen` (100), nothing forge runs.
const fn echidna_test(test: EchidnaTest) -> Suite {
    Suite {
        name: test.name,
        mirror: ECHIDNA,
        commit: ECHIDNA_COMMIT,
        paths: test.paths,
        root: test.dir,
        deps: &[],
        exclude: &[],
        foundry_toml: Some(EXERCISE_TOML),
        remappings: None,
        solc_at: test.solc_at,
        config: Some(test.config),
        test_contract: test.contract,
        style: test.style,
        cheatcodes: "none",
        depth: 100,
        fail_on_revert: false,
        forge: NO_FORGE_TESTS,
        fix: test.fix,
        bugs: test.bugs,
    }
}
