//! Revert decoding from raw bytes, Panic names and value rendering.

use super::*;
use alloy_json_abi::JsonAbi;
use alloy_primitives::address;
use alloy_sol_types::SolValue;
use std::path::PathBuf;

fn artifact(name: &str, abi: &str) -> ContractArtifact {
    let mut artifact = ContractArtifact::bare(name);
    artifact.source_path = PathBuf::from(format!("{name}.sol"));
    artifact.abi = JsonAbi::parse([abi]).expect("valid human-readable ABI");
    artifact
}

/// The encoded custom error: `contract`'s only error's selector, then `body`.
fn with_selector(contract: &ContractArtifact, body: Vec<u8>) -> Vec<u8> {
    let selector = contract.abi.errors().next().expect("one error").selector();
    let mut data = selector.to_vec();
    data.extend(body);
    data
}

#[test]
fn error_string() {
    let data = Revert::from("x must be zero").abi_encode();
    let reason = RevertReason::decode(&data, []);
    assert_eq!(reason, RevertReason::Error("x must be zero".into()));
    assert_eq!(reason.to_string(), "Error(\"x must be zero\")");
}

#[test]
fn every_panic_code_is_named() {
    let named = [
        (0x00, PanicCode::Generic),
        (0x01, PanicCode::Assert),
        (0x11, PanicCode::ArithmeticOverflow),
        (0x12, PanicCode::DivisionByZero),
        (0x21, PanicCode::EnumConversion),
        (0x22, PanicCode::StorageEncoding),
        (0x31, PanicCode::EmptyArrayPop),
        (0x32, PanicCode::ArrayOutOfBounds),
        (0x41, PanicCode::TooMuchMemory),
        (0x51, PanicCode::ZeroInternalFunction),
    ];
    for (code, name) in named {
        let data = Panic::from(U256::from(code)).abi_encode();
        assert_eq!(RevertReason::decode(&data, []), RevertReason::Panic(name));
        assert_eq!(name.code(), U256::from(code));
        assert_ne!(
            name.description(),
            PanicCode::Other(U256::ZERO).description()
        );
    }
    assert_eq!(
        PanicCode::ArithmeticOverflow.to_string(),
        "Panic(0x11): arithmetic overflow or underflow"
    );
    let odd = PanicCode::from_code(U256::from(0x99));
    assert_eq!(odd, PanicCode::Other(U256::from(0x99)));
    assert_eq!(odd.to_string(), "Panic(0x99): unknown panic code");
    assert!(RevertReason::Panic(PanicCode::Assert).is_assert());
}

#[test]
fn panic_codes_take_their_names_and_numbers_from_the_settings_table() {
    assert_eq!(PanicCode::NAMED.len(), harvey_settings::PANIC_NAMES.len());
    assert_eq!(crate::PanicSet::all().codes().len(), PanicCode::NAMED.len());
    for (code, (number, name)) in PanicCode::NAMED
        .into_iter()
        .zip(harvey_settings::PANIC_NAMES)
    {
        assert_eq!(code.code(), U256::from(number), "{name}");
        assert_eq!(code.name(), Some(name));
        assert_eq!(PanicCode::from_name(name), Some(code), "{name}");
        assert!(crate::PanicSet::all().contains(code), "{name}");
    }
    assert_eq!(PanicCode::Other(U256::from(1)).name(), None);
    assert_eq!(
        PanicCode::from_name("0x11"),
        Some(PanicCode::ArithmeticOverflow)
    );
    assert_eq!(
        PanicCode::from_name("17"),
        Some(PanicCode::ArithmeticOverflow)
    );
    assert_eq!(PanicCode::from_name("overflw"), None);
    let set: crate::PanicSet = "assert, overflow,0x32".parse().unwrap();
    assert_eq!(
        set,
        crate::PanicSet::of([
            PanicCode::Assert,
            PanicCode::ArithmeticOverflow,
            PanicCode::ArrayOutOfBounds
        ])
    );
    assert!(!crate::PanicSet::default().contains(PanicCode::ArithmeticOverflow));
    // Numbers round-trip through the settings crate's representation and print as U256
    // does (the regression files' settings hash writes them with `{:x}`).
    for value in [U256::ZERO, U256::from(0x99), U256::from(1) << 64, U256::MAX] {
        let code = PanicCode::from_code(value);
        let number = harvey_settings::PanicNumber::from(code);
        assert_eq!(PanicCode::from(number), code);
        assert_eq!(format!("{number:x}"), format!("{value:x}"));
        assert_eq!(format!("{number:#x}"), format!("{value:#x}"));
    }
}

#[test]
fn custom_error_from_the_first_abi_that_declares_it() {
    let vault = artifact(
        "Vault",
        "error InsufficientBalance(uint256 have, uint256 want)",
    );
    let other = artifact("Other", "error Unrelated(bool)");
    let data = with_selector(&vault, (U256::from(3), U256::from(7)).abi_encode_params());
    let reason = RevertReason::decode(&data, [&other, &vault]);
    assert_eq!(
        reason.to_string(),
        "Vault.InsufficientBalance(have: 3, want: 7)"
    );
    let RevertReason::Custom { args, .. } = reason else {
        panic!("not custom: {reason:?}")
    };
    assert_eq!(
        args,
        vec![
            DynSolValue::from(U256::from(3)),
            DynSolValue::from(U256::from(7))
        ]
    );
}

#[test]
fn custom_error_with_dynamic_and_unnamed_args() {
    let c = artifact(
        "Outcomes",
        "error Custom(uint256 code, address, string why)",
    );
    let error = c.abi.errors().next().expect("one error").clone();
    let who = address!("0x0000000000000000000000000000000000010000");
    let data = error
        .abi_encode_input(&[
            U256::from(5).into(),
            who.into(),
            "because".to_string().into(),
        ])
        .expect("encodes");
    assert_eq!(
        RevertReason::decode(&data, [&c]).to_string(),
        format!("Outcomes.Custom(code: 5, {who}, why: \"because\")")
    );
}

#[test]
fn bare_unknown_and_malformed() {
    assert_eq!(RevertReason::decode(&[], []), RevertReason::Bare);
    let short = RevertReason::decode(&[0xab, 0xcd], []);
    assert_eq!(short, RevertReason::Unknown(Bytes::from(vec![0xab, 0xcd])));
    assert_eq!(short.to_string(), "unrecognised revert data 0xabcd");
    // An Error(string) selector with a truncated body is not an Error.
    let truncated = &Revert::from("oops").abi_encode()[..10];
    assert!(matches!(
        RevertReason::decode(truncated, []),
        RevertReason::Unknown(_)
    ));
    // A known selector whose arguments do not decode is not that error.
    let vault = artifact(
        "Vault",
        "error InsufficientBalance(uint256 have, uint256 want)",
    );
    let data = with_selector(&vault, vec![1, 2, 3]);
    assert!(matches!(
        RevertReason::decode(&data, [&vault]),
        RevertReason::Unknown(_)
    ));
}

#[test]
fn halt_reasons_map_to_harvey_names() {
    use revm::context::result::OutOfGasError;
    let cases = [
        (
            EvmHalt::OutOfGas(OutOfGasError::Basic),
            HaltReason::OutOfGas,
        ),
        (EvmHalt::InvalidFEOpcode, HaltReason::InvalidOpcode),
        (EvmHalt::OpcodeNotFound, HaltReason::InvalidOpcode),
        (EvmHalt::InvalidJump, HaltReason::InvalidJump),
        (EvmHalt::StackOverflow, HaltReason::StackOverflow),
        (EvmHalt::StackUnderflow, HaltReason::StackUnderflow),
        (EvmHalt::CreateContractSizeLimit, HaltReason::CodeSizeLimit),
        (EvmHalt::CreateInitCodeSizeLimit, HaltReason::CodeSizeLimit),
    ];
    for (evm, ours) in cases {
        assert_eq!(HaltReason::from_evm(&evm), ours);
    }
    let other = HaltReason::from_evm(&EvmHalt::CallTooDeep);
    assert!(matches!(other, HaltReason::Other(ref s) if !s.is_empty()));
    assert_eq!(
        TxStatus::Halt(HaltReason::OutOfGas).to_string(),
        "halted: out of gas"
    );
}

#[test]
fn values_render_like_solidity() {
    let v = DynSolValue::Tuple(vec![
        DynSolValue::Int(alloy_primitives::I256::MINUS_ONE, 256),
        DynSolValue::Bool(true),
        DynSolValue::Array(vec![U256::from(1).into(), U256::from(2).into()]),
        DynSolValue::Bytes(vec![0xde, 0xad]),
        DynSolValue::FixedBytes(alloy_primitives::B256::with_last_byte(1), 2),
        DynSolValue::String("hi".into()),
    ]);
    assert_eq!(
        SolDisplay(&v).to_string(),
        "(-1, true, [1, 2], 0xdead, 0x0000, \"hi\")"
    );
}

#[test]
fn decode_returns_checks_status_and_data() {
    let f = Function::parse("function f() returns (uint256, string)").expect("parses");
    let mut outcome = TxOutcome {
        status: TxStatus::Success,
        output: (U256::from(9), "nine".to_string())
            .abi_encode_params()
            .into(),
        gas_used: 0,
        logs: Vec::new(),
        created: None,
    };
    let values = outcome.decode_returns(&f).expect("decodes");
    assert_eq!(
        values,
        vec![U256::from(9).into(), DynSolValue::String("nine".into())]
    );
    outcome.output = Bytes::new();
    assert!(matches!(outcome.decode_returns(&f), Err(Error::Call(m)) if m.contains("no data")));
    outcome.status = TxStatus::Revert(RevertReason::Bare);
    let err = outcome.decode_returns(&f).unwrap_err().to_string();
    assert!(err.contains("reverted with a bare revert"), "{err}");
}
