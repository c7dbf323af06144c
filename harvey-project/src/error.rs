//! The crate's error type: everything that stops a campaign from *starting* (compiling,
//! finding solc, deploying, bad configuration, unreadable files), a direct call that failed,
//! and an invariant's own "does not hold" ([`Error::Invariant`], what `ensure!` returns). A
//! broken invariant is reported as an outcome of the campaign, never as an `Err` of
//! `Campaign::run`.

use std::path::PathBuf;

/// Result alias used throughout harvey.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A setup failure, rendered for a person: every variant says what went wrong and, where
/// there is one, how to fix it.
///
/// `Error` is `Clone` so that one failed compilation can be reported by every test of a
/// process without compiling again.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No usable solc was found; `tried` lists every place that was looked at, in order.
    #[error(
        "no usable solc found. Tried, in order:\n{}\nFix: set HARVEY_SOLC=/path/to/solc, set `solc = \"/path/to/solc\"` (or a version) in foundry.toml, put a solc satisfying the sources' pragmas on PATH, install one with `svm install <version>`, or enable harvey's `svm` feature to download it",
        .tried.iter().map(|t| format!("  - {t}")).collect::<Vec<_>>().join("\n")
    )]
    SolcNotFound {
        /// One line per place looked at and why it did not fit.
        tried: Vec<String>,
    },

    /// Some files have pragmas (their own or their imports') that no available solc satisfies.
    #[error(
        "no available solc satisfies the pragmas of:\n{}\navailable: {}\nFix: {fix}",
        .files.iter().map(|f| format!("  - {f}")).collect::<Vec<_>>().join("\n"),
        .available.join(", ")
    )]
    NoSolcForPragma {
        /// Each file without a compiler, with the pragmas of it and its imports.
        files: Vec<String>,
        /// The compilers that were available, with their versions.
        available: Vec<String>,
        /// How to get a fitting compiler.
        fix: String,
    },

    /// A contract links an external library that cannot be deployed for it (not compiled,
    /// no creation code, or its deployment failed).
    #[error("cannot link library `{library}` into `{contract}`: {reason}")]
    Link {
        /// The library, as `path:Name`.
        library: String,
        /// The contract that needs it.
        contract: String,
        /// Why it cannot be linked, and how to fix it.
        reason: String,
    },

    /// solc ran but rejected the sources; `messages` are solc's own formatted errors
    /// (with `file:line:column`).
    #[error("Solidity compilation failed:\n{messages}")]
    Compile {
        /// solc's formatted error messages, one after the other.
        messages: String,
    },

    /// solc (or the compile pipeline around it) failed before producing diagnostics.
    #[error("solc failed: {0}")]
    Solc(String),

    /// A contract name that is not among the compiled artifacts.
    #[error("unknown contract `{name}`; known contracts: {}", .known.join(", "))]
    UnknownContract {
        /// The name asked for.
        name: String,
        /// Every contract name that was compiled (as `path:Name` where names clash).
        known: Vec<String>,
    },

    /// A bare contract name that several source files define.
    #[error("contract name `{name}` is ambiguous; use one of: {}", .candidates.join(", "))]
    AmbiguousContract {
        /// The name asked for.
        name: String,
        /// The qualified `path:Name` spellings that match.
        candidates: Vec<String>,
    },

    /// A constructor reverted or halted; `reason` is the decoded revert reason.
    #[error("deploying `{contract}` failed: {reason}")]
    DeployFailed {
        /// The contract being deployed.
        contract: String,
        /// The decoded revert reason, Panic or halt.
        reason: String,
    },

    /// A forge or Echidna suite could not be set up: its test contract's `setUp()` reverted,
    /// or it declares targets that cannot be fuzzed. `reason` is the decoded revert reason or
    /// what is wrong.
    #[error("suite `{suite}`: {reason}")]
    Suite {
        /// The test contract.
        suite: String,
        /// What went wrong.
        reason: String,
    },

    /// A call the user made directly (in setup or an invariant) could not be made or decoded.
    #[error("{0}")]
    Call(String),

    /// A call the user made directly with `harvey::chain::Chain::call` (or a
    /// view) reverted or halted. `reason` is the decoded revert reason (`Error(string)`, a
    /// custom error with its arguments, a Panic) or the halt; to match on it, make the call
    /// with `Chain::try_call` and read its status.
    #[error("{call} {reason}")]
    Reverted {
        /// The call: function signature, contract and address.
        call: String,
        /// How it ended, decoded: "reverted with ..." or "halted: ...".
        reason: String,
    },

    /// An invariant's own report that it does not hold, with its message: what
    /// `harvey::ensure!` returns.
    #[error("{0}")]
    Invariant(String),

    /// A function signature, argument list or return type that does not fit the ABI.
    #[error("ABI error: {0}")]
    Abi(String),

    /// Invalid configuration: foundry.toml, attribute values, `HARVEY_*` variables, and
    /// settings' texts (target specifications, Panic code lists, steering names).
    #[error("invalid configuration: {0}")]
    Config(String),

    /// A regression file that exists but cannot be used (not JSON, or not harvey's format).
    /// Nothing in it is dropped: fix or delete the file.
    #[error("regression file {}: {message}", .path.display())]
    RegressionFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },

    /// A file that could not be read or written.
    #[error("{}: {message}", .path.display())]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The operating system's message.
        message: String,
    },

    /// Targets for targeted fuzzing that cannot be used: a `diff:<rev>` that git cannot
    /// compute (git missing, not a git repository, unknown revision; the message carries
    /// git's own words). A malformed target specification is a [`harvey_settings::Invalid`],
    /// an [`Error::Config`] once converted.
    #[error("targets: {0}")]
    Targets(String),

    /// The EVM rejected a transaction before executing it (for example: value above the
    /// sender's balance). This is a harness problem, not contract behaviour.
    #[error("EVM rejected the transaction: {0}")]
    Evm(String),
}

impl Error {
    /// An [`Error::Io`] for `path` from an `std::io::Error`.
    pub fn io(path: impl Into<PathBuf>, err: &std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            message: err.to_string(),
        }
    }
}

impl From<harvey_settings::Invalid> for Error {
    /// A setting's text that its parser rejects is invalid configuration.
    fn from(invalid: harvey_settings::Invalid) -> Error {
        Error::Config(invalid.message().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use harvey_settings::{Config, TargetSpec};

    #[test]
    fn invalid_settings_are_configuration_errors_naming_the_variable() {
        let invalid = Config::resolve(&[], |name| {
            (name == "HARVEY_DEPTH").then(|| "deep".to_string())
        })
        .unwrap_err();
        let err = Error::from(invalid);
        assert!(matches!(err, Error::Config(_)), "{err:?}");
        assert!(
            err.to_string()
                .starts_with("invalid configuration: HARVEY_DEPTH=deep: "),
            "{err}"
        );
        let spec = "src/Vault.sol:0".parse::<TargetSpec>();
        let err = Error::from(spec.unwrap_err());
        assert!(err.to_string().contains("`file:line`"), "{err}");
    }
}
