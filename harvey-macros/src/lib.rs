//! The `#[harvey::invariant]` attribute. This crate only parses and validates the attribute
//! and the function it is on, then emits one `#[test]` that calls
//! `harvey::__private::run_invariant`; every decision about fuzzing lives in `harvey`, and
//! what each setting accepts in `harvey-settings`.
//! Misuse is a compile error spanned on the offending token.

mod args;
mod emit;

use proc_macro::TokenStream;
use syn::{ItemFn, parse_macro_input};

/// Turns `fn name(chain: &Chain) -> bool` (or `-> Result<(), E: Display>`) into a `#[test]`
/// that runs a fuzzing campaign and fails with a shrunk, replayable call sequence when the
/// invariant breaks.
///
/// Arguments: `contract = "Name"` or `contracts = ["A", "B"]` (deployed with no constructor
/// arguments when there is no setup), `setup = path::to::fn` (a
/// `fn(&mut Chain) -> harvey::Result<()>`), and the campaign settings of
/// `harvey_settings::SETTINGS` (the README lists them): `runs = N`, `time = "30s"`,
/// `calls = N`, `depth = N`, `seed = N`,
/// `workers = N`, `prediction = false`, `demand_driven = false`, `dataflow = false`,
/// `targets = "diff:origin/main"` (or `"src/Vault.sol:42"`, or a list of such lines),
/// `require_targets = true`, `lookahead = false` (or `"no-analysis"`,
/// `"standard-schedule"`), `panics = ["assert", "overflow"]` (or `[]`, `"all"`, `"none"`),
/// `fail_fast = false`, `fail_on_revert = true`, `max_time_delay = N`, `max_block_delay = N`,
/// `corpus = "harvey-corpus"`. Each value is checked at compile time by the parser that reads its `HARVEY_*`
/// variable, which overrides it at run time.
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
/// directory; the campaign settings are those of `#[harvey::invariant]` (`runs`, `time`,
/// `depth`, `seed`, `workers`, `fail_fast`, `fail_on_revert`, ...). foundry.toml's
/// `[invariant]` `runs`/`depth`/`fail_on_revert` and `[fuzz] seed` apply first; the
/// attribute, then `HARVEY_*` variables, override them.
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
