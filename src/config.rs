//! Campaign configuration: the settings table lives in the `harvey-settings` crate, shared
//! with the `#[harvey::invariant]` macro (which checks attribute values with the same
//! parsers at compile time). [`Config`] resolves from the defaults, the attribute's
//! `(name, text)` pairs and the `HARVEY_*` variables (so CI can run longer campaigns
//! without touching code).

pub use harvey_settings::{Config, Detector, DetectorSet, Invalid, PanicSet, Steering};

use crate::error::Error;

impl From<Invalid> for Error {
    /// A setting's text that its parser rejects is invalid configuration.
    fn from(invalid: Invalid) -> Error {
        Error::Config(invalid.message().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_settings_are_configuration_errors_naming_the_variable() {
        let invalid = Config::resolve(&[], |name| {
            (name == "HARVEY_DEPTH").then(|| "deep".to_string())
        })
        .unwrap_err();
        let err = Error::from(invalid);
        assert!(matches!(err, Error::Config(_)), "{err:?}");
        assert!(
            err.to_string()
                .starts_with("invalid configuration: HARVEY_DEPTH=deep: "),
            "{err}"
        );
        let spec = "src/Vault.sol:0".parse::<crate::targets::TargetSpec>();
        let err = Error::from(spec.unwrap_err());
        assert!(err.to_string().contains("`file:line`"), "{err}");
    }
}
