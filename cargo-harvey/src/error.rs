//! What can stop `cargo harvey init`, each with what to do about it.

use std::path::PathBuf;

/// Why `cargo harvey init` stopped. Nothing is written before the project has compiled, so
/// every error but [`InitError::Io`] leaves the repository as it was.
#[derive(Debug, thiserror::Error)]
pub(crate) enum InitError {
    /// The command line is not one `cargo harvey` takes.
    #[error("{0}\n\nRun `cargo harvey --help` for the usage.")]
    Usage(String),

    /// `--harvey SPEC` is not a dependency spec.
    #[error("--harvey {spec:?}: {why}")]
    BadSpec {
        /// The SPEC given.
        spec: String,
        /// What is wrong with it.
        why: String,
    },

    /// The root is not a directory.
    #[error("{}: not a directory ({why})", .root.display())]
    NoRoot {
        /// The root given.
        root: PathBuf,
        /// The I/O error.
        why: std::io::Error,
    },

    /// Neither foundry.toml nor contracts/ at the root.
    #[error(
        "{} is not a Solidity project harvey can compile: it has neither a foundry.toml nor a contracts/ directory.\nRun `cargo harvey init` at the root of a Foundry repository (or of a project with its sources in contracts/), or pass --root DIR.",
        .root.display()
    )]
    NotSolidity {
        /// The root.
        root: PathBuf,
    },

    /// harvey could not compile the project (no solc, a compile error, a bad foundry.toml).
    #[error(
        "harvey could not compile the Solidity project at {}:\n{}\nNothing was written.",
        .root.display(),
        .source.to_string().trim_end()
    )]
    Compile {
        /// The root.
        root: PathBuf,
        /// harvey's error: solc's messages with their files and lines, or what is missing.
        source: harvey_project::Error,
    },

    /// A file could not be read or written.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

impl InitError {
    /// The process exit code: 2 for a command line `cargo harvey` does not take, 1 for the
    /// rest.
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            InitError::Usage(_) | InitError::BadSpec { .. } => 2,
            _ => 1,
        }
    }
}
