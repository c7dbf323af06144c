//! `vm.expectEmit`: no argument (check everything), an emitter, the four `checkTopic1`,
//! `checkTopic2`, `checkTopic3`, `checkData` flags, or flags and an emitter. As in forge, the
//! next log emitted after the cheatcode (normally the test's own `emit Event(..)`) is the
//! expected one; the logs emitted after it must then contain it (the checked topics and data
//! equal, from the emitter when given; other logs may come between), in the order the
//! expectations were made. At the end of the next call from the frame that made them that
//! does not revert, an expectation not met reverts the call with `log != expected log` (or
//! forge's more precise reason), and the expectations are cleared when all were met.
//!
//! Where harvey differs: the `count` forms and `expectEmitAnonymous` are not supported (they
//! report as unsupported cheatcodes), and a mismatch's message names the first differing
//! topic or the data, not the decoded event.

use alloy_primitives::{Address, LogData};

use super::{Answer, fail};

/// One `expectEmit`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ExpectedEmit {
    /// Journal depth of the frame that called the cheatcode.
    depth: usize,
    /// Which of topics 1 to 3 and the data must be equal (topic 0 always is).
    checks: [bool; 4],
    /// The emitter, when given.
    emitter: Option<Address>,
    /// The expected log, once emitted.
    log: Option<LogData>,
    /// Whether a later log matched it.
    found: bool,
    /// Why the latest log did not match it.
    mismatch: Option<String>,
}

/// The expectations in force, in the order made.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(in crate::chain) struct ExpectedEmits {
    list: Vec<ExpectedEmit>,
}

impl ExpectedEmits {
    /// `vm.expectEmit` from the frame at `depth`.
    pub(super) fn expect(
        &mut self,
        depth: usize,
        checks: [bool; 4],
        emitter: Option<Address>,
    ) -> Answer {
        self.list.push(ExpectedEmit {
            depth,
            checks,
            emitter,
            log: None,
            found: false,
            mismatch: None,
        });
        Ok(Vec::new())
    }

    /// Whether none is in force (the common case, checked on every log and call).
    pub(in crate::chain) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// A log was emitted: it is the expected log of the first expectation without one, else
    /// it may meet the first expectation not met yet.
    pub(in crate::chain) fn saw(&mut self, emitter: Address, log: &LogData) {
        if let Some(unfilled) = self.list.iter_mut().find(|e| e.log.is_none()) {
            if log.topics().is_empty() {
                unfilled.mismatch =
                    Some("use vm.expectEmitAnonymous to match anonymous events".into());
            }
            unfilled.log = Some(log.clone());
            return;
        }
        let Some(next) = self.list.iter_mut().find(|e| !e.found) else {
            return;
        };
        let Some(expected) = next.log.as_ref() else {
            return;
        };
        match mismatch(next.checks, expected, log) {
            Some(reason) => next.mismatch = Some(reason),
            None if next.emitter.is_some_and(|wanted| wanted != emitter) => {
                next.mismatch = Some(format!(
                    "log emitter mismatch: expected={:#x}, got={emitter:#x}",
                    next.emitter.unwrap_or_default()
                ));
            }
            None => next.found = true,
        }
    }

    /// A non-static call from the frame at `depth` returned (`reverted`: it did not): forge's
    /// error when an expectation of that frame was not met; all are cleared when all were.
    pub(in crate::chain) fn call_returned(
        &mut self,
        depth: usize,
        reverted: bool,
    ) -> Option<Vec<u8>> {
        if reverted || !self.list.iter().any(|e| e.depth == depth) {
            return None;
        }
        if let Some(unmet) = self.list.iter().find(|e| !e.found) {
            let reason = unmet.mismatch.as_deref().unwrap_or("log != expected log");
            return Some(fail(reason));
        }
        self.list.clear();
        None
    }
}

/// Why `actual` does not meet `expected` under `checks`, if it does not.
fn mismatch(checks: [bool; 4], expected: &LogData, actual: &LogData) -> Option<String> {
    let (want, got) = (expected.topics(), actual.topics());
    if want.len() != got.len() {
        return Some(format!(
            "log != expected log: {} topics != {} topics",
            got.len(),
            want.len()
        ));
    }
    for (i, (w, g)) in want.iter().zip(got).enumerate() {
        if (i == 0 || checks[i - 1]) && w != g {
            return Some(format!("log != expected log: topic {i} {g} != {w}"));
        }
    }
    if checks[3] && expected.data != actual.data {
        return Some("log != expected log: data differs".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{B256, Bytes};
    use alloy_sol_types::{Revert, SolError};

    const TOKEN: Address = Address::with_last_byte(0x70);

    fn log(topic1: u8, data: &[u8]) -> LogData {
        LogData::new_unchecked(
            vec![B256::with_last_byte(0xee), B256::with_last_byte(topic1)],
            Bytes::copy_from_slice(data),
        )
    }

    fn message(error: Vec<u8>) -> String {
        Revert::abi_decode(&error).unwrap().reason
    }

    #[test]
    fn the_next_log_is_expected_and_a_later_one_must_match_it() {
        let mut emits = ExpectedEmits::default();
        emits.expect(1, [true, true, true, true], None).unwrap();
        emits.saw(TOKEN, &log(1, b"a"));
        emits.saw(TOKEN, &log(2, b"a"));
        assert_eq!(
            emits.call_returned(1, false).map(message).as_deref(),
            Some(
                "log != expected log: topic 1 0x0000000000000000000000000000000000000000000000000000000000000002 != 0x0000000000000000000000000000000000000000000000000000000000000001"
            )
        );
        emits.saw(TOKEN, &log(1, b"a"));
        assert_eq!(
            emits.call_returned(2, false),
            None,
            "only the frame's calls"
        );
        assert_eq!(emits.call_returned(1, false), None);
        assert!(emits.is_empty());
    }

    #[test]
    fn unchecked_parts_and_emitters() {
        let mut emits = ExpectedEmits::default();
        emits
            .expect(1, [false, true, true, false], Some(TOKEN))
            .unwrap();
        emits.saw(TOKEN, &log(1, b"a"));
        emits.saw(Address::ZERO, &log(9, b"b"));
        assert!(
            message(emits.call_returned(1, false).unwrap()).starts_with("log emitter mismatch")
        );
        emits.saw(TOKEN, &log(9, b"b"));
        assert_eq!(emits.call_returned(1, false), None);
    }
}
