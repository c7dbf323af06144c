//! Where the harvey repository is, for the benches that compile its contracts or run its
//! tools. The benches are a package of their own in `benches/`, so `CARGO_MANIFEST_DIR` is
//! that directory, not the repository's root.

use std::path::Path;

/// The harvey repository's root, where `foundry.toml`, `contracts/` and `tools/solc-shim/`
/// are: the parent of the bench package's directory.
pub(crate) fn harvey_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the bench package is a directory of the harvey repository")
}
