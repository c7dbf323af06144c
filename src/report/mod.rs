//! Turning what the engine found into something a person can act on: shrinking a failing
//! sequence, regression files, and rendering reports, summaries and progress.

pub(crate) mod regression;
mod render;
pub(crate) mod shrink;

pub use render::{
    ALWAYS_REVERTS_AFTER, account, failure_report, progress_line, render_call, short_address,
    summary,
};
