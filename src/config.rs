//! Campaign configuration: the settings table lives in the `harvey-settings` crate, shared
//! with the `#[harvey::invariant]` macro (which checks attribute values with the same
//! parsers at compile time). [`Config`] resolves from the defaults, the attribute's
//! `(name, text)` pairs and the `HARVEY_*` variables (so CI can run longer campaigns
//! without touching code).

pub use harvey_settings::{Config, Invalid, RUNS_WITHOUT_BUDGET, SETTINGS, Setting, Steering};

use crate::error::Error;

impl From<Invalid> for Error {
    /// A setting's text that its parser rejects is invalid configuration.
    fn from(invalid: Invalid) -> Error {
        Error::Config(invalid.message().to_string())
    }
}
