//! `cargo harvey init`: find the project's suites and contracts through harvey, then write
//! the files that are missing — never overwriting one, so that running it again changes
//! nothing — and say what was done and what was left.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use harvey_project::suite::SuiteSummary;

use crate::error::InitError;
use crate::manifest::{cargo_toml, gitignore_addition, manifest_advice, package_name};
use crate::spec::{HarveySpec, built_from, default_spec};
use crate::tests_file::{Example, harvey_rs, missing_suite_tests};

/// The tests file `cargo harvey init` writes, relative to the root.
pub(crate) const TESTS_FILE: &str = "tests/harvey.rs";

/// What `cargo harvey init` was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Options {
    /// The repository's root (the current directory unless `--root`).
    pub(crate) root: PathBuf,
    /// `--harvey SPEC`, when given.
    pub(crate) harvey: Option<HarveySpec>,
}

/// Everything the files are written from, found before anything is written.
#[derive(Debug, Clone)]
pub(crate) struct Inputs {
    /// The package name of a new Cargo.toml.
    pub(crate) package: String,
    /// The harvey dependency.
    pub(crate) harvey: HarveySpec,
    /// The project's suites, as harvey lists them.
    pub(crate) suites: Vec<SuiteSummary>,
    /// The contract the commented Rust invariant is written for.
    pub(crate) example: Option<Example>,
}

/// What became of one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Done {
    /// It did not exist and was written.
    Created,
    /// It existed and a line was appended.
    Appended,
    /// It existed and was left as it was.
    Skipped,
}

/// One file's step of the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Step {
    /// The file, relative to the root.
    pub(crate) file: &'static str,
    /// What became of it.
    pub(crate) done: Done,
    /// Why, or what it holds now.
    pub(crate) what: String,
    /// Lines the user should add by hand (to a file left as it was), if any.
    pub(crate) to_add: Option<String>,
}

/// What a run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Report {
    /// The root, as resolved.
    pub(crate) root: PathBuf,
    /// A step per file, in the order done.
    pub(crate) steps: Vec<Step>,
    /// Notes to print after them (the dependency chosen by default, suites' warnings).
    pub(crate) notes: Vec<String>,
}

impl Report {
    /// Whether any file was written.
    pub(crate) fn changed(&self) -> bool {
        self.steps.iter().any(|s| s.done != Done::Skipped)
    }

    /// The report as printed: a line per file (with what to add, indented), the notes,
    /// and what to do next.
    pub(crate) fn render(&self) -> String {
        let mut out = format!("cargo harvey init in {}\n", self.root.display());
        for step in &self.steps {
            let verb = match step.done {
                Done::Created => "created ",
                Done::Appended => "appended",
                Done::Skipped => "skipped ",
            };
            let _ = writeln!(out, "  {verb} {}: {}", step.file, step.what);
            if let Some(lines) = &step.to_add {
                for line in lines.lines() {
                    let _ = writeln!(out, "      {line}");
                }
            }
        }
        for note in &self.notes {
            let _ = writeln!(out, "note: {note}");
        }
        let by_hand = self.steps.iter().any(|s| s.to_add.is_some());
        if by_hand {
            out.push_str("No file was overwritten: add the lines shown above by hand.\n");
        }
        if !self.changed() && !by_hand {
            out.push_str("Nothing changed: everything harvey needs is in place.\n");
        }
        out.push_str(
            "Run `cargo test` to run the suites (the first build of harvey takes a few minutes).\n",
        );
        out
    }
}

/// Runs `cargo harvey init`: checks the root is a Solidity project, compiles it through
/// harvey to list its suites and contracts (nothing is written when that fails), then
/// writes what is missing.
pub(crate) fn init(options: Options) -> Result<Report, InitError> {
    let root = options
        .root
        .canonicalize()
        .map_err(|why| InitError::NoRoot {
            root: options.root.clone(),
            why,
        })?;
    if !root.is_dir() {
        return Err(InitError::NoRoot {
            root,
            why: std::io::Error::from(std::io::ErrorKind::NotADirectory),
        });
    }
    if !root.join("foundry.toml").is_file() && !root.join("contracts").is_dir() {
        return Err(InitError::NotSolidity { root });
    }
    let compile_error = |source| InitError::Compile {
        root: root.clone(),
        source,
    };
    let suites = harvey_project::suite::suites(&root).map_err(compile_error)?;
    let contracts = harvey_project::project::own_contracts(&root).map_err(compile_error)?;
    let example = Example::choose(
        contracts
            .iter()
            .map(|c| (c.name.as_str(), c.source_path.as_path(), &c.abi)),
    );
    let (harvey, default_note) = match options.harvey {
        Some(spec) => (spec, None),
        None => default_spec(built_from()),
    };
    let directory = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let inputs = Inputs {
        package: package_name(&directory),
        harvey,
        suites,
        example,
    };
    let mut report = write_files(&root, &inputs)?;
    report.notes.extend(default_note);
    for suite in &inputs.suites {
        report.notes.extend(suite.warnings.iter().cloned());
    }
    Ok(report)
}

/// Writes the files `inputs` call for under `root` that do not exist yet, appends `target/`
/// to a `.gitignore` that lacks it, and leaves every other existing file as it is.
pub(crate) fn write_files(root: &Path, inputs: &Inputs) -> Result<Report, InitError> {
    let steps = vec![
        manifest_step(root, inputs)?,
        tests_step(root, inputs)?,
        gitignore_step(root)?,
    ];
    Ok(Report {
        root: root.to_path_buf(),
        steps,
        notes: Vec::new(),
    })
}

fn manifest_step(root: &Path, inputs: &Inputs) -> Result<Step, InitError> {
    let file = "Cargo.toml";
    let path = root.join(file);
    if let Some(existing) = read_if_present(&path)? {
        let to_add = manifest_advice(&existing, &inputs.harvey);
        let what = if to_add.is_some() {
            "exists, left as it is; it lacks what harvey needs:"
        } else {
            "exists, and already has harvey and the speed list"
        };
        return Ok(step(file, Done::Skipped, what, to_add));
    }
    create_new(&path, &cargo_toml(&inputs.package, &inputs.harvey))?;
    let what = format!(
        "package `{}`, harvey = {}",
        inputs.package,
        inputs.harvey.inline_table()
    );
    Ok(step(file, Done::Created, &what, None))
}

fn tests_step(root: &Path, inputs: &Inputs) -> Result<Step, InitError> {
    let path = root.join(TESTS_FILE);
    if let Some(existing) = read_if_present(&path)? {
        let missing = missing_suite_tests(&existing, &inputs.suites);
        if missing.is_empty() {
            let what = format!(
                "exists, and names every suite found ({})",
                inputs.suites.len()
            );
            return Ok(step(TESTS_FILE, Done::Skipped, &what, None));
        }
        let what = format!(
            "exists, left as it is; it does not name {} of the suites found:",
            missing.len()
        );
        return Ok(step(
            TESTS_FILE,
            Done::Skipped,
            &what,
            Some(missing.join("\n")),
        ));
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| InitError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    create_new(&path, &harvey_rs(&inputs.suites, inputs.example.as_ref()))?;
    let names: Vec<&str> = inputs.suites.iter().map(|s| s.name.as_str()).collect();
    let mut what = match names.len() {
        0 => "no suite found".to_string(),
        1 => format!("1 suite test ({})", names[0]),
        n => format!("{n} suite tests ({})", names.join(", ")),
    };
    match &inputs.example {
        Some(example) => {
            let _ = write!(
                what,
                ", a commented Rust invariant over {}",
                example.contract
            );
        }
        None => what.push_str(", no contract for a Rust invariant"),
    }
    Ok(step(TESTS_FILE, Done::Created, &what, None))
}

fn gitignore_step(root: &Path) -> Result<Step, InitError> {
    let file = ".gitignore";
    let path = root.join(file);
    let existing = read_if_present(&path)?;
    let Some(addition) = gitignore_addition(existing.as_deref()) else {
        return Ok(step(file, Done::Skipped, "already ignores target/", None));
    };
    if existing.is_none() {
        create_new(&path, &addition)?;
        return Ok(step(file, Done::Created, "target/", None));
    }
    let io = |source| InitError::Io {
        path: path.clone(),
        source,
    };
    let mut handle = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .map_err(io)?;
    handle.write_all(addition.as_bytes()).map_err(io)?;
    Ok(step(file, Done::Appended, "target/", None))
}

fn step(file: &'static str, done: Done, what: &str, to_add: Option<String>) -> Step {
    Step {
        file,
        done,
        what: what.to_string(),
        to_add,
    }
}

/// The text of `path`, `None` when there is no such file.
fn read_if_present(path: &Path) -> Result<Option<String>, InitError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(InitError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Writes `text` to `path`, which must not exist (a file created meanwhile is an error, never
/// overwritten).
fn create_new(path: &Path, text: &str) -> Result<(), InitError> {
    let io = |source| InitError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(io)?;
    file.write_all(text.as_bytes()).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use harvey_project::suite::SuiteKind;

    fn inputs(suites: &[&str]) -> Inputs {
        Inputs {
            package: "ledger".into(),
            harvey: HarveySpec::parse("path=/src/harvey").unwrap(),
            suites: suites
                .iter()
                .map(|name| SuiteSummary {
                    name: name.to_string(),
                    contract: name.to_string(),
                    file: PathBuf::from(format!("test/{name}.t.sol")),
                    kind: SuiteKind::Forge,
                    invariants: vec!["invariant_x".into()],
                    fuzz_tests: Vec::new(),
                    warnings: Vec::new(),
                    config: None,
                })
                .collect(),
            example: None,
        }
    }

    fn read(root: &Path, file: &str) -> String {
        std::fs::read_to_string(root.join(file)).unwrap()
    }

    #[test]
    fn a_bare_repository_gets_all_three_files() {
        let dir = tempfile::tempdir().unwrap();
        let report = write_files(dir.path(), &inputs(&["LedgerInvariants"])).unwrap();
        let done: Vec<(&str, Done)> = report.steps.iter().map(|s| (s.file, s.done)).collect();
        assert_eq!(
            done,
            [
                ("Cargo.toml", Done::Created),
                (TESTS_FILE, Done::Created),
                (".gitignore", Done::Created)
            ]
        );
        assert!(read(dir.path(), "Cargo.toml").contains("name = \"ledger\""));
        assert!(read(dir.path(), TESTS_FILE).contains("forge_suite(\"LedgerInvariants\")"));
        assert_eq!(read(dir.path(), ".gitignore"), "target/\n");
        let text = report.render();
        assert!(
            text.contains(
                "  created  Cargo.toml: package `ledger`, harvey = { path = \"/src/harvey\" }"
            ),
            "{text}"
        );
        assert!(!text.contains("Nothing changed"), "{text}");
    }

    #[test]
    fn a_second_run_changes_nothing_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        write_files(dir.path(), &inputs(&["LedgerInvariants"])).unwrap();
        let before: Vec<String> = ["Cargo.toml", TESTS_FILE, ".gitignore"]
            .iter()
            .map(|f| read(dir.path(), f))
            .collect();
        let again = write_files(dir.path(), &inputs(&["LedgerInvariants"])).unwrap();
        assert!(!again.changed());
        assert!(again.steps.iter().all(|s| s.to_add.is_none()), "{again:?}");
        let after: Vec<String> = ["Cargo.toml", TESTS_FILE, ".gitignore"]
            .iter()
            .map(|f| read(dir.path(), f))
            .collect();
        assert_eq!(before, after);
        assert!(
            again.render().contains("Nothing changed"),
            "{}",
            again.render()
        );
    }

    #[test]
    fn existing_files_are_never_overwritten_and_what_they_lack_is_shown() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let manifest = "[package]\nname = \"mine\"\n";
        std::fs::write(root.join("Cargo.toml"), manifest).unwrap();
        std::fs::create_dir(root.join("tests")).unwrap();
        let tests = "#[harvey::forge_suite(\"Old\")]\nfn old() {}\n";
        std::fs::write(root.join(TESTS_FILE), tests).unwrap();
        std::fs::write(root.join(".gitignore"), "out/").unwrap();
        let report = write_files(root, &inputs(&["Old", "New"])).unwrap();
        assert_eq!(read(root, "Cargo.toml"), manifest);
        assert_eq!(read(root, TESTS_FILE), tests);
        assert_eq!(read(root, ".gitignore"), "out/\ntarget/\n");
        let manifest_step = &report.steps[0];
        assert_eq!(manifest_step.done, Done::Skipped);
        assert!(
            manifest_step
                .to_add
                .as_ref()
                .unwrap()
                .contains("[dev-dependencies]")
        );
        let tests_step = &report.steps[1];
        assert_eq!(tests_step.done, Done::Skipped);
        let to_add = tests_step.to_add.as_ref().unwrap();
        assert!(to_add.contains("forge_suite(\"New\")"), "{to_add}");
        assert!(!to_add.contains("\"Old\""), "{to_add}");
        assert_eq!(report.steps[2].done, Done::Appended);
        let text = report.render();
        assert!(text.contains("add the lines shown above by hand"), "{text}");
        assert!(text.contains("      [dev-dependencies]"), "{text}");
    }
}
