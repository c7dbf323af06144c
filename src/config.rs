//! Campaign configuration: the settings table lives in the `harvey-settings` crate, shared
//! with the `#[harvey::invariant]` macro (which checks attribute values with the same
//! parsers at compile time). [`Config`] resolves from the defaults, the attribute's
//! `(name, text)` pairs and the `HARVEY_*` variables (so CI can run longer campaigns
//! without touching code).

pub use harvey_settings::{Config, Detector, DetectorSet, Invalid, PanicSet, Steering};
