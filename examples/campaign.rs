//! The README's main job: a fuzzing campaign that finds a real bug. `contracts/bugs/Seats.sol`
//! lets the second taker of a seat promote themselves over the founder; the invariant below
//! ("the founder keeps the first seat") catches it, and harvey prints the shrunk call
//! sequence, the seed, and the campaign summary.
//!
//! Run with `cargo run --release --example campaign` (set `HARVEY_SEED` to try other seeds).

use harvey::prelude::*;

fn main() -> harvey::Result<()> {
    let seed = std::env::var("HARVEY_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let outcome = Campaign::new(env!("CARGO_MANIFEST_DIR"))
        .contract("Seats")
        .invariant("founder_keeps_the_first_seat", |chain: &Chain| {
            let seats = chain.get("Seats");
            let first: Address = chain.view(seats, "first()", ())?;
            let founder: Address = chain.view(seats, "founder()", ())?;
            if first == founder || first == Address::ZERO {
                Ok(())
            } else {
                Err(harvey::Error::Call(format!(
                    "the first seat belongs to {first}, not to the founder {founder}"
                )))
            }
        })
        .seed(seed)
        .runs(100_000)
        .run()?;
    for warning in &outcome.warnings {
        println!("warning: {warning}");
    }
    print!("{}", harvey::report::summary(&outcome));
    if outcome.failures.is_empty() {
        println!("\nno violation found");
    } else {
        println!(
            "\n{}",
            harvey::report::failures_report(&outcome.failures, None)
        );
    }
    Ok(())
}
