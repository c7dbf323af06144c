//! The text of the Cargo.toml `cargo harvey init` writes, what to add to one that exists,
//! and the `.gitignore` entry: pure functions of their inputs.

use crate::profile::{self, FAST_CRATES};
use crate::spec::HarveySpec;

/// Names a package may not take: Rust's own crates, the dependency itself, and words cargo
/// refuses.
const RESERVED: [&str; 9] = [
    "harvey",
    "test",
    "std",
    "core",
    "alloc",
    "proc_macro",
    "proc-macro",
    "self",
    "crate",
];

/// A cargo package name from the repository's directory name: lower-case ASCII letters,
/// digits, `-` and `_`, anything else a `-`; `-tests` appended to a name cargo or the harvey
/// dependency would refuse (`harvey`, `test`, `std`, ...), `sol-` put before one starting
/// with a digit; `solidity-tests` when nothing is left.
pub(crate) fn package_name(dir_name: &str) -> String {
    let mut name = String::new();
    for c in dir_name.chars() {
        let c = c.to_ascii_lowercase();
        let c = if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            c
        } else {
            '-'
        };
        if c == '-' && name.ends_with('-') {
            continue;
        }
        name.push(c);
    }
    let name = name.trim_matches(|c| c == '-' || c == '_');
    if name.is_empty() {
        return "solidity-tests".into();
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        return format!("sol-{name}");
    }
    if RESERVED.contains(&name) {
        return format!("{name}-tests");
    }
    name.to_string()
}

/// The Cargo.toml of a test-only package `package` with harvey as a dev-dependency: cargo
/// finds the tests in `tests/` (a package needs no library), the package is its own
/// workspace, and the dev profile optimises harvey's hot path.
pub(crate) fn cargo_toml(package: &str, harvey: &HarveySpec) -> String {
    format!(
        r#"# harvey's invariant and property tests of this Solidity project, in Rust: `cargo test`
# runs tests/*.rs. Written by `cargo harvey init`.
[package]
name = "{package}"
version = "0.0.0"
edition = "2024"
publish = false

[dev-dependencies]
harvey = {harvey}

# This package is a workspace of its own; remove these two lines to make it a member of an
# enclosing one (whose root Cargo.toml then needs the profile below).
[workspace]

# harvey's hot path at full speed under `cargo test` (about 26x the transactions per second
# of a debug build, for about a minute more of cold build); everything else stays a fast
# debug build.
{profile}"#,
        harvey = harvey.inline_table(),
        profile = profile::table(),
    )
}

/// What an existing Cargo.toml (`text`) lacks of what harvey needs, as lines to add: the
/// harvey dev-dependency and the speed-list crates it does not list. `None` when it lacks
/// nothing. A manifest that is not valid TOML gets the whole list.
pub(crate) fn manifest_advice(text: &str, harvey: &HarveySpec) -> Option<String> {
    let parsed: Option<toml::Table> = text.parse().ok();
    let table = |path: &[&str]| -> Option<&toml::Table> {
        let mut at = parsed.as_ref()?;
        for key in path {
            at = at.get(*key)?.as_table()?;
        }
        Some(at)
    };
    let has_harvey = [&["dev-dependencies"][..], &["dependencies"][..]]
        .iter()
        .any(|path| table(path).is_some_and(|deps| deps.contains_key("harvey")));
    let listed = table(&["profile", "dev", "package"]);
    let missing: Vec<&str> = FAST_CRATES
        .iter()
        .copied()
        .filter(|name| listed.is_none_or(|packages| !packages.contains_key(*name)))
        .collect();
    let no_package = parsed.is_some() && table(&["package"]).is_none();
    if has_harvey && missing.is_empty() && !no_package {
        return None;
    }
    let mut advice = String::new();
    if no_package {
        advice.push_str(
            "# It has no [package]: tests/harvey.rs needs one (a workspace member whose directory holds tests/, or a [package] table here).\n",
        );
    }
    if !has_harvey {
        advice.push_str(&format!(
            "[dev-dependencies]\nharvey = {}\n",
            harvey.inline_table()
        ));
    }
    if !missing.is_empty() {
        if !advice.is_empty() {
            advice.push('\n');
        }
        advice.push_str("# in the workspace's root Cargo.toml\n[profile.dev.package]\n");
        for name in missing {
            advice.push_str(&format!("{name} = {{ opt-level = 3 }}\n"));
        }
    }
    Some(advice)
}

/// The lines a `.gitignore` entry for `target/` counts as.
const TARGET_ENTRIES: [&str; 6] = [
    "target",
    "target/",
    "/target",
    "/target/",
    "**/target",
    "**/target/",
];

/// What to append to the `.gitignore` whose text is `existing` (`None`: there is none) so
/// that it ignores cargo's `target/`; `None` when it already does.
pub(crate) fn gitignore_addition(existing: Option<&str>) -> Option<String> {
    match existing {
        None => Some("target/\n".into()),
        Some(text)
            if text
                .lines()
                .any(|line| TARGET_ENTRIES.contains(&line.trim())) =>
        {
            None
        }
        Some(text) if text.is_empty() || text.ends_with('\n') => Some("target/\n".into()),
        Some(_) => Some("\ntarget/\n".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> HarveySpec {
        HarveySpec::parse("path=/src/harvey").unwrap()
    }

    #[test]
    fn package_names_are_the_directory_s_made_valid() {
        assert_eq!(package_name("my-protocol"), "my-protocol");
        assert_eq!(package_name("My Protocol (v2)"), "my-protocol-v2");
        assert_eq!(package_name("uniswap_v4.core"), "uniswap_v4-core");
        assert_eq!(package_name("2024-audit"), "sol-2024-audit");
        assert_eq!(package_name("harvey"), "harvey-tests");
        assert_eq!(package_name("test"), "test-tests");
        assert_eq!(package_name("..."), "solidity-tests");
        assert_eq!(package_name("ünï"), "n");
    }

    #[test]
    fn the_cargo_toml_parses_and_has_the_dependency_the_profile_and_its_own_workspace() {
        let text = cargo_toml("ledger", &spec());
        let parsed: toml::Table = text.parse().unwrap();
        assert_eq!(parsed["package"]["name"].as_str(), Some("ledger"));
        assert_eq!(
            parsed["dev-dependencies"]["harvey"]["path"].as_str(),
            Some("/src/harvey")
        );
        assert!(parsed["workspace"].as_table().unwrap().is_empty());
        let packages = parsed["profile"]["dev"]["package"].as_table().unwrap();
        assert_eq!(packages.len(), FAST_CRATES.len());
        // What it writes, it finds complete.
        assert_eq!(manifest_advice(&text, &spec()), None);
    }

    #[test]
    fn an_existing_manifest_gets_only_what_it_lacks() {
        let partial = "[package]\nname = \"x\"\n\n[dev-dependencies]\nharvey = \"0.1\"\n\n[profile.dev.package]\nrevm = { opt-level = 3 }\n";
        let advice = manifest_advice(partial, &spec()).unwrap();
        assert!(!advice.contains("[dev-dependencies]"), "{advice}");
        assert!(!advice.contains("\nrevm = "), "{advice}");
        assert!(advice.contains("harvey = { opt-level = 3 }"), "{advice}");
        let bare = manifest_advice("[package]\nname = \"x\"\n", &spec()).unwrap();
        assert!(bare.starts_with("[dev-dependencies]\nharvey = { path = \"/src/harvey\" }\n"));
        assert_eq!(bare.matches("opt-level = 3").count(), FAST_CRATES.len());
        let virtual_manifest = manifest_advice("[workspace]\nmembers = []\n", &spec()).unwrap();
        assert!(virtual_manifest.contains("It has no [package]"));
        // Not TOML: the whole list, no complaint about a missing package.
        let broken = manifest_advice("[package", &spec()).unwrap();
        assert!(broken.starts_with("[dev-dependencies]"), "{broken}");
    }

    #[test]
    fn gitignore_gets_target_once() {
        assert_eq!(gitignore_addition(None).as_deref(), Some("target/\n"));
        assert_eq!(gitignore_addition(Some("")).as_deref(), Some("target/\n"));
        assert_eq!(
            gitignore_addition(Some("out/\ncache/\n")).as_deref(),
            Some("target/\n")
        );
        assert_eq!(
            gitignore_addition(Some("out/")).as_deref(),
            Some("\ntarget/\n")
        );
        for present in ["/target\n", "out/\n  target/  \n", "**/target"] {
            assert_eq!(gitignore_addition(Some(present)), None, "{present:?}");
        }
        // Appending what it says to append makes it complete.
        let once = format!("out/{}", gitignore_addition(Some("out/")).unwrap());
        assert_eq!(gitignore_addition(Some(&once)), None);
    }
}
