//! `Chain` and the observer against real solc output: the contracts in `contracts/`.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use alloy_dyn_abi::DynSolValue;
use harvey::chain::{
    Chain, GENESIS_NUMBER, GENESIS_TIMESTAMP, HaltReason, INITIAL_BALANCE, PanicCode, RevertReason,
    TxOptions, TxOutcome, TxStatus, Warp,
};
use harvey::observe::{CallKind, CmpOp, Comparison, StorageOp};
use harvey::prelude::*;
use harvey::project::ProjectConfig;

use crate::support::{calldata, chain, environment, repo, tx, uint};

const SUB: u8 = 0x03;
const EQ: u8 = 0x14;
const JUMPI: u8 = 0x57;
const SSTORE: u8 = 0x55;

fn revert_of(outcome: &TxOutcome) -> &RevertReason {
    outcome
        .revert_reason()
        .unwrap_or_else(|| panic!("expected a revert, got {}", outcome.status))
}

// ------------------------------------------------------------------ deploy, get, view

#[test]
fn deploy_records_the_contract_and_views_decode_every_shape() {
    let mut chain = chain();
    let vault = chain.deploy("Vault", (U256::from(1000),)).unwrap();
    assert_eq!(chain.get("Vault"), vault);
    assert_eq!(chain.try_get("Nope"), None);
    assert_eq!(chain.deployed(), &[("Vault".to_string(), vault)]);
    assert_eq!(chain.artifact_at(vault).unwrap().name, "Vault");

    assert_eq!(
        chain.view::<U256>(vault, "cap()", ()).unwrap(),
        U256::from(1000)
    );
    assert_eq!(chain.view::<String>(vault, "name()", ()).unwrap(), "Vault");
    let (total, owner) = chain.view::<(U256, Address)>(vault, "stats()", ()).unwrap();
    assert_eq!((total, owner), (U256::ZERO, chain.deployer()));
    let (total, label) = chain
        .view::<(U256, String)>(vault, "describe()", ())
        .unwrap();
    assert_eq!((total, label.as_str()), (U256::ZERO, "vault"));
    let deployer = chain.deployer();
    let balance = chain
        .view::<U256>(vault, "balanceOf(address)", (deployer,))
        .unwrap();
    assert_eq!(balance, U256::ZERO);
}

#[test]
fn view_rejects_state_changing_functions_and_bad_types() {
    let mut chain = chain();
    let vault = chain.deploy("Vault", (U256::from(1000),)).unwrap();
    let err = chain.view::<()>(vault, "deposit()", ()).unwrap_err();
    assert!(matches!(err, Error::Call(_)), "{err:?}");
    assert!(
        err.to_string()
            .contains("not a view function (it is payable)"),
        "{err}"
    );
    let err = chain
        .view::<U256>(vault, "withdraw(uint256)", (U256::from(1),))
        .unwrap_err();
    assert!(err.to_string().contains("nonpayable"), "{err}");

    // A view checked once with fitting types is remembered; other types are still checked.
    assert_eq!(
        chain.view::<U256>(vault, "cap()", ()).unwrap(),
        U256::from(1000)
    );
    let err = chain.view::<String>(vault, "cap()", ()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "ABI error: `cap()` of Vault returns (uint256), not (string)"
    );
    let err = chain
        .view::<U256>(vault, "balanceOf(address)", ())
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("takes (address), but the arguments are ()"),
        "{err}"
    );
    let err = chain.view::<U256>(vault, "nope()", ()).unwrap_err();
    assert!(
        err.to_string().contains("Vault has no function `nope()`"),
        "{err}"
    );
}

#[test]
fn view_reports_a_revert_and_a_missing_contract() {
    let mut chain = chain();
    let outcomes = chain.deploy("Outcomes", ()).unwrap();
    let err = chain
        .view::<U256>(outcomes, "outOfBounds(uint256)", (U256::from(3),))
        .unwrap_err();
    assert!(matches!(err, Error::Reverted { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains("Panic(0x32): array index out of bounds"),
        "{err}"
    );
    let nobody = Address::with_last_byte(0x77);
    let err = chain.view::<U256>(nobody, "totalSupply()", ()).unwrap_err();
    assert!(err.to_string().contains("there is no contract at"), "{err}");
}

/// `call` fails on a revert with the decoded reason and leaves the state as it was; `try_call`
/// returns the reverted outcome; `call_returning` decodes the return values.
#[test]
fn call_fails_on_a_revert_and_try_call_returns_it() {
    let mut chain = chain();
    let outcomes = chain.deploy("Outcomes", ()).unwrap();
    let (value, flag): (U256, bool) = chain
        .call_returning(outcomes, "succeed(uint256)", (U256::from(41),))
        .unwrap();
    assert_eq!((value, flag), (U256::from(42), true));
    let err = chain
        .call(outcomes, "requireFails(uint256)", (U256::from(1),))
        .unwrap_err();
    let Error::Reverted { call, reason } = &err else {
        panic!("expected a revert error, got {err:?}");
    };
    assert!(call.contains("`requireFails(uint256)`"), "{call}");
    assert_eq!(
        reason,
        &TxStatus::Revert(RevertReason::Error("x must be zero".into())).to_string()
    );
    assert!(err.to_string().contains("x must be zero"), "{err}");
    let sender = chain.senders()[0];
    let err = chain
        .call_as(sender, outcomes, "assertFails(uint256)", (U256::from(7),))
        .unwrap_err();
    assert!(err.to_string().contains("Panic(0x01)"), "{err}");
    let outcome = chain
        .try_call(outcomes, "requireFails(uint256)", (U256::from(1),))
        .unwrap();
    assert!(!outcome.is_success());
    let err = chain
        .call_returning::<Address>(outcomes, "succeed(uint256)", (U256::from(1),))
        .unwrap_err();
    assert!(matches!(err, Error::Abi(_)), "{err:?}");
}

/// `skip`/`skip_blocks` move the block forward; `warp_to`/`roll_to` set it, as forge's
/// `vm.warp`/`vm.roll` do (back in time too).
#[test]
fn skip_advances_the_block_and_warp_to_sets_it() {
    let mut chain = chain();
    chain.skip(100);
    chain.skip_blocks(2);
    assert_eq!(chain.block_timestamp(), GENESIS_TIMESTAMP + 100);
    assert_eq!(chain.block_number(), GENESIS_NUMBER + 2);
    chain.warp_to(5);
    chain.roll_to(7);
    assert_eq!((chain.block_timestamp(), chain.block_number()), (5, 7));
}

#[test]
fn deploy_errors_name_what_to_fix() {
    let mut chain = chain();
    let err = chain.deploy("Vaultt", (U256::from(1),)).unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, Error::UnknownContract { .. }), "{err:?}");
    assert!(
        message.contains("Vault") && message.contains("Outcomes"),
        "{message}"
    );

    let err = chain.deploy("Vault", ()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "ABI error: the constructor of Vault takes (uint256), but the arguments are ()"
    );
    let err = chain
        .deploy_with("Vault", &[DynSolValue::Bool(true)], TxOptions::default())
        .unwrap_err();
    assert!(matches!(err, Error::Abi(_)), "{err:?}");
    assert!(chain.deployed().is_empty());
}

#[test]
fn reverting_constructors_report_the_decoded_reason() {
    let mut chain = chain();
    let err = chain
        .deploy("RevertingConstructor", (U256::from(3),))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "deploying `RevertingConstructor` failed: reverted with Error(\"x too small\")"
    );
    let err = chain
        .deploy_with("RevertingConstructor", &[uint(5000)], TxOptions::default())
        .unwrap_err();
    let Error::DeployFailed { contract, reason } = err else {
        panic!("not a deploy failure: {err:?}")
    };
    assert_eq!(contract, "RevertingConstructor");
    assert_eq!(
        reason,
        "reverted with RevertingConstructor.TooLarge(x: 5000, max: 1000)"
    );
    assert!(
        chain
            .deploy("RevertingConstructor", (U256::from(50),))
            .is_ok()
    );
}

#[test]
#[should_panic(
    expected = "no contract named `Token` was deployed on this chain; deployed: [Vault]"
)]
fn get_of_an_undeployed_name_panics_with_the_deployed_names() {
    let mut chain = chain();
    chain.deploy("Vault", (U256::from(1),)).unwrap();
    chain.get("Token");
}

// ------------------------------------------------------------------ outcomes

#[test]
fn every_outcome_kind_is_decoded() {
    let mut chain = chain();
    let o = chain.deploy("Outcomes", ()).unwrap();
    let thrower = chain.deploy("Thrower", ()).unwrap();

    let ok = chain.try_call(o, "succeed(uint256)", &[uint(41)]).unwrap();
    assert_eq!(ok.status, TxStatus::Success);
    let f = chain
        .artifact_at(o)
        .unwrap()
        .abi
        .function("succeed")
        .unwrap()[0]
        .clone();
    assert_eq!(
        ok.decode_returns(&f).unwrap(),
        vec![uint(42), DynSolValue::Bool(true)]
    );

    let r = chain
        .try_call(o, "requireFails(uint256)", &[uint(1)])
        .unwrap();
    assert_eq!(revert_of(&r), &RevertReason::Error("x must be zero".into()));

    let r = chain
        .try_call(o, "customError(uint256)", &[uint(7)])
        .unwrap();
    assert_eq!(
        revert_of(&r).to_string(),
        format!(
            "Outcomes.Custom(code: 7, who: {}, why: \"because\")",
            chain.deployer()
        )
    );

    let panics = [
        ("assertFails(uint256)", vec![uint(1)], PanicCode::Assert),
        (
            "overflow(uint256)",
            vec![uint(1)],
            PanicCode::ArithmeticOverflow,
        ),
        (
            "divide(uint256,uint256)",
            vec![uint(1), uint(0)],
            PanicCode::DivisionByZero,
        ),
        ("toColor(uint256)", vec![uint(5)], PanicCode::EnumConversion),
        ("popEmpty()", vec![], PanicCode::EmptyArrayPop),
        (
            "outOfBounds(uint256)",
            vec![uint(0)],
            PanicCode::ArrayOutOfBounds,
        ),
        (
            "tooMuchMemory(uint256)",
            vec![DynSolValue::from(U256::from(1) << 64)],
            PanicCode::TooMuchMemory,
        ),
        ("zeroFunction()", vec![], PanicCode::ZeroInternalFunction),
    ];
    for (signature, args, code) in panics {
        let r = chain.try_call(o, signature, &args).unwrap();
        assert_eq!(revert_of(&r), &RevertReason::Panic(code), "{signature}");
    }

    let r = chain.try_call(o, "bareRevert()", &[]).unwrap();
    assert_eq!(revert_of(&r), &RevertReason::Bare);

    let r = chain
        .try_call(o, "burnGas(uint256)", &[uint(u64::MAX)])
        .unwrap();
    assert_eq!(r.status, TxStatus::Halt(HaltReason::OutOfGas));
    assert_eq!(r.gas_used, harvey::chain::TX_GAS_LIMIT);

    let r = chain.try_call(o, "invalidOpcode()", &[]).unwrap();
    assert_eq!(r.status, TxStatus::Halt(HaltReason::InvalidOpcode));

    // Thrower.Boom is not in Outcomes' ABI: found in the other artifacts.
    let nested = chain
        .try_call(o, "nested(address,uint256)", &[thrower.into(), uint(9)])
        .unwrap();
    assert_eq!(revert_of(&nested).to_string(), "Thrower.Boom(x: 9)");
}

#[test]
fn call_errors_are_harness_problems_only() {
    let mut chain = chain();
    let vault = chain.deploy("Vault", (U256::from(1000),)).unwrap();
    let err = chain
        .try_call(vault, "withdraw(uint256)", &[DynSolValue::Bool(true)])
        .unwrap_err();
    assert!(matches!(err, Error::Abi(_)), "{err:?}");
    assert!(err.to_string().contains("takes (uint256)"), "{err}");
    let poor = Address::with_last_byte(0x99);
    let options = TxOptions {
        sender: Some(poor),
        value: U256::from(5),
    };
    let err = chain
        .try_call_with(vault, "deposit()", &[], options)
        .unwrap_err();
    assert!(matches!(err, Error::Evm(_)), "{err:?}");
    assert!(
        err.to_string()
            .contains("cannot send 5 wei: its balance is 0 wei"),
        "{err}"
    );

    // By selector: the ABI supplies the types.
    let selector = chain
        .artifact_at(vault)
        .unwrap()
        .abi
        .function("withdraw")
        .unwrap()[0]
        .selector();
    let by_selector = format!("0x{}", alloy_primitives::hex::encode(selector));
    let r = chain.try_call(vault, &by_selector, &[uint(3)]).unwrap();
    assert_eq!(
        revert_of(&r).to_string(),
        "Vault.InsufficientBalance(have: 0, want: 3)"
    );
}

#[test]
fn deploy_call_and_view_share_one_calling_convention() {
    let mut chain = chain();
    // A plain Rust literal (i32) and a u8 both fit a uint256 parameter.
    let vault = chain.deploy("Vault", (1000,)).unwrap();
    let alice = chain.senders()[0];
    let options = TxOptions {
        sender: Some(alice),
        value: U256::from(40),
    };
    assert!(
        chain
            .try_call_with(vault, "deposit()", (), options)
            .unwrap()
            .is_success()
    );
    let withdrawn = chain
        .try_call_as(alice, vault, "withdraw(uint256)", (15u8,))
        .unwrap();
    assert!(withdrawn.is_success(), "{}", withdrawn.status);
    assert_eq!(
        chain
            .view::<U256>(vault, "balanceOf(address)", (alice,))
            .unwrap(),
        U256::from(25)
    );
    // The same call with runtime values.
    let r = chain
        .try_call_as(alice, vault, "withdraw(uint256)", &[uint(5)])
        .unwrap();
    assert!(r.is_success(), "{}", r.status);
    // A value that does not fit names the argument.
    let err = chain
        .try_call(vault, "withdraw(uint256)", (-1,))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "ABI error: `withdraw(uint256)` takes (uint256): argument 1 (-1) does not fit `uint256`"
    );
    let err = chain
        .view::<U256>(vault, "balanceOf(address)", ("alice",))
        .unwrap_err();
    assert!(err.to_string().contains("does not fit `address`"), "{err}");
}

alloy_sol_types::sol! {
    event Deposited(address indexed who, uint256 amount);
}

#[test]
fn logs_of_setup_stay_and_logs_of_a_sequence_go_with_reset() {
    let mut chain = chain();
    let vault = chain.deploy("Vault", (1000,)).unwrap();
    let alice = chain.senders()[0];
    let deposit = |value: u64| TxOptions {
        sender: Some(alice),
        value: U256::from(value),
    };
    chain
        .try_call_with(vault, "deposit()", (), deposit(7))
        .unwrap();
    assert_eq!((chain.logs().len(), chain.sequence_logs().len()), (1, 0));
    let mut fuzzed = tx(&chain, vault, "deposit()", &[]);
    fuzzed.value = U256::from(3);
    assert!(chain.execute(&fuzzed).unwrap().is_success());
    assert_eq!((chain.logs().len(), chain.sequence_logs().len()), (2, 1));

    // By declaration: the vault's ABI says which parameter is indexed.
    let deposits = chain.events_of("Deposited(address,uint256)").unwrap();
    let amounts: Vec<&DynSolValue> = deposits.iter().map(|(_, values)| &values[1]).collect();
    assert_eq!(amounts, [&uint(7), &uint(3)]);
    assert!(
        deposits
            .iter()
            .all(|(emitter, values)| *emitter == vault && values[0] == DynSolValue::Address(alice))
    );
    // By type.
    let typed = chain.events::<Deposited>();
    assert_eq!(typed.len(), 2);
    assert_eq!((typed[1].1.who, typed[1].1.amount), (alice, U256::from(3)));

    chain.reset();
    assert_eq!((chain.logs().len(), chain.sequence_logs().len()), (1, 0));
}

// ------------------------------------------------------------------ state model

#[test]
fn reset_restores_the_committed_base_state_and_block() {
    let mut chain = chain();
    let vault = chain.deploy("Vault", (U256::from(1000),)).unwrap();
    let setup = TxOptions {
        sender: Some(chain.deployer()),
        value: U256::from(100),
    };
    assert!(
        chain
            .try_call_with(vault, "deposit()", &[], setup)
            .unwrap()
            .is_success()
    );
    let sender = chain.senders()[1];
    let sender_balance = chain.balance(sender);
    assert_eq!(sender_balance, INITIAL_BALANCE);
    let total_slot = U256::from(1); // totalDeposits: slot 1 (balanceOf is slot 0)
    assert_eq!(chain.storage(vault, total_slot), U256::from(100));

    for round in 0..2 {
        for amount in [10u64, 20, 30] {
            let mut t = tx(&chain, vault, "deposit()", &[]);
            t.sender = sender;
            t.value = U256::from(amount);
            t.warp = Warp {
                seconds: 60,
                blocks: 5,
            };
            assert!(chain.execute(&t).unwrap().is_success(), "round {round}");
        }
        // Pending state is visible to reads and views...
        assert_eq!(
            chain.view::<U256>(vault, "totalDeposits()", ()).unwrap(),
            U256::from(160)
        );
        assert_eq!(chain.storage(vault, total_slot), U256::from(160));
        assert_eq!(chain.balance(vault), U256::from(160));
        assert_eq!(chain.balance(sender), sender_balance - U256::from(60));
        assert_eq!(chain.block_timestamp(), GENESIS_TIMESTAMP + 180);
        assert_eq!(chain.block_number(), GENESIS_NUMBER + 15);
        let (time, number) = chain.view::<(U256, U256)>(vault, "stamp()", ()).unwrap();
        assert_eq!(
            (time, number),
            (U256::from(GENESIS_TIMESTAMP + 180), U256::from(16))
        );
        // ...and reset drops all of it, back to the committed setup.
        chain.reset();
        assert_eq!(
            chain.view::<U256>(vault, "totalDeposits()", ()).unwrap(),
            U256::from(100)
        );
        assert_eq!(chain.storage(vault, total_slot), U256::from(100));
        assert_eq!(chain.balance(vault), U256::from(100));
        assert_eq!(chain.balance(sender), sender_balance);
        assert_eq!(chain.block_timestamp(), GENESIS_TIMESTAMP);
        assert_eq!(chain.block_number(), GENESIS_NUMBER);
    }
}

#[test]
fn commit_makes_pending_state_the_new_base() {
    let mut chain = chain();
    let probe = chain.deploy("Probe", ()).unwrap();
    let who = Address::with_last_byte(0x42);
    chain.set_balance(who, U256::from(7));
    chain.set_storage(probe, U256::ZERO, U256::from(5)); // hits
    chain.skip(100);
    chain.skip_blocks(2);
    assert_eq!(
        chain.view::<U256>(probe, "hits()", ()).unwrap(),
        U256::from(5)
    );
    chain.reset();
    assert_eq!(chain.balance(who), U256::ZERO);
    assert_eq!(chain.view::<U256>(probe, "hits()", ()).unwrap(), U256::ZERO);

    chain.set_balance(who, U256::from(7));
    chain.set_storage(probe, U256::ZERO, U256::from(5));
    chain.skip(100);
    chain.commit();
    chain.reset();
    assert_eq!(chain.balance(who), U256::from(7));
    assert_eq!(chain.storage(probe, U256::ZERO), U256::from(5));
    assert_eq!(chain.block_timestamp(), GENESIS_TIMESTAMP + 100);
    let bumped = chain.execute(&tx(&chain, probe, "bump()", &[])).unwrap();
    assert!(bumped.is_success());
    assert_eq!(
        chain.view::<U256>(probe, "hits()", ()).unwrap(),
        U256::from(6)
    );
}

#[test]
fn views_leave_the_next_transaction_unchanged() {
    // Same tx, with and without views in between: same gas (no warmed slots) and result.
    let mut chain = chain();
    let probe = chain.deploy("Probe", ()).unwrap();
    let bump = tx(&chain, probe, "bump()", &[]);
    let plain = chain.execute(&bump).unwrap();
    chain.reset();
    chain.view::<U256>(probe, "hits()", ()).unwrap();
    let _ = chain.storage(probe, U256::ZERO);
    let after_views = chain.execute(&bump).unwrap();
    assert_eq!(plain, after_views);
}

#[test]
fn fuzz_targets_are_recorded_once_in_order() {
    let mut chain = chain();
    let a = chain.deploy("Probe", ()).unwrap();
    let b = chain.deploy("Vault", (U256::from(1),)).unwrap();
    assert!(chain.fuzzed().is_empty());
    chain.fuzz(b);
    chain.fuzz(a);
    chain.fuzz(b);
    assert_eq!(chain.fuzzed(), &[b, a]);
}

#[test]
fn chain_moves_across_threads() {
    let mut chain = chain();
    let vault = chain.deploy("Vault", (U256::from(1),)).unwrap();
    let chain = std::thread::spawn(move || {
        assert_eq!(
            chain.view::<U256>(vault, "cap()", ()).unwrap(),
            U256::from(1)
        );
        chain
    })
    .join()
    .unwrap();
    assert_eq!(chain.get("Vault"), vault);
    let _: Arc<_> = Arc::clone(chain.artifacts());
}

// ------------------------------------------------------------------ observer

/// The contracts compiled with the optimizer on (legacy pipeline), once per process: the
/// observer must link comparisons in both solc outputs.
fn optimized_chain() -> Chain {
    static OPTIMIZED: OnceLock<Arc<harvey::project::Artifacts>> = OnceLock::new();
    let artifacts = OPTIMIZED.get_or_init(|| {
        let env = environment();
        let mut config = ProjectConfig::discover_in(repo(), &env).expect("foundry.toml");
        config.optimizer = true;
        config.cache_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("harvey-optimized");
        Arc::new(
            config
                .compile_in(&env)
                .expect("contracts/ compiles optimized"),
        )
    });
    Chain::new(Arc::clone(artifacts))
}

/// Both compilations of the fixtures.
fn both_chains() -> [(&'static str, Chain); 2] {
    [
        ("optimizer off", chain()),
        ("optimizer on", optimized_chain()),
    ]
}

/// The comparison among `ops` on operands {a, b} (in either order) in the last trace.
fn find_comparison(chain: &mut Chain, ops: &[CmpOp], a: U256, b: U256) -> Option<Comparison> {
    chain
        .last_trace()
        .comparisons()
        .iter()
        .copied()
        .find(|c| ops.contains(&c.op) && ((c.lhs, c.rhs) == (a, b) || (c.lhs, c.rhs) == (b, a)))
}

#[test]
fn observed_checks_have_a_trace_of_their_own_and_leave_the_transaction_s_alone() {
    let mut chain = chain();
    let probe = chain.deploy("Probe", ()).unwrap();
    chain
        .execute(&tx(&chain, probe, "check(uint256)", &[uint(7)]))
        .unwrap();
    let transaction = chain.last_trace().comparisons().to_vec();
    let below = |chain: &mut Chain, x: u64| -> bool {
        chain
            .view(probe, "below(uint256)", (U256::from(x),))
            .unwrap()
    };
    // Off (the default): the checks run unobserved.
    assert!(chain.checking(|chain| below(chain, 3)));
    assert!(chain.checks_trace().is_none());
    chain.observe_checks(true);
    let answers = chain.checking(|chain| (below(chain, 3), below(chain, 12)));
    assert_eq!(answers, (true, false));
    assert_eq!(chain.last_trace().comparisons(), transaction);
    // Both views' `x < 10`, in order, in the checks' one trace.
    let ten = U256::from(10);
    let compared: Vec<U256> = chain
        .checks_trace()
        .expect("observed")
        .comparisons()
        .iter()
        .filter(|c| c.code == probe && (c.lhs == ten || c.rhs == ten))
        .map(|c| if c.lhs == ten { c.rhs } else { c.lhs })
        .collect();
    assert_eq!(compared, [U256::from(3), U256::from(12)]);
    // The next checks start a trace afresh.
    chain.checking(|chain| below(chain, 5));
    let again = chain.checks_trace().expect("observed").comparisons();
    assert_eq!(
        again
            .iter()
            .filter(|c| c.lhs == ten || c.rhs == ten)
            .count(),
        1
    );
}

#[test]
fn observer_records_the_operands_of_a_known_branch() {
    for (build, mut chain) in both_chains() {
        let probe = chain.deploy("Probe", ()).unwrap();
        let runtime = chain.artifact_at(probe).unwrap().runtime_code.clone();
        chain
            .execute(&tx(&chain, probe, "check(uint256)", &[uint(7)]))
            .unwrap();
        let c = find_comparison(&mut chain, &[CmpOp::Eq], U256::from(7), U256::from(42))
            .unwrap_or_else(|| {
                panic!(
                    "{build}: no 7 == 42 in {:#?}",
                    chain.last_trace().comparisons()
                )
            });
        assert_eq!(c.code, probe);
        // EQ, or SUB: solc's peephole optimizer turns `if (x == 42)` into SUB + JUMPI.
        assert!(
            [EQ, SUB].contains(&runtime[c.cmp_pc as usize]),
            "{build}: {c:?}"
        );
        assert_eq!(runtime[c.jumpi_pc as usize], JUMPI, "{build}: {c:?}");
        assert!(!c.holds());
        let trace = chain.last_trace();
        let edge = trace
            .edges()
            .iter()
            .find(|e| e.pc == c.jumpi_pc)
            .expect("edge");
        assert_eq!(edge.taken, c.taken);
        // The dispatcher's selector comparison is there too.
        let selector = U256::from_be_slice(&calldata("check(uint256)", &[uint(7)])[..4]);
        assert!(
            trace
                .comparisons()
                .iter()
                .any(|c| c.lhs == selector || c.rhs == selector),
            "{build}: no selector comparison"
        );
    }
}

#[test]
fn observer_links_ordering_signed_and_nonzero_branches() {
    let minus = |x: u64| U256::ZERO - U256::from(x);
    let minus_nine = DynSolValue::Int(alloy_primitives::I256::try_from(-9).unwrap(), 256);
    let cases = [
        (
            "below(uint256)",
            uint(3),
            &[CmpOp::Lt, CmpOp::Gt][..],
            U256::from(3),
            U256::from(10),
        ),
        (
            "signedAbove(int256)",
            minus_nine,
            &[CmpOp::Slt, CmpOp::Sgt],
            minus(9),
            minus(5),
        ),
        (
            "nonZero(uint256)",
            uint(5),
            &[CmpOp::Eq, CmpOp::IsZero],
            U256::from(5),
            U256::ZERO,
        ),
    ];
    for (build, mut chain) in both_chains() {
        let probe = chain.deploy("Probe", ()).unwrap();
        for (signature, arg, ops, a, b) in cases.clone() {
            chain
                .execute(&tx(&chain, probe, signature, &[arg]))
                .unwrap();
            assert!(
                find_comparison(&mut chain, ops, a, b).is_some(),
                "{build}, {signature}: no {ops:?} of {a} and {b} in {:#?}",
                chain.last_trace().comparisons()
            );
        }
    }
}

#[test]
fn observer_records_storage_in_order() {
    let mut chain = chain();
    let probe = chain.deploy("Probe", ()).unwrap();
    chain.set_storage(probe, U256::ZERO, U256::from(4));
    chain.execute(&tx(&chain, probe, "bump()", &[])).unwrap();
    let accesses: Vec<_> = chain
        .last_trace()
        .storage()
        .iter()
        .map(|a| (a.op, a.address, a.slot, a.value))
        .collect();
    let slot0 = U256::ZERO;
    assert_eq!(
        accesses,
        vec![
            (StorageOp::Load, probe, slot0, U256::from(4)),
            (StorageOp::Store, probe, slot0, U256::from(5)),
            (StorageOp::Load, probe, slot0, U256::from(5)),
        ]
    );
    // store(key, value) writes data[key] at keccak(key . 1).
    chain
        .execute(&tx(
            &chain,
            probe,
            "store(uint256,uint256)",
            &[uint(3), uint(99)],
        ))
        .unwrap();
    let mut preimage = [0u8; 64];
    preimage[31] = 3;
    preimage[63] = 1;
    let slot = U256::from_be_bytes(alloy_primitives::keccak256(preimage).0);
    let store = chain
        .last_trace()
        .stores()
        .last()
        .copied()
        .expect("one store");
    assert_eq!((store.slot, store.value), (slot, U256::from(99)));
    let runtime = &chain.artifact_at(probe).unwrap().runtime_code;
    assert_eq!(runtime[store.pc as usize], SSTORE, "SSTORE at pc");
}

#[test]
fn observer_records_calls_and_selfdestructs() {
    let mut chain = chain();
    let probe = chain.deploy("Probe", ()).unwrap();
    let caller = chain.deploy("ProbeCaller", ()).unwrap();
    let sender = chain.senders()[0];
    chain
        .execute(&tx(
            &chain,
            caller,
            "ping(address,uint256)",
            &[probe.into(), uint(42)],
        ))
        .unwrap();
    let calls = call_summary(&mut chain);
    assert_eq!(
        calls,
        vec![
            (CallKind::Call, sender, caller, 0),
            (CallKind::Call, caller, probe, 1)
        ]
    );
    chain
        .execute(&tx(&chain, caller, "peek(address)", &[probe.into()]))
        .unwrap();
    assert_eq!(chain.last_trace().calls()[1].kind, CallKind::StaticCall);

    chain.set_balance(caller, U256::from(1234));
    let beneficiary = Address::with_last_byte(0xbe);
    chain
        .execute(&tx(
            &chain,
            caller,
            "destroy(address)",
            &[beneficiary.into()],
        ))
        .unwrap();
    let destructs = chain.last_trace().selfdestructs().to_vec();
    assert_eq!(destructs.len(), 1);
    assert_eq!(
        (destructs[0].contract, destructs[0].beneficiary),
        (caller, beneficiary)
    );
    assert_eq!(destructs[0].value, U256::from(1234));
    assert_eq!(chain.balance(beneficiary), U256::from(1234));
}

#[test]
fn creations_record_the_new_address() {
    let mut chain = chain();
    let caller = chain.deploy("ProbeCaller", ()).unwrap();
    let salt = DynSolValue::FixedBytes(alloy_primitives::B256::with_last_byte(7), 32);
    let outcome = chain
        .execute(&tx(&chain, caller, "spawn(bytes32)", &[salt]))
        .unwrap();
    assert!(outcome.is_success(), "{}", outcome.status);
    let (plain, salted) =
        <(Address, Address) as alloy_sol_types::SolValue>::abi_decode_params(&outcome.output)
            .unwrap();
    let creations = call_summary(&mut chain);
    assert_eq!(
        creations,
        vec![
            (CallKind::Call, chain.senders()[0], caller, 0),
            (CallKind::Create, caller, plain, 1),
            (CallKind::Create2, caller, salted, 1),
        ]
    );
}

/// The last transaction's calls as (kind, caller, target, depth).
fn call_summary(chain: &mut Chain) -> Vec<(CallKind, Address, Address, u32)> {
    chain
        .last_trace()
        .calls()
        .iter()
        .map(|c| (c.kind, c.caller, c.target, c.depth))
        .collect()
}

#[test]
fn deal_token_writes_the_balance_slot_balance_of_reads() {
    let mut chain = chain();
    let token = chain.deploy("PlainToken", (1_000,)).unwrap();
    let alice = chain.senders()[0];
    chain.deal_token(token, alice, U256::from(77)).unwrap();
    let balance: U256 = chain.view(token, "balanceOf(address)", (alice,)).unwrap();
    assert_eq!(balance, U256::from(77));
    // Dealt tokens are real: they can be transferred, and the deployer's are untouched.
    let bob = chain.senders()[1];
    let sent = chain
        .try_call_as(alice, token, "transfer(address,uint256)", (bob, 70))
        .unwrap();
    assert!(sent.is_success(), "{}", sent.status);
    let deployer: U256 = chain
        .view(token, "balanceOf(address)", (chain.deployer(),))
        .unwrap();
    assert_eq!(deployer, U256::from(1_000));
    let supply: U256 = chain.view(token, "totalSupply()", ()).unwrap();
    assert_eq!(
        supply,
        U256::from(1_000),
        "as forge-std's deal, the supply is left alone"
    );

    let shares = chain.deploy("SharesToken", ()).unwrap();
    let err = chain.deal_token(shares, alice, U256::from(5)).unwrap_err();
    assert!(err.to_string().contains("holds the balance"), "{err}");
    let no_token = chain.deploy("Outcomes", ()).unwrap();
    let err = chain
        .deal_token(no_token, alice, U256::from(5))
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("has no function `balanceOf(address)`"),
        "{err}"
    );
}
