//! For the benches that time one planted bug: the violation they expect, and the check that
//! the violation a campaign reported is that one (kind, source line, the last call's
//! function), so that a table never shows the time to some other finding. A campaign that
//! found something else panics with both: the bench's numbers would be wrong.

use harvey::chain::PanicCode;
use harvey::{Failure, Violation};

/// What kind of violation the bug is.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kind {
    /// A Solidity Panic with this code.
    Panic(PanicCode),
    /// The Rust invariant of this name returned false.
    Invariant(&'static str),
    /// An arbitrary storage write (SWC-124).
    StorageWrite,
}

/// The one violation a bench times.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Expected {
    /// Its kind.
    pub(crate) kind: Kind,
    /// Where it is raised, as `File.sol:line` (the file's name without its directories),
    /// for the kinds with a place; `None` for an invariant.
    pub(crate) line: Option<&'static str>,
    /// The function of the failing sequence's last call.
    pub(crate) function: &'static str,
}

impl Expected {
    /// A Panic `code` raised at `line` (`File.sol:line`) by a call of `function`.
    pub(crate) const fn panic(code: PanicCode, line: &'static str, function: &'static str) -> Self {
        Expected {
            kind: Kind::Panic(code),
            line: Some(line),
            function,
        }
    }

    /// A failed `assert` at `line` (`File.sol:line`) in a call of `function`.
    pub(crate) const fn assert(line: &'static str, function: &'static str) -> Self {
        Expected::panic(PanicCode::Assert, line, function)
    }

    /// The Rust invariant `name`, broken by a call of `function`.
    pub(crate) const fn invariant(name: &'static str, function: &'static str) -> Self {
        Expected {
            kind: Kind::Invariant(name),
            line: None,
            function,
        }
    }

    /// An arbitrary storage write at `line` (`File.sol:line`) in a call of `function`.
    pub(crate) const fn storage_write(line: &'static str, function: &'static str) -> Self {
        Expected {
            kind: Kind::StorageWrite,
            line: Some(line),
            function,
        }
    }

    /// Whether `failure` is this bug: the kind (and Panic code or invariant name), the
    /// place's line, and the last call's function.
    pub(crate) fn matches(&self, failure: &Failure) -> bool {
        let place = match (&self.kind, &failure.violation) {
            (Kind::Panic(expected), Violation::Panic { code, place }) if code == expected => {
                Some(place)
            }
            (Kind::StorageWrite, Violation::ArbitraryStorageWrite { place, .. }) => Some(place),
            (Kind::Invariant(expected), Violation::Invariant { name, .. }) if name == expected => {
                None
            }
            _ => return false,
        };
        let line_matches = match (self.line, place) {
            (None, _) => true,
            (Some(line), Some(place)) => place
                .line
                .as_deref()
                .is_some_and(|at| at.rsplit('/').next() == Some(line)),
            (Some(_), None) => false,
        };
        let last = failure.calls.last().map(|c| c.function_name());
        line_matches && last == Some(self.function)
    }

    /// Panics, naming what `what` (the bench's case: contract, configuration, seed) found
    /// instead, unless `failure` is this bug.
    pub(crate) fn check(&self, what: &str, failure: &Failure) {
        if self.matches(failure) {
            return;
        }
        let last = failure
            .calls
            .last()
            .map_or("no call", |c| c.signature.as_str());
        panic!(
            "{what}: the bench times {self}, but the campaign's first violation is {} (last call \
             {last}); the time in the table would not be the bug's\n{failure}",
            failure.violation,
        );
    }
}

impl std::fmt::Display for Expected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            Kind::Panic(code) => write!(f, "Panic {code:?} (0x{:x})", code.code())?,
            Kind::Invariant(name) => write!(f, "invariant `{name}`")?,
            Kind::StorageWrite => write!(f, "an arbitrary storage write")?,
        }
        if let Some(line) = self.line {
            write!(f, " at {line}")?;
        }
        write!(f, " in {}()", self.function)
    }
}
