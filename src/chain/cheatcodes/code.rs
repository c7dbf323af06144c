//! `vm.getCode` and `vm.getDeployedCode`: a compiled contract's creation or runtime code,
//! named as forge names artifacts: `"Token"`, `"Token.sol"` (every contract of that file;
//! one must match), `"Token.sol:Token"`, `"src/Token.sol:Token"`, or the artifact file
//! `"out/Token.sol/Token.json"`. forge-std's `deployCode` helpers are built on `getCode`.
//!
//! Where harvey differs: the contracts are harvey's compiled artifacts (the same code forge
//! writes to `out/`), not files read from disk, and a trailing compiler version
//! (`"Token.sol:Token:0.8.28"`) is accepted but not checked, since harvey compiles with one.

use std::path::Path;

use alloy_primitives::Bytes;

use super::fail;
use crate::project::{Artifacts, ContractArtifact};

/// The creation (`deployed == false`) or runtime code of the artifact `path` names.
pub(super) fn code(artifacts: &Artifacts, path: &str, deployed: bool) -> Result<Bytes, Vec<u8>> {
    let artifact = find(artifacts, path).map_err(fail)?;
    if !artifact.is_deployable() || !artifact.libraries.is_empty() {
        return Err(fail(
            "no bytecode for contract; is it abstract or unlinked?",
        ));
    }
    Ok(if deployed {
        artifact.runtime_code.clone()
    } else {
        artifact.creation_code.clone()
    })
}

/// The one artifact `path` names, else forge's message.
fn find<'a>(artifacts: &'a Artifacts, path: &str) -> Result<&'a ContractArtifact, &'static str> {
    let (file, name) = parse(path);
    let mut matching = artifacts.contracts().filter(|artifact| {
        file.is_none_or(|file| artifact.source_path.ends_with(file))
            && name.is_none_or(|name| artifact.name == name)
    });
    match (matching.next(), matching.next()) {
        (Some(one), None) => Ok(one),
        (Some(_), Some(_)) => Err("multiple matching artifacts found"),
        (None, _) => Err("no matching artifact found"),
    }
}

/// The source file and contract name an artifact path gives, as forge reads it: a first
/// part with a dot is a file, else a name; an artifact file `out/F.sol/N.json` is file `F.sol`,
/// name `N`.
fn parse(path: &str) -> (Option<&Path>, Option<&str>) {
    if let Some(json) = path.strip_suffix(".json") {
        let json = Path::new(json);
        let name = json.file_name().and_then(|n| n.to_str());
        let file = json.parent().and_then(Path::file_name).map(Path::new);
        return (file, name);
    }
    let mut parts = path.split(':');
    let first = parts.next().unwrap_or_default();
    if first.contains('.') {
        let name = parts.next().filter(|part| !part.contains('.'));
        (Some(Path::new(first)), name)
    } else {
        (None, Some(first))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifact_paths_are_read_as_forge_reads_them() {
        let file = |p: &str| Some(Path::new(p).to_path_buf());
        let parsed = |p| {
            let (f, n) = parse(p);
            (f.map(Path::to_path_buf), n.map(str::to_string))
        };
        assert_eq!(parsed("Token"), (None, Some("Token".into())));
        assert_eq!(parsed("Token.sol"), (file("Token.sol"), None));
        assert_eq!(
            parsed("src/Token.sol:Token"),
            (file("src/Token.sol"), Some("Token".into()))
        );
        assert_eq!(parsed("Token.sol:0.8.28"), (file("Token.sol"), None));
        assert_eq!(
            parsed("out/Token.sol/Token.json"),
            (file("Token.sol"), Some("Token".into()))
        );
    }
}
