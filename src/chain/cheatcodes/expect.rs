//! `vm.expectRevert()`, `vm.expectRevert(bytes4)` and `vm.expectRevert(bytes)`: the next
//! call (or creation) made by the frame that called the cheatcode must revert, with the
//! given data when given. It then counts as a success returning zeros (forge's 8192 zero
//! bytes; a creation "succeeds" at address 1); otherwise it reverts with forge's message.
//! If that frame ends before making a call, it fails with forge's depth message.

use alloy_primitives::{Address, Bytes, hex};
use alloy_sol_types::{Revert, SolError};
use revm::interpreter::InstructionResult;

use super::{Answer, fail};

/// What forge returns from a call whose expected revert happened.
const DUMMY_OUTPUT_LEN: usize = 8192;

/// An armed `expectRevert`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::chain) struct ExpectedRevert {
    /// Journal depth of the frame that called the cheatcode.
    depth: usize,
    /// The revert data expected, if any.
    reason: Option<Bytes>,
}

/// Arms an expectation, or forge's error when one is already armed.
pub(super) fn arm(
    slot: &mut Option<ExpectedRevert>,
    depth: usize,
    reason: Option<Bytes>,
) -> Answer {
    if slot.is_some() {
        return Err(fail(
            "you must call another function prior to expecting a second revert",
        ));
    }
    *slot = Some(ExpectedRevert { depth, reason });
    Ok(Vec::new())
}

/// The end of a call or creation that ended with the journal back at `depth`: if it
/// settles `slot`'s expectation, rewrites `result`/`output` (and for a creation,
/// `address`) as forge does.
pub(in crate::chain) fn settle(
    slot: &mut Option<ExpectedRevert>,
    depth: usize,
    result: &mut InstructionResult,
    output: &mut Bytes,
    address: Option<&mut Option<Address>>,
) {
    // Calls deeper than the next one of the frame that armed it do not settle it.
    let Some(expected) = slot.take_if(|expected| depth <= expected.depth) else {
        return;
    };
    let verdict = if depth < expected.depth {
        Err("call didn't revert at a lower depth than cheatcode call depth".to_string())
    } else if !matches!(result, InstructionResult::Revert) {
        Err("next call did not revert as expected".to_string())
    } else {
        matches(expected.reason.as_ref().map(|r| r.as_ref()), output)
    };
    match verdict {
        Ok(()) => {
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

    fn run(
        expected: Option<&[u8]>,
        depth: usize,
        mut result: InstructionResult,
        output: &[u8],
    ) -> (InstructionResult, Bytes) {
        let mut slot = None;
        arm(&mut slot, 1, expected.map(Bytes::copy_from_slice)).unwrap();
        let mut output = Bytes::copy_from_slice(output);
        settle(&mut slot, depth, &mut result, &mut output, None);
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
        arm(&mut slot, 1, None).unwrap();
        let (mut result, mut output) = (InstructionResult::Return, Bytes::new());
        settle(&mut slot, 2, &mut result, &mut output, None);
        assert!(slot.is_some());
        assert!(
            arm(&mut slot, 1, None).is_err(),
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
}
