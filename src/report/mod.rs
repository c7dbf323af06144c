//! Turning what a campaign found into something a person can act on: failure reports,
//! summaries and progress lines, rendered from `outcome` types alone.

// Only `failure_report`, `failures_report` and `summary` are for users; the rest is `pub` for the `internals`
// feature (harvey's own tests), so without it the lint has nothing to say.
#[cfg_attr(not(feature = "internals"), allow(unreachable_pub))]
mod render;
mod sarif;

pub use render::{failure_report, failures_report, summary, verdict};
pub(crate) use sarif::{TestSite, sarif_results};
// The detectors name accounts as reports do.
#[cfg(not(feature = "internals"))]
pub(crate) use render::{account, short_address};
internal! { use render::progress_line; }
#[cfg(feature = "internals")]
#[doc(hidden)]
pub use render::{ALWAYS_REVERTS_AFTER, account, render_call, short_address};
