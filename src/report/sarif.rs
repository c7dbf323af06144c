//! A campaign's findings as SARIF 2.1.0 results, for GitHub code scanning: one result per
//! violation, at the Solidity line where the failing transaction's innermost revert or
//! assertion is (else at the test), with the shrunk sequence and the replay command; one
//! per target line fuzzing never reached. Plain data: `sarif_file` merges it into a file.

use serde_json::{Value, json};

use crate::config::Detector;
use crate::outcome::{Outcome, Violation};

use super::failure_report;

/// Where the campaign's test is (`file!()`, `line!()`): the location of a violation that
/// has no Solidity line (a Rust invariant's).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TestSite<'a> {
    /// The file, relative to the repository root as `file!()` gives it.
    pub(crate) file: &'a str,
    /// The line of the test.
    pub(crate) line: u32,
}

/// The rules (`reportingDescriptor`s) and results of one campaign's outcome, for the test
/// named `test` (the `cargo test` filter that replays it). `uri` turns a `file` of a
/// `file:line` place into the URI the results use.
pub(crate) fn sarif_results(
    outcome: &Outcome,
    test: &str,
    site: Option<TestSite<'_>>,
    uri: &dyn Fn(&str) -> String,
) -> (Vec<Value>, Vec<Value>) {
    let mut rules: Vec<Value> = Vec::new();
    let mut results = Vec::new();
    let mut use_rule = |rule: Rule| {
        if !rules.iter().any(|r| r["id"] == rule.id) {
            rules.push(rule.descriptor());
        }
        rule.id
    };
    for failure in &outcome.failures {
        let rule = use_rule(Rule::of(&failure.violation));
        let location = failure
            .violation
            .source_line()
            .and_then(|line| location(line, uri))
            .or_else(|| site.map(|s| physical(s.file.to_string(), s.line)));
        results.push(json!({
            "ruleId": rule,
            "level": "error",
            "message": { "text": failure_report(failure, Some(test)) },
            "locations": location.into_iter().collect::<Vec<_>>(),
            "partialFingerprints": {
                "harveyViolation/v1": fingerprint(&format!("{test} {}", failure.violation.identity())),
            },
            "properties": { "test": test },
        }));
    }
    for target in outcome.stats.targets.iter().filter(|t| t.reached.is_none()) {
        let rule = use_rule(Rule::UNREACHED);
        results.push(json!({
            "ruleId": rule,
            "level": "warning",
            "message": {
                "text": format!(
                    "{test}: the changed line {} was never reached by the campaign's {} sequences",
                    target.label(),
                    outcome.stats.sequences
                ),
            },
            "locations": location(&target.location, uri).into_iter().collect::<Vec<_>>(),
            "partialFingerprints": {
                "harveyTarget/v1": fingerprint(&format!("{test} {}", target.location)),
            },
            "properties": { "test": test },
        }));
    }
    (rules, results)
}

/// The SARIF location of `file:line`, if it is one.
fn location(file_line: &str, uri: &dyn Fn(&str) -> String) -> Option<Value> {
    let (file, line) = file_line.rsplit_once(':')?;
    Some(physical(uri(file), line.parse().ok()?))
}

fn physical(uri: String, line: u32) -> Value {
    json!({
        "physicalLocation": {
            "artifactLocation": { "uri": uri },
            "region": { "startLine": line.max(1) },
        }
    })
}

/// A short stable hash of `text` (FNV-1a, 64 bits, hex): results of the same bug keep the
/// same fingerprint across runs, so code scanning tracks them as one alert.
fn fingerprint(text: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// A kind of finding, as a SARIF rule.
#[derive(Debug, Clone, Copy)]
struct Rule {
    id: &'static str,
    name: &'static str,
    short: &'static str,
    full: &'static str,
}

impl Rule {
    const UNREACHED: Rule = Rule {
        id: "harvey/target-not-reached",
        name: "TargetNotReached",
        short: "A changed line the fuzzer never reached",
        full: "The campaign's targets are the Solidity lines a change touched; fuzzing never executed this one, so the change is untested by the campaign.",
    };

    fn of(violation: &Violation) -> Rule {
        match violation {
            Violation::Invariant { .. } => Rule {
                id: "harvey/invariant",
                name: "InvariantViolated",
                short: "An invariant was violated",
                full: "A Rust invariant (or a forge suite's invariant function) returned false, an error, or panicked after a sequence of fuzzed transactions.",
            },
            Violation::Property { .. } => Rule {
                id: "harvey/property",
                name: "PropertyFailed",
                short: "A property failed for some inputs",
                full: "A Rust property (#[harvey::property]) returned false, an error, or panicked for the inputs the fuzzer found.",
            },
            Violation::Panic { .. } => Rule {
                id: "harvey/panic",
                name: "SolidityPanic",
                short: "A Solidity Panic (a failed assert, or another code the campaign counts)",
                full: "A fuzzed transaction reverted with a Solidity Panic code the campaign treats as a bug: a failed assert (SWC-110), or an overflow or other code when configured.",
            },
            Violation::ArbitraryStorageWrite { .. } => Rule {
                id: "harvey/arbitrary-storage-write",
                name: "ArbitraryStorageWrite",
                short: "A caller can write an arbitrary storage slot",
                full: "A fuzzed transaction wrote the storage slot the fuzzer chose at random (SWC-124): the caller controls where the contract writes and can overwrite any variable.",
            },
            Violation::AssertionFailed { .. } => Rule {
                id: "harvey/assertion-failed",
                name: "AssertionFailedEvent",
                short: "An AssertionFailed event was emitted",
                full: "A fuzzed transaction emitted AssertionFailed(..), the assertion convention of Echidna's and Medusa's assertion mode.",
            },
            Violation::Reverted { .. } => Rule {
                id: "harvey/reverted",
                name: "UnexpectedRevert",
                short: "A call reverted where reverts count as failures",
                full: "A fuzzed transaction reverted with a failed forge-std assertion, or reverted at all with fail_on_revert on.",
            },
            Violation::Vulnerability { detector, .. } => Rule::detector(*detector),
            Violation::UnsupportedCheatcode { .. } => Rule {
                id: "harvey/unsupported-cheatcode",
                name: "UnsupportedCheatcode",
                short: "A forge cheatcode harvey does not implement was called",
                full: "The contracts called a forge cheatcode harvey cannot run as forge would; the campaign reports it instead of guessing.",
            },
        }
    }

    /// The rule of a vulnerability detector's findings.
    fn detector(detector: Detector) -> Rule {
        match detector {
            Detector::EtherLeak => Rule {
                id: "harvey/ether-leak",
                name: "EtherLeak",
                short: "An untrusted account received ether it never paid in",
                full: "A fuzzed sender that setup did not trust, that sent no ether in the sequence and that no trusted sender named, received ether from the contracts under test: anyone can take the contract's ether.",
            },
            Detector::UnprotectedSelfdestruct => Rule {
                id: "harvey/unprotected-selfdestruct",
                name: "UnprotectedSelfdestruct",
                short: "An untrusted sender made a contract self-destruct",
                full: "A SELFDESTRUCT ran in a transaction sent by a fuzzed sender that setup did not trust: anyone can destroy the contract (or, after EIP-6780, sweep its balance).",
            },
            Detector::UnsafeDelegatecall => Rule {
                id: "harvey/unsafe-delegatecall",
                name: "UnsafeDelegatecall",
                short: "A contract delegate-called an address an untrusted sender chose",
                full: "A DELEGATECALL went to an address an untrusted sender passed in its calldata: the attacker's code would run with the contract's storage and balance.",
            },
            Detector::Reentrancy => Rule {
                id: "harvey/reentrancy",
                name: "Reentrancy",
                short: "A contract was re-entered before it updated its state",
                full: "A contract called out, an untrusted account called back into it before the call returned, and the outer call then wrote a storage slot the re-entered call had read: the re-entered call ran on state about to change (the DAO's withdraw).",
            },
            Detector::UnhandledException => Rule {
                id: "harvey/unhandled-exception",
                name: "UnhandledException",
                short: "A failed call went unnoticed",
                full: "An inner call (a send, a low-level call) failed and the calling contract went on without branching on its status, storing or returning it: it acts as if the call had worked (SWC-104).",
            },
            Detector::LockedEther => Rule {
                id: "harvey/locked-ether",
                name: "LockedEther",
                short: "A contract accepts ether but can never send it",
                full: "A contract accepted ether in a successful transaction, and its code has no CALL, CALLCODE, DELEGATECALL, CREATE, CREATE2 or SELFDESTRUCT: the ether is locked for good.",
            },
            Detector::IntegerOverflow => Rule {
                id: "harvey/integer-overflow",
                name: "IntegerOverflow",
                short: "A wrapped arithmetic result was stored or sent",
                full: "An ADD, SUB or MUL wrapped around 2^256 (pre-0.8 arithmetic, an unchecked block, assembly) and its result, or a value computed from it, was written to storage or sent as ether without the program comparing it first (SWC-101).",
            },
            Detector::BlockDependency => Rule {
                id: "harvey/block-dependency",
                name: "BlockDependency",
                short: "Block data decided a call, a payment or a selfdestruct",
                full: "block.timestamp, block.number, blockhash, block.coinbase, block.prevrandao or block.gaslimit flowed into a call's target, calldata or ether, or a selfdestruct's beneficiary, or decided a branch before a payment or selfdestruct: the block's producer chooses these within limits (SWC-116, SWC-120).",
            },
            Detector::StrictBalanceEquality => Rule {
                id: "harvey/strict-balance-equality",
                name: "StrictBalanceEquality",
                short: "A branch tests an ether balance for exact equality",
                full: "A branch decided on an exact equality with an ether balance: anyone can force ether into a contract (a selfdestruct, a block reward) so that the equality never holds again (SWC-132).",
            },
            Detector::TxOrigin => Rule {
                id: "harvey/tx-origin",
                name: "TxOrigin",
                short: "tx.origin used for authorisation",
                full: "A branch decided on tx.origin compared with something other than msg.sender, and the contract then reverted or changed state: any contract the authorised account calls can act in its name (SWC-115).",
            },
            Detector::TransactionOrder => Rule {
                id: "harvey/transaction-order",
                name: "TransactionOrderDependency",
                short: "transaction-order dependency",
                full: "Two consecutive transactions of different senders, the second reading what the first wrote, paid both senders different amounts when run the other way round: whoever gets in first decides who is paid, and a front-runner who sees the other transaction pending goes first (SWC-114).",
            },
        }
    }

    fn descriptor(&self) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "shortDescription": { "text": self.short },
            "fullDescription": { "text": self.full },
            "help": {
                "text": format!("{} The result's message holds the shrunk call sequence and the command that replays it.", self.full),
            },
            "defaultConfiguration": {
                "level": if self.id == Rule::UNREACHED.id { "warning" } else { "error" },
            },
            "properties": { "tags": ["harvey", "fuzzing"] },
        })
    }
}
