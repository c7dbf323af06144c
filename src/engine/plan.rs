//! What a fuzzing run is given besides the engine: the campaign's settings, how to build a
//! worker's chain, the targets, the saved sequences to run first, z3. The campaign fills it
//! in; the fuzzing run, its workers and what they share read it.

use std::time::Instant;

use crate::Result;
use crate::chain::Chain;
use crate::config::Config;
use crate::engine::input::Sequence;
use crate::engine::prediction::Z3Program;
use crate::engine::targeting::reach::Watch;
use crate::outcome::Violation;

/// Saved sequences a fuzzing run runs first (a corpus kept between runs), rebuilt against
/// the engine's fuzzed functions ([`Engine::seeds`]).
#[derive(Debug, Default)]
pub(crate) struct Seeds {
    pub(super) sequences: Vec<Sequence>,
}

impl Seeds {
    /// How many sequences there are.
    pub(crate) fn len(&self) -> usize {
        self.sequences.len()
    }
}

/// What a fuzzing run needs besides the engine.
pub(crate) struct Fuzz<'a> {
    pub(crate) config: &'a Config,
    /// Builds a chain in its post-setup state (once per worker).
    pub(crate) make_chain: &'a (dyn Fn() -> Result<Chain> + Sync),
    pub(crate) progress: Option<&'a (dyn Fn(&crate::outcome::Progress) + Sync)>,
    /// When the campaign started (time budget and time-to-violation count from here).
    pub(crate) start: Instant,
    /// The targets whose first reach to record (empty: an untargeted campaign).
    pub(crate) targets: &'a [Watch],
    /// Stop once every target was reached.
    pub(crate) stop_at_targets: bool,
    /// The violations the campaign already reported (post-setup, regression replays):
    /// fuzzing does not report them again.
    pub(crate) reported: &'a [Violation],
    /// Sequences to run first (the workers share them out).
    pub(crate) seeds: &'a Seeds,
    /// Whether to return the corpus, decoded, to be saved.
    pub(crate) keep_corpus: bool,
    /// Whether to return the line coverage.
    pub(crate) lines: bool,
    /// Whether to count why each function reverts (a string per revert: only for reports
    /// that show it).
    pub(crate) revert_causes: bool,
    /// The campaign's seed: worker `i` seeds its RNG with `seed + i`.
    pub(crate) seed: u64,
    /// z3, for the solver-backed step (each worker starts its own when it first needs it).
    #[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
    pub(crate) z3: &'a Z3Program,
}
