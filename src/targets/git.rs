//! Asking git what changed: the working tree (uncommitted and untracked files included)
//! against a revision, restricted to Solidity files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::{Error, Result};
use crate::targets::diff::{self, ChangedLines, FileChange};

/// Every Solidity file that differs between `rev` and the working tree of the repository
/// holding `root`, with the new version's changed lines. Paths are absolute (the
/// repository's top level joined with git's path), because the top level may lie above the
/// project root.
pub(crate) fn changes(root: &Path, rev: &str) -> Result<Vec<FileChange>> {
    if !root.is_dir() {
        return Err(Error::Targets(format!(
            "`diff:{rev}`: the project root {} is not a directory",
            root.display()
        )));
    }
    let top = top_level(root, rev)?;
    // Run from the top level: pathspecs and the paths git prints are then relative to it,
    // whatever the project root is. Every option that user configuration could otherwise
    // change (colour, prefixes, external diff drivers, rename detection) is explicit.
    let diff = git(
        &top,
        &[
            "diff",
            "-U0",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--find-renames",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            "--end-of-options",
            rev,
            "--",
            "*.sol",
        ],
        rev,
    )?;
    if !diff.status.success() {
        return Err(Error::Targets(format!(
            "`diff:{rev}`: git cannot diff against `{rev}`; is it a revision of this repository? \
             (in a shallow CI clone, fetch it first, e.g. `git fetch origin main`). git said: {}",
            stderr(&diff)
        )));
    }
    let mut files = diff::parse(&String::from_utf8_lossy(&diff.stdout))?;
    files.extend(untracked(&top, rev)?);
    for file in &mut files {
        file.path = top.join(&file.path);
    }
    Ok(files)
}

/// The repository's top-level directory, or an error saying `root` is in none.
fn top_level(root: &Path, rev: &str) -> Result<PathBuf> {
    let out = git(root, &["rev-parse", "--show-toplevel"], rev)?;
    if !out.status.success() {
        return Err(Error::Targets(format!(
            "`diff:{rev}`: {} is not inside a git repository (git said: {}); run from a clone, \
             or name the target lines explicitly (`file:line,...`)",
            root.display(),
            stderr(&out)
        )));
    }
    let top = String::from_utf8_lossy(&out.stdout).trim_end().to_string();
    Ok(PathBuf::from(top))
}

/// New Solidity files git does not track yet (ignored ones excluded): changed throughout.
fn untracked(top: &Path, rev: &str) -> Result<Vec<FileChange>> {
    let args = [
        "ls-files",
        "--others",
        "--exclude-standard",
        "-z",
        "--",
        "*.sol",
    ];
    let out = git(top, &args, rev)?;
    if !out.status.success() {
        return Err(Error::Targets(format!(
            "`diff:{rev}`: git could not list untracked files: {}",
            stderr(&out)
        )));
    }
    // `-z` prints names verbatim, NUL-terminated: no quoting to undo.
    Ok(out
        .stdout
        .split(|&b| b == 0)
        .filter(|name| !name.is_empty())
        .map(|name| FileChange {
            path: PathBuf::from(String::from_utf8_lossy(name).into_owned()),
            lines: ChangedLines::all(),
            deleted_after: Vec::new(),
        })
        .collect())
}

/// Runs git in `dir`; only a git that cannot be started is an error here.
fn git(dir: &Path, args: &[&str], rev: &str) -> Result<Output> {
    run("git", dir, args, rev)
}

/// Runs `program` (git, or in tests one that does not exist) in `dir`.
fn run(program: &str, dir: &Path, args: &[&str], rev: &str) -> Result<Output> {
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| {
            Error::Targets(format!(
                "`diff:{rev}` needs git, which could not be run ({e}); install git, or name \
                 the target lines explicitly (`file:line,...`)"
            ))
        })
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_git_says_how_to_do_without() {
        let dir = std::env::temp_dir();
        let err = run("harvey-no-such-git", &dir, &["--version"], "HEAD").unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("needs git") && text.contains("`file:line,...`"),
            "{text}"
        );
    }

    #[test]
    fn a_missing_project_root_is_named() {
        let err = changes(Path::new("/harvey/no/such/root"), "HEAD").unwrap_err();
        assert!(err.to_string().contains("/harvey/no/such/root"), "{err}");
    }
}
