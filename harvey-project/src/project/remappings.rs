//! Import remappings the way forge 1.7.1 computes them: `remappings.txt`, then foundry.toml
//! `remappings`, then auto-detection over the library directories (`libs`), the first
//! remapping of each name (and context) winning.
//!
//! Auto-detection is foundry-compilers' [`Remapping::find_many`], which forge also uses:
//! `lib/<name>/src/` gives `<name>/=lib/<name>/src/`, libraries nested in a library's own
//! `lib/` are found too, and npm packages under `node_modules/` give `@scope/` or `<name>/`
//! (for example `@openzeppelin/=node_modules/@openzeppelin/`). Among auto-detected
//! remappings of one name the shortest target wins, as in forge.
//!
//! A user-written remapping (foundry.toml or remappings.txt) whose target directory does not
//! exist is kept, as forge keeps it (a project whose imports never use it compiles); when
//! compilation then fails, the error names each such remapping, where it came from and the
//! missing path ([`missing`]), where forge says only "Source not found". Where harvey differs
//! from forge: the `DAPP_REMAPPINGS`/`REMAPPINGS` environment variables and the remappings
//! declared by libraries' own foundry.toml files are not read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use foundry_compilers::artifacts::remappings::Remapping;

use crate::error::{Error, Result};

/// Where a remapping came from, for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// `<root>/remappings.txt`.
    RemappingsTxt,
    /// foundry.toml `remappings`.
    FoundryToml,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Origin::RemappingsTxt => "remappings.txt",
            Origin::FoundryToml => "foundry.toml `remappings`",
        })
    }
}

/// The project's remappings in forge's precedence, as `[context:]prefix=target` with targets
/// relative to `root` where they lie inside it.
///
/// `user` are the written remappings in precedence order (remappings.txt first), each with its
/// origin; `libs` the library directories to auto-detect in (absolute).
pub(crate) fn resolve(
    root: &Path,
    user: &[(String, Origin)],
    libs: &[PathBuf],
) -> Result<Vec<String>> {
    let mut merged: Vec<Remapping> = Vec::new();
    for (text, origin) in user {
        let remapping: Remapping = text
            .parse()
            .map_err(|e| Error::Config(format!("remapping `{text}` (from {origin}): {e}")))?;
        insert_first(&mut merged, remapping);
    }
    for remapping in detected(root, libs) {
        insert_first(&mut merged, remapping);
    }
    Ok(merged.iter().map(Remapping::to_string).collect())
}

/// A note per written remapping whose target directory does not exist, naming it, where it
/// came from and the missing path: what a failed compilation adds to solc's messages.
pub(crate) fn missing(root: &Path, user: &[(String, Origin)]) -> Vec<String> {
    user.iter()
        .filter_map(|(text, origin)| {
            let remapping: Remapping = text.parse().ok()?;
            let target = root.join(&remapping.path);
            (!target.is_dir()).then(|| {
                format!(
                    "remapping `{text}` (from {origin}) points at {}, which does not exist; \
                     install the dependency (`forge install`, `git submodule update --init \
                     --recursive` or `npm install`) or fix the remapping",
                    target.display()
                )
            })
        })
        .collect()
}

/// Adds `remapping` unless one with the same context and name is already there.
fn insert_first(merged: &mut Vec<Remapping>, remapping: Remapping) {
    if !merged
        .iter()
        .any(|r| r.name == remapping.name && r.context == remapping.context)
    {
        merged.push(remapping);
    }
}

/// Remappings auto-detected in every library directory, by name, the shortest target winning
/// (forge's `insert_closest`), with targets relative to `root`.
fn detected(root: &Path, libs: &[PathBuf]) -> Vec<Remapping> {
    let mut closest: BTreeMap<String, PathBuf> = BTreeMap::new();
    for lib in libs.iter().filter(|lib| lib.is_dir()) {
        for found in Remapping::find_many(lib) {
            let path = PathBuf::from(&found.path);
            let path = path
                .strip_prefix(root)
                .map(Path::to_path_buf)
                .unwrap_or(path);
            match closest.get(&found.name) {
                Some(existing) if existing.components().count() <= path.components().count() => {}
                _ => {
                    closest.insert(found.name, path);
                }
            }
        }
    }
    closest
        .into_iter()
        .map(|(name, path)| Remapping {
            context: None,
            name,
            path: format!("{}/", path.display().to_string().trim_end_matches('/')),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(root: &Path, file: &str) {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "pragma solidity ^0.8.0;\n").unwrap();
    }

    #[test]
    fn libraries_nested_libraries_and_npm_packages_are_detected() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        touch(root, "lib/kit/src/Kit.sol");
        touch(root, "lib/kit/lib/cast/src/Cast.sol");
        touch(root, "node_modules/@oz/contracts/token/ERC20.sol");
        let libs = [
            root.join("lib"),
            root.join("node_modules"),
            root.join("absent"),
        ];
        let found = resolve(root, &[], &libs).unwrap();
        assert_eq!(
            found,
            [
                "@oz/=node_modules/@oz/",
                "cast/=lib/kit/lib/cast/src/",
                "kit/=lib/kit/src/"
            ]
        );
    }

    #[test]
    fn written_remappings_win_over_detected_ones_in_forge_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        touch(root, "lib/kit/src/Kit.sol");
        touch(root, "lib/kit/src/v2/Kit.sol");
        let user = [
            ("kit/=lib/kit/src/v2/".to_string(), Origin::RemappingsTxt),
            ("kit/=lib/kit/".to_string(), Origin::FoundryToml),
        ];
        let found = resolve(root, &user, &[root.join("lib")]).unwrap();
        assert_eq!(found, ["kit/=lib/kit/src/v2/"]);
    }

    #[test]
    fn a_missing_target_is_kept_and_noted_with_its_origin_and_path() {
        let dir = tempfile::tempdir().unwrap();
        touch(dir.path(), "lib/kit/src/Kit.sol");
        let user = [
            ("gone/=lib/gone/src/".to_string(), Origin::FoundryToml),
            ("kit/=lib/kit/src/".to_string(), Origin::RemappingsTxt),
        ];
        let found = resolve(dir.path(), &user, &[]).unwrap();
        assert_eq!(found, ["gone/=lib/gone/src/", "kit/=lib/kit/src/"]);
        let notes = missing(dir.path(), &user);
        assert_eq!(notes.len(), 1, "{notes:?}");
        let note = &notes[0];
        assert!(note.contains("`gone/=lib/gone/src/`"), "{note}");
        assert!(note.contains("foundry.toml `remappings`"), "{note}");
        assert!(note.contains("lib/gone/src"), "{note}");
        assert!(note.contains("does not exist"), "{note}");
    }
}
