//! The campaign's progress over its time, sampled for the report's plots. Samples start
//! close together (a campaign of a second still draws a curve) and grow apart as the
//! campaign runs on: when the bound is reached every other sample goes and the interval
//! doubles, so that a campaign of any length keeps evenly spread points in bounded memory.

use std::time::Duration;

use crate::outcome::Progress;

/// The interval between the first samples.
const FIRST_EVERY: Duration = Duration::from_millis(10);

/// Progress samples of one campaign.
#[derive(Debug)]
pub(crate) struct Timeline {
    points: Vec<Progress>,
    every: Duration,
    next: Duration,
}

impl Timeline {
    /// An empty timeline; the first sample is due at once.
    pub(crate) fn new() -> Timeline {
        Timeline {
            points: Vec::new(),
            every: FIRST_EVERY,
            next: Duration::ZERO,
        }
    }

    /// Whether a sample is due `elapsed` into the campaign.
    pub(crate) fn due(&self, elapsed: Duration) -> bool {
        elapsed >= self.next
    }

    /// Records a sample, thinning the samples when they reach the bound (one place is
    /// left for the last point, added by [`Timeline::finish`]).
    pub(crate) fn record(&mut self, point: Progress) {
        self.points.push(point);
        if self.points.len() >= Progress::TIMELINE_POINTS {
            let mut index = 0;
            self.points.retain(|_| {
                index += 1;
                index % 2 == 1
            });
            self.every *= 2;
        }
        self.next = point.elapsed + self.every;
    }

    /// The samples, ending with `last` (the campaign's end).
    pub(crate) fn finish(mut self, last: Progress) -> Vec<Progress> {
        self.points.retain(|p| p.elapsed < last.elapsed);
        self.points.push(last);
        self.points
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(millis: u64) -> Progress {
        Progress {
            elapsed: Duration::from_millis(millis),
            sequences: millis,
            ..Progress::default()
        }
    }

    #[test]
    fn a_long_campaign_keeps_bounded_evenly_spread_samples() {
        let mut timeline = Timeline::new();
        // An hour, asked every millisecond.
        for millis in 0..3_600_000 {
            if timeline.due(Duration::from_millis(millis)) {
                timeline.record(at(millis));
            }
        }
        let points = timeline.finish(at(3_600_000));
        assert!(
            points.len() <= Progress::TIMELINE_POINTS,
            "{}",
            points.len()
        );
        assert!(
            points.len() >= Progress::TIMELINE_POINTS / 2,
            "{}",
            points.len()
        );
        assert_eq!(points[0].elapsed, Duration::ZERO, "the start is kept");
        assert_eq!(points.last().map(|p| p.sequences), Some(3_600_000));
        // Evenly spread: no gap is more than twice the typical one (plus the last).
        let gaps: Vec<u128> = points
            .windows(2)
            .map(|w| (w[1].elapsed - w[0].elapsed).as_millis())
            .collect();
        let typical = gaps[gaps.len() / 2];
        assert!(gaps.iter().all(|&g| g <= 2 * typical), "{gaps:?}");
    }

    #[test]
    fn a_short_campaign_still_draws_a_curve() {
        let mut timeline = Timeline::new();
        for millis in 0..200 {
            if timeline.due(Duration::from_millis(millis)) {
                timeline.record(at(millis));
            }
        }
        assert_eq!(timeline.finish(at(200)).len(), 21);
    }
}
