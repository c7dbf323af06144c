//! Compiled contracts as harvey sees them: ABI, creation and runtime bytecode, the sources of
//! the build they came from, and a pc → source index over the runtime code.

use std::collections::BTreeMap;

use alloy_primitives::Address;
use foundry_compilers::artifacts::{BytecodeObject, Offsets};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use alloy_json_abi::JsonAbi;
use alloy_primitives::Bytes;

use crate::error::{Error, Result};
use crate::project::config::ChainSettings;
use crate::project::source_map::{JumpKind, PcIndex};

/// One Solidity source file of a build, with its solc source id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// solc's source id (the file index used in source maps).
    pub id: u32,
    /// The path as compiled, relative to the project root where it lies inside it.
    pub path: PathBuf,
    /// The file's text as solc compiled it, which source-map offsets index: CRLF line
    /// breaks are LF here (foundry-compilers reads sources so), lines are the file's lines.
    pub content: Arc<str>,
    /// Byte offset at which each line starts (line 1 starts at offset 0).
    line_starts: Vec<u32>,
}

impl SourceFile {
    /// A source file from its id, path and text.
    pub fn new(id: u32, path: PathBuf, content: Arc<str>) -> Self {
        let line_starts = std::iter::once(0)
            .chain(
                content
                    .bytes()
                    .enumerate()
                    .filter(|&(_, b)| b == b'\n')
                    .map(|(i, _)| i as u32 + 1),
            )
            .collect();
        SourceFile {
            id,
            path,
            content,
            line_starts,
        }
    }

    /// The 1-based line that contains byte `offset`.
    pub fn line_of(&self, offset: u32) -> u32 {
        // partition_point counts the line starts at or before `offset`: that is the line number.
        self.line_starts.partition_point(|&start| start <= offset) as u32
    }

    /// The text of 1-based line `line`, without its line break.
    pub fn line_text(&self, line: u32) -> Option<&str> {
        let start = *self.line_starts.get(line.checked_sub(1)? as usize)? as usize;
        let rest = &self.content[start..];
        Some(
            rest.split('\n')
                .next()
                .unwrap_or(rest)
                .trim_end_matches('\r'),
        )
    }
}

/// The sources of one solc build, by source id.
#[derive(Debug, Clone, Default)]
pub struct SourceSet {
    files: BTreeMap<u32, SourceFile>,
}

impl SourceSet {
    /// A set from its files.
    pub fn new(files: impl IntoIterator<Item = SourceFile>) -> Self {
        SourceSet {
            files: files.into_iter().map(|f| (f.id, f)).collect(),
        }
    }

    /// The file with solc source id `id`.
    pub fn get(&self, id: u32) -> Option<&SourceFile> {
        self.files.get(&id)
    }

    /// Every file, in source-id order.
    pub fn iter(&self) -> impl Iterator<Item = &SourceFile> {
        self.files.values()
    }
}

/// A source location: the file and the 1-based line range an instruction came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceLocation<'a> {
    /// The file.
    pub file: &'a SourceFile,
    /// First line of the instruction's source range.
    pub line: u32,
    /// Last line of the instruction's source range.
    pub end_line: u32,
    /// Byte offset of the range in the file.
    pub offset: u32,
    /// Length of the range in bytes.
    pub length: u32,
}

impl SourceLocation<'_> {
    /// The source text of the range.
    pub fn text(&self) -> &str {
        let start = self.offset as usize;
        let end = start.saturating_add(self.length as usize);
        self.file.content.get(start..end).unwrap_or_default()
    }

    /// Whether the two ranges share no byte (ranges in different files never do).
    pub fn is_disjoint_from(&self, other: &SourceLocation<'_>) -> bool {
        self.file.id != other.file.id
            || self.offset + self.length <= other.offset
            || other.offset + other.length <= self.offset
    }
}

/// One compiled contract.
#[derive(Debug, Clone)]
pub struct ContractArtifact {
    /// The contract's name.
    pub name: String,
    /// The source file that defines it, as compiled (relative to the project root).
    pub source_path: PathBuf,
    /// Its JSON ABI.
    pub abi: JsonAbi,
    /// Creation bytecode (initcode); empty for interfaces and abstract contracts.
    pub creation_code: Bytes,
    /// Runtime (deployed) bytecode.
    pub runtime_code: Bytes,
    /// The runtime source map exactly as solc emitted it (compressed form).
    pub runtime_source_map: Option<String>,
    /// The sources of the build the contract came from (source ids are per build).
    pub sources: Arc<SourceSet>,
    pub(crate) pc_index: PcIndex,
    /// The external libraries whose addresses the bytecode needs, with where they go. Empty
    /// for contracts that call no external library function.
    pub libraries: Vec<LibraryLink>,
}

/// One external library a contract is linked to: the library and the byte offsets of its
/// address in the creation and runtime code (zeros until linked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibraryLink {
    /// The file defining the library, as compiled (relative to the project root).
    pub source_path: PathBuf,
    /// The library's name.
    pub name: String,
    /// Where its 20-byte address goes in the creation code.
    pub creation_offsets: Vec<usize>,
    /// Where its 20-byte address goes in the runtime code.
    pub runtime_offsets: Vec<usize>,
}

/// solc's link references: file → library → offsets.
type LinkReferences = BTreeMap<String, BTreeMap<String, Vec<Offsets>>>;

impl LibraryLink {
    /// The libraries named by solc's link references of the creation and runtime code.
    pub(crate) fn from_references(
        creation: Option<&LinkReferences>,
        runtime: Option<&LinkReferences>,
    ) -> Vec<LibraryLink> {
        let mut links: Vec<LibraryLink> = Vec::new();
        let mut add = |references: Option<&LinkReferences>, runtime: bool| {
            for (file, libraries) in references.into_iter().flatten() {
                for (name, offsets) in libraries {
                    let link = match links
                        .iter_mut()
                        .position(|l| l.source_path == Path::new(file) && l.name == *name)
                    {
                        Some(at) => &mut links[at],
                        None => {
                            links.push(LibraryLink {
                                source_path: PathBuf::from(file),
                                name: name.clone(),
                                creation_offsets: Vec::new(),
                                runtime_offsets: Vec::new(),
                            });
                            links.last_mut().expect("just pushed")
                        }
                    };
                    let target = if runtime {
                        &mut link.runtime_offsets
                    } else {
                        &mut link.creation_offsets
                    };
                    target.extend(offsets.iter().map(|o| o.start as usize));
                }
            }
        };
        add(creation, false);
        add(runtime, true);
        links
    }

    /// The bytes of `object`, with zeros where library addresses go. (foundry-compilers'
    /// `strip_bytecode_placeholders` leaves the placeholders' outer underscores and fails.)
    pub(crate) fn unlinked_bytes(object: &BytecodeObject) -> Option<Bytes> {
        match object {
            BytecodeObject::Bytecode(bytes) => Some(bytes.clone()),
            BytecodeObject::Unlinked(text) => {
                // A placeholder is `__$` + 34 hex digits + `$__`: the 40 hex digits of an
                // address.
                let mut hex = text.trim_start_matches("0x").to_string();
                while let Some(at) = hex.find("__$") {
                    hex.replace_range(at..(at + 40).min(hex.len()), &"0".repeat(40));
                }
                alloy_primitives::hex::decode(hex).ok().map(Bytes::from)
            }
        }
    }

    /// `path:Name`, as in [`ContractArtifact::qualified_name`].
    pub fn qualified_name(&self) -> String {
        format!("{}:{}", self.source_path.display(), self.name)
    }
}

impl ContractArtifact {
    /// A test's stand-in: contract `name` of `src/<name>.sol`, no ABI entries, one byte of
    /// code each way, no source map. For harvey's own tests (the `internals` feature).
    #[cfg(any(test, feature = "internals"))]
    #[doc(hidden)]
    pub fn bare(name: &str) -> ContractArtifact {
        ContractArtifact {
            name: name.into(),
            source_path: PathBuf::from(format!("src/{name}.sol")),
            abi: JsonAbi::default(),
            creation_code: vec![0x60].into(),
            runtime_code: vec![0x60].into(),
            runtime_source_map: None,
            sources: Arc::default(),
            pc_index: Default::default(),
            libraries: Vec::new(),
        }
    }

    /// `path:Name`, the spelling that is unique even when two files define the same name.
    pub fn qualified_name(&self) -> String {
        format!("{}:{}", self.source_path.display(), self.name)
    }

    /// Whether the contract has creation code (interfaces and abstract contracts have none).
    /// A contract that needs [`libraries`](Self::libraries) is deployable once linked.
    pub fn is_deployable(&self) -> bool {
        !self.creation_code.is_empty()
    }

    /// A copy with every library's address (in the order of [`libraries`](Self::libraries))
    /// written into its creation and runtime code. The pc index and source map still apply:
    /// an address fills the 20 bytes of a PUSH20 and moves no instruction.
    pub fn linked(&self, addresses: &[Address]) -> ContractArtifact {
        let mut creation = self.creation_code.to_vec();
        let mut runtime = self.runtime_code.to_vec();
        for (link, address) in self.libraries.iter().zip(addresses) {
            for (code, offsets) in [
                (&mut creation, &link.creation_offsets),
                (&mut runtime, &link.runtime_offsets),
            ] {
                for &at in offsets {
                    if let Some(slot) = code.get_mut(at..at + 20) {
                        slot.copy_from_slice(address.as_slice());
                    }
                }
            }
        }
        ContractArtifact {
            creation_code: creation.into(),
            runtime_code: runtime.into(),
            libraries: Vec::new(),
            ..self.clone()
        }
    }

    /// The source location of the runtime instruction at `pc`, if the source map names one.
    pub fn source_location(&self, pc: usize) -> Option<SourceLocation<'_>> {
        let span = self.pc_index.get(pc)?;
        let file = self.sources.get(span.file)?;
        Some(SourceLocation {
            file,
            line: file.line_of(span.offset),
            end_line: file.line_of(span.offset + span.length.saturating_sub(1)),
            offset: span.offset,
            length: span.length,
        })
    }

    /// The pcs of runtime instructions that have a source location, from `pc` (included)
    /// down.
    pub fn located_pcs_down_from(&self, pc: u32) -> impl Iterator<Item = u32> + '_ {
        self.pc_index.pcs_down_from(pc)
    }

    /// What the runtime jump at `pc` does, as the source map says.
    pub fn jump_kind(&self, pc: u32) -> JumpKind {
        self.pc_index.jump_kind(pc)
    }

    /// Every runtime instruction's pc with its source location, in pc order. Later work
    /// (coverage, diff targets) walks this.
    pub fn source_locations(&self) -> impl Iterator<Item = (usize, SourceLocation<'_>)> {
        self.pc_index
            .pcs()
            .filter_map(|pc| Some((pc, self.source_location(pc)?)))
    }
}

/// Every contract of a compiled project, looked up by name.
#[derive(Debug, Clone)]
pub struct Artifacts {
    root: PathBuf,
    contracts: Vec<Arc<ContractArtifact>>,
    cache_hit: bool,
    chain_settings: ChainSettings,
}

impl Artifacts {
    /// The artifacts of `contracts` compiled from the project at `root`, sorted by name and
    /// source file; `cache_hit` says whether the compiler's cache served them all.
    pub fn new(root: PathBuf, mut contracts: Vec<ContractArtifact>, cache_hit: bool) -> Self {
        contracts.sort_by(|a, b| (&a.name, &a.source_path).cmp(&(&b.name, &b.source_path)));
        Artifacts {
            root,
            contracts: contracts.into_iter().map(Arc::new).collect(),
            cache_hit,
            chain_settings: ChainSettings::default(),
        }
    }

    /// These artifacts with the project's execution settings, which chains built from them
    /// apply.
    pub(crate) fn with_chain_settings(mut self, settings: ChainSettings) -> Self {
        self.chain_settings = settings;
        self
    }

    /// How chains built from these artifacts execute (foundry.toml's execution keys).
    pub fn chain_settings(&self) -> &ChainSettings {
        &self.chain_settings
    }

    /// The project root the sources were found under.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether this compile reused cached output for every source (nothing was recompiled).
    pub fn cache_hit(&self) -> bool {
        self.cache_hit
    }

    /// Every compiled contract, sorted by name.
    pub fn contracts(&self) -> impl Iterator<Item = &Arc<ContractArtifact>> {
        self.contracts.iter()
    }

    /// The contract called `name`, or `path:Name` when several files define `Name`.
    ///
    /// An unknown name lists every known one; an ambiguous bare name lists the qualified
    /// spellings to choose from.
    pub fn get(&self, name: &str) -> Result<&Arc<ContractArtifact>> {
        if let Some((path, bare)) = name.rsplit_once(':') {
            let wanted = Path::new(path);
            if let Some(found) = self.contracts.iter().find(|c| {
                c.name == bare && (c.source_path == wanted || c.source_path.ends_with(wanted))
            }) {
                return Ok(found);
            }
        } else {
            let mut matches = self.contracts.iter().filter(|c| c.name == name);
            if let Some(first) = matches.next() {
                let rest: Vec<_> = matches.collect();
                if rest.is_empty() {
                    return Ok(first);
                }
                let candidates = std::iter::once(first)
                    .chain(rest)
                    .map(|c| c.qualified_name())
                    .collect();
                return Err(Error::AmbiguousContract {
                    name: name.to_string(),
                    candidates,
                });
            }
        }
        Err(Error::UnknownContract {
            name: name.to_string(),
            known: self.known_names(),
        })
    }

    /// The contract whose runtime code `code` is: as long, and equal at every byte where the
    /// artifact's is not zero. Immutables and unlinked library addresses are zeros in the
    /// artifact and filled in on chain, so this matches any deployment of it, whoever
    /// created it (forge matches deployed code to artifacts for the same purpose). Of
    /// several matches (contracts compiled to the same code, or whose only difference lies
    /// in such zeros) the one with the most equal bytes wins, then the first by name.
    pub fn by_runtime_code(&self, code: &[u8]) -> Option<&Arc<ContractArtifact>> {
        let mut best: Option<(usize, &Arc<ContractArtifact>)> = None;
        for artifact in &self.contracts {
            let runtime = &artifact.runtime_code;
            if runtime.is_empty() || runtime.len() != code.len() {
                continue;
            }
            let mut equal = 0;
            let fits = runtime.iter().zip(code).all(|(&ours, &theirs)| {
                equal += usize::from(ours == theirs);
                ours == theirs || ours == 0
            });
            if fits && best.is_none_or(|(most, _)| equal > most) {
                best = Some((equal, artifact));
            }
        }
        best.map(|(_, artifact)| artifact)
    }

    /// Every contract's name, qualified as `path:Name` where a name is defined twice.
    pub fn known_names(&self) -> Vec<String> {
        self.contracts
            .iter()
            .map(|c| {
                if self.contracts.iter().filter(|o| o.name == c.name).count() > 1 {
                    c.qualified_name()
                } else {
                    c.name.clone()
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_become_zeros_and_linking_fills_them_in_place() {
        // PUSH20 <placeholder> PUSH1 0x01
        let placeholder = format!("__${}$__", "a".repeat(34));
        let object = BytecodeObject::Unlinked(format!("73{placeholder}6001"));
        let code = LibraryLink::unlinked_bytes(&object).unwrap();
        assert_eq!(code.len(), 23);
        assert!(code[1..21].iter().all(|&b| b == 0));
        assert_eq!((code[0], code[21], code[22]), (0x73, 0x60, 0x01));

        let artifact = ContractArtifact {
            name: "User".into(),
            source_path: "src/User.sol".into(),
            abi: JsonAbi::default(),
            creation_code: code.clone(),
            runtime_code: code,
            runtime_source_map: None,
            sources: Arc::default(),
            pc_index: PcIndex::default(),
            libraries: vec![LibraryLink {
                source_path: "src/Lib.sol".into(),
                name: "Lib".into(),
                creation_offsets: vec![1],
                runtime_offsets: vec![1],
            }],
        };
        let address = Address::repeat_byte(0x42);
        let linked = artifact.linked(&[address]);
        for code in [&linked.creation_code, &linked.runtime_code] {
            assert_eq!(&code[1..21], address.as_slice());
            assert_eq!(code.len(), 23);
        }
        assert!(linked.libraries.is_empty());
    }

    fn runtime(name: &str, code: &[u8]) -> ContractArtifact {
        ContractArtifact {
            name: name.into(),
            source_path: format!("src/{name}.sol").into(),
            abi: JsonAbi::default(),
            creation_code: Bytes::new(),
            runtime_code: Bytes::copy_from_slice(code),
            runtime_source_map: None,
            sources: Arc::default(),
            pc_index: PcIndex::default(),
            libraries: Vec::new(),
        }
    }

    #[test]
    fn deployed_code_finds_its_artifact_through_immutables() {
        // PUSH32 <immutable, zeros in the artifact> / PUSH1 0x01
        let mut with_immutable = vec![0x7f];
        with_immutable.extend([0; 32]);
        with_immutable.extend([0x60, 0x01]);
        let mut other = with_immutable.clone();
        other[34] = 0x02;
        let artifacts = Artifacts::new(
            PathBuf::from("."),
            vec![
                runtime("Other", &other),
                runtime("Vault", &with_immutable),
                runtime("Empty", &[]),
            ],
            false,
        );
        let mut deployed = with_immutable.clone();
        deployed[5] = 0xaa;
        let found = artifacts
            .by_runtime_code(&deployed)
            .map(|a| a.name.as_str());
        assert_eq!(found, Some("Vault"));
        // A difference where the artifact has a non-zero byte is another contract.
        let mut changed = deployed.clone();
        changed[33] = 0x61;
        assert!(artifacts.by_runtime_code(&changed).is_none());
        // Other lengths never match; empty code matches nothing.
        assert!(artifacts.by_runtime_code(&deployed[..10]).is_none());
        assert!(artifacts.by_runtime_code(&[]).is_none());
        // Of two that fit, the one with more equal bytes.
        let exact = artifacts.by_runtime_code(&other).map(|a| a.name.as_str());
        assert_eq!(exact, Some("Other"));
    }
}
