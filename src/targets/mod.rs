//! Target locations for targeted fuzzing (Wüstholz & Christakis, ICSE'20): what a change
//! touched, as bytecode.
//!
//! A [`TargetSpec`] names source lines, either as a git revision to diff the working tree
//! against (`diff:origin/main`) or explicitly (`src/Vault.sol:42`).

mod spec;

pub use spec::{SourceLine, TargetSpec};
