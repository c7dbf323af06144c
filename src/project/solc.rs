//! Finding the solc to compile with.
//!
//! Order, stopping at the first hit: `HARVEY_SOLC`; foundry.toml `solc`; a `solc` on `PATH`
//! whose version satisfies every source's pragma; svm-installed compilers (`~/.svm`, or
//! `$XDG_DATA_HOME/svm`); with the `svm` feature, a download through svm. An explicit choice
//! (the first two) is binding: if it does not work that is the error, rather than silently
//! compiling with something else.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use foundry_compilers::solc::Solc;
use semver::{Version, VersionReq};

use crate::error::{Error, Result};

/// One source file's `pragma solidity` requirement.
#[derive(Debug, Clone)]
pub(crate) struct Pragma {
    pub(crate) file: PathBuf,
    pub(crate) requirement: VersionReq,
}

/// The first pragma `version` does not satisfy.
fn unsatisfied<'a>(version: &Version, pragmas: &'a [Pragma]) -> Option<&'a Pragma> {
    // Build metadata (`+commit...`) and pre-release tags must not affect matching.
    let plain = Version::new(version.major, version.minor, version.patch);
    pragmas.iter().find(|p| !p.requirement.matches(&plain))
}

fn describe_mismatch(version: &Version, pragma: &Pragma) -> String {
    format!(
        "is {version}, but {} requires {}",
        pragma.file.display(),
        pragma.requirement
    )
}

/// A compiler asked for by name: a path to an executable, or a version to find under svm.
fn explicit(env: &SearchEnv, origin: &str, wanted: &str, root: &Path) -> Result<Solc> {
    let attempt = if let Ok(version) = Version::parse(wanted.trim_start_matches('v')) {
        svm_installed(&env.svm_dirs())
            .into_iter()
            .find(|(v, _)| *v == version)
            .map(|(v, path)| Solc::new_with_version(path, v))
            .ok_or_else(|| {
                format!(
                    "version {version} is not installed under {}",
                    display_dirs(&env.svm_dirs())
                )
            })
    } else {
        let path = root.join(wanted);
        Solc::new(&path).map_err(|e| format!("`{}` did not run: {e}", path.display()))
    };
    attempt.map_err(|why| Error::SolcNotFound {
        tried: vec![format!("{origin} = {wanted:?}: {why}")],
    })
}

/// The parts of the process environment that solc discovery reads, gathered in one place so
/// that discovery can be tested without touching the real environment.
#[derive(Debug, Clone, Default)]
pub(crate) struct SearchEnv {
    /// `HARVEY_SOLC`.
    pub(crate) harvey_solc: Option<String>,
    /// `PATH`.
    pub(crate) path: Option<OsString>,
    /// `HOME`.
    pub(crate) home: Option<PathBuf>,
    /// `XDG_DATA_HOME`.
    pub(crate) xdg_data_home: Option<PathBuf>,
}

impl SearchEnv {
    /// The environment of this process.
    pub(crate) fn from_process() -> Self {
        SearchEnv {
            harvey_solc: std::env::var("HARVEY_SOLC").ok().filter(|v| !v.is_empty()),
            path: std::env::var_os("PATH"),
            home: std::env::var_os("HOME").map(PathBuf::from),
            xdg_data_home: std::env::var_os("XDG_DATA_HOME").map(PathBuf::from),
        }
    }

    /// Where svm keeps compilers: `~/.svm` and `$XDG_DATA_HOME/svm` (default
    /// `~/.local/share/svm`).
    fn svm_dirs(&self) -> Vec<PathBuf> {
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
    fn solc_on_path(&self) -> Option<PathBuf> {
        std::env::split_paths(self.path.as_ref()?)
            .map(|dir| dir.join("solc"))
            .find(|candidate| candidate.is_file())
    }
}

/// Finds the compiler for sources with `pragmas`; `configured` is foundry.toml's `solc`.
pub(crate) fn find(
    env: &SearchEnv,
    root: &Path,
    configured: Option<&str>,
    pragmas: &[Pragma],
) -> Result<Solc> {
    if let Some(wanted) = &env.harvey_solc {
        return explicit(env, "HARVEY_SOLC", wanted, root);
    }
    if let Some(wanted) = configured {
        return explicit(env, "foundry.toml `solc`", wanted, root);
    }
    let mut tried = vec![
        "HARVEY_SOLC: not set".to_string(),
        "foundry.toml `solc`: not set".to_string(),
    ];
    match env.solc_on_path() {
        None => tried.push("`solc` on PATH: none".into()),
        Some(path) => match Solc::new(&path) {
            Err(e) => tried.push(format!("{}: did not run: {e}", path.display())),
            Ok(solc) => match unsatisfied(&solc.version, pragmas) {
                None => return Ok(solc),
                Some(p) => tried.push(format!(
                    "{} {}",
                    path.display(),
                    describe_mismatch(&solc.version, p)
                )),
            },
        },
    }
    let dirs = env.svm_dirs();
    let installed = svm_installed(&dirs);
    if let Some((version, path)) = installed
        .iter()
        .find(|(v, _)| unsatisfied(v, pragmas).is_none())
    {
        return Ok(Solc::new_with_version(path, version.clone()));
    }
    tried.push(if installed.is_empty() {
        format!(
            "svm-installed compilers under {}: none",
            display_dirs(&dirs)
        )
    } else {
        let versions: Vec<_> = installed.iter().map(|(v, _)| v.to_string()).collect();
        format!(
            "svm-installed compilers ({}): none satisfies every pragma",
            versions.join(", ")
        )
    });
    download(pragmas, &mut tried).ok_or(Error::SolcNotFound { tried })
}

/// With the `svm` feature: installs the newest released solc satisfying every pragma.
#[cfg(feature = "svm")]
fn download(pragmas: &[Pragma], tried: &mut Vec<String>) -> Option<Solc> {
    let newest = Solc::released_versions()
        .into_iter()
        .filter(|v| unsatisfied(v, pragmas).is_none())
        .max();
    let Some(version) = newest else {
        tried.push("svm download: no released solc satisfies every pragma".into());
        return None;
    };
    match Solc::blocking_install(&version) {
        Ok(solc) => Some(solc),
        Err(e) => {
            tried.push(format!("svm download of {version}: {e}"));
            None
        }
    }
}

/// Without the `svm` feature nothing is downloaded; say so, since it is a fix.
#[cfg(not(feature = "svm"))]
fn download(_pragmas: &[Pragma], tried: &mut Vec<String>) -> Option<Solc> {
    tried.push("svm download: disabled (enable harvey's `svm` feature)".into());
    None
}

fn display_dirs(dirs: &[PathBuf]) -> String {
    let shown: Vec<_> = dirs.iter().map(|d| d.display().to_string()).collect();
    shown.join(" and ")
}

/// svm-installed compilers (`<dir>/<version>/solc-<version>`), newest first.
fn svm_installed(dirs: &[PathBuf]) -> Vec<(Version, PathBuf)> {
    let mut found: Vec<(Version, PathBuf)> = dirs
        .iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flatten()
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            let version = Version::parse(&name).ok()?;
            let binary = dirs
                .iter()
                .map(|d| d.join(&name).join(format!("solc-{name}")))
                .find(|b| b.is_file())?;
            Some((version, binary))
        })
        .collect();
    found.sort_by(|a, b| b.0.cmp(&a.0));
    found.dedup_by(|a, b| a.0 == b.0);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pragma(req: &str) -> Pragma {
        Pragma {
            file: PathBuf::from("A.sol"),
            requirement: VersionReq::parse(req).unwrap(),
        }
    }

    #[test]
    fn build_metadata_does_not_break_matching() {
        let v = Version::parse("0.8.28+commit.7893614a.Emscripten.clang").unwrap();
        assert!(unsatisfied(&v, &[pragma("^0.8.0"), pragma(">=0.8.20, <0.9.0")]).is_none());
        assert!(unsatisfied(&v, &[pragma("^0.7.0")]).is_some());
    }

    #[test]
    fn nothing_found_lists_every_place_tried() {
        let home = tempfile::tempdir().unwrap();
        let env = SearchEnv {
            home: Some(home.path().to_path_buf()),
            path: Some(OsString::from(home.path())),
            ..SearchEnv::default()
        };
        let err = find(&env, home.path(), None, &[pragma("^0.8.0")]).unwrap_err();
        let Error::SolcNotFound { tried } = &err else {
            panic!("expected SolcNotFound, got {err:?}")
        };
        assert_eq!(tried.len(), 5, "{tried:?}");
        let text = err.to_string();
        for place in [
            "HARVEY_SOLC",
            "foundry.toml",
            "PATH",
            ".svm",
            "svm download",
            "Fix:",
        ] {
            assert!(text.contains(place), "`{place}` missing from:\n{text}");
        }
    }

    #[test]
    fn an_explicit_choice_that_fails_is_the_error() {
        let dir = tempfile::tempdir().unwrap();
        let env = SearchEnv {
            harvey_solc: Some("no/such/solc".into()),
            ..SearchEnv::default()
        };
        let text = find(&env, dir.path(), Some("0.8.28"), &[])
            .unwrap_err()
            .to_string();
        assert!(text.contains("HARVEY_SOLC = \"no/such/solc\""), "{text}");
        let env = SearchEnv {
            home: Some(dir.path().to_path_buf()),
            ..SearchEnv::default()
        };
        let text = find(&env, dir.path(), Some("0.8.28"), &[])
            .unwrap_err()
            .to_string();
        assert!(text.contains("version 0.8.28 is not installed"), "{text}");
    }

    #[test]
    fn svm_layout_is_read_newest_first() {
        let dir = tempfile::tempdir().unwrap();
        for v in ["0.8.19", "0.8.28", "0.7.6"] {
            let d = dir.path().join(v);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join(format!("solc-{v}")), "").unwrap();
        }
        std::fs::create_dir_all(dir.path().join("not-a-version")).unwrap();
        std::fs::create_dir_all(dir.path().join("0.8.1")).unwrap(); // no binary inside
        let found = svm_installed(&[dir.path().to_path_buf()]);
        let versions: Vec<_> = found.iter().map(|(v, _)| v.to_string()).collect();
        assert_eq!(versions, vec!["0.8.28", "0.8.19", "0.7.6"]);
    }
}
