//! The chain's database type, named once: the EVM (`vm`), its inspector (`hooks`) and the
//! cheatcodes all work on it, and none of them owns the others' view of it.

use revm::database::{CacheDB, EmptyDB};

/// The chain's database: the committed state, in memory.
pub(super) type Db = CacheDB<EmptyDB>;
