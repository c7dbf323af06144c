//! The README's sample failure report ("Reading a failure report") is what `cargo run
//! --example campaign` prints: the example's campaign, included here, run with the seed the
//! example defaults to, must show the README's block line for line, times aside (they
//! vary between machines and runs; the sequences and calls do not, with one worker).

use crate::support::{compiled_at, repo};

#[allow(dead_code)] // the example's `main`; its `report` is what this test runs
#[path = "../../examples/campaign.rs"]
mod example;

/// `text` with every duration (`30ms`, `1.20s`, `0ms`) written as `<time>`.
fn without_times(text: &str) -> String {
    let word = |word: &str| {
        let trimmed = word.trim_end_matches([')', ',', ';', ':']);
        let number = trimmed.trim_end_matches("ms").trim_end_matches(['s', 'µ']);
        let is_time = trimmed.ends_with('s')
            && !number.is_empty()
            && number.chars().all(|c| c.is_ascii_digit() || c == '.');
        if is_time {
            word.replacen(trimmed, "<time>", 1)
        } else {
            word.to_string()
        }
    };
    text.lines()
        .map(|line| line.split(' ').map(word).collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_readme_sample_report_is_the_example_s() {
    // Compiled in the tests' environment first, whatever the user's `HARVEY_*` say.
    compiled_at(repo()).unwrap();
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let section = &readme[readme.find("### 4. Reading a failure report").unwrap()..];
    let block = section
        .split("```text\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .unwrap();
    let printed = example::report(1).unwrap();
    let printed = without_times(&printed);
    let block = without_times(block);
    assert!(
        printed.contains(&block),
        "the README's sample:\n{block}\nis not what the example prints:\n{printed}"
    );
}
