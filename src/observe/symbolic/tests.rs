//! The follower against concrete execution: random straight-line programs over argument
//! words (arithmetic, comparisons, bitwise and shift instructions, stack moves, aligned
//! memory) with JUMPIs between them run on revm with random calldata; every branch whose
//! condition the follower expressed as a term evaluates, at that calldata, to the direction
//! the JUMPI went.

use alloy_primitives::{Address, Bytes, U256};
use proptest::prelude::*;
use revm::bytecode::Bytecode;
use revm::bytecode::opcode;
use revm::context::{Context, TxEnv};
use revm::database::{CacheDB, EmptyDB};
use revm::primitives::TxKind;
use revm::state::AccountInfo;
use revm::{InspectEvm, MainBuilder, MainContext};

use super::*;
use crate::observe::Observer;

const CODE_AT: Address = Address::with_last_byte(0xc0);

/// Runs `code` with `calldata`, following it symbolically: the path condition.
fn follow(code: &[u8], calldata: Vec<u8>) -> PathCondition {
    follow_if(code, calldata, true)
}

/// Runs `code` with `calldata`, following it symbolically if `on`.
fn follow_if(code: &[u8], calldata: Vec<u8>, on: bool) -> PathCondition {
    let mut db = CacheDB::<EmptyDB>::default();
    db.insert_account_info(
        CODE_AT,
        AccountInfo::from_bytecode(Bytecode::new_raw(code.to_vec().into())),
    );
    let mut observer = Observer::default();
    observer.record_path_condition(on);
    let mut evm = Context::mainnet()
        .with_db(db)
        .build_mainnet_with_inspector(observer);
    let tx = TxEnv::builder()
        .caller(Address::with_last_byte(0xca))
        .kind(TxKind::Call(CODE_AT))
        .data(Bytes::from(calldata))
        .gas_limit(1_000_000)
        .build()
        .expect("valid tx");
    let result = evm.inspect_one_tx(tx).expect("tx runs");
    assert!(result.is_success(), "{result:?}");
    evm.inspector.trace().path_condition().clone()
}

/// A term's value at argument words `args`, as the EVM computes it.
fn value(path: &PathCondition, id: TermId, args: &[U256]) -> U256 {
    path.values(id, |i| args.get(i as usize).copied())[id as usize]
        .expect("a term over the arguments, none opaque")
}

/// The instructions a program is made of.
#[derive(Debug, Clone)]
enum Piece {
    /// `CALLDATALOAD` of argument word `i` (of 3).
    Arg(u8),
    Push(u8),
    Binary(u8),
    IsZero,
    Not,
    Dup(u8),
    Swap(u8),
    /// `MSTORE` the top at word `i` (of 4), then `MLOAD` word `j` back.
    Memory(u8, u8),
    /// A JUMPI on the top to the next instruction (taken or not, execution goes on).
    Branch,
}

const BINARY: [u8; 16] = [
    opcode::ADD,
    opcode::MUL,
    opcode::SUB,
    opcode::DIV,
    opcode::MOD,
    opcode::LT,
    opcode::GT,
    opcode::SLT,
    opcode::SGT,
    opcode::EQ,
    opcode::AND,
    opcode::OR,
    opcode::XOR,
    opcode::SHL,
    opcode::SHR,
    opcode::EQ,
];

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        3 => (0u8..3).prop_map(Piece::Arg),
        2 => any::<u8>().prop_map(Piece::Push),
        6 => (0..BINARY.len() as u8).prop_map(Piece::Binary),
        1 => Just(Piece::IsZero),
        1 => Just(Piece::Not),
        1 => (0u8..4).prop_map(Piece::Dup),
        1 => (0u8..4).prop_map(Piece::Swap),
        1 => (0u8..4, 0u8..4).prop_map(|(i, j)| Piece::Memory(i, j)),
        2 => Just(Piece::Branch),
    ]
}

/// The bytecode of `pieces`, skipping those the stack is too shallow for, ending in STOP.
fn assemble(pieces: &[Piece]) -> Vec<u8> {
    let mut code = Vec::new();
    let mut height = 0usize;
    for piece in pieces {
        match *piece {
            Piece::Arg(i) => {
                code.extend([opcode::PUSH1, 4 + 32 * i, opcode::CALLDATALOAD]);
                height += 1;
            }
            Piece::Push(v) => {
                code.extend([opcode::PUSH1, v]);
                height += 1;
            }
            Piece::Binary(k) if height >= 2 => {
                code.push(BINARY[k as usize]);
                height -= 1;
            }
            Piece::IsZero if height >= 1 => code.push(opcode::ISZERO),
            Piece::Not if height >= 1 => code.push(opcode::NOT),
            Piece::Dup(k) if height > k as usize => {
                code.push(opcode::DUP1 + k);
                height += 1;
            }
            Piece::Swap(k) if height > k as usize + 1 => code.push(opcode::SWAP1 + k),
            Piece::Memory(i, j) if height >= 1 => code.extend([
                opcode::PUSH1,
                32 * i,
                opcode::MSTORE,
                opcode::PUSH1,
                32 * j,
                opcode::MLOAD,
            ]),
            Piece::Branch if height >= 1 => {
                // JUMPI's destination is the JUMPDEST right after it.
                let dest = code.len() + 3;
                code.extend([opcode::PUSH1, dest as u8, opcode::JUMPI, opcode::JUMPDEST]);
                height -= 1;
            }
            _ => {}
        }
        if code.len() > 200 {
            break;
        }
    }
    code.push(opcode::STOP);
    code
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn followed_conditions_evaluate_to_the_direction_taken(
        pieces in proptest::collection::vec(piece(), 1..60),
        args in proptest::collection::vec(
            prop_oneof![
                (0u64..300).prop_map(U256::from),
                any::<[u64; 4]>().prop_map(U256::from_limbs),
            ],
            3,
        ),
    ) {
        let code = assemble(&pieces);
        let mut calldata = vec![0xab, 0xcd, 0xef, 0x01];
        for a in &args {
            calldata.extend(a.to_be_bytes::<32>());
        }
        let path = follow(&code, calldata);
        for branch in &path.branches {
            prop_assert_eq!(branch.code, CODE_AT);
            if branch.condition <= OPAQUE {
                continue;
            }
            prop_assert!(!depends_on_opaque(&path, branch.condition), "{:?}", path);
            let v = value(&path, branch.condition, &args);
            prop_assert_eq!(!v.is_zero(), branch.taken, "{:?}", path);
        }
    }
}

/// Whether term `id` was built on an opaque term (the follower never builds one: an
/// instruction on an opaque operand is opaque itself, so solvers never see one).
fn depends_on_opaque(path: &PathCondition, id: TermId) -> bool {
    match path.terms[id as usize] {
        Term::Opaque => true,
        Term::Arg(_) | Term::Const(_) => false,
        Term::Unary(_, a) => depends_on_opaque(path, a),
        Term::Binary(_, a, b) => depends_on_opaque(path, a) || depends_on_opaque(path, b),
    }
}

#[test]
fn arguments_through_arithmetic_and_memory_are_followed() {
    // arg0 * arg1, stored at word 1 and loaded back, compared with 42: one JUMPI.
    let code = [
        opcode::PUSH1, 4, opcode::CALLDATALOAD,
        opcode::PUSH1, 36, opcode::CALLDATALOAD,
        opcode::MUL,
        opcode::PUSH1, 32, opcode::MSTORE,
        opcode::PUSH1, 42, opcode::PUSH1, 32, opcode::MLOAD, opcode::EQ, // 15
        opcode::PUSH1, 20, opcode::JUMPI, // 18
        opcode::STOP,
        opcode::JUMPDEST, opcode::STOP,
    ];
    let mut calldata = vec![0; 4];
    calldata.extend(U256::from(6).to_be_bytes::<32>());
    calldata.extend(U256::from(7).to_be_bytes::<32>());
    let path = follow(&code, calldata);
    assert_eq!(path.branches.len(), 1);
    let branch = path.branches[0];
    assert_eq!((branch.pc, branch.taken), (18, true));
    let Term::Binary(BinaryOp::Eq, product, constant) = path.terms[branch.condition as usize] else {
        panic!("{path:?}")
    };
    assert!(matches!(path.terms[product as usize], Term::Binary(BinaryOp::Mul, _, _)));
    assert_eq!(path.terms[constant as usize], Term::Const(U256::from(42)));
    assert_eq!(value(&path, branch.condition, &[U256::from(6), U256::from(7)]), U256::ONE);
}

#[test]
fn hashed_arguments_are_opaque_and_off_records_nothing() {
    // keccak256 of arg0 in memory, compared with zero.
    let code = [
        opcode::PUSH1, 4, opcode::CALLDATALOAD, opcode::PUSH1, 0, opcode::MSTORE,
        opcode::PUSH1, 32, opcode::PUSH1, 0, opcode::KECCAK256,
        opcode::PUSH1, 15, opcode::JUMPI, // 13
        opcode::STOP, opcode::JUMPDEST, opcode::STOP,
    ];
    let path = follow(&code, vec![0; 36]);
    assert_eq!(path.branches.len(), 1);
    assert_eq!(path.branches[0].condition, OPAQUE);
    assert_eq!(follow_if(&code, vec![0; 36], false), PathCondition::default());
}
