//! The vulnerability detectors a campaign runs (the `detectors` setting): bug oracles that
//! need no invariant, after MuFuzz §IV-D and ConFuzzius Appendix A. Each detector is a
//! violation kind of its own; which ones run is a set, named like Panic codes are.

use std::fmt;

use crate::{Invalid, parse};

/// One vulnerability detector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Detector {
    /// A transaction pays an attacker (a fuzzed sender setup did not trust) that no
    /// trusted sender named in a call, and the attackers together now hold more ether than
    /// after setup: they took out more than they put in.
    EtherLeak,
    /// A `SELFDESTRUCT` runs in a transaction an attacker sent.
    UnprotectedSelfdestruct,
    /// A `DELEGATECALL` in a transaction an attacker sent goes to an address the attacker
    /// chose in its calldata (and that has no code, or is an attacker's): it runs the
    /// attacker's code with the contract's storage and balance.
    UnsafeDelegatecall,
    /// A contract called out, an attacker called back into it before the call returned,
    /// and the outer call then wrote a slot the re-entered call had read.
    Reentrancy,
    /// An inner call failed and its caller went on without branching on its status
    /// (nor storing or returning it): the failure went unnoticed (SWC-104).
    UnhandledException,
    /// A contract accepted ether in a successful transaction, and its code has no
    /// instruction that could ever send ether out (`CALL`, `CALLCODE`, `DELEGATECALL`,
    /// `CREATE`, `CREATE2`, `SELFDESTRUCT`).
    LockedEther,
    /// An `ADD`, `SUB` or `MUL` wrapped around 2^256 (pre-0.8 arithmetic, `unchecked`
    /// blocks, assembly) and the result, or a value computed from it, was stored or sent
    /// as ether, without the program comparing it first (SafeMath's `c >= a` does).
    IntegerOverflow,
    /// Block data (`block.timestamp`, `block.number`, `blockhash`, `block.coinbase`,
    /// `block.prevrandao`, `block.gaslimit`) flowed into a call's target, calldata or
    /// ether, or a selfdestruct's beneficiary; or a branch on it decided a payment or a
    /// selfdestruct. A miner or validator chooses these within limits.
    BlockDependency,
    /// A branch decided on an exact equality with an ether balance: anyone can force ether
    /// into a contract (a selfdestruct, a block reward), so the equality may never hold
    /// again.
    StrictBalanceEquality,
    /// A branch decided on `tx.origin` compared with something other than `msg.sender`,
    /// and the frame then reverted or changed state: a contract the owner calls can act as
    /// the owner (SWC-115).
    TxOrigin,
    /// Two consecutive transactions of different senders, the second reading what the
    /// first wrote, pay both senders different amounts when run the other way round:
    /// whoever gets in first decides who is paid, and a front-runner who sees the other's
    /// transaction pending goes first (SWC-114).
    TransactionOrder,
}

impl Detector {
    /// Every detector, with the short name settings use (`detectors = ["ether-leak"]`,
    /// `HARVEY_DETECTORS=ether-leak,selfdestruct`).
    pub const ALL: [(Detector, &'static str); 11] = [
        (Detector::EtherLeak, "ether-leak"),
        (Detector::UnprotectedSelfdestruct, "selfdestruct"),
        (Detector::UnsafeDelegatecall, "delegatecall"),
        (Detector::Reentrancy, "reentrancy"),
        (Detector::UnhandledException, "unhandled-exception"),
        (Detector::LockedEther, "locked-ether"),
        (Detector::IntegerOverflow, "overflow"),
        (Detector::BlockDependency, "block-dependency"),
        (Detector::StrictBalanceEquality, "balance-equality"),
        (Detector::TxOrigin, "tx-origin"),
        (Detector::TransactionOrder, "transaction-order"),
    ];

    /// The short name settings use.
    pub fn name(self) -> &'static str {
        Detector::ALL
            .iter()
            .find(|(detector, _)| *detector == self)
            .map_or("unknown", |&(_, name)| name)
    }

    /// What the detector reports, as a report's heading says it.
    pub fn title(self) -> &'static str {
        match self {
            Detector::EtherLeak => "ether leak",
            Detector::UnprotectedSelfdestruct => "unprotected selfdestruct",
            Detector::UnsafeDelegatecall => "unsafe delegatecall",
            Detector::Reentrancy => "reentrancy",
            Detector::UnhandledException => "unhandled exception",
            Detector::LockedEther => "locked ether",
            Detector::IntegerOverflow => "integer overflow",
            Detector::BlockDependency => "block dependency",
            Detector::StrictBalanceEquality => "strict balance equality",
            Detector::TxOrigin => "authorisation by tx.origin",
            Detector::TransactionOrder => "transaction-order dependency",
        }
    }

    /// The detector named `name` ([`Detector::ALL`]), in any case.
    pub fn from_name(name: &str) -> Option<Detector> {
        let name = name.trim().to_ascii_lowercase();
        Detector::ALL
            .iter()
            .find(|(_, n)| *n == name)
            .map(|&(detector, _)| detector)
    }
}

impl fmt::Display for Detector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The detectors a campaign runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetectorSet {
    detectors: Vec<Detector>,
}

impl Default for DetectorSet {
    /// Every detector: none of them reported anything on the negative set of well-written
    /// contracts (OpenZeppelin tokens, vaults and access control; see the book's detectors chapter).
    fn default() -> Self {
        DetectorSet::all()
    }
}

impl DetectorSet {
    /// Exactly `detectors`, each once, in the order given.
    pub fn of(detectors: impl IntoIterator<Item = Detector>) -> DetectorSet {
        let mut set = DetectorSet {
            detectors: Vec::new(),
        };
        for detector in detectors {
            if !set.detectors.contains(&detector) {
                set.detectors.push(detector);
            }
        }
        set
    }

    /// Every detector.
    pub fn all() -> DetectorSet {
        DetectorSet::of(Detector::ALL.map(|(detector, _)| detector))
    }

    /// No detector runs (only invariants, Panics and the other oracles count).
    pub fn none() -> DetectorSet {
        DetectorSet {
            detectors: Vec::new(),
        }
    }

    /// Whether `detector` runs.
    pub fn contains(&self, detector: Detector) -> bool {
        self.detectors.contains(&detector)
    }

    /// Whether no detector runs.
    pub fn is_empty(&self) -> bool {
        self.detectors.is_empty()
    }

    /// The detectors, in the order given.
    pub fn detectors(&self) -> &[Detector] {
        &self.detectors
    }
}

/// The names [`DetectorSet`]'s parser accepts, for error messages.
fn detector_names() -> String {
    let names: Vec<&str> = Detector::ALL.iter().map(|&(_, name)| name).collect();
    format!("{}, `all` or `none`", names.join(", "))
}

impl std::str::FromStr for DetectorSet {
    type Err = Invalid;

    /// Comma-separated detector names (`"ether-leak,selfdestruct"`, see
    /// [`Detector::ALL`]), `"all"`, or `"none"`, in any case.
    fn from_str(text: &str) -> Result<DetectorSet, Invalid> {
        let detectors = parse::names(text, &DetectorSet::all().detectors, |name| {
            Detector::from_name(name).ok_or_else(|| {
                Invalid::new(format!(
                    "`{name}` is not a detector: use {}",
                    detector_names()
                ))
            })
        })?;
        Ok(DetectorSet::of(detectors))
    }
}

impl fmt::Display for DetectorSet {
    /// The set as [`DetectorSet`]'s parser reads it (`none` when empty).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        parse::write_names(f, self.detectors.iter().map(|d| d.name().to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_parse_from_names_all_and_none_and_print_back() {
        let set: DetectorSet = "ether-leak, SELFDESTRUCT".parse().unwrap();
        assert_eq!(
            set.detectors(),
            [Detector::EtherLeak, Detector::UnprotectedSelfdestruct]
        );
        assert_eq!(set.to_string(), "ether-leak,selfdestruct");
        assert_eq!("none".parse::<DetectorSet>().unwrap(), DetectorSet::none());
        assert_eq!("all".parse::<DetectorSet>().unwrap(), DetectorSet::all());
        assert_eq!(DetectorSet::none().to_string(), "none");
        assert_eq!(DetectorSet::default(), DetectorSet::all());
        for (detector, name) in Detector::ALL {
            assert_eq!(Detector::from_name(name), Some(detector));
            assert_eq!(detector.name(), name);
        }
        let err = "ether-leak,reentrancy-ish"
            .parse::<DetectorSet>()
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`reentrancy-ish`") && err.contains("locked-ether"),
            "{err}"
        );
    }
}
