//! Finding the solc compilers to compile with, and checking that every file can be compiled.
//!
//! An explicit choice is binding for every file: `HARVEY_SOLC`, else foundry.toml
//! `solc`/`solc_version` (a path, or a version installed under svm). If it does not work, or a
//! file's pragma rejects it, that is the error, rather than silently compiling with something
//! else.
//!
//! Otherwise, as forge does, every installed compiler is a candidate: a `solc` on `PATH` and
//! svm-installed compilers (`~/.svm`, `$XDG_DATA_HOME/svm`, default `~/.local/share/svm`).
//! foundry-compilers' resolver then picks per file, as in forge, the newest candidate that
//! satisfies the file's pragma and those of everything it imports, preferring one version for
//! all files when one fits. A file no candidate fits is an error naming it and how to install a
//! compiler; with harvey's `svm` feature the newest released solc that fits is downloaded
//! first.

use std::path::{Path, PathBuf};

use foundry_compilers::artifacts::{Contract, Error as SolcMessage};
use foundry_compilers::compilers::solc::{SolcLanguage, SolcSettings, SolcVersionedInput};
use foundry_compilers::compilers::{Compiler, CompilerOutput, CompilerVersion};
use foundry_compilers::error::SolcError;
use foundry_compilers::resolver::parse::SolParser;
use foundry_compilers::solc::Solc;
use semver::{Version, VersionReq};

use crate::error::{Error, Result};
use crate::project::env::Environment;

/// One source file's `pragma solidity` requirement.
#[derive(Debug, Clone)]
pub(crate) struct Pragma {
    pub(crate) file: PathBuf,
    pub(crate) requirement: VersionReq,
}

/// An input file with the pragmas of it and everything it imports, all of which one compiler
/// must satisfy.
#[derive(Debug, Clone)]
pub(crate) struct Need {
    /// The input file (relative to the project root where it lies inside it).
    pub(crate) file: PathBuf,
    /// Its pragma and those of its transitive imports.
    pub(crate) pragmas: Vec<Pragma>,
}

/// The compilers a project may use, without duplicate versions, newest first.
#[derive(Debug, Clone)]
pub(crate) struct Compilers {
    /// The candidates.
    pub(crate) solcs: Vec<Solc>,
    /// `Some("HARVEY_SOLC = \"…\"")` when one compiler was chosen explicitly: it is binding.
    pub(crate) explicit: Option<String>,
    /// Every place looked at, for the error when nothing fits.
    tried: Vec<String>,
}

/// `version` without build metadata or pre-release tags, which must not affect matching.
pub(crate) fn plain(version: &Version) -> Version {
    Version::new(version.major, version.minor, version.patch)
}

/// The first pragma `version` does not satisfy.
fn unsatisfied<'a>(version: &Version, pragmas: &'a [Pragma]) -> Option<&'a Pragma> {
    let plain = plain(version);
    pragmas.iter().find(|p| !p.requirement.matches(&plain))
}

/// A compiler asked for by name: a path to an executable, or a version to find under svm.
fn explicit(env: &Environment, origin: &str, wanted: &str, root: &Path) -> Result<Compilers> {
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
    let choice = format!("{origin} = {wanted:?}");
    match attempt {
        Ok(solc) => Ok(Compilers {
            solcs: vec![solc],
            explicit: Some(choice),
            tried: Vec::new(),
        }),
        Err(why) => Err(Error::SolcNotFound {
            tried: vec![format!("{choice}: {why}")],
        }),
    }
}

/// The compilers to choose from; `configured` is foundry.toml's `solc`/`solc_version`.
pub(crate) fn find(env: &Environment, root: &Path, configured: Option<&str>) -> Result<Compilers> {
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
    let mut solcs = Vec::new();
    match env.solc_on_path() {
        None => tried.push("`solc` on PATH: none".into()),
        Some(path) => match Solc::new(&path) {
            Err(e) => tried.push(format!("{}: did not run: {e}", path.display())),
            Ok(solc) => {
                tried.push(format!("{}: {}", path.display(), plain(&solc.version)));
                solcs.push(solc);
            }
        },
    }
    let dirs = env.svm_dirs();
    let installed = svm_installed(&dirs);
    tried.push(if installed.is_empty() {
        format!(
            "svm-installed compilers under {}: none",
            display_dirs(&dirs)
        )
    } else {
        let versions: Vec<_> = installed.iter().map(|(v, _)| v.to_string()).collect();
        format!("svm-installed compilers: {}", versions.join(", "))
    });
    solcs.extend(
        installed
            .into_iter()
            .map(|(version, path)| Solc::new_with_version(path, version)),
    );
    solcs.sort_by_key(|s| std::cmp::Reverse(plain(&s.version)));
    solcs.dedup_by(|a, b| plain(&a.version) == plain(&b.version));
    Ok(Compilers {
        solcs,
        explicit: None,
        tried,
    })
}

impl Compilers {
    /// Makes sure every file of `needs` has a compiler satisfying all its pragmas, downloading
    /// one with the `svm` feature where none is installed. The error names every file left
    /// without one and how to install a compiler.
    pub(crate) fn cover(&mut self, needs: &[Need]) -> Result<()> {
        let fits = |solcs: &[Solc], need: &Need| {
            solcs
                .iter()
                .any(|s| unsatisfied(&s.version, &need.pragmas).is_none())
        };
        let mut uncovered = Vec::new();
        for need in needs {
            if fits(&self.solcs, need) {
                continue;
            }
            if self.explicit.is_none()
                && let Some(solc) = download(&need.pragmas, &mut self.tried)
            {
                self.solcs.push(solc);
                self.solcs
                    .sort_by_key(|s| std::cmp::Reverse(plain(&s.version)));
                continue;
            }
            uncovered.push(need);
        }
        if self.solcs.is_empty() {
            return Err(Error::SolcNotFound {
                tried: self.tried.clone(),
            });
        }
        if uncovered.is_empty() {
            return Ok(());
        }
        let available: Vec<String> = self
            .solcs
            .iter()
            .map(|s| format!("{} ({})", plain(&s.version), s.solc.display()))
            .collect();
        let files = uncovered
            .iter()
            .map(|need| {
                let pragmas: Vec<String> = need
                    .pragmas
                    .iter()
                    .map(|p| format!("{} {}", p.file.display(), p.requirement))
                    .collect();
                format!("{} (pragmas: {})", need.file.display(), pragmas.join(", "))
            })
            .collect();
        let fix = match &self.explicit {
            Some(choice) => format!(
                "{choice} is used for every file: choose a compiler satisfying these pragmas, or unset it to let harvey pick one per file"
            ),
            None => format!(
                "install a solc satisfying them with `svm install {}` (svm-rs), put one on PATH, or enable harvey's `svm` feature to download it",
                suggested_version(&uncovered[0].pragmas)
            ),
        };
        Err(Error::NoSolcForPragma {
            files,
            available,
            fix,
        })
    }
}

/// foundry-compilers compiles with [`Compilers`] as forge does with its installed compilers:
/// its resolver picks a version per file among [`Compiler::available_versions`], and each
/// group of files is compiled by the candidate of that version.
impl Compiler for Compilers {
    type Input = SolcVersionedInput;
    type CompilationError = SolcMessage;
    type Parser = SolParser;
    type Settings = SolcSettings;
    type Language = SolcLanguage;
    type CompilerContract = Contract;

    fn compile(
        &self,
        input: &Self::Input,
    ) -> foundry_compilers::error::Result<CompilerOutput<SolcMessage, Contract>> {
        let mut solc = self
            .solcs
            .iter()
            .find(|s| plain(&s.version) == plain(&input.version))
            .cloned()
            .ok_or_else(|| {
                SolcError::msg(format!("no solc {} among the candidates", input.version))
            })?;
        solc.base_path.clone_from(&input.cli_settings.base_path);
        solc.allow_paths.clone_from(&input.cli_settings.allow_paths);
        solc.include_paths
            .clone_from(&input.cli_settings.include_paths);
        solc.extra_args
            .extend_from_slice(&input.cli_settings.extra_args);
        let output = solc.compile(&input.input)?;
        Ok(CompilerOutput {
            errors: output.errors,
            contracts: output.contracts,
            sources: output.sources,
            metadata: Default::default(),
        })
    }

    fn available_versions(&self, _language: &SolcLanguage) -> Vec<CompilerVersion> {
        // Ascending, as the resolver expects (it takes the last fitting one as the newest).
        let mut versions: Vec<_> = self
            .solcs
            .iter()
            .map(|s| CompilerVersion::Installed(plain(&s.version)))
            .collect();
        versions.sort_unstable();
        versions
    }
}

/// The version to suggest installing: the one an `=x.y.z` pragma names, else a placeholder.
fn suggested_version(pragmas: &[Pragma]) -> String {
    pragmas
        .iter()
        .flat_map(|p| &p.requirement.comparators)
        .find(|c| c.op == semver::Op::Exact && c.minor.is_some() && c.patch.is_some())
        .map(|c| {
            format!(
                "{}.{}.{}",
                c.major,
                c.minor.unwrap_or(0),
                c.patch.unwrap_or(0)
            )
        })
        .unwrap_or_else(|| "<version>".into())
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
    const DISABLED: &str = "svm download: disabled (enable harvey's `svm` feature)";
    if !tried.iter().any(|t| t == DISABLED) {
        tried.push(DISABLED.into());
    }
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
    use std::ffi::OsString;

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
        let env = Environment {
            home: Some(home.path().to_path_buf()),
            path: Some(OsString::from(home.path())),
            ..Environment::default()
        };
        let need = Need {
            file: PathBuf::from("A.sol"),
            pragmas: vec![pragma("^0.8.0")],
        };
        let mut compilers = find(&env, home.path(), None).unwrap();
        let err = compilers.cover(&[need]).unwrap_err();
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
        let env = Environment {
            harvey_solc: Some("no/such/solc".into()),
            ..Environment::default()
        };
        let text = find(&env, dir.path(), Some("0.8.28"))
            .unwrap_err()
            .to_string();
        assert!(text.contains("HARVEY_SOLC = \"no/such/solc\""), "{text}");
        let env = Environment {
            home: Some(dir.path().to_path_buf()),
            ..Environment::default()
        };
        let text = find(&env, dir.path(), Some("0.8.28"))
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

    /// An svm directory under `home/.svm` with empty "compilers" of `versions` (never run:
    /// versions come from the directory names).
    fn fake_svm(home: &Path, versions: &[&str]) {
        for v in versions {
            let d = home.join(".svm").join(v);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join(format!("solc-{v}")), "").unwrap();
        }
    }

    #[test]
    fn a_pragma_no_compiler_satisfies_names_the_files_and_how_to_install_one() {
        let home = tempfile::tempdir().unwrap();
        fake_svm(home.path(), &["0.8.28"]);
        let env = Environment {
            home: Some(home.path().to_path_buf()),
            ..Environment::default()
        };
        let mut compilers = find(&env, home.path(), None).unwrap();
        let needs = [
            Need {
                file: PathBuf::from("src/New.sol"),
                pragmas: vec![pragma("^0.8.20")],
            },
            Need {
                file: PathBuf::from("src/Old.sol"),
                pragmas: vec![
                    Pragma {
                        file: PathBuf::from("src/Old.sol"),
                        requirement: VersionReq::parse("^0.8.0").unwrap(),
                    },
                    Pragma {
                        file: PathBuf::from("src/Pinned.sol"),
                        requirement: VersionReq::parse("=0.8.7").unwrap(),
                    },
                ],
            },
        ];
        let err = compilers.cover(&needs).unwrap_err();
        assert!(matches!(err, Error::NoSolcForPragma { .. }), "{err:?}");
        let text = err.to_string();
        assert!(!text.contains("src/New.sol"), "{text}");
        for part in [
            "src/Old.sol",
            "src/Pinned.sol =0.8.7",
            "0.8.28",
            "svm install 0.8.7",
        ] {
            assert!(text.contains(part), "`{part}` missing from:\n{text}");
        }
        // The explicit choice is binding: the fix says so instead of suggesting an install.
        let env = Environment {
            home: Some(home.path().to_path_buf()),
            harvey_solc: Some("0.8.28".into()),
            ..Environment::default()
        };
        let mut compilers = find(&env, home.path(), None).unwrap();
        let text = compilers.cover(&needs[1..]).unwrap_err().to_string();
        assert!(
            text.contains("HARVEY_SOLC = \"0.8.28\" is used for every file"),
            "{text}"
        );
    }
}
