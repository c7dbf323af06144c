//! The command line: `cargo harvey init [--root DIR] [--harvey SPEC]`, as cargo runs it
//! (`cargo-harvey harvey init ...`) or run directly (`cargo-harvey init ...`).

use std::ffi::OsString;
use std::path::PathBuf;

use crate::error::InitError;
use crate::init::Options;
use crate::spec::HarveySpec;

/// `cargo harvey --help`.
pub(crate) const USAGE: &str = "\
cargo harvey init: sets a Foundry repository up for harvey's invariant tests under `cargo test`

Usage: cargo harvey init [--root DIR] [--harvey SPEC]

Run at the root of a Foundry repository (or of a Solidity project with its sources in
contracts/). It compiles the project with harvey, then writes what is missing, never
overwriting a file (run again, it changes nothing), and prints what it did and skipped:

  Cargo.toml       a test-only package with harvey as a dev-dependency and the
                   [profile.dev.package] list that makes campaigns fast under `cargo test`
                   (a Cargo.toml that exists is left as it is: what it lacks is printed)
  tests/harvey.rs  a #[harvey::forge_suite(\"Name\")] test for each forge invariant suite and
                   Echidna/Medusa property contract found, and a commented Rust invariant over
                   one of the project's contracts (a test file that exists is left as it is:
                   the suites it does not name are printed)
  .gitignore       target/ (appended when missing)

Then `cargo test` runs the suites; a broken invariant fails its test with the shrunk call
sequence.

Options:
  --root DIR     the repository's root (default: the current directory)
  --harvey SPEC  where Cargo.toml takes harvey from: path=DIR, git=URL (with branch=NAME,
                 tag=NAME or rev=HASH after a comma), or version=REQ (default: path = the
                 harvey source tree cargo-harvey was built from)
  -h, --help     print this text
  -V, --version  print cargo-harvey's version

solc is found as the tests will find it: HARVEY_SOLC, foundry.toml's `solc`, PATH, then
svm's directories. Install with `cargo install --path cargo-harvey` in harvey's repository.
";

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Command {
    /// `init`.
    Init(Options),
    /// `--help`, `-h` or `help`.
    Help,
    /// `--version` or `-V`.
    Version,
}

/// Parses the arguments after the program name (`harvey` first when cargo runs it).
pub(crate) fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Command, InitError> {
    let mut args = args.into_iter().peekable();
    if args.peek().is_some_and(|a| a == "harvey") {
        args.next();
    }
    let usage = |message: String| InitError::Usage(message);
    let Some(command) = args.next() else {
        return Err(usage(
            "no command given: the command is `cargo harvey init`".into(),
        ));
    };
    match command.to_str() {
        Some("init") => {}
        Some("-h" | "--help" | "help") => return Ok(Command::Help),
        Some("-V" | "--version") => return Ok(Command::Version),
        _ => {
            return Err(usage(format!(
                "unknown command `{}`: the command is `cargo harvey init`",
                command.to_string_lossy()
            )));
        }
    }
    let mut root: Option<PathBuf> = None;
    let mut harvey: Option<HarveySpec> = None;
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy().into_owned();
        let (flag, inline) = match text.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag.to_string(), Some(value)),
            _ => (text.clone(), None),
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "--root" | "--harvey" => {
                let value: OsString = match inline {
                    Some(value) => value.into(),
                    None => args
                        .next()
                        .ok_or_else(|| usage(format!("{flag} needs a value")))?,
                };
                let twice = || usage(format!("{flag} is given twice"));
                if flag == "--root" {
                    if root.replace(value.into()).is_some() {
                        return Err(twice());
                    }
                } else if harvey
                    .replace(HarveySpec::parse(&value.to_string_lossy())?)
                    .is_some()
                {
                    return Err(twice());
                }
            }
            _ => {
                return Err(usage(format!(
                    "unknown argument `{text}` to `cargo harvey init`"
                )));
            }
        }
    }
    Ok(Command::Init(Options {
        root: root.unwrap_or_else(|| PathBuf::from(".")),
        harvey,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Result<Command, InitError> {
        parse(args.iter().map(OsString::from))
    }

    fn init(root: &str, harvey: Option<&str>) -> Command {
        Command::Init(Options {
            root: root.into(),
            harvey: harvey.map(|s| HarveySpec::parse(s).unwrap()),
        })
    }

    #[test]
    fn cargo_s_way_and_the_direct_way_are_the_same() {
        assert_eq!(parsed(&["harvey", "init"]).unwrap(), init(".", None));
        assert_eq!(parsed(&["init"]).unwrap(), init(".", None));
        assert_eq!(
            parsed(&["harvey", "init", "--root", "repo", "--harvey", "path=../h"]).unwrap(),
            init("repo", Some("path=../h"))
        );
        assert_eq!(
            parsed(&[
                "init",
                "--harvey=git=https://x/h.git,branch=main",
                "--root=r"
            ])
            .unwrap(),
            init("r", Some("git=https://x/h.git,branch=main"))
        );
        assert_eq!(parsed(&["harvey", "--help"]).unwrap(), Command::Help);
        assert_eq!(parsed(&["init", "-h"]).unwrap(), Command::Help);
        assert_eq!(parsed(&["-V"]).unwrap(), Command::Version);
    }

    #[test]
    fn what_it_does_not_take_is_a_usage_error() {
        for (args, says) in [
            (&[][..], "no command given"),
            (&["harvey"][..], "no command given"),
            (&["harvey", "nit"][..], "unknown command `nit`"),
            (&["init", "--force"][..], "unknown argument `--force`"),
            (&["init", "extra"][..], "unknown argument `extra`"),
            (&["init", "--root"][..], "--root needs a value"),
            (
                &["init", "--root", "a", "--root", "b"][..],
                "--root is given twice",
            ),
        ] {
            let error = parsed(args).unwrap_err();
            assert_eq!(error.exit_code(), 2, "{args:?}");
            let text = error.to_string();
            assert!(text.contains(says), "{args:?}: {text}");
            assert!(text.contains("cargo harvey --help"), "{text}");
        }
        let bad_spec = parsed(&["init", "--harvey", "nope"]).unwrap_err();
        assert_eq!(bad_spec.exit_code(), 2);
    }
}
