//! A suite's copy: the pinned commit extracted into the scratch directory, its libraries
//! put where its submodules would be (from the mirrors at the pinned commits, or from npm),
//! the files it cannot build without left out, the shim as its compiler, and the fix and the
//! bug planted.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::install;
use super::repo;
use super::table::{Bug, Dep, Patch, Suite};

/// forge-std 1.9.7, bundled by this npm package (npm's own `forge-std` is a broken 1.1.2).
const FORGE_STD_PACKAGE: &str = "@layerzerolabs/toolbox-foundry@0.1.13";

/// Where forge-std lies inside the installed package.
const FORGE_STD_IN_PACKAGE: &str = "node_modules/@layerzerolabs/toolbox-foundry/lib/forge-std";

/// This bench's scratch directory, beside the other benches'.
pub(crate) fn scratch() -> PathBuf {
    install::scratch().join("suites")
}

/// A fresh copy of `suite` at `dir` with its fix and `bug` planted; returns the forge
/// project's directory inside it.
pub(crate) fn materialise(suite: &Suite, dir: &Path, bug: Option<&Bug>) -> Result<PathBuf, String> {
    let _ = std::fs::remove_dir_all(dir);
    if suite.paths.is_empty() {
        repo::materialise(suite.mirror, suite.commit, dir)?;
    } else {
        extract(suite.mirror, suite.commit, suite.paths, dir)?;
    }
    for dep in suite.deps {
        place(dep, dir)?;
    }
    for file in suite.exclude {
        let path = dir.join(file);
        let removed = if path.is_dir() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        removed.map_err(|e| format!("{}: excluding {file}: {e}", suite.name))?;
    }
    let root = dir.join(suite.root);
    if let Some(text) = suite.foundry_toml {
        write(&root.join("foundry.toml"), text)?;
    }
    if let Some(text) = suite.remappings {
        write(&root.join("remappings.txt"), text)?;
    }
    let solc = solc(suite.solc_at)?;
    repo::replace_once(
        &root,
        "foundry.toml",
        "[profile.default]\n",
        &format!(
            "[profile.default]\nsolc = \"{}\"\noffline = true\n",
            solc.display()
        ),
    )?;
    if let Some(fix) = &suite.fix {
        plant(dir, fix)?;
    }
    let Some(bug) = bug else {
        return Ok(root);
    };
    match &bug.patch {
        Some(patch) => plant(dir, patch)?,
        // The bug is the repository's code: the fix left out.
        None => {
            let fix = suite
                .fix
                .as_ref()
                .ok_or_else(|| format!("{}: bug {} has no patch", suite.name, bug.name))?;
            plant(
                dir,
                &Patch {
                    file: fix.file,
                    from: fix.to,
                    to: fix.from,
                },
            )?;
        }
    }
    Ok(root)
}

/// `patch` applied to the copy at `dir`.
fn plant(dir: &Path, patch: &Patch) -> Result<(), String> {
    repo::replace_once(dir, patch.file, patch.from, patch.to)
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// `dep` put at its path in the copy at `dir`, replacing the empty submodule directory.
fn place(dep: &Dep, dir: &Path) -> Result<(), String> {
    let (path, source) = match dep {
        Dep::Mirror {
            path,
            mirror,
            commit,
        } => {
            let target = dir.join(path);
            let _ = std::fs::remove_dir_all(&target);
            return extract(mirror, commit, &[], &target);
        }
        Dep::Npm { path, package } => (path, npm_package(package)?),
        Dep::ForgeStdNpm { path } => (path, forge_std()?),
    };
    let target = dir.join(path);
    let _ = std::fs::remove_dir_all(&target);
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    repo::run(
        Command::new("cp").arg("-r").arg(&source).arg(&target),
        &format!("cp -r {}", source.display()),
    )
    .map(drop)
}

/// `git archive <commit> [<paths>] | tar -x -C <into>` from mirror `mirror`.
fn extract(mirror: &str, commit: &str, paths: &[&str], into: &Path) -> Result<(), String> {
    repo::materialise_paths(mirror, commit, paths, into)
}

/// An npm package's files (`npm pack`, without its dependencies), unpacked once into the
/// scratch directory.
fn npm_package(package: &str) -> Result<PathBuf, String> {
    let dir = scratch().join("npm").join(package.replace(['/', '@'], "_"));
    let unpacked = dir.join("package");
    if unpacked.join("package.json").exists() {
        return Ok(unpacked);
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let tarball = repo::run(
        Command::new("npm")
            .args(["pack", "--silent", package])
            .current_dir(&dir),
        &format!("npm pack {package} (is npm installed and the registry reachable?)"),
    )?;
    let tarball = tarball
        .trim()
        .lines()
        .last()
        .unwrap_or_default()
        .to_string();
    repo::run(
        Command::new("tar")
            .arg("-xzf")
            .arg(&tarball)
            .current_dir(&dir),
        &format!("tar -xzf {tarball}"),
    )?;
    Ok(unpacked)
}

/// forge-std 1.9.7 from npm, installed into the scratch directory on first use.
fn forge_std() -> Result<PathBuf, String> {
    let prefix = scratch().join("deps");
    let forge_std = prefix.join(FORGE_STD_IN_PACKAGE);
    if forge_std.join("Test.sol").exists() {
        return Ok(forge_std);
    }
    std::fs::create_dir_all(&prefix).map_err(|e| format!("{}: {e}", prefix.display()))?;
    repo::run(
        Command::new("npm")
            .args([
                "install",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                "--prefix",
            ])
            .arg(&prefix)
            .arg(FORGE_STD_PACKAGE),
        &format!("npm install {FORGE_STD_PACKAGE} (is npm installed and the registry reachable?)"),
    )?;
    Ok(forge_std)
}

/// The compiler a suite's foundry.toml names: the repo's shim, or for an exact older pragma
/// a script running `solc-at <version>` (foundry.toml's `solc` is a path, not a command).
fn solc(at: Option<&str>) -> Result<PathBuf, String> {
    let shim = crate::root::harvey_root().join("tools/solc-shim");
    let Some(version) = at else {
        return Ok(shim.join("solc"));
    };
    let dir = scratch().join("solc").join(version);
    let script = dir.join("solc");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    write(
        &script,
        &format!(
            "#!/bin/sh\nexec \"{}\" {version} \"$@\"\n",
            shim.join("solc-at").display()
        ),
    )?;
    repo::run(
        Command::new("chmod").arg("+x").arg(&script),
        "chmod +x solc",
    )?;
    Ok(script)
}
