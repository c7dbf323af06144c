//! Resolving a [`Config`]: defaults, then the attribute's `(name, text)` pairs, then the
//! `HARVEY_*` variables (so CI can run longer campaigns without touching code), each read
//! through its row of [`SETTINGS`].

use crate::Invalid;
use crate::table::{Config, SETTINGS, Setting};

/// Sequences a campaign runs when none of `runs`, `time` and `calls` is set.
pub const RUNS_WITHOUT_BUDGET: u64 = 10_000;

/// The share of transactions (percent) a suite (a forge invariant suite, an Echidna or
/// Medusa harness) spends on random walks when the settings set no `walks`: forge, Echidna
/// and Medusa fuzz such a suite only by long sequences of fresh calls, and deep protocol
/// bugs it finds need them (the book's "A lending suite").
pub const SUITE_WALKS: u32 = 50;

/// The settings that make up the budget: an environment variable for either replaces the
/// attribute's whole budget, so `HARVEY_TIME=5m` turns a run-bounded test into a timed one.
const BUDGET: [&str; 3] = ["runs", "time", "calls"];

impl Config {
    /// The defaults overridden by the process's `HARVEY_*` variables: what a
    /// `#[harvey::invariant]` test with no arguments runs, for `Campaign` users who want CI
    /// to tune their campaigns the same way (`HARVEY_TIME=5m cargo test`). Errors name the
    /// variable and the accepted spellings.
    pub fn from_env() -> Result<Config, Invalid> {
        Config::from_attributes(&[])
    }

    /// The configuration from the attribute's `(name, text)` pairs, overridden by the
    /// process environment.
    pub fn from_attributes(attributes: &[(&str, &str)]) -> Result<Config, Invalid> {
        Config::resolve(attributes, |name| std::env::var(name).ok())
    }

    /// The configuration from the defaults, the attribute's `(name, text)` pairs, and the
    /// `HARVEY_*` variables `env` returns (blank ones count as unset). Errors name the
    /// attribute argument or the variable, and the accepted spellings.
    pub fn resolve(
        attributes: &[(&str, &str)],
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Config, Invalid> {
        let mut config = Config::default();
        for &(name, text) in attributes {
            let setting = Setting::named(name).ok_or_else(|| {
                let names: Vec<&str> = SETTINGS.iter().map(|s| s.name).collect();
                Invalid::new(format!(
                    "unknown setting `{name}`; known: {}",
                    names.join(", ")
                ))
            })?;
            setting
                .apply(&mut config, text)
                .map_err(|why| Invalid::new(format!("attribute {name} = {text}: {why}")))?;
        }
        let overrides: Vec<(&Setting, String)> = SETTINGS
            .iter()
            .filter_map(|s| Some((s, env(s.var).filter(|v| !v.trim().is_empty())?)))
            .collect();
        if overrides.iter().any(|(s, _)| BUDGET.contains(&s.name)) {
            config.runs = None;
            config.time = None;
            config.calls = None;
        }
        for (setting, text) in &overrides {
            setting
                .apply(&mut config, text)
                .map_err(|why| Invalid::new(format!("{}={text}: {why}", setting.var)))?;
        }
        Ok(config)
    }

    /// The most sequences the campaign runs: `runs`, or [`RUNS_WITHOUT_BUDGET`] when none
    /// of `runs`, `time` and `calls` is set; `None` when only `time` or `calls` bounds the
    /// campaign.
    pub fn run_bound(&self) -> Option<u64> {
        match (self.runs, self.time, self.calls) {
            (None, None, None) => Some(RUNS_WITHOUT_BUDGET),
            (runs, _, _) => runs,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::{PanicSet, Steering};

    #[test]
    fn the_walks_doc_states_the_forge_suite_default() {
        let walks = Setting::named("walks").unwrap();
        let stated = format!(
            "which is {SUITE_WALKS} in forge invariant suites and Echidna/Medusa harnesses"
        );
        assert!(walks.doc().contains(&stated), "{}", walks.doc());
    }

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
        let c = Config::resolve(&[("seed", "1")], env(&[])).unwrap();
        assert_eq!(
            (c.runs, c.time, c.depth, c.workers, c.seed),
            (None, None, 8, 1, Some(1))
        );
        assert_eq!(c.run_bound(), Some(RUNS_WITHOUT_BUDGET));
        assert_eq!(Config::default().run_bound(), Some(10_000));
    }

    #[test]
    fn environment_overrides_attributes() {
        let attrs = [
            ("runs", "5"),
            ("time", "1s"),
            ("depth", "3"),
            ("seed", "9"),
            ("workers", "1"),
        ];
        let c = Config::resolve(
            &attrs,
            env(&[
                ("HARVEY_TIME", "2m"),
                ("HARVEY_SEED", "0x10"),
                ("HARVEY_DEPTH", "20"),
                ("HARVEY_WORKERS", "2"),
                ("HARVEY_RUNS", " "),
            ]),
        )
        .unwrap();
        assert_eq!(c.time, Some(Duration::from_secs(120)));
        assert_eq!(
            c.runs, None,
            "an environment budget replaces the attribute's"
        );
        assert_eq!(c.run_bound(), None);
        assert_eq!((c.seed, c.depth, c.workers), (Some(16), 20, 2));
        let c = Config::resolve(&attrs, env(&[("HARVEY_RUNS", "7")])).unwrap();
        assert_eq!((c.runs, c.time), (Some(7), None));
    }

    #[test]
    fn time_alone_means_no_run_limit() {
        let c = Config::resolve(&[("time", "500ms"), ("seed", "1")], env(&[])).unwrap();
        assert_eq!((c.runs, c.time), (None, Some(Duration::from_millis(500))));
        assert_eq!(c.run_bound(), None);
        let both = Config::resolve(&[("time", "1s"), ("runs", "50")], env(&[])).unwrap();
        assert_eq!(both.run_bound(), Some(50));
    }

    #[test]
    fn calls_are_a_budget_of_their_own() {
        let c = Config::resolve(&[("calls", "4096")], env(&[])).unwrap();
        assert_eq!((c.calls, c.run_bound()), (Some(4096), None));
        // A calls variable replaces the attribute's runs, as HARVEY_TIME does.
        let c = Config::resolve(&[("runs", "5")], env(&[("HARVEY_CALLS", "100")])).unwrap();
        assert_eq!((c.runs, c.calls), (None, Some(100)));
        let c = Config::resolve(&[("calls", "5")], env(&[("HARVEY_RUNS", "9")])).unwrap();
        assert_eq!((c.runs, c.calls), (Some(9), None));
    }

    #[test]
    fn targets_come_from_the_attribute_or_the_environment() {
        let none = Config::resolve(&[], env(&[])).unwrap();
        assert_eq!((none.targets, none.require_targets), (None, false));
        let attrs = [("targets", "diff:origin/main"), ("require_targets", "true")];
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
        let c = Config::resolve(&attrs, env(&[("HARVEY_REQUIRE_TARGETS", "0")])).unwrap();
        assert!(!c.require_targets);
    }

    #[test]
    fn sequence_switches_are_on_unless_switched_off() {
        let on = Config::resolve(&[], env(&[])).unwrap();
        assert!(on.demand_driven && on.dataflow);
        let off = [("demand_driven", "false"), ("dataflow", "false")];
        let c = Config::resolve(&off, env(&[])).unwrap();
        assert!(!c.demand_driven && !c.dataflow);
        let c = Config::resolve(&off, env(&[("HARVEY_DEMAND_DRIVEN", "true")])).unwrap();
        assert!(c.demand_driven && !c.dataflow);
        let c = Config::resolve(&[], env(&[("HARVEY_DATAFLOW", "0")]));
        assert!(!c.unwrap().dataflow);
        assert!(Config::resolve(&[], env(&[("HARVEY_DATAFLOW", "maybe")])).is_err());
    }

    #[test]
    fn prediction_is_on_unless_switched_off() {
        assert!(Config::resolve(&[], env(&[])).unwrap().prediction);
        let off = [("prediction", "false")];
        assert!(!Config::resolve(&off, env(&[])).unwrap().prediction);
        assert!(
            Config::resolve(&off, env(&[("HARVEY_PREDICTION", "1")]))
                .unwrap()
                .prediction
        );
        assert!(
            !Config::resolve(&[], env(&[("HARVEY_PREDICTION", "false")]))
                .unwrap()
                .prediction
        );
        let err = Config::resolve(&[], env(&[("HARVEY_PREDICTION", "maybe")])).unwrap_err();
        assert!(err.to_string().contains("HARVEY_PREDICTION=maybe"), "{err}");
    }

    #[test]
    fn steering_comes_from_booleans_names_or_letters() {
        let c = Config::resolve(&[], env(&[])).unwrap();
        assert_eq!(c.lookahead, Steering::Lookahead);
        let attrs = [("lookahead", "off")];
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
        let err = Config::resolve(&attrs, env(&[("HARVEY_LOOKAHEAD", "fast")])).unwrap_err();
        assert!(err.to_string().contains("HARVEY_LOOKAHEAD=fast"), "{err}");
        assert!(err.to_string().contains("no-analysis"), "{err}");
    }

    #[test]
    fn panics_default_to_asserts_and_come_from_the_attribute_or_the_environment() {
        let c = Config::resolve(&[], env(&[])).unwrap();
        assert_eq!(c.panics, PanicSet::default());
        let attrs = [("panics", "assert,overflow")];
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
            let err = Config::resolve(&[], env(&[(name, value)]))
                .unwrap_err()
                .to_string();
            assert!(err.contains(name), "{err}");
        }
    }

    #[test]
    fn bad_attributes_name_the_argument_and_unknown_ones_are_errors() {
        let err = Config::resolve(&[("runs", "0")], env(&[])).unwrap_err();
        assert!(err.to_string().starts_with("attribute runs = 0: "), "{err}");
        let err = Config::resolve(&[("colour", "1")], env(&[])).unwrap_err();
        assert!(err.to_string().contains("`colour`"), "{err}");
        assert!(err.to_string().contains("require_targets"), "{err}");
    }
}
