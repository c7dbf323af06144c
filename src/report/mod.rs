//! Turning what a campaign found into something a person can act on: failure reports,
//! summaries and progress lines, rendered from `outcome` types alone.

mod render;

pub use render::{
    ALWAYS_REVERTS_AFTER, account, failure_report, progress_line, render_call, short_address,
    summary,
};
