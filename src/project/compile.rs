//! Compiling a project with foundry-compilers (cached on disk under `target/harvey`) and
//! turning its output into harvey's [`Artifacts`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use foundry_compilers::artifacts::remappings::Remapping;
use foundry_compilers::artifacts::{EvmVersion, Settings, Severity};
use foundry_compilers::compilers::solc::{SolcCompiler, SolcSettings};
use foundry_compilers::resolver::parse::SolData;
use foundry_compilers::solc::Solc;
use foundry_compilers::{
    ConfigurableArtifacts, Project, ProjectBuilder, ProjectCompileOutput, ProjectPathsConfig,
};

use crate::error::{Error, Result};
use crate::project::artifacts::{Artifacts, ContractArtifact, SourceFile, SourceSet};
use crate::project::config::ProjectConfig;
use crate::project::solc::{self, Pragma};
use crate::project::source_map::PcIndex;

type Output = ProjectCompileOutput<SolcCompiler, ConfigurableArtifacts>;

/// Compiles the project described by `config`.
pub(crate) fn compile(config: &ProjectConfig) -> Result<Artifacts> {
    let pragmas = read_pragmas(&config.sources)?;
    let solc = solc::find(
        &solc::SearchEnv::from_process(),
        &config.root,
        config.solc.as_deref(),
        &pragmas,
    )?;
    let project = foundry_project(config, solc)?;
    let output = project.compile().map_err(|e| Error::Solc(e.to_string()))?;
    let messages = error_messages(&output);
    if !messages.is_empty() {
        return Err(Error::Compile { messages });
    }
    Ok(convert(config, &output)?.with_chain_settings(config.chain.clone()))
}

/// Every `.sol` file under `sources` with its pragma, so that solc can be chosen to fit.
fn read_pragmas(sources: &Path) -> Result<Vec<Pragma>> {
    let mut files = Vec::new();
    collect_sol_files(sources, &mut files)?;
    if files.is_empty() {
        return Err(Error::Config(format!(
            "no Solidity sources (*.sol) under {}; put contracts there, or set `src` in foundry.toml",
            sources.display()
        )));
    }
    let mut pragmas = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).map_err(|e| Error::io(&file, &e))?;
        if let Some(requirement) = SolData::parse(&text, &file).version_req {
            pragmas.push(Pragma { file, requirement });
        }
    }
    Ok(pragmas)
}

fn collect_sol_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, &e))?;
    for entry in entries {
        let path = entry.map_err(|e| Error::io(dir, &e))?.path();
        if path.is_dir() {
            collect_sol_files(&path, out)?;
        } else if path.extension().is_some_and(|ext| ext == "sol") {
            out.push(path);
        }
    }
    Ok(())
}

fn foundry_project(
    config: &ProjectConfig,
    solc: Solc,
) -> Result<Project<SolcCompiler, ConfigurableArtifacts>> {
    let remappings = config
        .remappings
        .iter()
        .map(|r| {
            r.parse::<Remapping>()
                .map_err(|e| Error::Config(format!("remapping `{r}`: {e}")))
        })
        .collect::<Result<Vec<_>>>()?;
    let out = config.cache_dir.join("out");
    let paths = ProjectPathsConfig::builder()
        .root(&config.root)
        .sources(&config.sources)
        .libs(config.libs.iter().cloned())
        .remappings(remappings)
        .artifacts(&out)
        .build_infos(out.join("build-info"))
        .cache(
            config
                .cache_dir
                .join("cache")
                .join("solidity-files-cache.json"),
        )
        .build()
        .map_err(|e| Error::Config(e.to_string()))?;
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
    ProjectBuilder::<SolcCompiler, ConfigurableArtifacts>::new(ConfigurableArtifacts::default())
        .paths(paths)
        .settings(SolcSettings {
            settings,
            ..Default::default()
        })
        // Build infos carry each build's source id → path table, which source maps need.
        .set_build_info(true)
        .offline()
        .build(SolcCompiler::Specific(solc))
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

/// `path` relative to `root` when it lies inside it.
fn relative(root: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(root).unwrap_or(path).to_path_buf()
}

fn convert(config: &ProjectConfig, output: &Output) -> Result<Artifacts> {
    let root = &config.root;
    let mut builds: HashMap<&str, Arc<SourceSet>> = HashMap::new();
    for (build_id, context) in output.builds() {
        let mut files = Vec::new();
        for (&id, path) in &context.source_id_to_path {
            let absolute = root.join(path);
            let content =
                std::fs::read_to_string(&absolute).map_err(|e| Error::io(&absolute, &e))?;
            files.push(SourceFile::new(
                id,
                relative(root, &absolute),
                content.into(),
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
        // Unlinked bytecode (external libraries) has no bytes: the contract is then not
        // deployable, which deploy reports by name.
        let creation_code = creation
            .and_then(|b| b.object.as_bytes().cloned())
            .unwrap_or_default();
        let runtime_code = runtime
            .and_then(|b| b.object.as_bytes().cloned())
            .unwrap_or_default();
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
        });
    }
    Ok(Artifacts::new(
        root.clone(),
        contracts,
        output.is_unchanged(),
    ))
}
