//! The chain's sparse loop (the observer called only around the instructions it records)
//! against revm's own inspected loop (called around every one): random calls of contracts
//! that make every kind of record (jumps and comparisons, storage, reverts and Panics, logs,
//! calls and a re-entering attacker, failed calls whose status is checked or not, creations,
//! selfdestructs, and the data flows of block data, balances, `tx.origin` and wrapping
//! arithmetic), and of a contract calling cheatcodes, with them on, end the same and leave
//! the same trace, step count included.

use harvey::chain::{Chain, Tx, TxOptions};
use harvey::observe::FlowSet;
use harvey::prelude::*;
use proptest::prelude::*;

use crate::support::{chain, ether};

/// The contracts called, and the ether each is deployed with (a payable constructor).
const CONTRACTS: [(&str, u64); 15] = [
    ("Bank", 0),
    ("ReentrantBank", 0),
    ("UncheckedPayout", 0),
    ("BlockRaffle", 0),
    ("UncheckedToken", 0),
    ("OriginWallet", 1),
    ("Closable", 1),
    ("OneShotFactory", 0),
    ("OpenForwarder", 0),
    ("WETH", 0),
    ("Outcomes", 0),
    ("Thrower", 0),
    ("CheatUser", 0),
    ("Hive", 0),
    ("Checksum", 0),
];

/// What the chain records besides the default: the data flows, the blocks entered, the
/// transaction's own path (which the observer follows at every instruction), or the
/// cheatcodes' records too.
#[derive(Debug, Clone, Copy)]
enum Recording {
    Default,
    FlowsAndBlocks,
    Paths,
    Cheatcodes,
}

/// A chain with every contract of [`CONTRACTS`] deployed, recording as `recording` says,
/// calling the observer around every instruction or not.
fn deployed(recording: Recording, every_instruction: bool) -> (Chain, Vec<Address>) {
    let mut chain = chain();
    let addresses = CONTRACTS
        .iter()
        .map(|&(name, value)| {
            let options = TxOptions {
                sender: None,
                value: ether(value),
            };
            chain
                .deploy_with(name, (), options)
                .unwrap_or_else(|e| panic!("deploying {name}: {e}"))
        })
        .collect();
    chain.commit();
    match recording {
        Recording::Default => {}
        Recording::FlowsAndBlocks => {
            chain.follow_flows(FlowSet {
                wraps: true,
                block: true,
                balance: true,
                origin: true,
            });
            chain.record_blocks(true);
        }
        Recording::Paths => chain.record_paths(true),
        Recording::Cheatcodes => chain.enable_cheatcodes(),
    }
    chain.inspect_every_instruction(every_instruction);
    (chain, addresses)
}

/// One call: which contract, which of its functions (modulo their number), which
/// sender, how much ether (mostly none, else 1 wei or 1 ether) and the argument words, each
/// a small number, a sender, a deployed contract or any word.
#[derive(Debug, Clone)]
struct Call {
    contract: usize,
    function: usize,
    sender: usize,
    value: u8,
    words: Vec<(u8, u64, [u8; 32])>,
}

fn call() -> impl Strategy<Value = Call> {
    (
        0..CONTRACTS.len(),
        any::<usize>(),
        0usize..3,
        0u8..5,
        proptest::collection::vec((0u8..4, 0u64..64, any::<[u8; 32]>()), 1..4),
    )
        .prop_map(|(contract, function, sender, value, words)| Call {
            contract,
            function,
            sender,
            value,
            words,
        })
}

/// `call` as a transaction on `chain`, whose contracts are at `addresses`.
fn tx(chain: &Chain, addresses: &[Address], call: &Call) -> Tx {
    let to = addresses[call.contract];
    let artifact = chain.artifact_at(to).expect("deployed through the chain");
    // Views too: as transactions, they run like any other function.
    let functions: Vec<_> = artifact.abi.functions().collect();
    let function = functions.get(call.function % functions.len().max(1));
    let mut calldata = function.map_or_else(Vec::new, |f| f.selector().to_vec());
    let senders = chain.senders();
    // One word per parameter, the generated ones in turn (most parameters are one word).
    let parameters = function.map_or(0, |f| f.inputs.len());
    for &(kind, small, any) in call.words.iter().cycle().take(parameters) {
        let word = match kind {
            0 => U256::from(small),
            1 => senders[small as usize % senders.len()].into_word().into(),
            2 => addresses[small as usize % addresses.len()]
                .into_word()
                .into(),
            _ => U256::from_be_bytes(any),
        };
        calldata.extend_from_slice(&word.to_be_bytes::<32>());
    }
    let value = match call.value {
        0 => U256::from(1),
        1 => ether(1),
        // Most functions are not payable: most calls send nothing.
        _ => U256::ZERO,
    };
    Tx {
        sender: senders[call.sender % senders.len()],
        to,
        calldata: calldata.into(),
        value,
        ..Tx::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Every call ends the same and leaves the same trace under either loop.
    #[test]
    fn the_sparse_loop_records_what_every_instruction_inspected_records(
        calls in proptest::collection::vec(call(), 1..24),
        recording in prop_oneof![
            Just(Recording::Default),
            Just(Recording::FlowsAndBlocks),
            Just(Recording::Paths),
            Just(Recording::Cheatcodes),
        ],
    ) {
        let (mut sparse, addresses) = deployed(recording, false);
        let (mut every, _) = deployed(recording, true);
        for call in &calls {
            let tx = tx(&sparse, &addresses, call);
            let sparse_outcome = sparse.execute(&tx);
            let every_outcome = every.execute(&tx);
            prop_assert_eq!(
                format!("{sparse_outcome:?}"),
                format!("{every_outcome:?}"),
                "{:?}",
                call
            );
            prop_assert_eq!(sparse.last_trace(), every.last_trace(), "{:?}", call);
        }
    }
}
