//! `vm.expectRevert` in all of forge 1.7.1's forms: no argument, revert data (`bytes4` or
//! `bytes`), an expected reverter address, and a count. The next `count` calls (or
//! creations) made by the frame that called the cheatcode must revert, with the given data
//! and from the given reverter when given; each then counts as a success returning zeros
//! (forge's 8192 zero bytes; a creation "succeeds" at address 1); otherwise it reverts with
//! forge's message. A count of 0 expects the next call not to revert (with that data, from
//! that reverter). If that frame ends before making a call, it fails with forge's depth
//! message. The reverter is the innermost call that reverted (with a count above 1, the
//! latest), as forge records it.

use alloy_primitives::{Address, Bytes, hex};
use alloy_sol_types::{Revert, SolError};
use revm::interpreter::InstructionResult;

use super::{Answer, fail};

/// What forge returns from a call whose expected revert happened.
const DUMMY_OUTPUT_LEN: usize = 8192;

/// What an `expectRevert` expects, as its arguments give it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Expectation {
    /// The revert data expected, if any.
    pub(super) reason: Option<Bytes>,
    /// The address whose call must revert, if any.
    pub(super) reverter: Option<Address>,
    /// How many of the next calls must revert (1 unless given; 0: none may).
    pub(super) count: u64,
}

/// An armed `expectRevert`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::chain) struct ExpectedRevert {
    /// Journal depth of the frame that called the cheatcode.
    depth: usize,
    expected: Expectation,
    /// How many calls reverted as expected so far.
    seen: u64,
    /// The call that reverted, when a reverter is expected.
    reverted_by: Option<Address>,
}

/// Arms an expectation, or forge's error when one is already armed.
pub(super) fn arm(
    slot: &mut Option<ExpectedRevert>,
    depth: usize,
    expected: Expectation,
) -> Answer {
    if slot.is_some() {
        return Err(fail(
            "you must call another function prior to expecting a second revert",
        ));
    }
    *slot = Some(ExpectedRevert {
        depth,
        expected,
        seen: 0,
        reverted_by: None,
    });
    Ok(Vec::new())
}

/// The end of a call or creation of `target` that ended with the journal back at `depth`:
/// records the reverter, and if it settles `slot`'s expectation, rewrites `result`/`output`
/// (and for a creation, `address`) as forge does.
pub(in crate::chain) fn settle(
    slot: &mut Option<ExpectedRevert>,
    depth: usize,
    target: Address,
    result: &mut InstructionResult,
    output: &mut Bytes,
    address: Option<&mut Option<Address>>,
) {
    let Some(armed) = slot.as_mut() else {
        return;
    };
    if matches!(result, InstructionResult::Revert)
        && armed.expected.reverter.is_some()
        && (armed.reverted_by.is_none() || armed.expected.count > 1)
    {
        armed.reverted_by = Some(target);
    }
    // Calls deeper than the next one of the frame that armed it do not settle it.
    let Some(mut armed) = slot.take_if(|armed| depth <= armed.depth) else {
        return;
    };
    let verdict = if depth < armed.depth {
        Err("call didn't revert at a lower depth than cheatcode call depth".to_string())
    } else {
        judge(&armed, *result, output)
    };
    match verdict {
        Ok(()) => {
            armed.seen += 1;
            let reverted = matches!(result, InstructionResult::Revert);
            if armed.seen < armed.expected.count {
                *slot = Some(armed);
            }
            if !reverted {
                // `expectRevert(0)` met: the call stands as it returned.
                return;
            }
            *result = InstructionResult::Return;
            match address {
                Some(address) => {
                    *address = Some(Address::with_last_byte(1));
                    *output = Bytes::new();
                }
                None => *output = Bytes::from(vec![0u8; DUMMY_OUTPUT_LEN]),
            }
        }
        Err(message) => {
            *result = InstructionResult::Revert;
            *output = Bytes::from(fail(message));
        }
    }
}

/// Whether a call that ended in `result` with `output` meets `armed`, else forge's message.
fn judge(armed: &ExpectedRevert, result: InstructionResult, output: &[u8]) -> Result<(), String> {
    let reverted = matches!(result, InstructionResult::Revert);
    let expected = &armed.expected;
    let reason = expected.reason.as_ref().map(|r| r.as_ref());
    if expected.count == 0 {
        return none_expected(armed, reverted, output);
    }
    if !reverted {
        return Err("next call did not revert as expected".into());
    }
    if let (Some(wanted), Some(actual)) = (expected.reverter, armed.reverted_by) {
        if wanted != actual {
            return Err(format!(
                "Reverter != expected reverter: {actual} != {wanted}"
            ));
        }
    }
    matches(reason, output)
}

/// [`judge`] for `count == 0`: the call must not revert (with the data, from the reverter).
fn none_expected(armed: &ExpectedRevert, reverted: bool, output: &[u8]) -> Result<(), String> {
    let expected = &armed.expected;
    if !reverted {
        return Ok(());
    }
    let reason = expected.reason.as_ref().map(|r| r.as_ref());
    if expected.reverter.is_none() && reason.is_none() {
        return Err("call reverted when it was expected not to revert".into());
    }
    let reason_met = reason.map(|r| decoded(output) == r);
    let reverter_met = expected.reverter.map(|r| armed.reverted_by == Some(r));
    let shown_reason = || shown(reason.unwrap_or_default());
    match (reason_met, reverter_met, expected.reverter) {
        (Some(true), Some(true), Some(from)) => Err(format!(
            "expected 0 reverts with reason: {}, from address: {from}, but got one",
            shown_reason()
        )),
        (Some(true), None, _) => Err(format!(
            "expected 0 reverts with reason: {}, but got one",
            shown_reason()
        )),
        (None, Some(true), Some(from)) => Err(format!(
            "expected 0 reverts from address: {from}, but got one"
        )),
        // Any other revert is a failure too, saying what reverted.
        _ => {
            let actual = shown(&decoded(output));
            let by = armed.reverted_by.unwrap_or_default();
            Err(match (expected.reverter, reason) {
                (Some(from), Some(reason)) => format!(
                    "call reverted with '{actual}' from {by}, but expected 0 reverts with reason '{}' from {from}",
                    shown(reason)
                ),
                (Some(from), None) => format!(
                    "call reverted with '{actual}' from {by}, but expected 0 reverts from {from}"
                ),
                (None, _) => {
                    format!("call reverted with '{actual}' when it was expected not to revert")
                }
            })
        }
    }
}

/// Revert data with an `Error(string)` replaced by its text's bytes, as forge compares it.
fn decoded(data: &[u8]) -> Vec<u8> {
    match Revert::abi_decode(data) {
        Ok(revert) => revert.reason.into_bytes(),
        Err(_) => data.to_vec(),
    }
}

/// Whether revert data `actual` is the `expected` one: the same bytes, or an
/// `Error(string)` whose text is those bytes.
fn matches(expected: Option<&[u8]>, actual: &[u8]) -> Result<(), String> {
    let Some(expected) = expected else {
        return Ok(());
    };
    let text = Revert::abi_decode(actual).ok().map(|r| r.reason);
    if actual == expected || text.as_deref().map(str::as_bytes) == Some(expected) {
        return Ok(());
    }
    if actual.is_empty() {
        return Err("call reverted as expected, but without data".into());
    }
    Err(format!(
        "Error != expected error: {} != {}",
        shown(actual),
        shown(expected)
    ))
}

/// Revert data for a message: the text of an `Error(string)` or of UTF-8 bytes, else hex.
fn shown(data: &[u8]) -> String {
    if let Ok(revert) = Revert::abi_decode(data) {
        return revert.reason;
    }
    match std::str::from_utf8(data) {
        Ok(text) if !text.is_empty() && text.chars().all(|c| !c.is_control()) => text.into(),
        _ => hex::encode_prefixed(data),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TARGET: Address = Address::with_last_byte(0x70);

    fn once() -> Expectation {
        Expectation {
            count: 1,
            ..Expectation::default()
        }
    }

    fn run(
        expected: Option<&[u8]>,
        depth: usize,
        mut result: InstructionResult,
        output: &[u8],
    ) -> (InstructionResult, Bytes) {
        let mut slot = None;
        let expected = Expectation {
            reason: expected.map(Bytes::copy_from_slice),
            count: 1,
            ..Expectation::default()
        };
        arm(&mut slot, 1, expected).unwrap();
        let mut output = Bytes::copy_from_slice(output);
        settle(&mut slot, depth, TARGET, &mut result, &mut output, None);
        (result, output)
    }

    fn message(output: &Bytes) -> String {
        Revert::abi_decode(output).unwrap().reason
    }

    #[test]
    fn a_revert_becomes_a_success_and_anything_else_a_revert() {
        let (result, output) = run(None, 1, InstructionResult::Revert, b"");
        assert_eq!(result, InstructionResult::Return);
        assert_eq!(output.len(), DUMMY_OUTPUT_LEN);
        let (result, output) = run(None, 1, InstructionResult::Return, b"");
        assert_eq!(result, InstructionResult::Revert);
        assert_eq!(message(&output), "next call did not revert as expected");
        let (_, output) = run(None, 0, InstructionResult::Return, b"");
        assert_eq!(
            message(&output),
            "call didn't revert at a lower depth than cheatcode call depth"
        );
        // Deeper calls do not settle it.
        let mut slot = None;
        arm(&mut slot, 1, once()).unwrap();
        let (mut result, mut output) = (InstructionResult::Return, Bytes::new());
        settle(&mut slot, 2, TARGET, &mut result, &mut output, None);
        assert!(slot.is_some());
        assert!(
            arm(&mut slot, 1, once()).is_err(),
            "a second one before the call"
        );
    }

    #[test]
    fn reasons_match_raw_bytes_or_error_strings() {
        let no = Revert::from("no").abi_encode();
        assert_eq!(
            run(Some(b"no"), 1, InstructionResult::Revert, &no).0,
            InstructionResult::Return
        );
        assert_eq!(
            run(Some(&no), 1, InstructionResult::Revert, &no).0,
            InstructionResult::Return
        );
        let (result, output) = run(Some(b"yes"), 1, InstructionResult::Revert, &no);
        assert_eq!(result, InstructionResult::Revert);
        assert_eq!(message(&output), "Error != expected error: no != yes");
        let (_, output) = run(Some(b"yes"), 1, InstructionResult::Revert, b"");
        assert_eq!(
            message(&output),
            "call reverted as expected, but without data"
        );
    }

    /// Settles `expected` (armed at depth 1) on calls of depth 1 ending as `results` (each a
    /// result and, for a revert, the reverting call's target), and returns each call's result.
    fn settle_all(
        expected: Expectation,
        results: &[(InstructionResult, Address)],
    ) -> Vec<Result<(), String>> {
        let mut slot = None;
        arm(&mut slot, 1, expected).unwrap();
        results
            .iter()
            .map(|&(mut result, target)| {
                let mut output = Bytes::new();
                settle(&mut slot, 1, target, &mut result, &mut output, None);
                match result {
                    InstructionResult::Return => Ok(()),
                    _ => Err(message(&output)),
                }
            })
            .collect()
    }

    #[test]
    fn counts_and_reverters() {
        let other = Address::with_last_byte(0x71);
        let revert = InstructionResult::Revert;
        let twice = Expectation {
            count: 2,
            ..Expectation::default()
        };
        assert_eq!(
            settle_all(twice.clone(), &[(revert, TARGET), (revert, TARGET)]),
            [Ok(()), Ok(())]
        );
        assert_eq!(
            settle_all(
                twice,
                &[(revert, TARGET), (InstructionResult::Return, TARGET)]
            ),
            [Ok(()), Err("next call did not revert as expected".into())]
        );
        let from_target = Expectation {
            reverter: Some(TARGET),
            count: 1,
            ..Expectation::default()
        };
        assert_eq!(
            settle_all(from_target.clone(), &[(revert, TARGET)]),
            [Ok(())]
        );
        assert_eq!(
            settle_all(from_target, &[(revert, other)]),
            [Err(format!(
                "Reverter != expected reverter: {other} != {TARGET}"
            ))]
        );
        let none = Expectation::default();
        assert_eq!(
            settle_all(none.clone(), &[(InstructionResult::Return, TARGET)]),
            [Ok(())]
        );
        assert_eq!(
            settle_all(none, &[(revert, TARGET)]),
            [Err(
                "call reverted when it was expected not to revert".into()
            )]
        );
        let none_from_target = Expectation {
            reverter: Some(TARGET),
            ..Expectation::default()
        };
        assert_eq!(
            settle_all(none_from_target.clone(), &[(revert, TARGET)]),
            [Err(format!(
                "expected 0 reverts from address: {TARGET}, but got one"
            ))]
        );
        assert_eq!(
            settle_all(none_from_target, &[(revert, other)]),
            [Err(format!(
                "call reverted with '0x' from {other}, but expected 0 reverts from {TARGET}"
            ))]
        );
    }
}
