//! Foundry's forge 1.7.1, the peer of the comparison benches: installed from npm on first use
//! into the benches' scratch directory under the cargo target directory.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The npm package and version of the peer.
const PACKAGE: &str = "@foundry-rs/forge-linux-amd64@1.7.1";

/// Where the bench keeps forge and its projects: cargo's scratch directory for benches,
/// inside whatever target directory is in use (`CARGO_TARGET_DIR` included).
pub(crate) fn scratch() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("harvey-bench")
}

/// The forge binary, installing it with npm on first use.
pub(crate) fn ensure_forge() -> Result<PathBuf, String> {
    let prefix = scratch().join("forge");
    let binary = prefix.join("node_modules/@foundry-rs/forge-linux-amd64/bin/forge");
    if binary.exists() {
        return Ok(binary);
    }
    std::fs::create_dir_all(&prefix).map_err(|e| format!("{}: {e}", prefix.display()))?;
    let output = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&prefix)
        .arg(PACKAGE)
        .output()
        .map_err(|e| format!("npm could not run ({e}); install node/npm"))?;
    if !output.status.success() || !binary.exists() {
        return Err(format!(
            "npm install {PACKAGE} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(binary)
}
