//! forge's inline configuration: `/// forge-config: default.invariant.fail-on-revert = true`
//! in a test contract's source, which forge applies to the contract or the function it
//! documents. harvey runs one campaign for the whole suite, so a key set anywhere in the
//! test contract's file applies to the suite's campaign.

/// The `[invariant]` keys of the inline comments in `source` for `profile` (or `default`),
/// as `(setting, text)` pairs for `harvey_settings`' parsers: `runs`, `depth`,
/// `fail_on_revert`, `max_time_delay`, `max_block_delay` (forge spells them with `-` too). Other keys are ignored, as they
/// are in foundry.toml.
pub(crate) fn invariant_settings(source: &str, profile: &str) -> Vec<(&'static str, String)> {
    let mut pairs = Vec::new();
    for line in source.lines() {
        let Some((_, entry)) = line.split_once("forge-config:") else {
            continue;
        };
        let Some((path, value)) = entry.split_once('=') else {
            continue;
        };
        let mut parts = path.trim().split('.');
        let (Some(scope), Some("invariant"), Some(key), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        if scope != profile && scope != "default" {
            continue;
        }
        let setting = match key.replace('-', "_").as_str() {
            "runs" => "runs",
            "depth" => "depth",
            "fail_on_revert" => "fail_on_revert",
            "max_time_delay" => "max_time_delay",
            "max_block_delay" => "max_block_delay",
            _ => continue,
        };
        pairs.push((setting, value.trim().to_string()));
    }
    pairs
}

#[cfg(test)]
mod tests {
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
}
