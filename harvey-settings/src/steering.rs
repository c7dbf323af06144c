//! How a targeted campaign steers towards its targets (the `lookahead` setting).

use crate::Invalid;

/// How a targeted campaign steers towards its targets: the configurations ICSE'20 compares
/// (§5, RQ1–3), so that a team can measure what each part brings on its own contracts.
/// Without targets all of them fuzz the same way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Steering {
    /// A: no steering; targets are only watched and reported, and energy follows the
    /// engine's standard schedule (AFLFast's cut-off exponential on path ids).
    /// `lookahead = false`.
    Off,
    /// B: the lookahead analysis, with energy for inputs whose lookahead id or split points
    /// are rare (ICSE'20 §4.2). `lookahead = true`, the default.
    #[default]
    Lookahead,
    /// C: the rare-id/rare-split-point schedule without the analysis: every target is
    /// assumed reachable, so a lookahead id covers the whole path and every block entry
    /// is a split point. Measures what the analysis adds. `lookahead = "no-analysis"`.
    NoAnalysis,
    /// D: the analysis' lookahead ids with the standard cut-off exponential schedule
    /// counted per lookahead id instead of per path id. Measures what the schedule adds.
    /// `lookahead = "standard-schedule"`.
    StandardSchedule,
}

impl Steering {
    /// The spellings `lookahead` accepts, for error messages.
    pub const SPELLINGS: &'static str =
        "on/true (B), off/false (A), no-analysis (C), standard-schedule (D), or A–D";

    /// Whether the lookahead analysis runs (B and D).
    pub fn analyses(self) -> bool {
        matches!(self, Steering::Lookahead | Steering::StandardSchedule)
    }

    /// The paper's letter for this configuration.
    pub fn letter(self) -> char {
        match self {
            Steering::Off => 'A',
            Steering::Lookahead => 'B',
            Steering::NoAnalysis => 'C',
            Steering::StandardSchedule => 'D',
        }
    }
}

impl From<bool> for Steering {
    /// `true` is the full lookahead steering (B), `false` none (A).
    fn from(on: bool) -> Steering {
        if on {
            Steering::Lookahead
        } else {
            Steering::Off
        }
    }
}

impl std::str::FromStr for Steering {
    type Err = Invalid;

    /// A switch spelling (`on`/`off`, `true`/`false`, `1`/`0`, `yes`/`no`), a configuration's
    /// name, or the paper's letter, in any case.
    fn from_str(text: &str) -> Result<Steering, Invalid> {
        match text.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "on" | "yes" | "b" | "lookahead" => Ok(Steering::Lookahead),
            "0" | "false" | "off" | "no" | "a" => Ok(Steering::Off),
            "no-analysis" | "c" => Ok(Steering::NoAnalysis),
            "standard-schedule" | "d" => Ok(Steering::StandardSchedule),
            _ => Err(Invalid::new(format!(
                "`{text}` is not a steering configuration: use {}",
                Steering::SPELLINGS
            ))),
        }
    }
}

impl Steering {
    /// The configuration's name, as the `lookahead` setting spells it: `no-analysis`.
    pub fn name(self) -> &'static str {
        match self {
            Steering::Off => "off",
            Steering::Lookahead => "lookahead",
            Steering::NoAnalysis => "no-analysis",
            Steering::StandardSchedule => "standard-schedule",
        }
    }
}

impl std::fmt::Display for Steering {
    /// The configuration's name and letter: `no-analysis (C)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.name(), self.letter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steering_comes_from_switches_names_or_letters() {
        for (text, steering) in [
            ("on", Steering::Lookahead),
            ("true", Steering::Lookahead),
            ("off", Steering::Off),
            ("A", Steering::Off),
            ("no-analysis", Steering::NoAnalysis),
            ("C", Steering::NoAnalysis),
            ("standard-schedule", Steering::StandardSchedule),
            ("d", Steering::StandardSchedule),
        ] {
            assert_eq!(text.parse::<Steering>(), Ok(steering), "{text}");
        }
        assert_eq!(Steering::NoAnalysis.to_string(), "no-analysis (C)");
        let err = "fast".parse::<Steering>().unwrap_err().to_string();
        assert!(
            err.contains("`fast`") && err.contains("no-analysis"),
            "{err}"
        );
    }
}
