//! The settings documentation matches the settings table: the book's reference page and the
//! attribute macros' rustdoc hold blocks generated from `SETTINGS`, compared here with the
//! generators. `UPDATE_DOCS=1 cargo test -p harvey-settings --test reference` rewrites them.
//! (Not a `HARVEY_*` variable: those are campaign settings, which no test may depend on.)

use std::path::{Path, PathBuf};

use harvey_settings::{
    BOOK_BEGIN, BOOK_END, RUSTDOC_BEGIN, RUSTDOC_END, SETTINGS, markdown_reference, rustdoc_list,
};

const HOW_TO_FIX: &str = "run `UPDATE_DOCS=1 cargo test -p harvey-settings --test reference` \
     to regenerate it from harvey-settings/src/table.rs, and commit the result";

fn repo_file(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative)
}

fn updating() -> bool {
    std::env::var("UPDATE_DOCS").is_ok_and(|v| v == "1")
}

/// Replaces every block between `begin` and `end` lines (each line prefixed by `prefix`)
/// with `generated`; returns the new text and how many blocks there were.
fn regenerate(
    text: &str,
    prefix: &str,
    begin: &str,
    end: &str,
    generated: &str,
) -> (String, usize) {
    let begin_line = format!("{prefix}{begin}").trim_end().to_string();
    let end_line = format!("{prefix}{end}").trim_end().to_string();
    let mut out = String::with_capacity(text.len());
    let mut blocks = 0;
    let mut inside = false;
    for line in text.lines() {
        if inside {
            if line.trim_end() == end_line {
                inside = false;
                out.push_str(line);
                out.push('\n');
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
        if line.trim_end() == begin_line {
            inside = true;
            blocks += 1;
            for generated_line in generated.lines() {
                out.push_str(format!("{prefix}{generated_line}").trim_end());
                out.push('\n');
            }
        }
    }
    assert!(
        !inside,
        "a block opened by `{begin_line}` is never closed by `{end_line}`"
    );
    (out, blocks)
}

/// Checks the generated blocks of `relative` (at least `expected_blocks` of them), or
/// rewrites them under `UPDATE_DOCS=1`.
fn check(relative: &str, prefix: &str, begin: &str, end: &str, generated: &str, blocks: usize) {
    let path = repo_file(relative);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let (expected, found) = regenerate(&text, prefix, begin, end, generated);
    assert!(
        found >= blocks,
        "{relative} should hold {blocks} generated settings block(s) between the lines \
         `{prefix}{begin}` and `{prefix}{end}`, and holds {found}"
    );
    if expected == text {
        return;
    }
    if updating() {
        std::fs::write(&path, expected)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        eprintln!("rewrote the settings blocks of {relative}");
        return;
    }
    let first_difference = text
        .lines()
        .zip(expected.lines())
        .position(|(a, b)| a != b)
        .map_or(String::new(), |i| {
            format!(" (first difference at line {})", i + 1)
        });
    panic!("{relative} does not match the settings table{first_difference}: {HOW_TO_FIX}");
}

#[test]
fn the_books_settings_page_is_generated_from_the_table() {
    check(
        "docs/book/src/settings.md",
        "",
        BOOK_BEGIN,
        BOOK_END,
        &markdown_reference(),
        1,
    );
}

#[test]
fn the_macros_rustdoc_lists_every_setting() {
    // One block in the doc of `invariant` and one in that of `forge_suite` (and any other
    // attribute that documents its settings the same way).
    check(
        "harvey-macros/src/lib.rs",
        "/// ",
        RUSTDOC_BEGIN,
        RUSTDOC_END,
        &rustdoc_list(),
        2,
    );
    let source = std::fs::read_to_string(repo_file("harvey-macros/src/lib.rs")).unwrap();
    for attribute in ["invariant", "forge_suite"] {
        let doc = doc_of(&source, attribute);
        for setting in SETTINGS {
            assert!(
                doc.contains(&format!("`{}`", setting.name)),
                "the rustdoc of #[harvey::{attribute}] does not mention the setting `{}`: {HOW_TO_FIX}",
                setting.name
            );
        }
    }
}

/// The `///` lines right above `pub fn name` (attributes between them skipped).
fn doc_of(source: &str, name: &str) -> String {
    let lines: Vec<&str> = source.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_start().starts_with(&format!("pub fn {name}(")))
        .unwrap_or_else(|| panic!("no `pub fn {name}` in harvey-macros/src/lib.rs"));
    let mut doc: Vec<&str> = lines[..at]
        .iter()
        .rev()
        .skip_while(|l| l.trim_start().starts_with("#["))
        .take_while(|l| l.trim_start().starts_with("///"))
        .copied()
        .collect();
    doc.reverse();
    doc.join("\n")
}
