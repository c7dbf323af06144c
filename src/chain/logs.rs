//! The logs a chain's transactions emitted, so that invariants can follow holders, deposits
//! and withdrawals from events instead of keeping ghost variables (what forge users write
//! handlers for). Logs of committed transactions (setup) stay; those of the pending
//! sequence go with it when the chain is reset.

use alloy_dyn_abi::{DynSolValue, EventExt};
use alloy_json_abi::Event;
use alloy_primitives::{Address, Log};
use alloy_sol_types::SolEvent;

use crate::project::ContractArtifact;
use crate::{Error, Result};

/// Every log since the chain was created, and where the committed ones end.
#[derive(Debug, Clone, Default)]
pub(super) struct LogBook {
    logs: Vec<Log>,
    committed: usize,
}

impl LogBook {
    /// Records the logs of one transaction (pending until [`LogBook::commit`]).
    pub(super) fn record(&mut self, logs: &[Log]) {
        self.logs.extend_from_slice(logs);
    }

    /// Makes every recorded log part of the base state.
    pub(super) fn commit(&mut self) {
        self.committed = self.logs.len();
    }

    /// Drops the logs of the pending transactions.
    pub(super) fn reset(&mut self) {
        self.logs.truncate(self.committed);
    }

    /// Every log of the current state, oldest first.
    pub(super) fn all(&self) -> &[Log] {
        &self.logs
    }

    /// The logs of the pending transactions only.
    pub(super) fn pending(&self) -> &[Log] {
        &self.logs[self.committed..]
    }
}

/// Logs that decode as `E`, with their emitters.
pub(super) fn events<E: SolEvent>(logs: &[Log]) -> Vec<(Address, E)> {
    logs.iter()
        .filter(|log| log.topics().first() == Some(&E::SIGNATURE_HASH))
        .filter_map(|log| Some((log.address, E::decode_log_data(&log.data).ok()?)))
        .collect()
}

/// Logs of the event `declaration` (`"Transfer(address,address,uint256)"` or a full
/// `"event Transfer(address indexed from, address indexed to, uint256 value)"`), each as its
/// emitter and its parameters in declaration order. Which parameters are indexed comes from
/// the emitting contract's ABI when the chain deployed it (so the short form is enough),
/// else from the declaration. A log that does not decode is an error naming it, since it
/// means the declaration is wrong.
pub(super) fn events_of<'a>(
    logs: &[Log],
    declaration: &str,
    abi_of: impl Fn(Address) -> Option<&'a ContractArtifact>,
) -> Result<Vec<(Address, Vec<DynSolValue>)>> {
    let text = declaration.trim();
    let parsed = Event::parse(text)
        .or_else(|_| Event::parse(&format!("event {text}")))
        .map_err(|e| {
            Error::Abi(format!(
                "cannot parse event \"{declaration}\" (expected e.g. \"Transfer(address,address,uint256)\"): {e}"
            ))
        })?;
    let selector = parsed.selector();
    let mut found = Vec::new();
    for log in logs
        .iter()
        .filter(|log| log.topics().first() == Some(&selector))
    {
        let from_abi = abi_of(log.address).and_then(|artifact| {
            artifact
                .abi
                .events()
                .find(|e| e.selector() == selector)
                .cloned()
        });
        let event = from_abi.as_ref().unwrap_or(&parsed);
        let decoded = event.decode_log(&log.data).map_err(|e| {
            Error::Abi(format!(
                "a `{}` log of {} does not decode as {}: {e} (mark its indexed parameters: \"event {}\")",
                parsed.name,
                log.address,
                event.full_signature(),
                event.full_signature()
            ))
        })?;
        let (mut indexed, mut body) = (decoded.indexed.into_iter(), decoded.body.into_iter());
        let values = event
            .inputs
            .iter()
            .map(|input| {
                if input.indexed {
                    indexed.next()
                } else {
                    body.next()
                }
            })
            .collect::<Option<Vec<_>>>()
            .unwrap_or_default();
        found.push((log.address, values));
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{B256, LogData, U256};

    alloy_sol_types::sol! {
        event Transfer(address indexed from, address indexed to, uint256 value);
    }

    fn transfer_log(emitter: Address, from: Address, to: Address, value: u64) -> Log {
        let event = Transfer {
            from,
            to,
            value: U256::from(value),
        };
        Log {
            address: emitter,
            data: event.encode_log_data(),
        }
    }

    #[test]
    fn pending_logs_go_with_a_reset() {
        let token = Address::with_last_byte(1);
        let (a, b) = (Address::with_last_byte(2), Address::with_last_byte(3));
        let mut book = LogBook::default();
        book.record(&[transfer_log(token, a, b, 5)]);
        book.commit();
        book.record(&[transfer_log(token, b, a, 2)]);
        assert_eq!((book.all().len(), book.pending().len()), (2, 1));
        book.reset();
        assert_eq!((book.all().len(), book.pending().len()), (1, 0));
    }

    #[test]
    fn logs_decode_by_type_and_by_declaration() {
        let token = Address::with_last_byte(1);
        let (a, b) = (Address::with_last_byte(2), Address::with_last_byte(3));
        let other = Log {
            address: token,
            data: LogData::new_unchecked(vec![B256::repeat_byte(7)], Default::default()),
        };
        let logs = vec![transfer_log(token, a, b, 5), other];
        let typed = events::<Transfer>(&logs);
        assert_eq!(typed.len(), 1);
        assert_eq!(
            (typed[0].0, typed[0].1.to, typed[0].1.value),
            (token, b, U256::from(5))
        );

        let declared = "event Transfer(address indexed from, address indexed to, uint256 value)";
        let dynamic = events_of(&logs, declared, |_| None).unwrap();
        assert_eq!(
            dynamic,
            vec![(
                token,
                vec![
                    DynSolValue::Address(a),
                    DynSolValue::Address(b),
                    DynSolValue::Uint(U256::from(5), 256)
                ]
            )]
        );
        // Without `indexed` and without an ABI to say so, the log does not decode.
        let err = events_of(&logs, "Transfer(address,address,uint256)", |_| None).unwrap_err();
        assert!(
            err.to_string().contains("mark its indexed parameters"),
            "{err}"
        );
        assert!(events_of(&logs, "Transfer(", |_| None).is_err());
    }
}
