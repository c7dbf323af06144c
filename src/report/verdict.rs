//! Whether a campaign passed, and the report of why not: what `#[harvey::invariant]`
//! panics with, what `Outcome` shows and what `Outcome::assert_passed` asserts.

use std::fmt;

use crate::outcome::Outcome;

use super::failure::*;

/// Why `outcome` did not pass, as a failing test reports it (`test`: the test's name or
/// `cargo test` filter, when there is one); `None` when it passed. Nothing tested comes
/// first, then violations (each with its shrunk sequence), then targets `require_targets`
/// says were missed.
pub fn verdict(outcome: &Outcome, test: Option<&str>) -> Option<String> {
    let name = test.or(outcome.stats.name.as_deref()).unwrap_or("campaign");
    if let Some(why) = &outcome.untested {
        return Some(format!("harvey: {name}: nothing was tested: {why}"));
    }
    if !outcome.failures.is_empty() {
        return Some(format!("\n{}", failures_report(&outcome.failures, test)));
    }
    let unreached = outcome.missed_targets();
    if !unreached.is_empty() {
        return Some(format!(
            "harvey: {name}: {} of {} targets were never reached (require_targets is on): {}",
            unreached.len(),
            outcome.stats.targets.len(),
            unreached.join(", ")
        ));
    }
    None
}

/// The warnings, the summary, and why the campaign did not pass (if it did not): what a
/// `#[harvey::invariant]` test prints and reports.
impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for warning in &self.warnings {
            writeln!(f, "warning: {warning}")?;
        }
        f.write_str(&super::summary(self))?;
        if let Some(verdict) = verdict(self, None) {
            writeln!(f, "{verdict}")?;
        }
        Ok(())
    }
}

impl Outcome {
    /// Panics, with the report of what failed, unless the campaign [`passed`](Self::passed):
    /// for tests that build a [`Campaign`](crate::Campaign) themselves
    /// (`Campaign::new(..).run()?.assert_passed()`).
    ///
    /// # Panics
    ///
    /// When the campaign found a violation, tested nothing, or missed a required target.
    #[track_caller]
    pub fn assert_passed(&self) {
        if let Some(verdict) = verdict(self, None) {
            panic!("{verdict}");
        }
    }
}
