//! The environment variables compiling reads (and those naming the other programs harvey
//! runs: z3), gathered in one value: [`ProjectConfig::discover`]
//! and [`ProjectConfig::compile`] read them from the process, their `_in` twins take them as
//! an argument. Changing the process environment is unsound while other threads run (and
//! `cargo test` runs tests on several), so a caller that needs other values (a test of svm
//! discovery, say) passes an [`Environment`] instead of calling `std::env::set_var`.
//!
//! [`ProjectConfig::discover`]: crate::project::ProjectConfig::discover
//! [`ProjectConfig::compile`]: crate::project::ProjectConfig::compile

use std::ffi::OsString;
use std::path::PathBuf;

/// The variables that decide what is compiled and by which solc, and which z3 runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Environment {
    /// `HARVEY_SOLC`: the compiler to use for every file, a path or an svm version (empty
    /// counts as unset).
    pub harvey_solc: Option<String>,
    /// `HARVEY_SKIP`: comma-separated globs added to foundry.toml's `skip`.
    pub harvey_skip: Option<String>,
    /// `FOUNDRY_PROFILE`: the foundry.toml profile (unset: `default`).
    pub foundry_profile: Option<String>,
    /// `PATH`, where a `solc` is looked for.
    pub path: Option<OsString>,
    /// `HOME`, holding `~/.svm` and the default `~/.local/share/svm`.
    pub home: Option<PathBuf>,
    /// `XDG_DATA_HOME`, holding `svm/` in place of `~/.local/share/svm`.
    pub xdg_data_home: Option<PathBuf>,
    /// `HARVEY_Z3`: the program the solver-backed step runs as z3 (unset: `z3` on `PATH`;
    /// empty counts as unset).
    pub harvey_z3: Option<PathBuf>,
    /// `HARVEY_Z3_LOG`: a file that receives every command sent to z3, to replay a query
    /// with `z3 -smt2 <file>` when an answer looks wrong (empty counts as unset).
    pub harvey_z3_log: Option<PathBuf>,
}

impl Environment {
    /// The values of this process' environment.
    pub fn from_process() -> Self {
        Environment {
            harvey_solc: std::env::var("HARVEY_SOLC").ok().filter(|v| !v.is_empty()),
            harvey_skip: std::env::var("HARVEY_SKIP").ok(),
            foundry_profile: std::env::var("FOUNDRY_PROFILE").ok(),
            path: std::env::var_os("PATH"),
            home: std::env::var_os("HOME").map(PathBuf::from),
            xdg_data_home: std::env::var_os("XDG_DATA_HOME").map(PathBuf::from),
            harvey_z3: non_empty("HARVEY_Z3"),
            harvey_z3_log: non_empty("HARVEY_Z3_LOG"),
        }
    }

    /// The program to run as z3: `HARVEY_Z3`, else `z3` (looked for on `PATH`).
    pub fn z3(&self) -> PathBuf {
        self.harvey_z3
            .clone()
            .unwrap_or_else(|| PathBuf::from("z3"))
    }

    /// Where svm keeps compilers: `~/.svm` and `$XDG_DATA_HOME/svm` (default
    /// `~/.local/share/svm`).
    pub(crate) fn svm_dirs(&self) -> Vec<PathBuf> {
        let data = self
            .xdg_data_home
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".local/share")));
        let home = self.home.as_ref().map(|h| h.join(".svm"));
        home.into_iter()
            .chain(data.map(|d| d.join("svm")))
            .collect()
    }

    /// The first executable `solc` on `PATH`.
    pub(crate) fn solc_on_path(&self) -> Option<PathBuf> {
        std::env::split_paths(self.path.as_ref()?)
            .map(|dir| dir.join("solc"))
            .find(|candidate| candidate.is_file())
    }
}

/// The path variable `name` holds, unless it is unset or empty.
fn non_empty(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}
