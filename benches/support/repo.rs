//! Shared by the benches that run public repositories (`real_repos`, `suites`): where their
//! git directories are, how a pinned commit is materialised into a scratch directory, how a
//! bug is planted in the copy, and running a helper process.
//!
//! The repositories are never committed into harvey: each is read at run time from a git
//! directory under `HARVEY_REAL_REPOS_MIRRORS` (default `/work/.mirror`), one per repository
//! at `<owner>+<name>/repo`, e.g. made with
//! `git clone --bare https://github.com/<owner>/<name> <owner>+<name>/repo`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The directory holding the repositories' git directories.
pub(crate) fn mirrors() -> PathBuf {
    std::env::var_os("HARVEY_REAL_REPOS_MIRRORS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/.mirror"))
}

/// The git directory of repository `mirror` (`<owner>+<name>`).
pub(crate) fn git_dir(mirror: &str) -> PathBuf {
    mirrors().join(mirror).join("repo")
}

/// Runs `command`, returning its stdout, or an error with its output.
pub(crate) fn run(command: &mut Command, what: &str) -> Result<String, String> {
    let output = command
        .output()
        .map_err(|e| format!("{what}: could not start: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "{what} failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// `git archive <commit> | tar -x -C <into>` from repository `mirror`, with an error that
/// says where the git directory was looked for and how to get it.
pub(crate) fn materialise(mirror: &str, commit: &str, into: &Path) -> Result<(), String> {
    materialise_paths(mirror, commit, &[], into)
}

/// [`materialise`], of only `paths` of the tree (all of it when empty).
pub(crate) fn materialise_paths(
    mirror: &str,
    commit: &str,
    paths: &[&str],
    into: &Path,
) -> Result<(), String> {
    std::fs::create_dir_all(into).map_err(|e| format!("{}: {e}", into.display()))?;
    let git_dir = git_dir(mirror);
    extract(&git_dir, commit, paths, into).map_err(|e| {
        format!(
            "materialising {mirror}@{commit} (is {} a git directory of github:{}? \
             clone it there or set HARVEY_REAL_REPOS_MIRRORS): {e}",
            git_dir.display(),
            mirror.replace('+', "/")
        )
    })
}

/// `git archive <commit> [<paths>] | tar -x -C <into>`.
fn extract(git_dir: &Path, commit: &str, paths: &[&str], into: &Path) -> Result<(), String> {
    let mut archive = Command::new("git")
        .arg(format!("--git-dir={}", git_dir.display()))
        .args(["archive", commit])
        .args(paths)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("git could not run: {e}"))?;
    let tar = archive
        .stdout
        .take()
        .map(Stdio::from)
        .unwrap_or_else(Stdio::null);
    let untar = run(
        Command::new("tar").arg("-x").arg("-C").arg(into).stdin(tar),
        "tar -x",
    );
    let archived = archive.wait_with_output().map_err(|e| e.to_string())?;
    if !archived.status.success() {
        return Err(format!(
            "git archive: {}",
            String::from_utf8_lossy(&archived.stderr).trim()
        ));
    }
    untar.map(drop)
}

/// Plants a bug: `from` replaced by `to` in `file` of the copy at `dir`, which must hold
/// `from` exactly once (so a patch that no longer fits the pinned source fails loudly).
pub(crate) fn replace_once(dir: &Path, file: &str, from: &str, to: &str) -> Result<(), String> {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{file}: {e}"))?;
    if text.matches(from).count() != 1 {
        return Err(format!("{file}: `{from}` does not occur exactly once"));
    }
    std::fs::write(&path, text.replace(from, to)).map_err(|e| format!("{file}: {e}"))
}
