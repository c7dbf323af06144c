//! Turning what a campaign found into something a person can act on, rendered from
//! `outcome` types alone: the failure report (`failure`), the end-of-campaign summary and
//! progress lines (`summary`), the HTML report's pages (`html`), whether the campaign passed (`verdict`, also `Outcome`'s
//! `Display` and `assert_passed`), the helpers they share (`format`), and SARIF results.

// Only `failure_report`, `failures_report`, `summary` and `verdict` are for users; the rest is
// `pub` for the `internals` feature (harvey's own tests), so without it the lint has nothing
// to say.
#[cfg_attr(not(feature = "internals"), allow(unreachable_pub))]
mod failure;
#[cfg_attr(not(feature = "internals"), allow(unreachable_pub))]
mod format;
mod html;
mod sarif;
#[cfg_attr(not(feature = "internals"), allow(unreachable_pub))]
mod summary;
mod verdict;

pub(crate) use failure::counterexample;
pub use failure::{failure_report, failures_report};
pub(crate) use html::{IndexRow, Page, SourceText, index_page, index_row, test_page};
pub(crate) use sarif::{TestSite, sarif_results};
pub use summary::summary;
pub use verdict::verdict;
// The detectors name accounts as reports do.
#[cfg(not(feature = "internals"))]
pub(crate) use format::{account, short_address};
internal! { use summary::progress_line; }
#[cfg(feature = "internals")]
#[doc(hidden)]
pub use {
    crate::outcome::ALWAYS_REVERTS_AFTER,
    failure::render_call,
    format::{account, short_address},
};

#[cfg(test)]
mod tests;
