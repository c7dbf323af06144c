//! The text of the `tests/harvey.rs` `cargo harvey init` writes: one
//! `#[harvey::forge_suite]` test per suite of the project, and a commented Rust invariant
//! over one of its contracts. Pure functions of the suites and contracts found.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use alloy_json_abi::{Function, JsonAbi, StateMutability};
use harvey_project::suite::{SuiteKind, SuiteSummary};

/// Rust's keywords, which a generated identifier must not be.
const KEYWORDS: [&str; 51] = [
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield",
];

/// `name` in snake case: `LeakyVaultTest` → `leaky_vault_test`, `ERC20Invariants` →
/// `erc20_invariants`, anything but ASCII letters and digits an `_`.
pub(crate) fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !out.ends_with('_') {
                out.push('_');
            }
            continue;
        }
        if c.is_ascii_uppercase() && i > 0 {
            let before = chars[i - 1];
            let after_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            let boundary = before.is_ascii_lowercase()
                || before.is_ascii_digit() && after_lower
                || before.is_ascii_uppercase() && after_lower;
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    out.trim_matches('_').to_string()
}

/// A Rust identifier from `base` (snake case, never a keyword, never starting with a digit),
/// unique among `taken`, which it joins.
fn identifier(base: &str, taken: &mut HashSet<String>) -> String {
    let mut name = snake_case(base);
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        name = format!("suite_{name}");
    }
    if KEYWORDS.contains(&name.as_str()) {
        name.push_str("_suite");
    }
    let mut unique = name.clone();
    let mut n = 2;
    while taken.contains(&unique) {
        unique = format!("{name}_{n}");
        n += 1;
    }
    taken.insert(unique.clone());
    unique
}

/// `path` as written in a comment, with `/` on every platform.
fn shown(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// The test of one suite: its doc line (file, kind, what it checks, config) and the
/// attribute, which names the suite's config when it has one.
fn suite_test(suite: &SuiteSummary, function: &str) -> String {
    let invariants = !suite.invariants.is_empty();
    let fuzz = !suite.fuzz_tests.is_empty();
    let kind = match (suite.kind, invariants, fuzz) {
        (SuiteKind::Forge, true, true) => "a forge test contract with invariants and fuzz tests",
        (SuiteKind::Forge, false, true) => "a forge test contract with fuzz tests",
        (SuiteKind::Forge, _, false) => "a forge invariant suite",
        (SuiteKind::Properties, true, _) => "an Echidna/Medusa property contract",
        (SuiteKind::Properties, false, _) => "an Echidna/Medusa harness in assertion mode",
    };
    let checks = match (invariants, suite.kind) {
        (false, SuiteKind::Properties) => "its asserts".to_string(),
        _ => suite
            .invariants
            .iter()
            .chain(&suite.fuzz_tests)
            .cloned()
            .collect::<Vec<_>>()
            .join(", "),
    };
    let (config, run_with) = match &suite.config {
        Some(file) => (
            format!(", config = {:?}", shown(file)),
            format!(", run with {}", shown(file)),
        ),
        None => (String::new(), String::new()),
    };
    let name = format!("{:?}", suite.name); // a Rust string literal
    format!(
        "/// `{}` ({}), {kind}{run_with}: {checks}.\n#[harvey::forge_suite({name}{config})]\nfn {function}() {{}}\n",
        suite.contract,
        shown(&suite.file),
    )
}

/// The test that fails when the project has a suite no test under `tests/` runs: one a
/// team adds after init.
fn guard_test(taken: &mut HashSet<String>) -> String {
    let name = identifier("every_suite_has_a_test", taken);
    format!(
        "/// Fails when the project has a Solidity suite that no `#[harvey::forge_suite]` under\n\
         /// `tests/` runs (one added after `cargo harvey init`), naming it with the test to add.\n\
         #[test]\n\
         fn {name}() {{\n    \
             if let Err(error) = harvey::every_suite_tested(std::path::Path::new(env!(\"CARGO_MANIFEST_DIR\"))) {{\n        \
                 panic!(\"{{error}}\");\n    \
             }}\n\
         }}\n"
    )
}

/// The base of a suite's test name: its contract's, and the tool of its config when the
/// harness has several (`naive_receiver_echidna`, `naive_receiver_medusa`).
fn test_base(suite: &SuiteSummary, suites: &[SuiteSummary]) -> String {
    match &suite.config {
        Some(file) if several_configs(suite, suites) => {
            let tool = match file.extension().and_then(|e| e.to_str()) {
                Some("json") => "medusa",
                _ => "echidna",
            };
            format!("{}_{tool}", suite.contract)
        }
        _ => suite.contract.clone(),
    }
}

/// Whether `suite`'s harness is listed once per config, so its tests must name them.
fn several_configs(suite: &SuiteSummary, suites: &[SuiteSummary]) -> bool {
    suites.iter().filter(|s| s.name == suite.name).count() > 1
}

/// The lines to add to an existing tests file (`existing`) for the suites it does not name:
/// one test each, named apart from one another (not checked against the file's own
/// functions: the user pastes them).
pub(crate) fn missing_suite_tests(existing: &str, suites: &[SuiteSummary]) -> Vec<String> {
    let mut taken = HashSet::new();
    suites
        .iter()
        .filter(|suite| !suite.is_named_in(existing, several_configs(suite, suites)))
        .map(|suite| suite_test(suite, &identifier(&test_base(suite, suites), &mut taken)))
        .collect()
}

/// The whole of `tests/harvey.rs`: a test per suite, then the commented example when there
/// is a contract to write it for.
pub(crate) fn harvey_rs(suites: &[SuiteSummary], example: Option<&Example>) -> String {
    let mut text = String::from(
        "//! harvey's tests of this repository, written by `cargo harvey init`; run them with\n\
         //! `cargo test`.\n\
         //!\n\
         //! Each `#[harvey::forge_suite]` runs one of the repository's Solidity suites as forge runs\n\
         //! it, with foundry.toml's `[invariant]` settings (its `runs` x `depth` as a budget of\n\
         //! calls). Arguments change them: `#[harvey::forge_suite(\"Name\", time = \"60s\",\n\
         //! fail_fast = false)]`; so do `HARVEY_*` variables (`HARVEY_TIME=5m cargo test`).\n",
    );
    let mut taken: HashSet<String> = HashSet::new();
    if suites.is_empty() {
        text.push_str(
            "\n// No invariant suite was found (no deployable contract with `invariant*`,\n\
             // `statefulFuzz*`, `echidna_*` or `property_*` functions). To run one by name, or an\n\
             // Echidna/Medusa contract in assertion mode:\n\
             //\n\
             // #[harvey::forge_suite(\"MyInvariants\")]\n\
             // fn my_invariants() {}\n",
        );
    }
    for suite in suites {
        text.push('\n');
        text.push_str(&suite_test(
            suite,
            &identifier(&test_base(suite, suites), &mut taken),
        ));
    }
    text.push('\n');
    text.push_str(&guard_test(&mut taken));
    text.push('\n');
    match example {
        Some(example) => text.push_str(&example.render(&mut taken)),
        None => text.push_str(
            "// No contract of the project's sources to write a Rust invariant for was found (none\n\
             // is deployable with a function that changes state). See harvey's README, \"Using\n\
             // harvey in your project\", for `#[harvey::invariant]`.\n",
        ),
    }
    text
}

/// The first line of the commented example: what a test looks for to find it.
pub(crate) const EXAMPLE_HEADING: &str = "// A Rust invariant over";

/// The contract the commented Rust invariant is written for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Example {
    /// Its name.
    pub(crate) contract: String,
    /// Its source file, relative to the project root.
    pub(crate) file: PathBuf,
    /// Its constructor's parameters (`uint256 cap`), empty when it takes none.
    pub(crate) constructor: Vec<String>,
    /// A view it has without parameters returning an unsigned integer (`totalSupply()`).
    pub(crate) view: Option<String>,
}

impl Example {
    /// The contract among `contracts` (`(name, file, abi)`, the project's own sources) that
    /// makes the best example: one with a function that changes state (something to fuzz),
    /// preferably a constructor without parameters, then a view returning an unsigned integer
    /// without parameters; the first by name among equals. `None` when no contract has a
    /// function that changes state.
    pub(crate) fn choose<'a>(
        contracts: impl IntoIterator<Item = (&'a str, &'a Path, &'a JsonAbi)>,
    ) -> Option<Example> {
        let mut best: Option<(u8, Example)> = None;
        for (name, file, abi) in contracts {
            if !abi.functions().any(changes_state) {
                continue;
            }
            let constructor: Vec<String> = abi
                .constructor()
                .map(|c| {
                    c.inputs
                        .iter()
                        .map(|p| format!("{} {}", p.ty, p.name).trim().to_string())
                        .collect()
                })
                .unwrap_or_default();
            let view = abi
                .functions()
                .find(|f| is_uint_view(f))
                .map(Function::signature);
            let score = 2 * u8::from(constructor.is_empty()) + u8::from(view.is_some());
            if best.as_ref().is_none_or(|(top, _)| score > *top) {
                let example = Example {
                    contract: name.to_string(),
                    file: file.to_path_buf(),
                    constructor,
                    view,
                };
                best = Some((score, example));
            }
        }
        best.map(|(_, example)| example)
    }

    /// The commented example: a setup deploying the contract and fuzzing it, an invariant
    /// reading its view. Its function names join `taken`.
    fn render(&self, taken: &mut HashSet<String>) -> String {
        let var = {
            let name = snake_case(&self.contract);
            if name.is_empty()
                || KEYWORDS.contains(&name.as_str())
                || name.starts_with(char::is_numeric)
            {
                format!("contract_{name}")
            } else {
                name
            }
        };
        let setup = identifier(&format!("deploy_{var}"), taken);
        let invariant = identifier(&format!("{var}_holds"), taken);
        let contract = &self.contract;
        let arguments = if self.constructor.is_empty() {
            "()".to_string()
        } else {
            format!("(/* {} */)", self.constructor.join(", "))
        };
        let (view, read) = match &self.view {
            Some(signature) => {
                let name = signature.split('(').next().unwrap_or(signature);
                (signature.clone(), snake_case(name))
            }
            None => ("totalSupply()".to_string(), "value".to_string()),
        };
        let mut lines = vec![
            format!(
                "{EXAMPLE_HEADING} `{contract}` ({}), to start from: uncomment it and",
                shown(&self.file)
            ),
            "// make it say what must always hold. Under `cargo test` harvey calls the functions of".into(),
            "// the contracts the setup passes to `chain.fuzz`, in sequences, and checks the".into(),
            "// invariant after every call.".into(),
            "//".into(),
            "// use harvey::prelude::*;".into(),
            "//".into(),
            format!("// fn {setup}(chain: &mut Chain) -> harvey::Result<()> {{"),
        ];
        if !self.constructor.is_empty() {
            lines.push("//     // Its constructor takes parameters: pass them as a tuple.".into());
        }
        lines.extend([
            format!("//     let {var} = chain.deploy({contract:?}, {arguments})?;"),
            format!("//     chain.fuzz({var});"),
            "//     Ok(())".into(),
            "// }".into(),
            "//".into(),
            format!("// #[harvey::invariant(setup = {setup})]"),
            format!("// fn {invariant}(chain: &Chain) -> bool {{"),
            format!("//     let {var} = chain.get({contract:?});"),
        ]);
        if self.view.is_none() {
            lines.push(format!("//     // Name a view of {contract} here."));
        }
        lines.extend([
            format!("//     let {read}: U256 = chain.view({var}, {view:?}, ()).unwrap();"),
            format!("//     {read} <= U256::MAX // replace with what must always hold"),
            "// }".into(),
        ]);
        lines.join("\n") + "\n"
    }
}

/// Whether `function` can change state (fuzzing calls only those).
fn changes_state(function: &Function) -> bool {
    matches!(
        function.state_mutability,
        StateMutability::NonPayable | StateMutability::Payable
    )
}

/// Whether `function` is a view (or pure) without parameters returning one unsigned integer.
fn is_uint_view(function: &Function) -> bool {
    !changes_state(function)
        && function.inputs.is_empty()
        && matches!(function.outputs.as_slice(), [one] if one.ty.starts_with("uint"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite(name: &str, kind: SuiteKind, invariants: &[&str]) -> SuiteSummary {
        SuiteSummary {
            fuzz_tests: Vec::new(),
            name: name.to_string(),
            contract: name.rsplit(':').next().unwrap().to_string(),
            file: PathBuf::from(format!("test/{}.t.sol", name.rsplit(':').next().unwrap())),
            kind,
            invariants: invariants.iter().map(|s| s.to_string()).collect(),
            warnings: Vec::new(),
            config: None,
        }
    }

    /// A `JsonAbi` from human-readable signatures, one a line.
    fn abi(signatures: &str) -> JsonAbi {
        JsonAbi::parse(signatures.lines().map(str::trim).filter(|l| !l.is_empty()))
            .unwrap_or_else(|e| panic!("{signatures}: {e}"))
    }

    #[test]
    fn snake_case_splits_words_as_people_read_them() {
        assert_eq!(snake_case("LeakyVaultTest"), "leaky_vault_test");
        assert_eq!(snake_case("ERC20Invariants"), "erc20_invariants");
        assert_eq!(snake_case("WETH9Invariants"), "weth9_invariants");
        assert_eq!(snake_case("CryticERC4626Harness"), "crytic_erc4626_harness");
        assert_eq!(snake_case("totalSupply"), "total_supply");
        assert_eq!(snake_case("Vault_Test"), "vault_test");
        assert_eq!(snake_case("AMMTest"), "amm_test");
    }

    #[test]
    fn identifiers_are_unique_and_never_keywords() {
        let mut taken = HashSet::new();
        assert_eq!(identifier("VaultTest", &mut taken), "vault_test");
        assert_eq!(identifier("VaultTest", &mut taken), "vault_test_2");
        assert_eq!(identifier("Match", &mut taken), "match_suite");
        assert_eq!(identifier("1inch", &mut taken), "suite_1inch");
    }

    #[test]
    fn one_test_per_suite_with_the_name_the_macro_takes() {
        let suites = [
            suite("LedgerInvariants", SuiteKind::Forge, &["invariant_total"]),
            suite("test/a/Dup.t.sol:Dup", SuiteKind::Forge, &["invariant_a"]),
            suite("test/b/Dup.t.sol:Dup", SuiteKind::Forge, &["invariant_b"]),
            suite(
                "PoolProperties",
                SuiteKind::Properties,
                &["echidna_cap", "property_sum"],
            ),
            SuiteSummary {
                fuzz_tests: vec!["testFuzz_deposit".into(), "test_withdraw".into()],
                ..suite("VaultTest", SuiteKind::Forge, &[])
            },
            SuiteSummary {
                fuzz_tests: vec!["testFuzz_mint".into()],
                ..suite("TokenTest", SuiteKind::Forge, &["invariant_supply"])
            },
        ];
        let text = harvey_rs(&suites, None);
        assert!(
            text.contains(
                "/// `VaultTest` (test/VaultTest.t.sol), a forge test contract with fuzz tests: testFuzz_deposit, test_withdraw.\n#[harvey::forge_suite(\"VaultTest\")]\nfn vault_test() {}\n"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "a forge test contract with invariants and fuzz tests: invariant_supply, testFuzz_mint."
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "/// `LedgerInvariants` (test/LedgerInvariants.t.sol), a forge invariant suite: invariant_total.\n#[harvey::forge_suite(\"LedgerInvariants\")]\nfn ledger_invariants() {}\n"
            ),
            "{text}"
        );
        assert!(text.contains("#[harvey::forge_suite(\"test/a/Dup.t.sol:Dup\")]\nfn dup() {}"));
        assert!(text.contains("#[harvey::forge_suite(\"test/b/Dup.t.sol:Dup\")]\nfn dup_2() {}"));
        assert!(text.contains("an Echidna/Medusa property contract: echidna_cap, property_sum."));
        assert!(text.contains("No contract of the project's sources"));
        // Every suite is named: nothing to add to the file it wrote.
        assert!(missing_suite_tests(&text, &suites).is_empty());
        let more = missing_suite_tests(&text[..text.find("PoolProperties").unwrap()], &suites[..4]);
        assert_eq!(more.len(), 1);
        assert!(
            more[0].contains("#[harvey::forge_suite(\"PoolProperties\")]\nfn pool_properties() {}")
        );
        // A suite named with its path counts as named.
        let qualified = "#[harvey::forge_suite(\"test/Ledger.t.sol:LedgerInvariants\")]";
        assert!(missing_suite_tests(qualified, &suites[..1]).is_empty());
    }

    #[test]
    fn no_suite_says_how_to_name_one() {
        let text = harvey_rs(&[], None);
        assert!(text.contains("No invariant suite was found"), "{text}");
        assert!(!text.lines().any(|l| l.starts_with("#[harvey")), "{text}");
        // The guard is written all the same: a suite added later must get a test.
        assert!(
            text.contains("#[test]\nfn every_suite_has_a_test() {\n    if let Err(error) = harvey::every_suite_tested("),
            "{text}"
        );
    }

    #[test]
    fn a_harness_with_two_configs_gets_a_test_per_config_naming_it() {
        let with = |file: &str, invariants: &[&str]| SuiteSummary {
            config: Some(PathBuf::from(file)),
            ..suite("Harness", SuiteKind::Properties, invariants)
        };
        let suites = [
            with("test/Harness.yaml", &["invariant_a"]),
            with("test/medusa.json", &["invariant_a"]),
        ];
        let text = harvey_rs(&suites, None);
        assert!(text.contains("#[harvey::forge_suite(\"Harness\", config = \"test/Harness.yaml\")]\nfn harness_echidna() {}"), "{text}");
        assert!(text.contains("#[harvey::forge_suite(\"Harness\", config = \"test/medusa.json\")]\nfn harness_medusa() {}"), "{text}");
        assert!(missing_suite_tests(&text, &suites).is_empty());
        // Naming the harness without the config leaves the configs' tests missing.
        let missing = missing_suite_tests("#[harvey::forge_suite(\"Harness\")]", &suites);
        assert_eq!(missing.len(), 2);
        // One config: named, with its file, in assertion mode when there is no property.
        let alone = [with("test/echidna.yaml", &[])];
        let text = harvey_rs(&alone, None);
        assert!(text.contains("an Echidna/Medusa harness in assertion mode, run with test/echidna.yaml: its asserts."), "{text}");
        assert!(text.contains("#[harvey::forge_suite(\"Harness\", config = \"test/echidna.yaml\")]\nfn harness() {}"), "{text}");
        assert!(missing_suite_tests("forge_suite(\"Harness\")", &alone).is_empty());
    }

    const LEDGER: &str = r#"
        constructor()
        function deposit(uint256 amount)
        function creditOf(address) view returns (uint256)
        function totalCredit() view returns (uint256)
    "#;

    #[test]
    fn the_example_deploys_fuzzes_and_views_the_best_contract() {
        let ledger = abi(LEDGER);
        let needs_args = abi("constructor(uint256 cap, address owner)\nfunction set(uint256 x)");
        let only_views = abi("function total() view returns (uint256)");
        let contracts = [
            ("Capped", Path::new("src/Capped.sol"), &needs_args),
            ("Ledger", Path::new("src/Ledger.sol"), &ledger),
            ("Reader", Path::new("src/Reader.sol"), &only_views),
        ];
        let example = Example::choose(contracts).unwrap();
        assert_eq!(example.contract, "Ledger");
        assert_eq!(example.view.as_deref(), Some("totalCredit()"));
        let text = harvey_rs(&[], Some(&example));
        let expected = r#"// A Rust invariant over `Ledger` (src/Ledger.sol), to start from: uncomment it and
// make it say what must always hold. Under `cargo test` harvey calls the functions of
// the contracts the setup passes to `chain.fuzz`, in sequences, and checks the
// invariant after every call.
//
// use harvey::prelude::*;
//
// fn deploy_ledger(chain: &mut Chain) -> harvey::Result<()> {
//     let ledger = chain.deploy("Ledger", ())?;
//     chain.fuzz(ledger);
//     Ok(())
// }
//
// #[harvey::invariant(setup = deploy_ledger)]
// fn ledger_holds(chain: &Chain) -> bool {
//     let ledger = chain.get("Ledger");
//     let total_credit: U256 = chain.view(ledger, "totalCredit()", ()).unwrap();
//     total_credit <= U256::MAX // replace with what must always hold
// }
"#;
        assert!(text.ends_with(expected), "{text}");

        // Only a contract with constructor parameters: they are named for the user to fill.
        let example = Example::choose([contracts[0]]).unwrap();
        let text = harvey_rs(&[], Some(&example));
        assert!(
            text.contains("chain.deploy(\"Capped\", (/* uint256 cap, address owner */))?;"),
            "{text}"
        );
        assert!(text.contains("// Name a view of Capped here."), "{text}");
        // Nothing that changes state: no example.
        assert_eq!(Example::choose([contracts[2]]), None);
    }
}
