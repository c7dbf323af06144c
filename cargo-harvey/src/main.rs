//! `cargo harvey init`: sets a Foundry repository (or any Solidity project harvey can
//! compile) up for harvey's invariant and property tests under `cargo test`.
//!
//! Install it from harvey's repository with `cargo install --path cargo-harvey`, then run
//! `cargo harvey init [--root DIR] [--harvey SPEC]` at the root of the repository. It
//! compiles the project with harvey, lists its forge invariant suites and Echidna/Medusa
//! property contracts by the rules `#[harvey::forge_suite]` applies (`harvey_project::suite::suites`, which `harvey::discovery` re-exports), and
//! writes what is missing, never overwriting a file:
//!
//! - `Cargo.toml`: a test-only package with harvey as a dev-dependency (`--harvey path=DIR`,
//!   `git=URL[,branch=..|tag=..|rev=..]` or `version=REQ`; by default the harvey source tree
//!   this binary was built from) and the `[profile.dev.package]` list of harvey's own
//!   Cargo.toml; a Cargo.toml that exists is left alone and what it lacks is printed;
//! - `tests/harvey.rs`: one `#[harvey::forge_suite("Name")]` test per suite, and a commented
//!   Rust invariant (deploy, fuzz, view) over one of the project's own contracts;
//! - `.gitignore`: `target/`, appended when missing.
//!
//! Running it again changes nothing and says so. Errors (not a Solidity project, a compile
//! error with solc's file and line, an argument it does not take) exit non-zero with
//! nothing written. `cargo harvey --help` prints the full usage.

mod cli;
mod error;
mod init;
mod manifest;
mod profile;
mod spec;
mod tests_file;

use std::process::ExitCode;

use cli::{Command, USAGE};

fn main() -> ExitCode {
    let outcome = cli::parse(std::env::args_os().skip(1)).and_then(|command| match command {
        Command::Help => {
            print!("{USAGE}");
            Ok(())
        }
        Command::Version => {
            println!("cargo-harvey {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        Command::Init(options) => init::init(options).map(|report| print!("{}", report.render())),
    });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(error.exit_code())
        }
    }
}
