//! The README's main job: a fuzzing campaign that finds a real bug. `contracts/bugs/Seats.sol`
//! lets the second taker of a seat promote themselves over the founder; the invariant below
//! ("the founder keeps the first seat") catches it, and harvey prints the shrunk call
//! sequence, the seed, and the campaign summary.
//!
//! Run with `cargo run --example campaign` (set `HARVEY_SEED` to try other seeds).

use harvey::prelude::*;

fn main() -> harvey::Result<()> {
    let seed = std::env::var("HARVEY_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    print!("{}", report(seed)?);
    Ok(())
}

/// The campaign with `seed`, as the example prints it: the warnings, the summary, and the
/// report of each violation found. `tests/it/readme_sample.rs` holds the README's sample
/// report to it.
pub(crate) fn report(seed: u64) -> harvey::Result<String> {
    let outcome = Campaign::new(env!("CARGO_MANIFEST_DIR"))
        .contract("Seats")
        .invariant("founder_keeps_the_first_seat", |chain: &Chain| {
            let seats = chain.get("Seats");
            let first: Address = chain.view(seats, "first()", ())?;
            let founder: Address = chain.view(seats, "founder()", ())?;
            harvey::ensure!(
                first == founder || first == Address::ZERO,
                "the first seat belongs to {first}, not to the founder {founder}"
            );
            Ok(())
        })
        .seed(seed)
        .runs(100_000)
        .run()?;
    let mut text = outcome.to_string();
    if outcome.passed() {
        text.push_str("\nno violation found\n");
    }
    Ok(text)
}
