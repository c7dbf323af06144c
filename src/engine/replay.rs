//! Replaying saved failures: a regression file's entry, rebuilt as a sequence against the
//! fuzzed functions of today's setup. An entry whose contract, function or sender no longer
//! exists, whose arguments no longer decode, or that setup no longer allows is stale, and
//! says why.

use alloy_dyn_abi::{DynSolType, DynSolValue};

use crate::engine::input::{Sequence, TxInput};
use crate::engine::surface::Surface;
use crate::output::regression::{Entry, StoredCall};

/// The sequence `entry` describes, rebuilt against `surface`; `Err` says why the entry is
/// stale (a contract, function or sender that no longer exists, arguments that no longer fit).
pub(crate) fn resolve(entry: &Entry, surface: &Surface) -> Result<Sequence, String> {
    resolve_calls(&entry.calls, surface)
}

/// The sequence of saved `calls` (a regression entry's, a saved corpus sequence), rebuilt
/// against `surface`; `Err` says why it no longer fits.
pub(crate) fn resolve_calls(calls: &[StoredCall], surface: &Surface) -> Result<Sequence, String> {
    let txs = calls
        .iter()
        .map(|call| resolve_call(call, surface))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Sequence { txs })
}

fn resolve_call(call: &StoredCall, surface: &Surface) -> Result<TxInput, String> {
    let function = surface
        .find(call.contract(), call.function())
        .ok_or_else(|| {
            format!(
                "{}.{} is no longer a fuzzed function",
                call.contract(),
                call.function()
            )
        })?;
    let sender = call.sender()?;
    let sender = surface
        .sender_index(sender)
        .ok_or_else(|| format!("sender {sender} is no longer a configured sender"))?;
    let bytes = call.encoded_args()?;
    let types = DynSolType::Tuple(surface.functions[function].types.clone());
    let args = match types.abi_decode_params(&bytes) {
        Ok(DynSolValue::Tuple(args)) => args,
        Ok(_) | Err(_) => {
            return Err(format!(
                "the saved arguments of {}.{} no longer decode",
                call.contract(),
                call.function()
            ));
        }
    };
    let input = TxInput {
        sender,
        function,
        args,
        value: call.value()?,
        warp: call.warp(),
        instance: call.instance().unwrap_or(0),
    };
    // A call setup no longer allows (a bound or address restriction added since) is not
    // one the campaign could make: replaying it would report what the user ruled out.
    surface.admits(&input)?;
    Ok(input)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use alloy_primitives::{Address, U256};

    use super::*;
    use crate::engine::surface::tests::ether_surface;
    use crate::outcome::Call;
    use crate::output::regression::RegressionFile;

    fn input(function: usize, args: Vec<DynSolValue>, value: u64) -> TxInput {
        TxInput {
            sender: 1,
            value: U256::from(value),
            ..TxInput::of(function, args)
        }
    }

    #[test]
    fn receive_and_fallback_calls_round_trip_through_a_file() {
        let surface = ether_surface();
        let sequence = Sequence {
            txs: vec![
                input(2, vec![], 5),
                input(3, vec![DynSolValue::Bytes(vec![0xff, 0, 1])], 7),
                input(0, vec![DynSolValue::Uint(U256::from(3), 256)], 0),
            ],
        };
        let calls: Vec<Call> = sequence
            .txs
            .iter()
            .map(|tx| surface.deployed_call(tx))
            .collect();
        let rendered = crate::report::render_call(&calls[0], &Default::default());
        assert!(rendered.ends_with("WETH.receive() value: 5"), "{rendered}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.json");
        let mut file = RegressionFile::load(&path, "t").unwrap();
        assert!(file.record("v".into(), 1, "s".into(), &calls));
        file.save().unwrap();
        let again = RegressionFile::load(&path, "t").unwrap();
        let stored = &again.entries()[0];
        assert_eq!(stored.calls[0].function(), "receive()");
        assert_eq!(stored.calls[0].decoded(), "receive()");
        assert_eq!(stored.calls[1].decoded(), "fallback(0xff0001)");
        assert_eq!(resolve(stored, &surface), Ok(sequence));
        // The raw transactions are what the EVM sees: empty calldata, the bytes as is.
        assert!(
            surface
                .deployed_tx(&resolve(stored, &surface).unwrap().txs[0])
                .calldata
                .is_empty()
        );
        assert_eq!(
            surface
                .deployed_tx(&resolve(stored, &surface).unwrap().txs[1])
                .calldata[..],
            [0xff, 0, 1]
        );
    }

    #[test]
    fn saved_calls_outside_what_setup_now_allows_are_stale() {
        let surface = ether_surface();
        let save = |sequence: Vec<TxInput>| {
            let calls: Vec<Call> = sequence
                .iter()
                .map(|tx| surface.deployed_call(tx))
                .collect();
            let mut file = RegressionFile::load(Path::new("/nonexistent/t.json"), "t").unwrap();
            file.record("v".into(), 1, "s".into(), &calls);
            file.entries()[0].clone()
        };
        let out_of_bound = save(vec![input(
            0,
            vec![DynSolValue::Uint(U256::from(11), 256)],
            0,
        )]);
        let why = resolve(&out_of_bound, &surface).unwrap_err();
        assert_eq!(
            why,
            "argument amount of WETH.withdraw(uint256) is 11, outside its bound 1..=10"
        );
        let stranger = Address::with_last_byte(7);
        let elsewhere = save(vec![input(1, vec![DynSolValue::Address(stranger)], 0)]);
        let why = resolve(&elsewhere, &surface).unwrap_err();
        assert!(
            why.contains("not one of the addresses setup allows"),
            "{why}"
        );
        let selector = save(vec![input(
            3,
            vec![DynSolValue::Bytes(vec![1, 2, 3, 4])],
            0,
        )]);
        let why = resolve(&selector, &surface).unwrap_err();
        assert!(why.contains("now calls a function or receive()"), "{why}");
        // A wait longer than the campaign's delays now allow (forge's keys set since).
        let waited = TxInput {
            warp: crate::chain::Warp {
                seconds: 3_601,
                blocks: 0,
            },
            ..input(0, vec![DynSolValue::Uint(U256::from(5), 256)], 0)
        };
        let saved = save(vec![waited]);
        assert!(resolve(&saved, &surface).is_ok());
        let mut limited = ether_surface();
        limited.delays = crate::chain::Delays {
            seconds: Some(3_600),
            blocks: None,
        };
        let why = resolve(&saved, &limited).unwrap_err();
        assert!(why.contains("more than max_time_delay"), "{why}");
        let fine = save(vec![input(
            1,
            vec![DynSolValue::Address(surface.senders[0])],
            0,
        )]);
        assert!(resolve(&fine, &surface).is_ok());
    }
}
