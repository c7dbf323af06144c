//! forge's inline configuration: `/// forge-config: default.invariant.fail-on-revert = true`
//! in a test contract's source, which forge applies to the contract or the function it
//! documents. harvey runs one campaign for a suite's invariants, so an `[invariant]` key set
//! anywhere in the test contract's file applies to it; a fuzz test is a campaign of its own,
//! so a `[fuzz]` key applies as forge applies it: from the comments of its contract, then of
//! its function.

/// One `forge-config:` entry of `line`: its scope (profile), section, key (with `_`) and
/// value, when the line has one.
fn entry(line: &str) -> Option<(&str, &str, String, &str)> {
    let (_, entry) = line.split_once("forge-config:")?;
    let (path, value) = entry.split_once('=')?;
    let mut parts = path.trim().split('.');
    let (Some(scope), Some(section), Some(key), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    Some((scope, section, key.replace('-', "_"), value.trim()))
}

/// The `[fuzz]` keys of the inline comments of `profile` (or `default`) that apply to fuzz
/// test `function` of contract `contract` in `source`: those documenting the contract, then
/// those documenting the function (later pairs win), as `(setting, text)` pairs: `runs`,
/// `fail_on_revert`, `max_rejects` (forge's `max-test-rejects`) and `seed`.
pub(crate) fn fuzz_settings(
    source: &str,
    profile: &str,
    contract: &str,
    function: &str,
) -> Vec<(&'static str, String)> {
    let mut on_contract = Vec::new();
    let mut on_function = Vec::new();
    let mut pending = Vec::new();
    let mut in_contract = false;
    for line in source.lines() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() {
            continue;
        }
        if trimmed.starts_with("//") || trimmed.starts_with('*') || trimmed.starts_with("/*") {
            if let Some((scope, "fuzz", key, value)) = entry(trimmed)
                && (scope == profile || scope == "default")
            {
                let setting = match key.as_str() {
                    "runs" => "runs",
                    "fail_on_revert" => "fail_on_revert",
                    "max_test_rejects" => "max_rejects",
                    "seed" => "seed",
                    _ => continue,
                };
                pending.push((setting, value.to_string()));
            }
            continue;
        }
        let declares = |keyword: &str, name: &str| {
            trimmed.split_once(keyword).is_some_and(|(_, rest)| {
                rest.trim_start().starts_with(name)
                    && rest.trim_start()[name.len()..]
                        .starts_with(|c: char| !c.is_alphanumeric() && c != '_')
            })
        };
        if declares("contract ", contract) {
            in_contract = true;
            on_contract.append(&mut pending);
        } else if trimmed.starts_with("contract ") || trimmed.contains(" contract ") {
            in_contract = false;
        } else if in_contract && declares("function ", function) {
            on_function.append(&mut pending);
        }
        pending.clear();
    }
    on_contract.extend(on_function);
    on_contract
}

/// The `[invariant]` keys of the inline comments in `source` for `profile` (or `default`),
/// as `(setting, text)` pairs for `harvey_settings`' parsers: `runs`, `depth`,
/// `fail_on_revert`, `max_time_delay`, `max_block_delay` (forge spells them with `-` too). Other keys are ignored, as they
/// are in foundry.toml.
pub(crate) fn invariant_settings(source: &str, profile: &str) -> Vec<(&'static str, String)> {
    let mut pairs = Vec::new();
    for line in source.lines() {
        let Some((scope, "invariant", key, value)) = entry(line) else {
            continue;
        };
        if scope != profile && scope != "default" {
            continue;
        }
        let setting = match key.as_str() {
            "runs" => "runs",
            "depth" => "depth",
            "fail_on_revert" => "fail_on_revert",
            "max_time_delay" => "max_time_delay",
            "max_block_delay" => "max_block_delay",
            _ => continue,
        };
        pairs.push((setting, value.to_string()));
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::super::tests::pairs;
    use super::*;

    #[test]
    fn inline_keys_of_the_profile_become_settings() {
        let source = r#"
            contract BankTest {
                /// forge-config: default.invariant.fail-on-revert = true
                function invariant_depositsAddUp() public {}
                /// forge-config: ci.invariant.runs = 10
                /// forge-config: default.invariant.depth=20
                /// forge-config: default.fuzz.runs = 5
                /// forge-config: default.invariant.call-override = true
                /// forge-config: default.invariant.max-time-delay = 0
                // forge-config: nonsense
            }
        "#;
        assert_eq!(
            invariant_settings(source, "default"),
            vec![
                ("fail_on_revert", "true".to_string()),
                ("depth", "20".to_string()),
                ("max_time_delay", "0".to_string())
            ]
        );
        assert_eq!(invariant_settings(source, "ci").len(), 4);
        assert!(invariant_settings("contract A {}", "default").is_empty());
    }

    #[test]
    fn fuzz_keys_apply_from_the_contract_then_the_function() {
        let source = "
            /// forge-config: default.fuzz.runs = 10
            contract OtherTest {
                /// forge-config: default.fuzz.runs = 99
                function testFuzz_a(uint256 x) public {}
            }
            /// forge-config: default.fuzz.runs = 500
            /// forge-config: ci.fuzz.max-test-rejects = 7
            contract StatelessTest {
                /// forge-config: default.fuzz.fail-on-revert = false
                /// forge-config: default.fuzz.runs = 1000
                function testFuzz_a(uint256 x) public {}

                function testFuzz_ab(uint256 x) public {}
                /// forge-config: default.invariant.runs = 3
                function testFuzz_b(uint256 x) public {}
            }
        ";
        assert_eq!(
            fuzz_settings(source, "default", "StatelessTest", "testFuzz_a"),
            pairs(&[
                ("runs", "500"),
                ("fail_on_revert", "false"),
                ("runs", "1000")
            ])
        );
        assert_eq!(
            fuzz_settings(source, "ci", "StatelessTest", "testFuzz_ab"),
            pairs(&[("runs", "500"), ("max_rejects", "7")])
        );
        assert_eq!(
            fuzz_settings(source, "default", "StatelessTest", "testFuzz_b"),
            pairs(&[("runs", "500")])
        );
        assert_eq!(
            fuzz_settings(source, "default", "OtherTest", "testFuzz_a"),
            pairs(&[("runs", "10"), ("runs", "99")])
        );
        // CRLF line ends.
        let crlf = source.replace('\n', "\r\n");
        assert_eq!(
            fuzz_settings(&crlf, "default", "OtherTest", "testFuzz_a"),
            pairs(&[("runs", "10"), ("runs", "99")])
        );
    }
}
