//! `mockCall`, `mockCallRevert` (with and without `msg.value`, full calldata or a selector)
//! and `clearMockedCalls`: calls to a mocked address whose calldata starts with a mocked
//! prefix return (or revert with) the mocked data without running any code, as forge does:
//! an exact match of calldata and value first, else the greatest matching prefix (forge's
//! order: calldata compared byte-wise, descending, then value), a mock with a value matching
//! only calls sending that value. A mocked call that sends value and returns moves the value.
//! Mocking an address without code gives it one byte of code, so that Solidity's
//! code-size check before a call passes.

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};

use alloy_primitives::{Address, Bytes, U256};
use revm::bytecode::Bytecode;
use revm::context::JournalTr;
use revm::handler::MainnetContext;
use revm::interpreter::{CallInputs, InstructionResult};

use crate::chain::db::Db;

/// What a mock matches: a calldata prefix, and the value sent when given. Ordered as forge
/// orders its mocks: greater calldata first, then a given value before none.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    calldata: Reverse<Bytes>,
    value: Reverse<Option<U256>>,
}

/// What a mocked call answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::chain) struct Answer {
    /// Whether it reverts.
    pub(in crate::chain) reverts: bool,
    /// Its return or revert data.
    pub(in crate::chain) data: Bytes,
}

/// The mocks in force, by callee.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(in crate::chain) struct Mocks {
    by_callee: HashMap<Address, BTreeMap<Key, Answer>>,
}

impl Mocks {
    /// Mocks calls to `callee` starting with `calldata` (sending `value`, when given), and
    /// gives an account without code one byte of it.
    pub(super) fn add(
        &mut self,
        context: &mut MainnetContext<Db>,
        callee: Address,
        calldata: Bytes,
        value: Option<U256>,
        answer: Answer,
    ) {
        let journal = &mut context.journaled_state;
        let Ok(account) = journal.load_account_with_code(callee);
        if account
            .data
            .info
            .code
            .as_ref()
            .is_none_or(Bytecode::is_empty)
        {
            journal.set_code(callee, Bytecode::new_raw(Bytes::from_static(&[0])));
        }
        let key = Key {
            calldata: Reverse(calldata),
            value: Reverse(value),
        };
        self.by_callee
            .entry(callee)
            .or_default()
            .insert(key, answer);
    }

    /// `vm.clearMockedCalls`.
    pub(super) fn clear(&mut self) {
        self.by_callee.clear();
    }

    /// Whether no call is mocked (the common case, checked on every call).
    pub(in crate::chain) fn is_empty(&self) -> bool {
        self.by_callee.is_empty()
    }

    /// The mocked answer to a call of code at `callee` with `calldata` sending `value`.
    pub(in crate::chain) fn find(
        &self,
        callee: Address,
        calldata: &[u8],
        value: Option<U256>,
    ) -> Option<&Answer> {
        let mocks = self.by_callee.get(&callee)?;
        let exact = Key {
            calldata: Reverse(Bytes::copy_from_slice(calldata)),
            value: Reverse(value),
        };
        mocks.get(&exact).or_else(|| {
            mocks
                .iter()
                .find(|(key, _)| {
                    calldata.starts_with(&key.calldata.0)
                        && key.value.0.is_none_or(|wanted| Some(wanted) == value)
                })
                .map(|(_, answer)| answer)
        })
    }
}

/// The outcome of `inputs`, a call the mocks answer with `answer`: a returning call that sends
/// value moves it (or fails as the transfer would).
pub(in crate::chain) fn answer(
    context: &mut MainnetContext<Db>,
    inputs: &CallInputs,
    answer: &Answer,
) -> (InstructionResult, Bytes) {
    if answer.reverts {
        return (InstructionResult::Revert, answer.data.clone());
    }
    if let Some(value) = inputs.value.transfer().filter(|v| !v.is_zero()) {
        let journal = &mut context.journaled_state;
        match journal.transfer(inputs.caller, inputs.target_address, value) {
            Ok(None) => {}
            Ok(Some(error)) => return (error.into(), Bytes::new()),
            Err(_) => return (InstructionResult::FatalExternalError, Bytes::new()),
        }
    }
    (InstructionResult::Return, answer.data.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mocks(entries: &[(&[u8], Option<u64>, &[u8])]) -> Mocks {
        let mut mocks = Mocks::default();
        let callee = mocks.by_callee.entry(Address::ZERO).or_default();
        for (calldata, value, data) in entries {
            callee.insert(
                Key {
                    calldata: Reverse(Bytes::copy_from_slice(calldata)),
                    value: Reverse(value.map(U256::from)),
                },
                Answer {
                    reverts: false,
                    data: Bytes::copy_from_slice(data),
                },
            );
        }
        mocks
    }

    fn found(mocks: &Mocks, calldata: &[u8], value: u64) -> Option<Vec<u8>> {
        mocks
            .find(Address::ZERO, calldata, Some(U256::from(value)))
            .map(|a| a.data.to_vec())
    }

    #[test]
    fn exact_matches_win_then_the_greatest_prefix() {
        let mocks = mocks(&[
            (b"\x01\x02", None, b"selector"),
            (b"\x01\x02\x03", None, b"longer"),
            (b"\x01\x02\x03\x04", Some(5), b"exact"),
        ]);
        assert_eq!(
            found(&mocks, b"\x01\x02\x03\x04", 5),
            Some(b"exact".to_vec())
        );
        assert_eq!(
            found(&mocks, b"\x01\x02\x03\x04", 0),
            Some(b"longer".to_vec()),
            "a mock with a value matches only that value"
        );
        assert_eq!(
            found(&mocks, b"\x01\x02\x09", 0),
            Some(b"selector".to_vec())
        );
        assert_eq!(found(&mocks, b"\x01", 0), None, "shorter than the prefix");
        assert_eq!(
            mocks.find(Address::with_last_byte(1), b"\x01\x02", None),
            None
        );
    }
}
