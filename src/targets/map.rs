//! From source lines to bytecode: the runtime instructions whose source range lies within
//! given lines, and the start pcs of the basic blocks that hold them.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};

use crate::bytecode::block_starts;
use crate::project::Artifacts;
use crate::targets::Target;
use crate::targets::diff::ChangedLines;

/// The start of the block holding `pc`, given the ascending `starts` (which begin with 0).
pub(crate) fn block_of(starts: &[usize], pc: usize) -> usize {
    starts[starts.partition_point(|&start| start <= pc) - 1]
}

/// `path` made comparable: symbolic links resolved where the file exists, `.` and `..`
/// folded away lexically where it does not.
pub(crate) fn normalise(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| lexical(path))
}

/// `path` without `.` components and with `name/..` pairs removed.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// One runtime instruction that the source map attributes to a file.
struct Instruction {
    /// The start pc of its basic block.
    block: usize,
    /// Index into [`Index::files`].
    file: usize,
    line: u32,
    end_line: u32,
}

/// A compiled source file, by its normalised absolute path and its path as compiled.
struct Source {
    key: PathBuf,
    shown: PathBuf,
}

/// Every contract's source-mapped runtime instructions, ready to be matched against lines.
pub(crate) struct Index {
    files: Vec<Source>,
    /// Per contract: its name (qualified where two files define it) and its instructions.
    contracts: Vec<(String, Vec<Instruction>)>,
}

impl Index {
    /// Indexes every contract of `artifacts` (their source paths are relative to its root).
    pub(crate) fn new(artifacts: &Artifacts) -> Self {
        let root = artifacts.root();
        let mut files: Vec<Source> = Vec::new();
        let mut by_path: HashMap<PathBuf, usize> = HashMap::new();
        let mut contracts = Vec::new();
        for (contract, name) in artifacts.contracts().zip(artifacts.known_names()) {
            let starts = block_starts(&contract.runtime_code);
            let instructions = contract
                .source_locations()
                .map(|(pc, loc)| {
                    let file = *by_path.entry(loc.file.path.clone()).or_insert_with(|| {
                        files.push(Source {
                            key: normalise(&root.join(&loc.file.path)),
                            shown: loc.file.path.clone(),
                        });
                        files.len() - 1
                    });
                    Instruction {
                        block: block_of(&starts, pc),
                        file,
                        line: loc.line,
                        end_line: loc.end_line,
                    }
                })
                .collect();
            contracts.push((name, instructions));
        }
        Index { files, contracts }
    }

    /// The compiled source whose normalised path is `key`.
    pub(crate) fn file(&self, key: &Path) -> Option<usize> {
        self.files.iter().position(|f| f.key == key)
    }

    /// The compiled sources whose path as compiled ends with `path` (component-wise), for a
    /// path given relative to somewhere other than the project root.
    pub(crate) fn files_ending_with(&self, path: &Path) -> Vec<usize> {
        let wanted = lexical(path);
        if wanted.as_os_str().is_empty() || wanted.is_absolute() {
            return Vec::new();
        }
        (0..self.files.len())
            .filter(|&i| self.files[i].shown.ends_with(&wanted))
            .collect()
    }

    /// The path of source `file` as compiled.
    pub(crate) fn shown(&self, file: usize) -> &Path {
        &self.files[file].shown
    }

    /// Every compiled source's path as compiled.
    pub(crate) fn sources(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(|f| f.shown.as_path())
    }

    /// One target per (contract, line) of source `file`: the instructions whose whole source
    /// range lies within `lines` count for the first line of that range, so the enclosing
    /// function's or contract's range never makes a line a target, and a multi-line
    /// statement is one target.
    pub(crate) fn targets(&self, file: usize, lines: &ChangedLines) -> Vec<Target> {
        let mut found: BTreeMap<(u32, &str), BTreeSet<usize>> = BTreeMap::new();
        for (contract, instructions) in &self.contracts {
            for ins in instructions {
                if ins.file == file && lines.covers(ins.line, ins.end_line) {
                    found
                        .entry((ins.line, contract.as_str()))
                        .or_default()
                        .insert(ins.block);
                }
            }
        }
        found
            .into_iter()
            .map(|((line, contract), pcs)| Target {
                file: self.files[file].shown.clone(),
                line,
                contract: contract.to_string(),
                pcs: pcs.into_iter().collect(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pc_belongs_to_the_block_starting_at_or_before_it() {
        let starts = [0, 3, 4, 9, 11, 13, 14, 15];
        assert_eq!(block_of(&starts, 2), 0);
        assert_eq!(block_of(&starts, 7), 4);
        assert_eq!(block_of(&starts, 15), 15);
    }

    #[test]
    fn lexical_normalisation_folds_dots() {
        assert_eq!(lexical(Path::new("./a/b/../c.sol")), Path::new("a/c.sol"));
        assert_eq!(lexical(Path::new("/r/./x/../y.sol")), Path::new("/r/y.sol"));
        assert_eq!(lexical(Path::new("../up.sol")), Path::new("../up.sol"));
    }
}
