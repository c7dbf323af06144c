//! Observer tests on hand-assembled bytecode: each program isolates one linking rule.

use super::*;
use super::trace::RECENT_TRANSFERS;
use revm::bytecode::Bytecode;
use revm::context::{Context, TxEnv};
use revm::database::{CacheDB, EmptyDB};
use revm::primitives::TxKind;
use revm::state::AccountInfo;
use revm::{InspectEvm, MainBuilder, MainContext};

const CODE_AT: Address = Address::with_last_byte(0xc0);
const CALLER: Address = Address::with_last_byte(0xca);

/// Runs `code` (installed at `CODE_AT`) once under a fresh observer; it must succeed.
fn run(code: &[u8]) -> Trace {
    let (trace, success) = run_to_end(code);
    assert!(success, "the program reverted");
    trace
}

/// Runs `code` once under a fresh observer: the trace, and whether the call succeeded.
fn run_to_end(code: &[u8]) -> (Trace, bool) {
    let (observer, success) = run_under(code, Observer::default());
    (observer.trace().clone(), success)
}

/// Runs `code` once under `observer`: the observer after it, and whether the call
/// succeeded.
fn run_under(code: &[u8], observer: Observer) -> (Observer, bool) {
    let mut db = CacheDB::<EmptyDB>::default();
    db.insert_account_info(
        CODE_AT,
        AccountInfo::from_bytecode(Bytecode::new_raw(code.to_vec().into())),
    );
    let mut evm = Context::mainnet()
        .with_db(db)
        .build_mainnet_with_inspector(observer);
    let tx = TxEnv::builder()
        .caller(CALLER)
        .kind(TxKind::Call(CODE_AT))
        .gas_limit(1_000_000)
        .build()
        .expect("valid tx");
    let result = evm.inspect_one_tx(tx).expect("tx runs");
    (evm.inspector, result.is_success())
}

const PUSH1: u8 = opcode::PUSH1;

#[test]
fn eq_through_one_iszero_links_to_jumpi() {
    // 0 PUSH1 7; 2 PUSH1 42; 4 EQ; 5 ISZERO; 6 PUSH1 10; 8 JUMPI; 9 STOP; 10 JUMPDEST; 11 STOP
    let t = run(&[
        PUSH1,
        7,
        PUSH1,
        42,
        opcode::EQ,
        opcode::ISZERO,
        PUSH1,
        10,
        opcode::JUMPI,
        0,
        0x5b,
        0,
    ]);
    assert_eq!(t.edges().len(), 1);
    let e = t.edges()[0];
    assert_eq!((e.code, e.pc, e.dest, e.taken), (CODE_AT, 8, 10, true));
    assert_eq!(
        t.comparisons(),
        &[Comparison {
            code: CODE_AT,
            cmp_pc: 4,
            jumpi_pc: 8,
            op: CmpOp::Eq,
            lhs: U256::from(42),
            rhs: U256::from(7),
            negations: 1,
            taken: true,
        }]
    );
    assert!(!t.comparisons()[0].holds());
}

#[test]
fn any_other_opcode_breaks_the_link() {
    // LT, then ADD 0 (result unchanged, but computed by ADD), then JUMPI: the JUMPI has no
    // comparison; the LT, whose result went into data, is a data decision of its own.
    let t = run(&[
        PUSH1,
        9,
        PUSH1,
        3,
        opcode::LT,
        PUSH1,
        0,
        opcode::ADD,
        PUSH1,
        12,
        opcode::JUMPI,
        0,
        0x5b,
        0,
    ]);
    assert_eq!(t.edges().len(), 2);
    assert_eq!((t.edges()[0].pc, t.edges()[0].taken), (4, true));
    assert_eq!((t.edges()[1].pc, t.edges()[1].taken), (10, true));
    let [cmp] = t.comparisons() else {
        panic!("one comparison: {:?}", t.comparisons())
    };
    assert_eq!((cmp.cmp_pc, cmp.jumpi_pc, cmp.op), (4, 4, CmpOp::Lt));
}

#[test]
fn a_stored_equality_is_a_data_decision_with_its_operands() {
    // `flag = x == 5` with x = 7: 0 PUSH1 5; 2 PUSH1 7; 4 EQ; 5 PUSH1 0; 7 SSTORE; 8 STOP.
    let t = run(&[PUSH1, 5, PUSH1, 7, opcode::EQ, PUSH1, 0, opcode::SSTORE, 0]);
    assert_eq!(
        t.edges(),
        &[Edge {
            code: CODE_AT,
            pc: 4,
            dest: 5,
            taken: false,
        }]
    );
    assert_eq!(
        t.comparisons(),
        &[Comparison {
            code: CODE_AT,
            cmp_pc: 4,
            jumpi_pc: 4,
            op: CmpOp::Eq,
            lhs: U256::from(7),
            rhs: U256::from(5),
            negations: 0,
            taken: false,
        }]
    );
    // Arithmetic is not a decision: `SUB` and a lone `ISZERO` whose results are stored.
    let t = run(&[PUSH1, 5, PUSH1, 7, opcode::SUB, opcode::ISZERO, PUSH1, 0, opcode::SSTORE, 0]);
    assert!(t.edges().is_empty() && t.comparisons().is_empty());
}

#[test]
fn lone_iszero_chain_is_an_iszero_comparison() {
    // 0 PUSH1 5; 2 ISZERO; 3 ISZERO; 4 PUSH1 8; 6 JUMPI; 7 STOP; 8 JUMPDEST; 9 STOP
    let t = run(&[
        PUSH1,
        5,
        opcode::ISZERO,
        opcode::ISZERO,
        PUSH1,
        8,
        opcode::JUMPI,
        0,
        0x5b,
        0,
    ]);
    let c = t.comparisons()[0];
    assert_eq!((c.op, c.cmp_pc, c.jumpi_pc), (CmpOp::IsZero, 2, 6));
    assert_eq!(
        (c.lhs, c.rhs, c.negations, c.taken),
        (U256::from(5), U256::ZERO, 1, true)
    );
}

#[test]
fn dup_and_swap_move_the_tracked_slot() {
    // 0 PUSH1 9; 2 PUSH1 3; 4 LT (3 < 9); 5 DUP1; 6 PUSH1 0xff; 8 SWAP1; 9 PUSH1 13; 11 JUMPI;
    // 12 STOP; 13 JUMPDEST; 14 STOP
    let t = run(&[
        PUSH1,
        9,
        PUSH1,
        3,
        opcode::LT,
        opcode::DUP1,
        PUSH1,
        0xff,
        opcode::SWAP1,
        PUSH1,
        13,
        opcode::JUMPI,
        0,
        0x5b,
        0,
    ]);
    let c = t.comparisons()[0];
    assert_eq!(
        (c.op, c.lhs, c.rhs, c.negations),
        (CmpOp::Lt, U256::from(3), U256::from(9), 0)
    );
    assert_eq!((c.cmp_pc, c.jumpi_pc, c.taken), (4, 11, true));
}

#[test]
fn a_condition_at_another_stack_position_is_not_linked() {
    // 0 PUSH1 1; 2 PUSH1 9; 4 PUSH1 3; 6 LT; 7 SWAP1 (tracked result goes below the 1);
    // 8 PUSH1 12; 10 JUMPI (condition is the 1); 11 STOP; 12 JUMPDEST; 13 STOP
    let t = run(&[
        PUSH1,
        1,
        PUSH1,
        9,
        PUSH1,
        3,
        opcode::LT,
        opcode::SWAP1,
        PUSH1,
        12,
        opcode::JUMPI,
        0,
        0x5b,
        0,
    ]);
    assert_eq!(t.edges().len(), 1);
    assert!(t.comparisons().is_empty());
}

#[test]
fn signed_comparison_keeps_raw_operands() {
    // -1 SGT 2 is false; JUMPI not taken. 0 PUSH1 2; 2 PUSH1 0; 4 NOT (-1: breaks nothing yet);
    // 5 SGT; 6 PUSH1 10; 8 JUMPI; 9 STOP; 10 JUMPDEST; 11 STOP
    let t = run(&[
        PUSH1,
        2,
        PUSH1,
        0,
        opcode::NOT,
        opcode::SGT,
        PUSH1,
        10,
        opcode::JUMPI,
        0,
        0x5b,
        0,
    ]);
    let c = t.comparisons()[0];
    assert_eq!(
        (c.op, c.lhs, c.rhs, c.taken),
        (CmpOp::Sgt, U256::MAX, U256::from(2), false)
    );
    assert_eq!(t.edges()[0].next_pc(), 9);
}

#[test]
fn storage_accesses_carry_slot_and_value() {
    // 0 PUSH1 5; 2 PUSH1 1; 4 SSTORE (slot 1 = 5); 5 PUSH1 1; 7 SLOAD; 8 STOP
    let t = run(&[
        PUSH1,
        5,
        PUSH1,
        1,
        opcode::SSTORE,
        PUSH1,
        1,
        opcode::SLOAD,
        0,
    ]);
    let expected = [
        StorageAccess {
            op: StorageOp::Store,
            address: CODE_AT,
            code: CODE_AT,
            pc: 4,
            slot: U256::from(1),
            value: U256::from(5),
            frame: 0,
        },
        StorageAccess {
            op: StorageOp::Load,
            address: CODE_AT,
            code: CODE_AT,
            pc: 7,
            slot: U256::from(1),
            value: U256::from(5),
            frame: 0,
        },
    ];
    assert_eq!(t.storage(), &expected);
    assert_eq!(t.loads().count(), 1);
    assert_eq!(t.stores().count(), 1);
    assert_eq!(t.steps(), 6);
}

#[test]
fn the_transaction_call_is_recorded_at_depth_zero() {
    let t = run(&[0]);
    assert_eq!(
        t.calls(),
        &[CallRecord {
            kind: CallKind::Call,
            caller: CALLER,
            target: CODE_AT,
            code: CODE_AT,
            value: U256::ZERO,
            gas: t.calls()[0].gas,
            depth: 0,
            site: None,
            parent: None,
            succeeded: true,
        }]
    );
}

#[test]
fn inner_calls_and_selfdestructs_name_the_instruction_that_made_them() {
    // STATICCALL of the identity precompile at pc 11, then SELFDESTRUCT(0) at pc 15.
    let t = run(&[
        0x60, 0, 0x60, 0, 0x60, 0, 0x60, 0, 0x60, 4, 0x5a, 0xfa, 0x50, 0x60, 0, 0xff,
    ]);
    assert_eq!(t.calls().len(), 2);
    assert_eq!(t.calls()[1].kind, CallKind::StaticCall);
    assert_eq!(t.calls()[1].site, Some((CODE_AT, 11)));
    assert_eq!(t.calls()[1].code, Address::with_last_byte(4));
    assert_eq!(t.selfdestructs().len(), 1);
    assert_eq!(t.selfdestructs()[0].site, Some((CODE_AT, 15)));
}

#[test]
fn clear_keeps_capacity() {
    let mut o = Observer::default();
    o.trace.edges.push(Edge {
        code: Address::ZERO,
        pc: 1,
        dest: 2,
        taken: true,
    });
    let cap = o.trace.edges.capacity();
    o.clear();
    assert!(o.trace().edges().is_empty());
    assert_eq!(o.trace.edges.capacity(), cap);
}

#[test]
fn a_panic_revert_keeps_its_code_and_the_frames_last_transfers() {
    let (t, success) = run_to_end(&[
        PUSH1, 4, opcode::JUMP, // 0: to 4
        opcode::INVALID,
        opcode::JUMPDEST, // 4
        PUSH1, 1, PUSH1, 12, opcode::JUMPI, // 5: taken, to 12
        opcode::INVALID,
        opcode::JUMPDEST, // 11
        opcode::JUMPDEST, // 12
        PUSH1, 0, PUSH1, 11, opcode::JUMPI, // 13: not taken
        PUSH1, 21, opcode::JUMP, // 18: to 21
        opcode::JUMPDEST, // 21: mstore(0, Panic selector << 224); mstore(4, 0x11)
        opcode::PUSH4, 0x4e, 0x48, 0x7b, 0x71,
        PUSH1, 224, opcode::SHL,
        PUSH1, 0, opcode::MSTORE,
        PUSH1, 0x11, PUSH1, 4, opcode::MSTORE,
        PUSH1, 36, PUSH1, 0, opcode::REVERT, // 42: revert(0, 36)
    ]);
    assert!(!success);
    let site = t.reverts()[0];
    assert_eq!((site.code, site.pc, site.depth), (CODE_AT, 42, 1));
    assert_eq!(site.panic, Some(U256::from(0x11)));
    assert_eq!(
        site.transfers.oldest_first(),
        [
            Transfer { from: 2, to: 4 },
            Transfer { from: 9, to: 12 },
            Transfer { from: 20, to: 21 },
        ]
    );
    assert!(site.transfers.since_frame_start());
}

#[test]
fn the_transfer_ring_keeps_the_last_ones() {
    let mut ring = RecentTransfers::default();
    let made = RECENT_TRANSFERS as u32 + 3;
    for i in 0..made {
        ring.push(i, i + 100);
    }
    let kept = ring.oldest_first();
    assert_eq!(kept.len(), RECENT_TRANSFERS);
    assert_eq!(kept[0], Transfer { from: 3, to: 103 });
    assert_eq!(kept.last(), Some(&Transfer { from: made - 1, to: made + 99 }));
    assert!(!ring.since_frame_start());
}

#[test]
fn other_reverts_carry_no_panic_code() {
    // revert(0, 36) of untouched (zero) memory, then revert(0, 0): neither is a Panic.
    for code in [[PUSH1, 36, PUSH1, 0, opcode::REVERT], [PUSH1, 0, PUSH1, 0, opcode::REVERT]] {
        let (t, _) = run_to_end(&code);
        assert_eq!(t.reverts().len(), 1);
        assert_eq!(t.reverts()[0].panic, None);
        assert!(t.reverts()[0].transfers.oldest_first().is_empty());
    }
}

#[test]
fn logs_with_a_topic_are_sited() {
    // LOG0 (no topic) is not recorded; LOG1 with topic 0x77 is, with its one byte of data.
    let t = run(&[
        PUSH1, 0, PUSH1, 0, opcode::LOG0,
        PUSH1, 0xab, PUSH1, 0, opcode::MSTORE8,
        PUSH1, 0x77, PUSH1, 1, PUSH1, 0, opcode::LOG1, // 16
        opcode::STOP,
    ]);
    assert_eq!(
        t.logs(),
        &[LogSite {
            code: CODE_AT,
            pc: 16,
            emitter: CODE_AT,
            transfers: RecentTransfers::default(),
            topic0: U256::from(0x77),
            data: Bytes::from_static(&[0xab]),
        }]
    );
}

/// `code` run under an observer following wrapped arithmetic: the observer after it.
fn run_following_wraps(code: &[u8]) -> Observer {
    let mut observer = Observer::default();
    observer.follow_flows(FlowSet {
        wraps: true,
        ..FlowSet::default()
    });
    let (observer, success) = run_under(code, observer);
    assert!(success, "the program reverted");
    observer
}

/// The wraps `observer`'s transaction stored, by the pc of the arithmetic.
fn stored_wraps(observer: &Observer) -> Vec<u32> {
    (observer.trace().flows().iter())
        .filter_map(|flow| match flow.kind {
            FlowKind::Wrapped { wrap, into: Sink::Store } => Some(wrap.pc),
            _ => None,
        })
        .collect()
}

/// sub(0, 1), which wraps, at once the condition of a JUMPI (solc's `x != c`), which
/// jumps to the JUMPDEST at 9; what follows it starts at 10.
const BRANCHED_ON_WRAP: [u8; 10] = [
    PUSH1, 1, PUSH1, 0, opcode::SUB, // 4
    PUSH1, 9, opcode::JUMPI,
    opcode::INVALID,
    opcode::JUMPDEST, // 9
];

#[test]
fn a_wrap_branched_on_at_once_starts_no_flow() {
    let observer = run_following_wraps(&[&BRANCHED_ON_WRAP[..], &[opcode::STOP]].concat());
    assert!(!observer.taint.active(), "nothing is followed after it");
    assert!(observer.trace().flows().is_empty());
}

#[test]
fn a_wrap_after_a_branched_on_one_is_still_followed_into_storage() {
    let after = [
        PUSH1, 2, PUSH1, 1, opcode::SUB, // 14: 1 - 2
        PUSH1, 0, opcode::SSTORE,
        opcode::STOP,
    ];
    let observer = run_following_wraps(&[&BRANCHED_ON_WRAP[..], &after].concat());
    assert_eq!(stored_wraps(&observer), [14]);
}

#[test]
fn a_wrap_kept_past_its_branch_is_followed() {
    // The same sub(0, 1), duplicated: one copy is branched on, the other stored.
    let observer = run_following_wraps(&[
        PUSH1, 1, PUSH1, 0, opcode::SUB, // 4
        opcode::DUP1, PUSH1, 10, opcode::JUMPI,
        opcode::INVALID,
        opcode::JUMPDEST, // 10
        PUSH1, 0, opcode::SSTORE,
        opcode::STOP,
    ]);
    assert!(observer.taint.active());
    assert_eq!(stored_wraps(&observer), [4]);
}
