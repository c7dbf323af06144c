//! harvey's campaign settings, each declared once ([`SETTINGS`], in `table.rs`): the
//! `#[harvey::invariant(...)]` argument, the `HARVEY_*` variable, the default, the doc line
//! and one parser from text to the typed value.
//!
//! Two crates read the table. `harvey-macros` turns each attribute literal into text and
//! checks it with the row's parser at compile time; `harvey` resolves [`Config`] from the
//! defaults, the attribute's `(name, text)` pairs and the `HARVEY_*` variables, each through
//! the same parser. The value types the parsers produce ([`Steering`], [`TargetSpec`],
//! [`PanicSet`], [`DetectorSet`]) live here and are re-exported by `harvey` at their usual paths.
//!
//! The settings reference in harvey's book and the macros' rustdoc are generated from the
//! table ([`markdown_reference`], [`rustdoc_list`]) and checked by a test.
//!
//! This crate has no dependencies: the attribute macro compiles it for the host too.

mod config;
mod detectors;
mod panics;
mod parse;
mod reference;
mod steering;
mod table;
mod targets;

pub use config::{RUNS_WITHOUT_BUDGET, SUITE_WALKS};
pub use detectors::{Detector, DetectorSet};
pub use panics::{PANIC_NAMES, PanicNumber, PanicSet};
pub use reference::{
    BOOK_BEGIN, BOOK_END, RUSTDOC_BEGIN, RUSTDOC_END, markdown_reference, rustdoc_list,
};
pub use steering::Steering;
pub use table::{Config, Literal, SETTINGS, Setting};
pub use targets::{SourceLine, TargetSpec};

/// A setting's text that its parser rejects. The message says what was wrong and which
/// spellings are accepted; [`Config::resolve`] prefixes it with the attribute or variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid(String);

impl Invalid {
    /// An error with `message`.
    pub(crate) fn new(message: impl Into<String>) -> Invalid {
        Invalid(message.into())
    }

    /// The message, for callers that wrap it in their own error type.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Invalid {}
