//! Campaign configuration: defaults, the `#[harvey::invariant(...)]` attribute, and the
//! `HARVEY_*` environment variables that override it (so CI can run longer campaigns without
//! touching code).

use std::time::Duration;

use crate::chain::PanicSet;
use crate::error::{Error, Result};
use crate::targets::TargetSpec;

/// How long and how a campaign runs. Every field documents its default and its override.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Seed of worker 0's RNG (worker `i` uses `seed + i`). Default: drawn from the clock and
    /// printed in every report so the run can be replayed. Override: `HARVEY_SEED`.
    pub seed: u64,
    /// Sequences to execute, at most. Default 10,000 (unless only `time` is given).
    /// Override: `HARVEY_RUNS`.
    pub runs: Option<u64>,
    /// Wall-clock budget, at most. Default: none. Override: `HARVEY_TIME` (`"30s"`, `"5m"`).
    /// When the environment gives `HARVEY_RUNS` or `HARVEY_TIME`, it replaces the
    /// attribute's whole budget.
    pub time: Option<Duration>,
    /// Maximum transactions per sequence. Default 8. Override: `HARVEY_DEPTH`.
    pub depth: u32,
    /// Worker threads. Default 1 (deterministic). Override: `HARVEY_WORKERS`.
    pub workers: u32,
    /// Input prediction (HARVEY §4: cost metrics and the secant method). Default on; off
    /// is for measuring what it brings. Override: `HARVEY_PREDICTION` (`0`/`1`,
    /// `false`/`true`).
    pub prediction: bool,
    /// Demand-driven sequence fuzzing (HARVEY §5): path ids cover the last transaction,
    /// aggressive runs fuzz storage directly, and only functions whose coverage depends on
    /// state get longer sequences. Off is the paper's configuration D: path ids span the
    /// whole sequence and every sequence is extended eagerly. Default on. Override:
    /// `HARVEY_DEMAND_DRIVEN`.
    pub demand_driven: bool,
    /// Read-after-write ordering (MuFuzz, ConFuzzius): new transactions prefer functions
    /// that write what the next one reads, and self-dependent calls are repeated. Default
    /// on. Override: `HARVEY_DATAFLOW`.
    pub dataflow: bool,
    /// What to target: the lines a change touched (`diff:origin/main`) or explicit lines
    /// (`src/Vault.sol:42,src/Vault.sol:50`). The summary reports for each target whether
    /// and when it was reached. Default none. Override: `HARVEY_TARGETS`.
    pub targets: Option<TargetSpec>,
    /// Fail when a target was never reached (the check a pull request wants). Default off.
    /// Override: `HARVEY_REQUIRE_TARGETS`.
    pub require_targets: bool,
    /// With targets: how to steer towards them (ICSE'20's configurations A–D, see
    /// [`Steering`]). Default [`Steering::Lookahead`]. Override: `HARVEY_LOOKAHEAD`
    /// (`on`/`off`, `no-analysis`, `standard-schedule`, or the paper's letters `A`–`D`).
    pub lookahead: Steering,
    /// Which Solidity Panic codes are violations. Default: a failed `assert` only (forge's
    /// `fail_on_assert`, Medusa's default), since checked arithmetic reverting is how
    /// Solidity 0.8 code rejects an overdraft. Override: `HARVEY_PANICS` (comma-separated
    /// names such as `assert,overflow`, hex codes, `all` or `none`).
    pub panics: PanicSet,
}

impl Default for Config {
    /// Every default, with a seed from the clock: what a campaign runs when nothing is set.
    fn default() -> Config {
        Config::resolve(&Attributes::default(), |_| None)
            .expect("the default attributes are valid and no variable is read")
    }
}

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
    type Err = Error;

    fn from_str(text: &str) -> Result<Steering> {
        match text.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "on" | "yes" | "b" | "lookahead" => Ok(Steering::Lookahead),
            "0" | "false" | "off" | "no" | "a" => Ok(Steering::Off),
            "no-analysis" | "c" => Ok(Steering::NoAnalysis),
            "standard-schedule" | "d" => Ok(Steering::StandardSchedule),
            _ => Err(Error::Config(format!(
                "lookahead = {text:?} is not a steering configuration: use {}",
                Steering::SPELLINGS
            ))),
        }
    }
}

impl std::fmt::Display for Steering {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self {
            Steering::Off => "off",
            Steering::Lookahead => "lookahead",
            Steering::NoAnalysis => "no-analysis",
            Steering::StandardSchedule => "standard-schedule",
        };
        write!(f, "{name} ({})", self.letter())
    }
}

/// Sequences run when neither `runs` nor `time` is configured.
pub const DEFAULT_RUNS: u64 = 10_000;
/// Transactions per sequence when `depth` is not configured.
pub const DEFAULT_DEPTH: u32 = 8;

/// The settings the attribute can carry (all optional), as the macro emits them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Attributes {
    /// `runs = N`.
    pub runs: Option<u64>,
    /// `time = "30s"`, in milliseconds.
    pub time_ms: Option<u64>,
    /// `depth = N`.
    pub depth: Option<u32>,
    /// `seed = N`.
    pub seed: Option<u64>,
    /// `workers = N`.
    pub workers: Option<u32>,
    /// `prediction = false`.
    pub prediction: Option<bool>,
    /// `demand_driven = false`.
    pub demand_driven: Option<bool>,
    /// `dataflow = false`.
    pub dataflow: Option<bool>,
    /// `targets = "diff:origin/main"` (a list of lines arrives joined with commas).
    pub targets: Option<&'static str>,
    /// `require_targets = true`.
    pub require_targets: Option<bool>,
    /// `lookahead = false` or `lookahead = "no-analysis"`, as its [`Steering`] spelling
    /// (`"on"`/`"off"` for the booleans).
    pub lookahead: Option<&'static str>,
    /// `panics = ["assert", "overflow"]`, joined with commas (`"none"` for `[]`).
    pub panics: Option<&'static str>,
}

impl Config {
    /// The configuration from `attributes`, overridden by the process environment.
    pub fn from_attributes(attributes: &Attributes) -> Result<Config> {
        Config::resolve(attributes, |name| std::env::var(name).ok())
    }

    /// The configuration from `attributes`, overridden by the variables `env` returns.
    pub fn resolve(
        attributes: &Attributes,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Config> {
        let var = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        let env_runs = var("HARVEY_RUNS")
            .map(|v| parse_count("HARVEY_RUNS", &v))
            .transpose()?;
        let env_time = var("HARVEY_TIME")
            .map(|v| parse_duration("HARVEY_TIME", &v))
            .transpose()?;
        let (runs, time) = if env_runs.is_some() || env_time.is_some() {
            (env_runs, env_time)
        } else {
            (
                attributes.runs,
                attributes.time_ms.map(Duration::from_millis),
            )
        };
        let runs = match (runs, time) {
            (None, None) => Some(DEFAULT_RUNS),
            (runs, _) => runs,
        };
        let seed = match var("HARVEY_SEED") {
            Some(v) => parse_seed(&v)?,
            None => attributes.seed.unwrap_or_else(clock_seed),
        };
        let narrow = |name: &str, fallback: u32| -> Result<u32> {
            match var(name) {
                Some(v) => u32::try_from(parse_count(name, &v)?)
                    .map_err(|_| Error::Config(format!("{name}={v} is too large"))),
                None => Ok(fallback),
            }
        };
        let switch = |name: &str, attribute: Option<bool>| -> Result<bool> {
            match var(name) {
                Some(v) => parse_switch(name, &v),
                None => Ok(attribute.unwrap_or(true)),
            }
        };
        Ok(Config {
            seed,
            runs,
            time,
            depth: narrow("HARVEY_DEPTH", attributes.depth.unwrap_or(DEFAULT_DEPTH))?,
            workers: narrow("HARVEY_WORKERS", attributes.workers.unwrap_or(1))?,
            prediction: switch("HARVEY_PREDICTION", attributes.prediction)?,
            demand_driven: switch("HARVEY_DEMAND_DRIVEN", attributes.demand_driven)?,
            dataflow: switch("HARVEY_DATAFLOW", attributes.dataflow)?,
            targets: match var("HARVEY_TARGETS") {
                Some(v) => Some(v.parse::<TargetSpec>()?),
                None => attributes.targets.map(str::parse).transpose()?,
            },
            require_targets: match var("HARVEY_REQUIRE_TARGETS") {
                Some(v) => parse_switch("HARVEY_REQUIRE_TARGETS", &v)?,
                None => attributes.require_targets.unwrap_or(false),
            },
            lookahead: match var("HARVEY_LOOKAHEAD") {
                Some(v) => v.parse::<Steering>().map_err(|_| {
                    Error::Config(format!(
                        "HARVEY_LOOKAHEAD={v} is not a steering configuration: use {}",
                        Steering::SPELLINGS
                    ))
                })?,
                None => attributes
                    .lookahead
                    .map(str::parse)
                    .transpose()?
                    .unwrap_or_default(),
            },
            panics: match var("HARVEY_PANICS") {
                Some(v) => v.parse::<PanicSet>().map_err(|e| match e {
                    Error::Config(why) => Error::Config(format!("HARVEY_PANICS={v}: {why}")),
                    other => other,
                })?,
                None => attributes
                    .panics
                    .map(str::parse)
                    .transpose()?
                    .unwrap_or_default(),
            },
        })
    }
}

/// A seed for runs that did not fix one; only the seed comes from the clock, everything after
/// it comes from the seeded RNG.
pub(crate) fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    // splitmix64 finaliser: spreads nearby clock values over the whole range.
    let mut z = nanos.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn parse_seed(text: &str) -> Result<u64> {
    let t = text.trim();
    let parsed = match t.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse(),
    };
    parsed.map_err(|_| {
        Error::Config(format!(
            "HARVEY_SEED={text} is not a u64 (decimal or 0x-hex)"
        ))
    })
}

fn parse_count(name: &str, text: &str) -> Result<u64> {
    match text.trim().replace('_', "").parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(Error::Config(format!(
            "{name}={text} is not a positive integer"
        ))),
    }
}

/// `1`/`true`/`on` or `0`/`false`/`off`.
fn parse_switch(name: &str, text: &str) -> Result<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "on" | "yes" => Ok(true),
        "0" | "false" | "off" | "no" => Ok(false),
        _ => Err(Error::Config(format!(
            "{name}={text} is not a switch: use 1 or 0 (true/false)"
        ))),
    }
}

/// `"500ms"`, `"30s"`, `"5m"`, `"1h"`.
fn parse_duration(name: &str, text: &str) -> Result<Duration> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let scale: u64 = match unit.trim() {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => 0,
    };
    number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .filter(|&ms| ms > 0)
        .map(Duration::from_millis)
        .ok_or_else(|| {
            Error::Config(format!(
                "{name}={text} is not a duration like 500ms, 30s, 5m or 1h"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let owned: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| {
            owned
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn defaults_apply_when_nothing_is_set() {
        let c = Config::resolve(
            &Attributes {
                seed: Some(1),
                ..Default::default()
            },
            env(&[]),
        )
        .unwrap();
        assert_eq!(
            (c.runs, c.time, c.depth, c.workers),
            (Some(DEFAULT_RUNS), None, DEFAULT_DEPTH, 1)
        );
    }

    #[test]
    fn environment_overrides_attributes() {
        let attrs = Attributes {
            runs: Some(5),
            time_ms: Some(1000),
            depth: Some(3),
            seed: Some(9),
            workers: Some(1),
            ..Attributes::default()
        };
        let c = Config::resolve(
            &attrs,
            env(&[
                ("HARVEY_TIME", "2m"),
                ("HARVEY_SEED", "0x10"),
                ("HARVEY_DEPTH", "20"),
                ("HARVEY_WORKERS", "2"),
            ]),
        )
        .unwrap();
        assert_eq!(c.time, Some(Duration::from_secs(120)));
        assert_eq!(
            c.runs, None,
            "an environment budget replaces the attribute's"
        );
        assert_eq!((c.seed, c.depth, c.workers), (16, 20, 2));
    }

    #[test]
    fn time_alone_means_no_run_limit() {
        let attrs = Attributes {
            time_ms: Some(500),
            seed: Some(1),
            ..Default::default()
        };
        let c = Config::resolve(&attrs, env(&[])).unwrap();
        assert_eq!((c.runs, c.time), (None, Some(Duration::from_millis(500))));
    }

    #[test]
    fn targets_come_from_the_attribute_or_the_environment() {
        let none = Config::resolve(&Attributes::default(), env(&[])).unwrap();
        assert_eq!((none.targets, none.require_targets), (None, false));
        let attrs = Attributes {
            targets: Some("diff:origin/main"),
            require_targets: Some(true),
            ..Attributes::default()
        };
        let c = Config::resolve(&attrs, env(&[])).unwrap();
        assert_eq!(
            c.targets.map(|t| t.to_string()).as_deref(),
            Some("diff:origin/main")
        );
        assert!(c.require_targets);
        let c = Config::resolve(&attrs, env(&[("HARVEY_TARGETS", "src/A.sol:4")])).unwrap();
        assert_eq!(
            c.targets.map(|t| t.to_string()).as_deref(),
            Some("src/A.sol:4")
        );
        assert!(Config::resolve(&attrs, env(&[("HARVEY_TARGETS", "nonsense")])).is_err());
    }

    #[test]
    fn sequence_switches_are_on_unless_switched_off() {
        let on = Config::resolve(&Attributes::default(), env(&[])).unwrap();
        assert!(on.demand_driven && on.dataflow);
        let off = Attributes {
            demand_driven: Some(false),
            dataflow: Some(false),
            ..Attributes::default()
        };
        let c = Config::resolve(&off, env(&[])).unwrap();
        assert!(!c.demand_driven && !c.dataflow);
        let c = Config::resolve(&off, env(&[("HARVEY_DEMAND_DRIVEN", "true")])).unwrap();
        assert!(c.demand_driven && !c.dataflow);
        let c = Config::resolve(&Attributes::default(), env(&[("HARVEY_DATAFLOW", "0")]));
        assert!(!c.unwrap().dataflow);
        assert!(
            Config::resolve(&Attributes::default(), env(&[("HARVEY_DATAFLOW", "maybe")])).is_err()
        );
    }

    #[test]
    fn prediction_is_on_unless_switched_off() {
        let attrs = Attributes::default();
        assert!(Config::resolve(&attrs, env(&[])).unwrap().prediction);
        let off = Attributes {
            prediction: Some(false),
            ..Attributes::default()
        };
        assert!(!Config::resolve(&off, env(&[])).unwrap().prediction);
        assert!(
            Config::resolve(&off, env(&[("HARVEY_PREDICTION", "1")]))
                .unwrap()
                .prediction
        );
        assert!(
            !Config::resolve(&attrs, env(&[("HARVEY_PREDICTION", "false")]))
                .unwrap()
                .prediction
        );
        let err = Config::resolve(&attrs, env(&[("HARVEY_PREDICTION", "maybe")])).unwrap_err();
        assert!(err.to_string().contains("HARVEY_PREDICTION=maybe"), "{err}");
    }

    #[test]
    fn steering_comes_from_booleans_names_or_letters() {
        let c = Config::resolve(&Attributes::default(), env(&[])).unwrap();
        assert_eq!(c.lookahead, Steering::Lookahead);
        let attrs = Attributes {
            lookahead: Some("off"),
            ..Attributes::default()
        };
        assert_eq!(
            Config::resolve(&attrs, env(&[])).unwrap().lookahead,
            Steering::Off
        );
        for (text, steering) in [
            ("no-analysis", Steering::NoAnalysis),
            ("D", Steering::StandardSchedule),
            ("true", Steering::Lookahead),
        ] {
            let c = Config::resolve(&attrs, env(&[("HARVEY_LOOKAHEAD", text)])).unwrap();
            assert_eq!(c.lookahead, steering, "{text}");
        }
        assert_eq!(Steering::NoAnalysis.to_string(), "no-analysis (C)");
        let err = Config::resolve(&attrs, env(&[("HARVEY_LOOKAHEAD", "fast")])).unwrap_err();
        assert!(err.to_string().contains("HARVEY_LOOKAHEAD=fast"), "{err}");
        assert!(err.to_string().contains("no-analysis"), "{err}");
    }

    #[test]
    fn panics_default_to_asserts_and_come_from_the_attribute_or_the_environment() {
        let c = Config::resolve(&Attributes::default(), env(&[])).unwrap();
        assert_eq!(c.panics, PanicSet::default());
        let attrs = Attributes {
            panics: Some("assert,overflow"),
            ..Attributes::default()
        };
        let c = Config::resolve(&attrs, env(&[])).unwrap();
        assert_eq!(c.panics.to_string(), "assert,overflow");
        let c = Config::resolve(&attrs, env(&[("HARVEY_PANICS", "none")])).unwrap();
        assert_eq!(c.panics, PanicSet::none());
        let err = Config::resolve(&attrs, env(&[("HARVEY_PANICS", "overflw")])).unwrap_err();
        assert!(err.to_string().contains("HARVEY_PANICS=overflw"), "{err}");
    }

    #[test]
    fn bad_values_name_the_variable() {
        for (name, value) in [
            ("HARVEY_RUNS", "lots"),
            ("HARVEY_TIME", "30"),
            ("HARVEY_SEED", "x"),
            ("HARVEY_DEPTH", "0"),
            ("HARVEY_WORKERS", "99999999999"),
        ] {
            let err = Config::resolve(&Attributes::default(), env(&[(name, value)]))
                .unwrap_err()
                .to_string();
            assert!(err.contains(name), "{err}");
        }
    }
}
