//! forge's cheatcodes on harvey's chain: `contracts/cheats/CheatUser.sol` calls each one
//! through `Chain` calls with `enable_cheatcodes()`, and a chain without them treats the
//! cheatcode address as an empty account.

use alloy_sol_types::SolValue;
use harvey::chain::{CHEATCODE_ADDRESS, RevertReason, Tx, TxOutcome, is_assume_rejection};
use harvey::observe::{CmpOp, Comparison};
use harvey::prelude::*;

use crate::support::{calldata, chain, tx, uint};

const ALICE: Address = address!("0x00000000000000000000000000000000000a11ce");
const BOB: Address = address!("0x0000000000000000000000000000000000000b0b");

/// A chain with cheatcodes on and `CheatUser` deployed.
fn cheating() -> (Chain, Address) {
    let mut chain = chain();
    chain.enable_cheatcodes();
    let user = chain.deploy("CheatUser", ()).expect("CheatUser deploys");
    (chain, user)
}

fn decode<T: SolValue + From<<T::SolType as alloy_sol_types::SolType>::RustType>>(
    outcome: &TxOutcome,
) -> T {
    assert!(outcome.is_success(), "call failed: {}", outcome.status);
    T::abi_decode(&outcome.output).expect("return data decodes")
}

fn reverted_with(outcome: &TxOutcome) -> String {
    match outcome.revert_reason() {
        Some(RevertReason::Error(message)) => message.clone(),
        other => panic!("expected Error(string), got {other:?} ({})", outcome.status),
    }
}

#[test]
fn block_and_chain_cheatcodes_last_until_reset_or_commit() {
    let (mut chain, user) = cheating();
    let args = (
        U256::from(2_000_000_000u64),
        U256::from(77),
        U256::from(9),
        U256::from(5),
    );
    let signature = "timeAndBlock(uint256,uint256,uint256,uint256)";
    let tx = Tx {
        sender: chain.deployer(),
        to: user,
        calldata: calldata(
            signature,
            &[args.0, args.1, args.2, args.3].map(|v| DynSolValue::Uint(v, 256)),
        ),
        ..Tx::default()
    };
    let outcome = chain.execute(&tx).unwrap();
    let (time, height, basefee, id, got) = decode::<(U256, U256, U256, U256, U256)>(&outcome);
    assert_eq!(
        (time, height, basefee, id),
        (args.0, args.1, args.2, args.3)
    );
    assert_eq!(got, args.0, "getBlockTimestamp sees the warp");
    // The next transaction sees the new block and chain id (pending state).
    let (time, height, id) = chain
        .view::<(U256, U256, U256)>(user, "now_()", ())
        .unwrap();
    assert_eq!((time, height, id), (args.0, args.1, args.3));
    assert_eq!(chain.block_timestamp(), 2_000_000_000);
    // A reset restores the block and the chain id.
    chain.reset();
    let (_, height, id) = chain
        .view::<(U256, U256, U256)>(user, "now_()", ())
        .unwrap();
    assert_ne!(height, args.1);
    assert_eq!(id, U256::from(harvey::chain::CHAIN_ID));
    // A committed call keeps them.
    chain.try_call(user, signature, args).unwrap();
    chain.reset();
    let (time, _, id) = chain
        .view::<(U256, U256, U256)>(user, "now_()", ())
        .unwrap();
    assert_eq!((time, id), (args.0, args.3));
}

#[test]
fn account_cheatcodes_write_the_state() {
    let (mut chain, user) = cheating();
    let amount = U256::from(123_456u64);
    let dealt = chain
        .try_call(user, "dealAndRead(address,uint256)", (ALICE, amount))
        .unwrap();
    assert_eq!(decode::<U256>(&dealt), amount);
    assert_eq!(chain.balance(ALICE), amount);

    let slot = B256::with_last_byte(7);
    let value = B256::with_last_byte(0x2a);
    let loaded = chain
        .try_call(
            user,
            "storeAndLoad(address,bytes32,bytes32)",
            (BOB, slot, value),
        )
        .unwrap();
    assert_eq!(decode::<B256>(&loaded), value);
    assert_eq!(chain.storage(BOB, slot.into()), U256::from(0x2a));

    // PUSH1 0x2a PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: returns 42.
    let code = Bytes::from_static(&[0x60, 0x2a, 0x60, 0, 0x52, 0x60, 32, 0x60, 0, 0xf3]);
    let out = chain
        .try_call(user, "etchAndCall(address,bytes)", (BOB, code))
        .unwrap();
    let returned = decode::<Bytes>(&out);
    assert_eq!(U256::from_be_slice(&returned), U256::from(42));

    let nonces = chain
        .try_call(user, "nonces(address,uint64)", (ALICE, 9u64))
        .unwrap();
    assert_eq!(decode::<(u64, u64)>(&nonces), (0, 9));
    let lowered = chain
        .try_call(user, "lowerNonce(address)", (ALICE,))
        .unwrap();
    assert!(
        reverted_with(&lowered).starts_with("new nonce (0) must be strictly equal to or higher")
    );
}

#[test]
fn addr_and_labels() {
    let (mut chain, user) = cheating();
    let key = U256::from_be_slice(&alloy_primitives::hex!(
        "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
    ));
    let signer: Address = chain.view(user, "addrOf(uint256)", (key,)).unwrap();
    assert_eq!(
        signer,
        address!("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")
    );
    let zero = chain.view::<Address>(user, "addrOf(uint256)", (U256::ZERO,));
    assert!(
        zero.unwrap_err()
            .to_string()
            .contains("private key cannot be 0")
    );

    let named = chain
        .try_call(user, "labelAndRead(address,string)", (ALICE, "alice"))
        .unwrap();
    assert_eq!(decode::<String>(&named), "alice");
    assert_eq!(chain.label_of(ALICE), Some("alice"));
    assert_eq!(chain.labels().get(ALICE), Some("alice"));
}

#[test]
fn prank_changes_the_sender_of_the_next_call_only() {
    let (mut chain, user) = cheating();
    let out = chain
        .try_call(user, "prankOnce(address,address)", (ALICE, BOB))
        .unwrap();
    let (pranked, origin, after) = decode::<(Address, Address, Address)>(&out);
    assert_eq!(pranked, ALICE);
    assert_eq!(origin, BOB);
    assert_eq!(after, user, "the prank was for one call");
    // tx.origin is back to the transaction's sender once the pranked call ended.
    let witness: Address = chain.view(user, "witness()", ()).unwrap();
    assert_eq!(
        chain.view::<Address>(witness, "lastOrigin()", ()).unwrap(),
        chain.deployer()
    );

    let twice = chain
        .try_call(user, "prankTwice(address)", (ALICE,))
        .unwrap();
    assert_eq!(
        reverted_with(&twice),
        "cannot overwrite a prank until it is applied at least once"
    );
}

#[test]
fn start_prank_lasts_across_transactions_until_stopped_or_reset() {
    let (mut chain, user) = cheating();
    let witness: Address = chain.view(user, "witness()", ()).unwrap();
    // The prank is set by the top frame at one depth, and applies at that depth in the
    // next transactions too (forge keeps cheatcode state across a sequence's calls).
    chain
        .try_call(user, "startPranking(address)", (ALICE,))
        .unwrap();
    chain.try_call(user, "touchWitness()", ()).unwrap();
    assert_eq!(
        chain.view::<Address>(witness, "lastSender()", ()).unwrap(),
        ALICE
    );
    chain.try_call(user, "stopPranking()", ()).unwrap();
    chain.try_call(user, "touchWitness()", ()).unwrap();
    assert_eq!(
        chain.view::<Address>(witness, "lastSender()", ()).unwrap(),
        user
    );

    chain
        .try_call(user, "startPranking(address)", (BOB,))
        .unwrap();
    chain.reset();
    chain.try_call(user, "touchWitness()", ()).unwrap();
    assert_eq!(
        chain.view::<Address>(witness, "lastSender()", ()).unwrap(),
        user,
        "a reset ends the sequence's pranks"
    );
}

/// The addresses of the contracts created since the last take.
fn created_addresses(chain: &mut Chain) -> Vec<Address> {
    chain.take_created().into_iter().map(|(a, _)| a).collect()
}

#[test]
fn prank_applies_to_creations_and_take_created_sees_them() {
    let (mut chain, user) = cheating();
    let setup_created = created_addresses(&mut chain);
    let witness: Address = chain.view(user, "witness()", ()).unwrap();
    assert_eq!(setup_created, vec![witness, user], "inner creation first");

    let out = chain.try_call(user, "build(address)", (ALICE,)).unwrap();
    let (built, deployer) = decode::<(Address, Address)>(&out);
    assert_eq!(deployer, ALICE);
    let undone = chain.try_call(user, "buildAndRevert()", ()).unwrap();
    assert_eq!(reverted_with(&undone), "undone");
    assert_eq!(
        created_addresses(&mut chain),
        vec![built],
        "a reverted creation is not recorded"
    );
    assert_eq!(created_addresses(&mut chain), Vec::<Address>::new());
}

#[test]
fn assume_false_reverts_with_forges_magic_bytes() {
    let (mut chain, user) = cheating();
    let kept = chain.try_call(user, "assumeIt(bool)", (true,)).unwrap();
    assert_eq!(decode::<U256>(&kept), U256::from(1));
    let rejected = chain.try_call(user, "assumeIt(bool)", (false,)).unwrap();
    assert!(!rejected.is_success());
    assert!(is_assume_rejection(&rejected.output));
    assert!(!is_assume_rejection(&kept.output));
}

#[test]
fn unsupported_and_unknown_cheatcodes_revert_and_say_why() {
    let (mut chain, user) = cheating();
    let ffi = chain.try_call(user, "useFfi()", ()).unwrap();
    let message = reverted_with(&ffi);
    assert!(
        message.starts_with("harvey does not support the cheatcode `ffi(string[])` (called by "),
        "{message}"
    );
    let unsupported = chain.take_unsupported().expect("ffi is recorded");
    assert_eq!(unsupported.signature, "ffi(string[])");
    assert_eq!(unsupported.caller, user);
    assert_eq!(chain.take_unsupported(), None);

    let unknown = chain.try_call(user, "callUnknown()", ()).unwrap();
    assert!(
        reverted_with(&unknown).starts_with("unknown cheatcode with selector 0xb32e2421; "),
        "{}",
        unknown.status
    );
    assert_eq!(
        chain.take_unsupported(),
        None,
        "an unknown selector is no cheatcode"
    );
}

#[test]
fn probe_runs_a_call_and_leaves_no_trace() {
    let (mut chain, user) = cheating();
    chain.try_call(user, "assumeIt(bool)", (true,)).unwrap();
    chain.take_created();
    let before_logs = chain.logs().len();
    let before_time = chain.block_timestamp();
    let messy = calldata("messy()", &[]);
    let probe = chain.probe(chain.deployer(), user, messy.clone()).unwrap();
    assert!(probe.outcome.is_success(), "{}", probe.outcome.status);
    assert!(probe.failed, "messy() sets forge's failure flag");
    assert_eq!(probe.outcome.logs.len(), 1);
    // Nothing of it is left.
    assert_eq!(
        chain.view::<U256>(user, "read()", ()).unwrap(),
        U256::from(1)
    );
    assert_eq!(chain.logs().len(), before_logs);
    assert_eq!(chain.block_timestamp(), before_time);
    assert_eq!(created_addresses(&mut chain), Vec::<Address>::new());
    let failed_slot =
        U256::from_be_slice(b"failed\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0");
    assert_eq!(chain.storage(CHEATCODE_ADDRESS, failed_slot), U256::ZERO);
    // The next transaction pays what it would have paid without the probe (no slot the
    // probe touched stays warm).
    let read = calldata("assumeIt(bool)", &[DynSolValue::Bool(true)]);
    let tx = Tx {
        sender: chain.deployer(),
        to: user,
        calldata: read,
        ..Tx::default()
    };
    let mut fresh = cheating().0;
    let fresh_user = fresh.try_get("CheatUser").unwrap();
    fresh
        .try_call(fresh_user, "assumeIt(bool)", (true,))
        .unwrap();
    let expected = fresh
        .execute(&Tx {
            to: fresh_user,
            ..tx.clone()
        })
        .unwrap();
    let after_probe = chain.execute(&tx).unwrap();
    assert_eq!(after_probe.gas_used, expected.gas_used);
    // A probe that is not failing says so.
    let plain = chain
        .probe(chain.deployer(), user, calldata("read()", &[]))
        .unwrap();
    assert!(!plain.failed);
}

#[test]
fn without_cheatcodes_the_address_is_an_empty_account() {
    let mut chain = chain();
    let user = chain.deploy("CheatUser", ()).unwrap();
    // A low-level call to an account without code succeeds with no data...
    let unknown = chain.try_call(user, "callUnknown()", ()).unwrap();
    assert!(unknown.is_success(), "{}", unknown.status);
    // ...and Solidity's high-level calls revert: there is no code to call.
    let warp = chain
        .try_call(
            user,
            "timeAndBlock(uint256,uint256,uint256,uint256)",
            (U256::from(1), U256::from(1), U256::from(1), U256::from(1)),
        )
        .unwrap();
    assert!(!warp.is_success());
    assert_eq!(
        created_addresses(&mut chain),
        Vec::<Address>::new(),
        "not recorded without cheatcodes (such calls run without an inspector)"
    );
    assert!(chain.code(CHEATCODE_ADDRESS).is_empty());
}

#[test]
fn assertions_revert_with_forges_messages() {
    let (chain, user) = cheating();
    let two = (U256::from(2), U256::from(2));
    chain
        .view::<()>(user, "checkEq(uint256,uint256)", two)
        .unwrap();
    let failed = chain
        .view::<()>(
            user,
            "checkEq(uint256,uint256)",
            (U256::from(1), U256::from(2)),
        )
        .unwrap_err();
    assert!(
        failed.to_string().contains("sums differ: 1 != 2"),
        "{failed}"
    );
    let far = chain
        .view::<()>(
            user,
            "checkClose(uint256,uint256)",
            (U256::from(100), U256::from(110)),
        )
        .unwrap_err();
    assert!(
        far.to_string().contains(
            "assertion failed: 100 !~= 110 (max delta: 1.0000000000000000%, real delta: 9.0909090909090909%)"
        ),
        "{far}"
    );
}

#[test]
fn an_assertion_is_observed_as_a_comparison_of_its_operands() {
    let (mut chain, user) = cheating();
    let assertions = [(2u64, 2u64, true), (1, 2, false)];
    for (left, right, holds) in assertions {
        let args = [uint(left), uint(right)];
        let outcome = chain
            .execute(&tx(&chain, user, "checkEq(uint256,uint256)", &args))
            .unwrap();
        assert_eq!(outcome.is_success(), holds);
        // Recorded where `checkEq` calls the cheatcode, as a decision (cmp_pc == jumpi_pc)
        // that holds exactly when the assertion does: the cost metrics see how far the
        // operands are from equal.
        let decided: Vec<Comparison> = chain
            .last_trace()
            .comparisons()
            .iter()
            .copied()
            .filter(|c| c.code == user && c.cmp_pc == c.jumpi_pc)
            .filter(|c| (c.lhs, c.rhs) == (U256::from(left), U256::from(right)))
            .collect();
        assert_eq!(decided.len(), 1, "{decided:?}");
        let decision = decided[0];
        assert_eq!((decision.op, decision.negations), (CmpOp::Eq, 0));
        assert_eq!(decision.taken, holds);
        let at = decision.jumpi_pc;
        let edge = chain.last_trace().edges().iter().find(|e| e.pc == at);
        assert_eq!(edge.map(|e| e.taken), Some(holds));
    }
    // A relative approximation compares a ratio: no one distance, no decision.
    let close = [uint(100), uint(101)];
    chain
        .execute(&tx(&chain, user, "checkClose(uint256,uint256)", &close))
        .unwrap();
    let hundred = U256::from(100);
    let compared = chain
        .last_trace()
        .comparisons()
        .iter()
        .any(|c| c.code == user && c.lhs == hundred && c.cmp_pc == c.jumpi_pc);
    assert!(!compared);
}

#[test]
fn record_accesses_and_to_string() {
    let (mut chain, user) = cheating();
    let out = chain.try_call(user, "recordAccesses()", ()).unwrap();
    assert!(out.is_success(), "{}", out.status);
    let (reads, writes) = <(Vec<B256>, Vec<B256>)>::abi_decode_params(&out.output).unwrap();
    let slot = B256::with_last_byte(1);
    assert_eq!(reads, vec![slot, slot], "the SLOAD and the SSTORE read it");
    assert_eq!(writes, vec![slot]);

    let (address, int, word) = chain
        .view::<(String, String, String)>(user, "strings()", ())
        .unwrap();
    assert_eq!(address, "0x000000000000000000000000000000000000dEaD");
    assert_eq!(int, "-5");
    assert_eq!(word, format!("0x{}01", "0".repeat(62)));
}

#[test]
fn expect_revert_turns_the_next_revert_into_a_success() {
    let (mut chain, user) = cheating();
    let out = chain.try_call(user, "expectBoom()", ()).unwrap();
    assert_eq!(decode::<U256>(&out), U256::from(7));
    let other = chain.try_call(user, "expectOther()", ()).unwrap();
    assert_eq!(
        reverted_with(&other),
        "Error != expected error: boom != other"
    );
    let none = chain.try_call(user, "expectAnyButNone()", ()).unwrap();
    assert_eq!(reverted_with(&none), "next call did not revert as expected");
}

#[test]
fn env_cheatcodes_read_the_process_environment() {
    let (chain, user) = cheating();
    // A name no shell sets: the default, or forge's error.
    let name = "HARVEY_TEST_CHEATCODES_UNSET_VARIABLE_4b1d";
    let value: U256 = chain.view(user, "envOrDefault(string)", (name,)).unwrap();
    assert_eq!(value, U256::from(5));
    let missing = chain
        .view::<U256>(user, "envRequired(string)", (name,))
        .unwrap_err();
    let missing = missing.to_string();
    assert!(missing.contains("environment variable"), "{missing}");
    assert!(
        missing.contains(&format!("{name}\\\" not found")),
        "{missing}"
    );
}

#[test]
fn recorded_logs_are_taken_once_with_topics_data_and_emitter() {
    let (mut chain, user) = cheating();
    let outcome = chain.try_call(user, "recordedLogs()", ()).unwrap();
    assert!(outcome.is_success(), "{}", outcome.status);
    let (count, topic0, topic1, data, emitter, again) =
        <(U256, B256, B256, Bytes, Address, U256)>::abi_decode_params(&outcome.output).unwrap();
    assert_eq!(count, U256::from(2));
    assert_eq!(topic0, alloy_primitives::keccak256("Noted(uint256,string)"));
    assert_eq!(topic1, B256::from(U256::from(7)));
    assert_eq!(String::abi_decode(&data).unwrap(), "seven");
    assert_eq!(emitter, user);
    assert_eq!(again, U256::ZERO);
}

/// A chain with cheatcodes on and `ScriptCheats` deployed.
fn scripting() -> (Chain, Address) {
    let mut chain = chain();
    chain.enable_cheatcodes();
    let script = chain
        .deploy("ScriptCheats", ())
        .expect("ScriptCheats deploys");
    (chain, script)
}

#[test]
fn a_broadcast_is_a_prank_of_the_broadcaster_as_sender_and_origin() {
    let (mut chain, script) = scripting();
    let origin = chain.deployer();
    let out = chain.try_call(script, "broadcastDefault()", ()).unwrap();
    let (seen, at_nonce) = decode::<([Address; 5], bool)>(&out);
    assert_eq!(seen[..4], [origin; 4], "creation and call from tx.origin");
    assert_eq!(seen[4], script, "stopBroadcast ends it");
    assert!(at_nonce, "the creation lands at the broadcaster's nonce");

    let key = U256::from(0xb0b);
    let signer: Address = chain.view(script, "keyAddress(uint256)", (key,)).unwrap();
    let out = chain
        .try_call(
            script,
            "broadcastKeys(uint256,uint256)",
            (key, U256::from(7)),
        )
        .unwrap();
    assert_eq!(
        decode::<[Address; 3]>(&out),
        [signer, script, signer],
        "broadcast(key) covers the next call or creation only"
    );

    for (function, message) in [
        ("broadcastTwice()", "a broadcast is active already"),
        ("stopWithout()", "no broadcast in progress to stop"),
        (
            "prankThenBroadcast()",
            "you have an active prank; broadcasting and pranks are not compatible",
        ),
    ] {
        // A broadcast left running by a reverted call lasts until the sequence ends.
        chain.reset();
        let out = chain.try_call(script, function, ()).unwrap();
        assert_eq!(reverted_with(&out), message, "{function}");
    }
}

#[test]
fn expect_revert_counts_and_reverters() {
    let (mut chain, script) = scripting();
    let out = chain
        .try_call(script, "expectCounts(bool)", (false,))
        .unwrap();
    assert!(out.is_success(), "{}", out.status);
    let out = chain
        .try_call(script, "expectCounts(bool)", (true,))
        .unwrap();
    let message = reverted_with(&out);
    assert!(
        message.starts_with("Reverter != expected reverter: ")
            && message.ends_with(&format!("!= {script}")),
        "{message}"
    );
}

#[test]
fn expect_emit_checks_the_next_call() {
    let (mut chain, script) = scripting();
    let out = chain
        .try_call(script, "expectSeen(bool)", (false,))
        .unwrap();
    assert!(out.is_success(), "{}", out.status);
    let out = chain.try_call(script, "expectSeen(bool)", (true,)).unwrap();
    assert_eq!(reverted_with(&out), "log != expected log: data differs");
}

#[test]
fn mocked_calls_answer_until_cleared() {
    let (mut chain, script) = scripting();
    let out = chain.try_call(script, "mocked()", ()).unwrap();
    assert!(out.is_success(), "{}", out.status);
    let (mocked, real, revert) =
        <(U256, U256, alloy_primitives::Bytes)>::abi_decode_params(&out.output).unwrap();
    assert_eq!((mocked, real), (U256::from(42), U256::from(1)));
    assert_eq!(revert.as_ref(), b"mocked");
}

#[test]
fn snapshots_put_state_back() {
    let (mut chain, script) = scripting();
    let out = chain.try_call(script, "snapshots()", ()).unwrap();
    assert_eq!(
        decode::<(U256, U256, bool)>(&out),
        (U256::from(1), U256::from(1), true)
    );
}

#[test]
fn artifact_code_and_keys() {
    let (mut chain, script) = scripting();
    let out = chain.try_call(script, "codes()", ()).unwrap();
    assert!(
        decode::<bool>(&out),
        "getCode deploys getDeployedCode's code"
    );
    let salt = B256::with_last_byte(1);
    let (key, create2) = chain
        .view::<(U256, Address)>(script, "keys(bytes32)", (salt,))
        .unwrap();
    assert_eq!(
        key,
        U256::from_be_bytes(alloy_primitives::hex!(
            "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
        ))
    );
    let forge_deployer = address!("0x4e59b44847b379578588920ca78fbf26c0b4956c");
    assert_eq!(
        create2,
        forge_deployer.create2(salt, alloy_primitives::keccak256(""))
    );
}

#[test]
fn a_forge_cheatcode_missing_from_the_vm_interface_is_named() {
    let (mut chain, _) = scripting();
    // `getChainId()` is in forge 1.7.1's list, not in this project's interfaces.
    let tx = Tx {
        sender: chain.deployer(),
        to: CHEATCODE_ADDRESS,
        calldata: alloy_primitives::keccak256("getChainId()")[..4]
            .to_vec()
            .into(),
        ..Tx::default()
    };
    let out = chain.execute(&tx).unwrap();
    assert!(
        reverted_with(&out).starts_with("harvey does not support the cheatcode `getChainId()`"),
        "{}",
        out.status
    );
    let unsupported = chain.take_unsupported().expect("it is recorded");
    assert_eq!(unsupported.signature, "getChainId()");
}
