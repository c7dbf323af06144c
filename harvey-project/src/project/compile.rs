//! Compiling a project with foundry-compilers (cached on disk under `target/harvey`) and
//! turning its output into harvey's [`Artifacts`].

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use foundry_compilers::artifacts::remappings::Remapping;
use foundry_compilers::artifacts::{EvmVersion, Settings, Severity, Source, Sources};
use foundry_compilers::compilers::solc::{SolcLanguage, SolcSettings};
use foundry_compilers::resolver::parse::SolParser;
use foundry_compilers::{
    ConfigurableArtifacts, Graph, Project, ProjectBuilder, ProjectCompileOutput, ProjectPathsConfig,
};

use crate::error::{Error, Result};
use crate::project::artifacts::{Artifacts, ContractArtifact, LibraryLink, SourceFile, SourceSet};
use crate::project::config::ProjectConfig;
use crate::project::env::Environment;
use crate::project::solc::{self, Compilers, Need, Pragma};
use crate::project::source_map::PcIndex;

type Output = ProjectCompileOutput<Compilers, ConfigurableArtifacts>;

/// Compiles the project described by `config`: its input files (see [`input_files`]) and
/// what they import, each file with a compiler fitting its pragmas and its imports', found
/// in `env`.
pub(crate) fn compile(config: &ProjectConfig, env: &Environment) -> Result<Artifacts> {
    let inputs = input_files(config)?;
    let paths = project_paths(config)?;
    let mut compilers = solc::find(env, &config.root, config.solc.as_deref())?;
    compilers.cover(&needs(config, &paths, &inputs)?)?;
    let project = foundry_project(config, paths, compilers)?;
    let output = project
        .compile_files(inputs)
        .map_err(|e| Error::Solc(e.to_string()))?;
    let mut messages = error_messages(&output);
    if !messages.is_empty() {
        // A remapping to nothing is the likely cause of an import solc did not find.
        for note in &config.missing_remappings {
            messages.push_str(&format!("\nnote: {note}"));
        }
        return Err(Error::Compile { messages });
    }
    Ok(convert(config, &output)?.with_chain_settings(config.chain.clone()))
}

/// What is compiled (with its imports): every `.sol` file under `sources` and `tests`, except
/// those under `scripts` and those matching a `skip` glob. See the [`ProjectConfig`] docs.
fn input_files(config: &ProjectConfig) -> Result<Vec<PathBuf>> {
    let skip = config
        .skip
        .iter()
        .map(|glob| {
            glob::Pattern::new(glob).map_err(|e| {
                Error::Config(format!(
                    "skip glob `{glob}` (foundry.toml `skip` or HARVEY_SKIP): {e}"
                ))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut files = BTreeSet::new();
    collect_sol_files(&config.sources, &mut files)?;
    if let Some(tests) = config.tests.as_ref().filter(|t| t.is_dir()) {
        collect_sol_files(tests, &mut files)?;
    }
    let found_any = !files.is_empty();
    files.retain(|file| {
        let relative = relative(&config.root, file);
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        !file.starts_with(&config.scripts)
            && !skip.iter().any(|glob| {
                glob.matches_path(&relative)
                    || (!glob.as_str().contains('/') && glob.matches(&name))
            })
    });
    if files.is_empty() {
        let mut dirs = config.sources.display().to_string();
        if let Some(tests) = &config.tests {
            dirs += &format!(" and {}", tests.display());
        }
        return Err(Error::Config(if found_any {
            format!(
                "every Solidity source under {dirs} is skipped (foundry.toml `skip`, HARVEY_SKIP)"
            )
        } else {
            format!(
                "no Solidity sources (*.sol) under {dirs}; put contracts there, or set `src` in foundry.toml"
            )
        }));
    }
    Ok(files.into_iter().collect())
}

fn collect_sol_files(dir: &Path, out: &mut BTreeSet<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, &e))?;
    for entry in entries {
        let path = entry.map_err(|e| Error::io(dir, &e))?.path();
        if path.is_dir() {
            collect_sol_files(&path, out)?;
        } else if path.extension().is_some_and(|ext| ext == "sol") {
            out.insert(path);
        }
    }
    Ok(())
}

/// Every input file with the pragmas of it and its transitive imports, from foundry-compilers'
/// import graph (the one its version resolution walks).
fn needs(
    config: &ProjectConfig,
    paths: &ProjectPathsConfig<SolcLanguage>,
    inputs: &[PathBuf],
) -> Result<Vec<Need>> {
    let sources: Sources =
        Source::read_all(inputs.iter().cloned()).map_err(|e| Error::Solc(e.to_string()))?;
    let graph = Graph::<SolParser>::resolve_sources(paths, sources)
        .map_err(|e| Error::Solc(e.to_string()))?;
    let mut needs = Vec::new();
    for file in inputs {
        let Some(&index) = graph.files().get(file) else {
            continue;
        };
        let pragmas = graph
            .node_ids(index)
            .filter_map(|id| {
                let node = graph.node(id);
                Some(Pragma {
                    file: relative(&config.root, node.path()),
                    requirement: node.data.version_req.clone()?,
                })
            })
            .collect();
        needs.push(Need {
            file: relative(&config.root, file),
            pragmas,
        });
    }
    Ok(needs)
}

fn project_paths(config: &ProjectConfig) -> Result<ProjectPathsConfig<SolcLanguage>> {
    let remappings = config
        .remappings
        .iter()
        .map(|r| {
            r.parse::<Remapping>()
                .map_err(|e| Error::Config(format!("remapping `{r}`: {e}")))
        })
        .collect::<Result<Vec<_>>>()?;
    let out = config.cache_dir.join("out");
    let mut builder = ProjectPathsConfig::builder()
        .root(&config.root)
        .sources(&config.sources)
        .scripts(&config.scripts)
        .libs(config.libs.iter().cloned())
        .remappings(remappings)
        .artifacts(&out)
        .build_infos(out.join("build-info"))
        .cache(
            config
                .cache_dir
                .join("cache")
                .join("solidity-files-cache.json"),
        );
    if let Some(tests) = &config.tests {
        builder = builder.tests(tests);
    }
    builder.build().map_err(|e| Error::Config(e.to_string()))
}

fn foundry_project(
    config: &ProjectConfig,
    paths: ProjectPathsConfig<SolcLanguage>,
    compilers: Compilers,
) -> Result<Project<Compilers, ConfigurableArtifacts>> {
    let mut settings = Settings::default();
    settings.optimizer.enabled = Some(config.optimizer);
    settings.optimizer.runs = Some(config.optimizer_runs);
    settings.via_ir = Some(config.via_ir).filter(|v| *v);
    if let Some(evm) = &config.evm_version {
        settings.evm_version = Some(
            evm.parse::<EvmVersion>()
                .map_err(|e| Error::Config(format!("evm_version `{evm}`: {e}")))?,
        );
    }
    ProjectBuilder::<Compilers, ConfigurableArtifacts>::new(ConfigurableArtifacts::default())
        .paths(paths)
        .settings(SolcSettings {
            settings,
            ..Default::default()
        })
        // Build infos carry each build's source id → path table, which source maps need.
        .set_build_info(true)
        .offline()
        // One solc at a time: solcjs builds are memory-hungry and the machine is shared.
        .single_solc_jobs()
        .build(compilers)
        .map_err(|e| Error::Solc(e.to_string()))
}

/// solc's own formatted messages for every error (warnings are not fatal).
fn error_messages(output: &Output) -> String {
    output
        .output()
        .errors
        .iter()
        .filter(|e| e.severity == Severity::Error)
        .map(|e| {
            e.formatted_message
                .clone()
                .unwrap_or_else(|| e.message.clone())
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `path` (absolute, or relative to `root`) relative to `root` when it lies inside it,
/// however the two are spelt: foundry-compilers names a source by the path it resolved it
/// through, which may pass through a symlink, `.` or `..` where `root` does not, and one
/// file under two names would be two contracts of one name.
fn relative(root: &Path, path: &Path) -> PathBuf {
    let plain = |p: &Path| {
        p.components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
    };
    if let Some(inside) = path.strip_prefix(root).ok().filter(|inside| plain(inside)) {
        return inside.to_path_buf();
    }
    let canonical_root = std::fs::canonicalize(root);
    let canonical_path = std::fs::canonicalize(root.join(path));
    match (canonical_root, canonical_path) {
        (Ok(root), Ok(path)) => match path.strip_prefix(&root) {
            Ok(inside) => inside.to_path_buf(),
            Err(_) => path,
        },
        _ => path.to_path_buf(),
    }
}

fn convert(config: &ProjectConfig, output: &Output) -> Result<Artifacts> {
    let root = &config.root;
    let mut builds: HashMap<&str, Arc<SourceSet>> = HashMap::new();
    for (build_id, context) in output.builds() {
        let mut files = Vec::new();
        for (&id, path) in &context.source_id_to_path {
            let absolute = root.join(path);
            // The text solc compiled, not the bytes on disk: foundry-compilers' reader
            // turns CRLF line breaks into LF before handing sources to solc, and solc's
            // source-map offsets index that text. Reading through the same reader keeps
            // every offset on its line in a file with Windows line endings.
            let content = match Source::read(&absolute) {
                Ok(source) => source.content,
                // Deleted since the build that compiled it, which the cache still serves
                // for the build's other files: no contract is in it any more.
                Err(e) if e.source().kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(Error::io(&absolute, e.source())),
            };
            files.push(SourceFile::new(
                id,
                relative(root, &absolute),
                content.as_str().into(),
            ));
        }
        builds.insert(build_id.as_str(), Arc::new(SourceSet::new(files)));
    }
    let mut contracts: Vec<ContractArtifact> = Vec::new();
    for (id, artifact) in output.artifact_ids() {
        let source_path = relative(root, &id.source);
        if contracts
            .iter()
            .any(|c| c.name == id.name && c.source_path == source_path)
        {
            continue; // the same contract from another build of the same file
        }
        let creation = artifact.bytecode.as_ref();
        let runtime = artifact
            .deployed_bytecode
            .as_ref()
            .and_then(|d| d.bytecode.as_ref());
        // Unlinked bytecode (a contract calling external library functions) keeps zeros where
        // library addresses go, with the offsets to patch at deploy: linking does not move
        // instructions, so the runtime source map indexes the linked code as well.
        let creation_code = creation
            .and_then(|b| LibraryLink::unlinked_bytes(&b.object))
            .unwrap_or_default();
        let runtime_code = runtime
            .and_then(|b| LibraryLink::unlinked_bytes(&b.object))
            .unwrap_or_default();
        let mut libraries = LibraryLink::from_references(
            creation.map(|b| &b.link_references),
            runtime.map(|b| &b.link_references),
        );
        // Link references name files as solc saw them; artifacts are found by root-relative path.
        for library in &mut libraries {
            library.source_path = relative(root, &root.join(&library.source_path));
        }
        let runtime_source_map = runtime.and_then(|b| b.source_map.clone());
        let pc_index = match &runtime_source_map {
            Some(map) if !map.is_empty() => PcIndex::build(&runtime_code, map)?,
            _ => PcIndex::default(),
        };
        contracts.push(ContractArtifact {
            name: id.name.clone(),
            source_path,
            abi: artifact.abi.clone().unwrap_or_default(),
            creation_code,
            runtime_code,
            runtime_source_map,
            sources: builds
                .get(id.build_id.as_str())
                .cloned()
                .unwrap_or_default(),
            pc_index,
            libraries,
        });
    }
    Ok(Artifacts::new(
        root.clone(),
        contracts,
        output.is_unchanged(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One file named through the root, through a symlink to it, through `..`, and
    /// relative to the root: one relative path.
    #[test]
    fn a_source_is_named_relative_to_the_root_however_its_path_is_spelt() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        std::fs::create_dir_all(root.join("test")).unwrap();
        std::fs::write(root.join("test/Basic.t.sol"), "").unwrap();
        let expected = PathBuf::from("test/Basic.t.sol");
        assert_eq!(relative(&root, &root.join("test/Basic.t.sol")), expected);
        assert_eq!(relative(&root, Path::new("test/Basic.t.sol")), expected);
        assert_eq!(
            relative(&root, &root.join("test/../test/Basic.t.sol")),
            expected
        );
        #[cfg(unix)]
        {
            let link = dir.path().join("link");
            std::os::unix::fs::symlink(&root, &link).unwrap();
            assert_eq!(relative(&root, &link.join("test/Basic.t.sol")), expected);
            assert_eq!(relative(&link, &root.join("test/Basic.t.sol")), expected);
        }
        // Outside the root: absolute, as it was.
        let outside = dir.path().join("Other.sol");
        std::fs::write(&outside, "").unwrap();
        assert!(relative(&root, &outside).is_absolute());
    }
}
