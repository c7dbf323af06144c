//! The `#[harvey::invariant]` attribute. This crate only parses and validates the attribute
//! and the function it is on, then emits one `#[test]` that calls
//! `harvey::__private::run_rust_test`; every decision about fuzzing lives in `harvey`, and
//! what each setting accepts in `harvey-settings`.
//! Misuse is a compile error spanned on the offending token.

mod args;
mod emit;

use proc_macro::TokenStream;
use syn::{ItemFn, ItemMod, parse_macro_input};

/// Turns `fn name(chain: &Chain) -> bool` (or `-> Result<(), E: Display>`) into a `#[test]`
/// that runs a fuzzing campaign and fails with a shrunk, replayable call sequence when the
/// invariant breaks.
///
/// Arguments: `contract = "Name"` or `contracts = ["A", "B"]` (deployed with no constructor
/// arguments when there is no setup), `setup = path::to::fn` (a
/// `fn(&mut Chain) -> harvey::Result<()>`), `root = "dir"` (the Solidity project, when it is
/// not the crate's own directory), and the campaign settings of `harvey_settings::SETTINGS`.
/// Each value is checked at compile time by the parser that reads its `HARVEY_*` variable,
/// which overrides it at run time (`HARVEY_RUNS`, `HARVEY_TIME` or `HARVEY_CALLS` replaces
/// the whole budget). The settings (the book's settings reference,
/// `docs/book/src/settings.md`, documents each in full):
///
/// <!-- BEGIN settings: generated; `UPDATE_DOCS=1 cargo test -p harvey-settings --test reference` -->
/// - `runs` (`HARVEY_RUNS`; an unsigned integer without a suffix, e.g. 1000): Sequences to execute, at most (with `time`: whichever ends first).
/// - `time` (`HARVEY_TIME`; a duration string such as "30s"): Wall-clock budget, at most (`"500ms"`, `"30s"`, `"5m"`, `"1h"`).
/// - `calls` (`HARVEY_CALLS`; an unsigned integer without a suffix, e.g. 1000): Fuzzed calls (transactions) to execute, at most, over all sequences (the last sequence started runs to its end): the budget forge's `runs` × `depth` means, which a Solidity suite's foundry.toml becomes (with `runs` or `time`: whichever ends first).
/// - `depth` (`HARVEY_DEPTH`; an unsigned integer without a suffix, e.g. 1000): Maximum transactions per sequence.
/// - `walks` (`HARVEY_WALKS`; a whole number from 0 to 100): Random walks: the share of transactions, in percent, spent on sequences of `walk_length` fresh random calls whose integer arguments are mostly drawn uniformly over their type, run as forge, Echidna and Medusa run their invariant campaigns and never kept in the corpus.
/// - `walk_length` (`HARVEY_WALK_LENGTH`; an unsigned integer without a suffix, e.g. 1000): Calls per random walk (see `walks`).
/// - `seed` (`HARVEY_SEED`; an unsigned integer without a suffix, e.g. 1000): Seed of worker 0's RNG (worker `i` uses `seed + i`), decimal or `0x`-hex.
/// - `workers` (`HARVEY_WORKERS`; an unsigned integer without a suffix, e.g. 1000): Worker threads.
/// - `prediction` (`HARVEY_PREDICTION`; `true` or `false`): Input prediction (HARVEY §4: cost metrics and the secant method).
/// - `demand_driven` (`HARVEY_DEMAND_DRIVEN`; `true` or `false`): Demand-driven sequence fuzzing (HARVEY §5): path ids cover the last transaction, aggressive runs fuzz storage directly, and only functions whose coverage depends on state get longer sequences.
/// - `dataflow` (`HARVEY_DATAFLOW`; `true` or `false`): Read-after-write ordering (MuFuzz, ConFuzzius): new transactions prefer functions that write what the next one reads, and self-dependent calls are repeated.
/// - `chain_predictions` (`HARVEY_CHAIN_PREDICTIONS`; `true` or `false`): Chained predictions: after a predicted input satisfies a comparison of a sequence's last transaction, a call is appended and predicted on in the state that step left, so chains of state-dependent equalities advance a step per prediction.
/// - `joint_prediction` (`HARVEY_JOINT_PREDICTION`; `true` or `false`): Joint prediction: for a branch of a call's comparison that the secant method, moving one input, cannot flip without breaking a comparison the path already satisfies, every integer input of the call is moved by one, and the step that flips the branch while keeping the others is solved over the integers (Newton's method with finite differences).
/// - `solver` (`HARVEY_SOLVER`; `true` or `false`): The solver-backed step: a branch joint prediction could not flip is handed to z3 with its call's path condition (the comparisons on the way to it, as functions of the call's argument words), and z3's answer is run.
/// - `data_decisions` (`HARVEY_DATA_DECISIONS`; `true` or `false`): Data decisions: a comparison whose result goes into data rather than a branch (`checked = sum == a + b;`, a returned boolean) counts as a branch decision for coverage and gets a cost metric for input prediction.
/// - `coupling` (`HARVEY_COUPLING`; `true` or `false`): Address and name coupling: a mutation that makes an address argument another transaction's sender, or a sender an address another transaction names (`approve(spender)` by one sender, then a call by that spender naming the approver); and one that copies the arguments another transaction passes under the same parameter names (`withdraw(actorIndex, marketIndex)` after `deposit(actorIndex, marketIndex)`).
/// - `masks` (`HARVEY_MASKS`; `true` or `false`): Mask-guided mutation (MuFuzz §IV-B): once a corpus entry gets energy enough, each of its inputs is probed with one mutation, and mutations of the entry then change only inputs whose probe kept its path.
/// - `independent_calls` (`HARVEY_INDEPENDENT_CALLS`; `true` or `false`): Independent calls: when no fuzzed call can change what a later one sees (the fuzzed contracts' code writes no storage and calls, creates and destroys nothing except through STATICCALL, and what it reaches reads no clock the delays move and no balance a call's ether moves), every sequence is one call, whatever `depth` says, and the engine spends its runs as on a fuzz test's.
/// - `skip_unchanged_invariants` (`HARVEY_SKIP_UNCHANGED_INVARIANTS`; `true` or `false`): Skip an invariant after a transaction that cannot have changed its answer: a suite's invariant function whose last check held and read only storage (recorded as it ran) none of which the transaction wrote, and no cheatcode, creation or self-destruct changed anything else it reads.
/// - `invariant_guidance` (`HARVEY_INVARIANT_GUIDANCE`; `true` or `false`): Invariant guidance: observe the invariant checks after each transaction; a sequence whose transactions of one path brought one of their comparisons closer to failing more times than in any sequence before is kept, and input prediction aims at those comparisons too.
/// - `state_novelty` (`HARVEY_STATE_NOVELTY`; `true` or `false`): State novelty: a sequence whose transactions left a word in storage of a class no earlier run left there (zero, a small number up to 32, a sender, any other word; per fixed slot, or per write site for mapping slots), or a new combination of such words in one transaction (a maze's `x` and `y`), is kept even when its last call took a known path: it reached a state that code further on may need.
/// - `condition_states` (`HARVEY_CONDITION_STATES`; `true` or `false`): Condition states: a sequence whose last call took a known path, but whose conditions on storage compared their operands otherwise than every run on that path (one of them zero, both, equal, or apart: an `amount <= allowance` with a real allowance and amount, where earlier runs pulled nothing from nothing), is kept: it reached state that code on that path reads.
/// - `revert_guidance` (`HARVEY_REVERT_GUIDANCE`; `true` or `false`): Revert guidance: once a function has reverted on each of its first 1,000 calls (a `liquidate` while no position is underwater), a sequence in which a call of it failed at a `require` no call of it reached before, or nearer to passing one than any call before, is kept even when its last call took a known path: the calls before it are a prefix on the way to its success.
/// - `fail_fast` (`HARVEY_FAIL_FAST`; `true` or `false`): Stop at the first violation (`true`, the default: the quick answer a local `cargo test` wants), or keep fuzzing to the budget and report every distinct violation, each shrunk and saved (`false`: for CI runs and long campaigns, as cargo's `--no-fail-fast` runs every test).
/// - `fail_on_revert` (`HARVEY_FAIL_ON_REVERT`; `true` or `false`): Whether a fuzzed transaction that reverts is itself a violation (forge's `[invariant] fail_on_revert`, which a forge suite's foundry.toml sets too): for handlers written to never revert.
/// - `max_rejects` (`HARVEY_MAX_REJECTS`; an unsigned integer without a suffix, e.g. 65536): How many inputs `vm.assume` may reject in a forge fuzz test before it stops and fails with "`vm.assume` rejected too many inputs" (forge's `[fuzz] max_test_rejects`, 65,536 by default); `0` allows any number.
/// - `max_time_delay` (`HARVEY_MAX_TIME_DELAY`; an unsigned integer without a suffix, e.g. 3600): The most seconds block time may advance before a fuzzed call (forge's `[invariant] max_time_delay`); `0` keeps time still between calls.
/// - `max_block_delay` (`HARVEY_MAX_BLOCK_DELAY`; an unsigned integer without a suffix, e.g. 3600): The most blocks the block number may advance before a fuzzed call (forge's `[invariant] max_block_delay`); `0` keeps it still.
/// - `targets` (`HARVEY_TARGETS`; targets as "diff:origin/main", "src/Vault.sol:42" or ["src/Vault.sol:42", "src/Vault.sol:50"]): What to target: the lines a change touched since a revision, working tree included (`diff:origin/main`), or explicit lines (`src/Vault.sol:42,src/Vault.sol:50`; the attribute also takes a list of lines).
/// - `require_targets` (`HARVEY_REQUIRE_TARGETS`; `true` or `false`): Fail when a target was never reached (the check a pull request wants).
/// - `lookahead` (`HARVEY_LOOKAHEAD`; `true`, `false`, or a string: "on", "off", "no-analysis", "standard-schedule", "A"–"D"): With targets: how to steer towards them (ICSE'20's configurations A–D, see `Steering`): `on`/`off` (or `true`/`false`), `no-analysis`, `standard-schedule`, or the paper's letters `A`–`D`, the same words in the attribute (`true`/`false` bare, the others as strings: `lookahead = "no-analysis"`) and the environment.
/// - `panics` (`HARVEY_PANICS`; a list of Panic code names, e.g. ["assert", "overflow"], or "all" / "none"): Which Solidity Panic codes are violations: names such as `assert,overflow` (a list in the attribute), hex codes, `all` or `none` (`[]`).
/// - `detectors` (`HARVEY_DETECTORS`; a list of detector names, e.g. ["ether-leak", "selfdestruct"], or "all" / "none"): The vulnerability detectors that run beside the invariants (see the book's *Vulnerability detectors* chapter): detector names (`["ether-leak", "selfdestruct"]`, comma separated in the variable), `all` or `none` (`[]`).
/// - `corpus` (`HARVEY_CORPUS`; a directory path such as "harvey-corpus"): A directory that keeps the corpus between runs (relative paths from the project's root, the crate's for `#[harvey::invariant]`): the sequences saved there are run first, and the campaign's corpus is saved back after fuzzing, so a CI run starts where the last one stopped.
/// - `sarif` (`HARVEY_SARIF`; a file path such as "harvey.sarif"): A SARIF 2.1.0 file to add the campaign's findings to (relative paths from the project's root): one result per violation at its Solidity line (else the test's), one per target line never reached.
/// - `lcov` (`HARVEY_LCOV`; a file path such as "lcov.info"): An lcov tracefile to add the campaign's line coverage of the Solidity sources to (relative paths from the project's root): how often fuzzing executed each line of the contracts setup deployed and of those fuzzing created, for `genhtml` or a coverage service.
/// - `report` (`HARVEY_REPORT`; a directory path such as "harvey-report"): A directory to write an HTML report into (relative paths from the project's root): static pages that open from the file system, a page per test (the sources with each line's hit count, the targets reached or not, every violation with its shrunk call sequence and replay command, plots of coverage and violations over the campaign's time, why each function reverted, the settings and seed) and an index of the tests.
/// <!-- END settings -->
#[proc_macro_attribute]
pub fn invariant(attr: TokenStream, item: TokenStream) -> TokenStream {
    let function = parse_macro_input!(item as ItemFn);
    let parsed = args::InvariantArgs::parse(attr.into())
        .and_then(|args| emit::invariant_test(args, function));
    match parsed {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

/// Turns `fn name(chain: &mut Chain, a: U256, to: Address, ..) -> bool` (or
/// `-> harvey::Result<()>`) into a `#[test]` that fuzzes the inputs and fails with the
/// smallest inputs it found for which the property does not hold: a proptest-style property
/// over contracts. Each case runs on the chain as the setup left it (`contract`,
/// `contracts` or `setup`, as `#[harvey::invariant]` takes them; the `&mut Chain` parameter
/// is optional), its calls observed: coverage and input prediction see every comparison the
/// contracts made. The inputs are any Rust types alloy maps to Solidity ones (`U256`,
/// `I256`, `Address`, `bool`, `u8`..`u128`, `i8`..`i128`, `FixedBytes<N>`, `Bytes`,
/// `String`, `Vec<T>`, `[T; N]`, tuples). `harvey::assume!(cond)` rejects a case. The
/// settings are `#[harvey::invariant]`'s; the budget counts cases.
#[proc_macro_attribute]
pub fn property(attr: TokenStream, item: TokenStream) -> TokenStream {
    let function = parse_macro_input!(item as ItemFn);
    let parsed = args::InvariantArgs::parse(attr.into())
        .and_then(|args| emit::property_test(args, function));
    match parsed {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

/// Turns an inline module of invariants into one `#[test]` (`module::invariants`) whose
/// campaign checks every function of the module after every call, as forge checks every
/// `invariant_*` function of a suite and Echidna every property: N invariants cost one
/// campaign, not N.
///
/// ```text
/// #[harvey::invariants(setup = setup, runs = 5_000)]
/// mod vault {
///     use super::*;
///     fn solvent(chain: &Chain) -> bool { .. }
///     fn shares_add_up(chain: &Chain) -> harvey::Result<()> { .. }
/// }
/// ```
///
/// Every function in the module must be an invariant (`fn name(chain: &Chain) -> bool`, or
/// `-> Result<(), E: Display>`): move helpers out, so that none is silently never checked.
/// Paths in the arguments (`setup`) resolve inside the module. The arguments and settings
/// are those of [`macro@invariant`]; `should_panic`/`ignore` go on the module.
#[proc_macro_attribute]
pub fn invariants(attr: TokenStream, item: TokenStream) -> TokenStream {
    let module = parse_macro_input!(item as ItemMod);
    let parsed = args::InvariantArgs::parse(attr.into())
        .and_then(|args| emit::invariants_test(args, module));
    match parsed {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

/// Runs an existing Solidity invariant suite as a `#[test]`: a forge test contract
/// (`invariant_*` functions, `setUp()`, `targetContract`/`targetSelector`/... from
/// forge-std's `StdInvariant`, handlers using cheatcodes) or an Echidna/Medusa property
/// contract (`echidna_*`/`property_*` returning `bool`), fuzzed by harvey, failing with
/// every broken invariant's shrunk, replayable call sequence.
///
/// ```text
/// #[harvey::forge_suite("WETH9Invariants")]
/// fn weth9() {}
/// ```
///
/// The first argument names the test contract (`"Name"`, or `"path:Name"` when two share a
/// name); `root = "dir"` points at the Solidity project when it is not the crate's own
/// directory; `config = "test/echidna.yaml"` names the Echidna yaml or medusa.json an
/// Echidna/Medusa harness runs with (relative to the project's root; without it, the one the
/// rule of harvey's book finds, if any). foundry.toml's `[invariant]` `runs`/`depth`/
/// `fail_on_revert`/`max_time_delay`/`max_block_delay` and `[fuzz] seed` apply first, then
/// the test contract's inline `forge-config` comments (for a harness with a config: the
/// config's limits, sequence length, delays and mode instead); the attribute's settings,
/// then `HARVEY_*` variables, override them. The settings are those of
/// `#[harvey::invariant]`:
///
/// <!-- BEGIN settings: generated; `UPDATE_DOCS=1 cargo test -p harvey-settings --test reference` -->
/// - `runs` (`HARVEY_RUNS`; an unsigned integer without a suffix, e.g. 1000): Sequences to execute, at most (with `time`: whichever ends first).
/// - `time` (`HARVEY_TIME`; a duration string such as "30s"): Wall-clock budget, at most (`"500ms"`, `"30s"`, `"5m"`, `"1h"`).
/// - `calls` (`HARVEY_CALLS`; an unsigned integer without a suffix, e.g. 1000): Fuzzed calls (transactions) to execute, at most, over all sequences (the last sequence started runs to its end): the budget forge's `runs` × `depth` means, which a Solidity suite's foundry.toml becomes (with `runs` or `time`: whichever ends first).
/// - `depth` (`HARVEY_DEPTH`; an unsigned integer without a suffix, e.g. 1000): Maximum transactions per sequence.
/// - `walks` (`HARVEY_WALKS`; a whole number from 0 to 100): Random walks: the share of transactions, in percent, spent on sequences of `walk_length` fresh random calls whose integer arguments are mostly drawn uniformly over their type, run as forge, Echidna and Medusa run their invariant campaigns and never kept in the corpus.
/// - `walk_length` (`HARVEY_WALK_LENGTH`; an unsigned integer without a suffix, e.g. 1000): Calls per random walk (see `walks`).
/// - `seed` (`HARVEY_SEED`; an unsigned integer without a suffix, e.g. 1000): Seed of worker 0's RNG (worker `i` uses `seed + i`), decimal or `0x`-hex.
/// - `workers` (`HARVEY_WORKERS`; an unsigned integer without a suffix, e.g. 1000): Worker threads.
/// - `prediction` (`HARVEY_PREDICTION`; `true` or `false`): Input prediction (HARVEY §4: cost metrics and the secant method).
/// - `demand_driven` (`HARVEY_DEMAND_DRIVEN`; `true` or `false`): Demand-driven sequence fuzzing (HARVEY §5): path ids cover the last transaction, aggressive runs fuzz storage directly, and only functions whose coverage depends on state get longer sequences.
/// - `dataflow` (`HARVEY_DATAFLOW`; `true` or `false`): Read-after-write ordering (MuFuzz, ConFuzzius): new transactions prefer functions that write what the next one reads, and self-dependent calls are repeated.
/// - `chain_predictions` (`HARVEY_CHAIN_PREDICTIONS`; `true` or `false`): Chained predictions: after a predicted input satisfies a comparison of a sequence's last transaction, a call is appended and predicted on in the state that step left, so chains of state-dependent equalities advance a step per prediction.
/// - `joint_prediction` (`HARVEY_JOINT_PREDICTION`; `true` or `false`): Joint prediction: for a branch of a call's comparison that the secant method, moving one input, cannot flip without breaking a comparison the path already satisfies, every integer input of the call is moved by one, and the step that flips the branch while keeping the others is solved over the integers (Newton's method with finite differences).
/// - `solver` (`HARVEY_SOLVER`; `true` or `false`): The solver-backed step: a branch joint prediction could not flip is handed to z3 with its call's path condition (the comparisons on the way to it, as functions of the call's argument words), and z3's answer is run.
/// - `data_decisions` (`HARVEY_DATA_DECISIONS`; `true` or `false`): Data decisions: a comparison whose result goes into data rather than a branch (`checked = sum == a + b;`, a returned boolean) counts as a branch decision for coverage and gets a cost metric for input prediction.
/// - `coupling` (`HARVEY_COUPLING`; `true` or `false`): Address and name coupling: a mutation that makes an address argument another transaction's sender, or a sender an address another transaction names (`approve(spender)` by one sender, then a call by that spender naming the approver); and one that copies the arguments another transaction passes under the same parameter names (`withdraw(actorIndex, marketIndex)` after `deposit(actorIndex, marketIndex)`).
/// - `masks` (`HARVEY_MASKS`; `true` or `false`): Mask-guided mutation (MuFuzz §IV-B): once a corpus entry gets energy enough, each of its inputs is probed with one mutation, and mutations of the entry then change only inputs whose probe kept its path.
/// - `independent_calls` (`HARVEY_INDEPENDENT_CALLS`; `true` or `false`): Independent calls: when no fuzzed call can change what a later one sees (the fuzzed contracts' code writes no storage and calls, creates and destroys nothing except through STATICCALL, and what it reaches reads no clock the delays move and no balance a call's ether moves), every sequence is one call, whatever `depth` says, and the engine spends its runs as on a fuzz test's.
/// - `skip_unchanged_invariants` (`HARVEY_SKIP_UNCHANGED_INVARIANTS`; `true` or `false`): Skip an invariant after a transaction that cannot have changed its answer: a suite's invariant function whose last check held and read only storage (recorded as it ran) none of which the transaction wrote, and no cheatcode, creation or self-destruct changed anything else it reads.
/// - `invariant_guidance` (`HARVEY_INVARIANT_GUIDANCE`; `true` or `false`): Invariant guidance: observe the invariant checks after each transaction; a sequence whose transactions of one path brought one of their comparisons closer to failing more times than in any sequence before is kept, and input prediction aims at those comparisons too.
/// - `state_novelty` (`HARVEY_STATE_NOVELTY`; `true` or `false`): State novelty: a sequence whose transactions left a word in storage of a class no earlier run left there (zero, a small number up to 32, a sender, any other word; per fixed slot, or per write site for mapping slots), or a new combination of such words in one transaction (a maze's `x` and `y`), is kept even when its last call took a known path: it reached a state that code further on may need.
/// - `condition_states` (`HARVEY_CONDITION_STATES`; `true` or `false`): Condition states: a sequence whose last call took a known path, but whose conditions on storage compared their operands otherwise than every run on that path (one of them zero, both, equal, or apart: an `amount <= allowance` with a real allowance and amount, where earlier runs pulled nothing from nothing), is kept: it reached state that code on that path reads.
/// - `revert_guidance` (`HARVEY_REVERT_GUIDANCE`; `true` or `false`): Revert guidance: once a function has reverted on each of its first 1,000 calls (a `liquidate` while no position is underwater), a sequence in which a call of it failed at a `require` no call of it reached before, or nearer to passing one than any call before, is kept even when its last call took a known path: the calls before it are a prefix on the way to its success.
/// - `fail_fast` (`HARVEY_FAIL_FAST`; `true` or `false`): Stop at the first violation (`true`, the default: the quick answer a local `cargo test` wants), or keep fuzzing to the budget and report every distinct violation, each shrunk and saved (`false`: for CI runs and long campaigns, as cargo's `--no-fail-fast` runs every test).
/// - `fail_on_revert` (`HARVEY_FAIL_ON_REVERT`; `true` or `false`): Whether a fuzzed transaction that reverts is itself a violation (forge's `[invariant] fail_on_revert`, which a forge suite's foundry.toml sets too): for handlers written to never revert.
/// - `max_rejects` (`HARVEY_MAX_REJECTS`; an unsigned integer without a suffix, e.g. 65536): How many inputs `vm.assume` may reject in a forge fuzz test before it stops and fails with "`vm.assume` rejected too many inputs" (forge's `[fuzz] max_test_rejects`, 65,536 by default); `0` allows any number.
/// - `max_time_delay` (`HARVEY_MAX_TIME_DELAY`; an unsigned integer without a suffix, e.g. 3600): The most seconds block time may advance before a fuzzed call (forge's `[invariant] max_time_delay`); `0` keeps time still between calls.
/// - `max_block_delay` (`HARVEY_MAX_BLOCK_DELAY`; an unsigned integer without a suffix, e.g. 3600): The most blocks the block number may advance before a fuzzed call (forge's `[invariant] max_block_delay`); `0` keeps it still.
/// - `targets` (`HARVEY_TARGETS`; targets as "diff:origin/main", "src/Vault.sol:42" or ["src/Vault.sol:42", "src/Vault.sol:50"]): What to target: the lines a change touched since a revision, working tree included (`diff:origin/main`), or explicit lines (`src/Vault.sol:42,src/Vault.sol:50`; the attribute also takes a list of lines).
/// - `require_targets` (`HARVEY_REQUIRE_TARGETS`; `true` or `false`): Fail when a target was never reached (the check a pull request wants).
/// - `lookahead` (`HARVEY_LOOKAHEAD`; `true`, `false`, or a string: "on", "off", "no-analysis", "standard-schedule", "A"–"D"): With targets: how to steer towards them (ICSE'20's configurations A–D, see `Steering`): `on`/`off` (or `true`/`false`), `no-analysis`, `standard-schedule`, or the paper's letters `A`–`D`, the same words in the attribute (`true`/`false` bare, the others as strings: `lookahead = "no-analysis"`) and the environment.
/// - `panics` (`HARVEY_PANICS`; a list of Panic code names, e.g. ["assert", "overflow"], or "all" / "none"): Which Solidity Panic codes are violations: names such as `assert,overflow` (a list in the attribute), hex codes, `all` or `none` (`[]`).
/// - `detectors` (`HARVEY_DETECTORS`; a list of detector names, e.g. ["ether-leak", "selfdestruct"], or "all" / "none"): The vulnerability detectors that run beside the invariants (see the book's *Vulnerability detectors* chapter): detector names (`["ether-leak", "selfdestruct"]`, comma separated in the variable), `all` or `none` (`[]`).
/// - `corpus` (`HARVEY_CORPUS`; a directory path such as "harvey-corpus"): A directory that keeps the corpus between runs (relative paths from the project's root, the crate's for `#[harvey::invariant]`): the sequences saved there are run first, and the campaign's corpus is saved back after fuzzing, so a CI run starts where the last one stopped.
/// - `sarif` (`HARVEY_SARIF`; a file path such as "harvey.sarif"): A SARIF 2.1.0 file to add the campaign's findings to (relative paths from the project's root): one result per violation at its Solidity line (else the test's), one per target line never reached.
/// - `lcov` (`HARVEY_LCOV`; a file path such as "lcov.info"): An lcov tracefile to add the campaign's line coverage of the Solidity sources to (relative paths from the project's root): how often fuzzing executed each line of the contracts setup deployed and of those fuzzing created, for `genhtml` or a coverage service.
/// - `report` (`HARVEY_REPORT`; a directory path such as "harvey-report"): A directory to write an HTML report into (relative paths from the project's root): static pages that open from the file system, a page per test (the sources with each line's hit count, the targets reached or not, every violation with its shrunk call sequence and replay command, plots of coverage and violations over the campaign's time, why each function reverted, the settings and seed) and an index of the tests.
/// <!-- END settings -->
#[proc_macro_attribute]
pub fn forge_suite(attr: TokenStream, item: TokenStream) -> TokenStream {
    let function = parse_macro_input!(item as ItemFn);
    let parsed =
        args::SuiteArgs::parse(attr.into()).and_then(|args| emit::suite_test(args, function));
    match parsed {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}
