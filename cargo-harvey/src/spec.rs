//! Where the generated Cargo.toml takes harvey from: `--harvey SPEC`, or by default the
//! harvey source tree this binary was built from.

use std::path::{Path, PathBuf};

use crate::error::InitError;

/// The version the dependency names when no source tree is at hand.
const DEFAULT_VERSION: &str = "0.1";

/// The keys of a harvey dependency a SPEC may set, in the order they are written.
const KEYS: [&str; 6] = ["path", "git", "branch", "tag", "rev", "version"];

/// A harvey dependency: `key = "value"` pairs of Cargo's dependency syntax, in [`KEYS`] order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HarveySpec {
    pairs: Vec<(&'static str, String)>,
}

impl HarveySpec {
    /// Parses `--harvey`'s SPEC: comma-separated `key=value` pairs among `path`, `git`,
    /// `branch`, `tag`, `rev` and `version` (`path=../harvey`, `git=URL,branch=main`,
    /// `version=0.1`), or a bare version (`0.1`). One of `path`, `git` and `version` is
    /// required; `branch`, `tag` and `rev` go with `git`, one at most; `path` and `git`
    /// exclude each other.
    pub(crate) fn parse(text: &str) -> Result<HarveySpec, InitError> {
        let bad = |why: String| InitError::BadSpec {
            spec: text.to_string(),
            why,
        };
        let text = text.trim();
        if !text.contains('=') && text.starts_with(|c: char| c.is_ascii_digit()) {
            return Ok(HarveySpec {
                pairs: vec![("version", text.to_string())],
            });
        }
        let mut pairs: Vec<(&'static str, String)> = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| bad(format!("`{part}` is not `key=value`")))?;
            let (key, value) = (key.trim(), value.trim());
            let Some(key) = KEYS.iter().copied().find(|k| *k == key) else {
                return Err(bad(format!(
                    "unknown key `{key}`; the keys are {}",
                    KEYS.join(", ")
                )));
            };
            if value.is_empty() {
                return Err(bad(format!("`{key}` has no value")));
            }
            if pairs.iter().any(|(k, _)| *k == key) {
                return Err(bad(format!("`{key}` is given twice")));
            }
            pairs.push((key, value.to_string()));
        }
        let has = |key: &str| pairs.iter().any(|(k, _)| *k == key);
        if !has("path") && !has("git") && !has("version") {
            return Err(bad("give `path=DIR`, `git=URL` or `version=REQ`".into()));
        }
        if has("path") && has("git") {
            return Err(bad("`path` and `git` exclude each other".into()));
        }
        let refs = ["branch", "tag", "rev"].iter().filter(|k| has(k)).count();
        if refs > 0 && !has("git") {
            return Err(bad("`branch`, `tag` and `rev` go with `git`".into()));
        }
        if refs > 1 {
            return Err(bad("give one of `branch`, `tag` and `rev`".into()));
        }
        pairs.sort_by_key(|(key, _)| KEYS.iter().position(|k| k == key));
        Ok(HarveySpec { pairs })
    }

    /// `path = "<dir>"`.
    pub(crate) fn path(dir: &Path) -> HarveySpec {
        HarveySpec {
            pairs: vec![("path", dir.display().to_string())],
        }
    }

    /// `version = "<req>"`.
    fn version(req: &str) -> HarveySpec {
        HarveySpec {
            pairs: vec![("version", req.to_string())],
        }
    }

    /// The dependency's inline table, `{ path = "..." }`, its strings quoted as TOML's.
    pub(crate) fn inline_table(&self) -> String {
        let pairs: Vec<String> = self
            .pairs
            .iter()
            .map(|(key, value)| format!("{key} = {}", toml::Value::from(value.as_str())))
            .collect();
        format!("{{ {} }}", pairs.join(", "))
    }
}

/// The harvey source tree this binary was built from: the parent of its own manifest
/// directory, when it still holds harvey's Cargo.toml.
pub(crate) fn built_from() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?;
    is_harvey_tree(dir).then(|| dir.to_path_buf())
}

/// Whether `dir` holds harvey's sources (a Cargo.toml whose package is `harvey`).
fn is_harvey_tree(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("Cargo.toml"))
        .ok()
        .and_then(|text| text.parse::<toml::Table>().ok())
        .is_some_and(|manifest| {
            manifest
                .get("package")
                .and_then(|p| p.get("name"))
                .and_then(toml::Value::as_str)
                == Some("harvey")
        })
}

/// The dependency when `--harvey` is not given: `source` (the tree this binary was built
/// from, [`built_from`]) as a path, else `version = "0.1"` with a note saying so.
pub(crate) fn default_spec(source: Option<PathBuf>) -> (HarveySpec, Option<String>) {
    match source {
        Some(dir) => (HarveySpec::path(&dir), None),
        None => (
            HarveySpec::version(DEFAULT_VERSION),
            Some(format!(
                "the harvey source tree cargo-harvey was built from is gone, so Cargo.toml takes harvey {DEFAULT_VERSION} from crates.io; pass --harvey path=DIR or --harvey git=URL to choose another"
            )),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(spec: &str) -> String {
        HarveySpec::parse(spec).unwrap().inline_table()
    }

    #[test]
    fn specs_become_cargo_dependency_tables() {
        assert_eq!(table("path=../harvey"), r#"{ path = "../harvey" }"#);
        assert_eq!(
            table("branch=main, git=https://example.com/harvey.git"),
            r#"{ git = "https://example.com/harvey.git", branch = "main" }"#
        );
        assert_eq!(table("version=0.1"), r#"{ version = "0.1" }"#);
        assert_eq!(table("0.1.2"), r#"{ version = "0.1.2" }"#);
        assert_eq!(
            table("path=/src/harvey,version=0.1"),
            r#"{ path = "/src/harvey", version = "0.1" }"#
        );
        // Quotes and backslashes stay TOML.
        let odd = table(r#"path=C:\dir "x""#);
        let parsed: toml::Table = format!("harvey = {odd}").parse().unwrap();
        assert_eq!(parsed["harvey"]["path"].as_str(), Some(r#"C:\dir "x""#));
    }

    #[test]
    fn bad_specs_say_why() {
        for (spec, why) in [
            ("", "give `path=DIR`"),
            ("../harvey", "is not `key=value`"),
            ("paht=x", "unknown key `paht`"),
            ("path=", "`path` has no value"),
            ("path=a,path=b", "given twice"),
            ("path=a,git=b", "exclude each other"),
            ("path=a,branch=main", "go with `git`"),
            ("git=u,branch=a,tag=b", "one of `branch`"),
        ] {
            let error = HarveySpec::parse(spec).unwrap_err().to_string();
            assert!(error.contains(why), "{spec}: {error}");
        }
    }

    #[test]
    fn the_default_is_the_source_tree_else_a_version_with_a_note() {
        let (spec, note) = default_spec(Some(PathBuf::from("/src/harvey")));
        assert_eq!(spec.inline_table(), r#"{ path = "/src/harvey" }"#);
        assert_eq!(note, None);
        let (spec, note) = default_spec(None);
        assert_eq!(spec.inline_table(), r#"{ version = "0.1" }"#);
        assert!(note.unwrap().contains("--harvey"));
        // This binary is built inside harvey's tree.
        assert!(built_from().is_some());
    }
}
