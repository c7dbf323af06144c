//! Target locations for targeted fuzzing (Wüstholz & Christakis, ICSE'20): what a change
//! touched, as bytecode.
//!
//! A [`TargetSpec`] names source lines, either as a git revision to diff the working tree
//! against (`diff:origin/main`) or explicitly (`src/Vault.sol:42`). [`resolve`] maps them
//! onto every compiled contract's runtime code: the instructions whose whole source range
//! lies within the named lines, then the basic blocks holding them. A change that touches no
//! code is not an error: the campaign then runs untargeted, and a warning says why.

pub(crate) mod line_coverage;
mod diff;
mod git;
mod map;

pub(crate) use map::block_of;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::Result;
use crate::project::Artifacts;

pub use harvey_settings::{SourceLine, TargetSpec};

use diff::{ChangedLines, FileChange};
use map::{Index, normalise};

/// One targeted source line of one contract, with the basic blocks that carry its code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The source file as compiled (relative to the project root where it lies inside it).
    pub file: PathBuf,
    /// The 1-based line: the first line of the source ranges of the instructions below.
    pub line: u32,
    /// The contract whose runtime code holds the instructions (as
    /// [`Artifacts::get`] accepts it: `path:Name` where two files define `Name`). A line of a
    /// base contract or library is a target of every contract that includes its code.
    pub contract: String,
    /// Start pcs of the runtime basic blocks that hold the line's instructions; sorted,
    /// without duplicates, never empty.
    pub pcs: Vec<usize>,
}

impl fmt::Display for Target {
    /// `file:line`, e.g. `src/Vault.sol:42`, for summaries (the contract is not shown).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file.display(), self.line)
    }
}

/// What a [`TargetSpec`] resolved to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolved {
    /// The targets, sorted by file, line and contract. Empty means an untargeted campaign.
    pub targets: Vec<Target>,
    /// What a person should know: lines that map to no code, a diff that touches no
    /// compiled code (the campaign then runs untargeted).
    pub warnings: Vec<String>,
}

/// Resolves `spec` for the project at `root` (where git runs and explicit paths are
/// relative to) against its compiled `artifacts`.
///
/// Errors only for a `diff:` that git cannot compute (git missing, not a repository, unknown
/// revision); lines that map to no code are warnings.
pub fn resolve(spec: &TargetSpec, root: &Path, artifacts: &Artifacts) -> Result<Resolved> {
    let index = Index::new(artifacts);
    let mut resolved = match spec {
        TargetSpec::Diff { rev } => resolve_diff(rev, root, &index)?,
        TargetSpec::Lines(lines) => resolve_lines(lines, root, &index),
    };
    resolved
        .targets
        .sort_by(|a, b| (&a.file, a.line, &a.contract).cmp(&(&b.file, b.line, &b.contract)));
    // The same line named twice is one target.
    resolved.targets.dedup();
    Ok(resolved)
}

fn resolve_diff(rev: &str, root: &Path, index: &Index) -> Result<Resolved> {
    let changes = git::changes(root, rev)?;
    let targets: Vec<Target> = changes
        .iter()
        .filter_map(|change| {
            let file = index.file(&normalise(&change.path))?;
            Some(index.targets(file, &counted_lines(index, file, change)))
        })
        .flatten()
        .collect();
    let mut warnings = Vec::new();
    if targets.is_empty() {
        let root = normalise(root);
        let changed = changes
            .iter()
            .map(|c| c.path.strip_prefix(&root).unwrap_or(&c.path));
        warnings.push(if changes.is_empty() {
            format!(
                "`diff:{rev}`: no Solidity file differs from `{rev}`; the campaign runs untargeted"
            )
        } else {
            format!(
                "`diff:{rev}`: the changes touch no compiled code (only comments, blank lines, \
                 declarations without code, or files that are not compiled) in {}; the \
                 campaign runs untargeted",
                listing(changed)
            )
        });
    }
    Ok(Resolved { targets, warnings })
}

/// The lines of `change` that become targets: the added and changed ones, and for each
/// place where lines were only removed, the nearest line with code: the one after the
/// removal (its code now runs where the removed code did) or, when that holds none (the
/// removal ended a block, so the line after it is a `}`), the one before it.
fn counted_lines(index: &Index, file: usize, change: &FileChange) -> ChangedLines {
    let has_code = |line: u32| {
        line > 0
            && !index
                .targets(file, &ChangedLines::default().with([line]))
                .is_empty()
    };
    let stand_ins = change.deleted_after.iter().filter_map(|&before| {
        [before.saturating_add(1), before]
            .into_iter()
            .find(|&l| has_code(l))
    });
    change.lines.with(stand_ins)
}

fn resolve_lines(lines: &[SourceLine], root: &Path, index: &Index) -> Resolved {
    let mut resolved = Resolved::default();
    for SourceLine { file, line } in lines {
        let named = format!("{}:{line}", file.display());
        // Relative to the project root first; otherwise a unique compiled path ending in it.
        let candidates = match index.file(&normalise(&root.join(file))) {
            Some(found) => vec![found],
            None => index.files_ending_with(file),
        };
        match candidates.as_slice() {
            [] => resolved.warnings.push(format!(
                "target `{named}`: {} is not a compiled source file (compiled: {}); it is not \
                 targeted",
                file.display(),
                listing(index.sources())
            )),
            [found] => {
                let targets = index.targets(*found, &ChangedLines::from_ranges([*line..=*line]));
                if targets.is_empty() {
                    resolved.warnings.push(format!(
                        "target `{named}` maps to no code (a comment, a blank line, a \
                         declaration without code, or code the compiler removed); it is not \
                         targeted"
                    ));
                }
                resolved.targets.extend(targets);
            }
            several => resolved.warnings.push(format!(
                "target `{named}` is ambiguous between {}; write the path relative to the \
                 project root; it is not targeted",
                listing(several.iter().map(|&i| index.shown(i)))
            )),
        }
    }
    resolved
}

/// Paths for a message, at most ten of them.
fn listing<'a>(paths: impl Iterator<Item = &'a Path>) -> String {
    const SHOWN: usize = 10;
    let paths: Vec<_> = paths.map(|p| p.display().to_string()).collect();
    let mut text = paths
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > SHOWN {
        text.push_str(&format!(" and {} more", paths.len() - SHOWN));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listings_stop_after_ten_paths() {
        let paths: Vec<PathBuf> = (0..12)
            .map(|i| PathBuf::from(format!("c/{i}.sol")))
            .collect();
        let text = listing(paths.iter().map(PathBuf::as_path));
        assert!(text.starts_with("c/0.sol, c/1.sol,") && text.ends_with("c/9.sol and 2 more"));
        assert_eq!(listing(paths[..1].iter().map(PathBuf::as_path)), "c/0.sol");
    }

    #[test]
    fn targets_render_as_file_colon_line() {
        let target = Target {
            file: "src/Vault.sol".into(),
            line: 42,
            contract: "Vault".into(),
            pcs: vec![7],
        };
        assert_eq!(target.to_string(), "src/Vault.sol:42");
    }
}
