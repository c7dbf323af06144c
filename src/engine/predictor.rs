//! The input-prediction stage (HARVEY §4): records the cost metrics of every regular run,
//! starts a prediction chain from a mutant that changed one numeric leaf (the secant method
//! of `predict`), follows each chain step by step, and gives up on metrics whose chains keep
//! failing. Present only when prediction is on.

use alloy_primitives::{Address, U256};
use rand::rngs::StdRng;

use crate::engine::cost::{self, Cost, CostKey, CostKind, CostMap, Occurrences};
use crate::engine::executor::{EdgeKey, Seen, Sink};
use crate::engine::input::{Change, Sequence};
use crate::engine::predict::{self, Prediction};
use crate::engine::surface::Surface;
use crate::hash::{FastMap, FastSet};
use crate::oracle::arbitrary_slot;
use crate::outcome::PredictionStats;

/// Failed prediction chains after which a metric is no longer predicted on: its branch
/// is out of the secant method's reach (a hash, a narrow input's overflow check), and the
/// runs are better spent fuzzing. The counts halve whenever the corpus gains an entry: a
/// new path can mean a new state before the branch, in which prediction may work (an
/// index check that fails against a short array succeeds once the array is long).
const GIVE_UP_AFTER: u32 = 64;

/// Where a metric is evaluated, whatever the transaction and occurrence: the unit chains
/// succeed or fail on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct MetricSite {
    code: Address,
    pc: u32,
    kind: CostKind,
}

impl MetricSite {
    fn of(key: &CostKey) -> MetricSite {
        MetricSite {
            code: key.code,
            pc: key.pc,
            kind: key.kind,
        }
    }
}

/// One worker's input prediction.
pub(crate) struct Predictor {
    /// The cost metrics of the last regular run.
    costs: Vec<Cost>,
    occurrences: Occurrences,
    /// The slot of the storage-write metric, hashed once.
    arbitrary_slot: U256,
    /// Per metric site: prediction chains that ended without minimizing it.
    missed: FastMap<MetricSite, u32>,
    stats: PredictionStats,
}

impl Predictor {
    /// A predictor that has predicted nothing yet.
    pub(crate) fn new() -> Predictor {
        Predictor {
            costs: Vec::new(),
            occurrences: Occurrences::default(),
            arbitrary_slot: arbitrary_slot(),
            missed: FastMap::default(),
            stats: PredictionStats::default(),
        }
    }

    /// The cost metrics of the last regular run.
    pub(crate) fn costs(&self) -> &[Cost] {
        &self.costs
    }

    /// After running `prediction`: counts it, and returns the chain's next step, if any.
    /// A chain that ends without minimizing its metric counts against the metric.
    pub(crate) fn follow(&mut self, prediction: &Prediction) -> Option<Prediction> {
        let cost = self.costs.iter().find(|c| c.key == prediction.key).copied();
        self.stats.count(prediction.step, cost.map(|c| c.value));
        let next = predict::next(prediction, cost.as_ref());
        let minimized = cost.is_some_and(|c| c.value.is_zero());
        if next.is_none() && !minimized {
            let missed = self
                .missed
                .entry(MetricSite::of(&prediction.key))
                .or_insert(0);
            *missed = missed.saturating_add(1);
        }
        next
    }

    /// The first prediction from the mutant `input` (just run) of `parent` by `change`.
    /// Prefers metrics whose chains have failed least often (some branches, like overflow
    /// checks on narrow inputs, cannot flip), then branch directions `coverage` lacks.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn first(
        &self,
        surface: &Surface,
        coverage: &FastSet<EdgeKey>,
        parent: &Sequence,
        parent_costs: &CostMap,
        input: &Sequence,
        change: &Change,
        rng: &mut StdRng,
    ) -> Option<Prediction> {
        let misses = &self.missed;
        let preference = |key: &CostKey| {
            let edge = |taken| EdgeKey {
                code: key.code,
                pc: key.pc,
                taken,
            };
            let covered = match key.kind {
                CostKind::Jump => coverage.contains(&edge(true)),
                CostKind::Fall => coverage.contains(&edge(false)),
                CostKind::Store => false,
            };
            let missed = misses.get(&MetricSite::of(key)).copied().unwrap_or(0);
            if missed >= GIVE_UP_AFTER {
                return predict::NEVER;
            }
            2 * missed + u32::from(covered)
        };
        predict::first(
            surface,
            parent,
            parent_costs,
            input,
            &self.costs,
            change,
            preference,
            rng,
        )
    }

    /// Whether the last run (of `prediction`) drove the prediction's metric to zero: its
    /// comparison now goes the way the chain aimed at.
    pub(crate) fn satisfied(&self, prediction: &Prediction) -> bool {
        self.costs
            .iter()
            .any(|c| c.key == prediction.key && c.value.is_zero())
    }

    /// Counts a step chained predictions took.
    pub(crate) fn chained_step(&mut self) {
        self.stats.chained_steps += 1;
    }

    /// The corpus gained an entry: a new state may put given-up metrics back in reach.
    pub(crate) fn corpus_grew(&mut self) {
        for missed in self.missed.values_mut() {
            *missed /= 2;
        }
    }

    /// What it predicted and how well.
    pub(crate) fn stats(&self) -> PredictionStats {
        self.stats
    }
}

impl Sink for Predictor {
    fn start(&mut self, _sequence: &Sequence) {
        self.costs.clear();
    }

    fn transaction(&mut self, seen: &Seen<'_>) {
        cost::costs_of(
            seen.trace,
            seen.index as u32,
            self.arbitrary_slot,
            &mut self.occurrences,
            &mut self.costs,
        );
    }
}
