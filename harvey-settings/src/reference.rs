//! The settings reference, generated from [`SETTINGS`] so that the documentation cannot
//! drift from the table: the book's settings page (`docs/book/src/settings.md`) holds
//! [`markdown_reference`] between [`BOOK_BEGIN`] and [`BOOK_END`], and the rustdoc of the
//! attribute macros (`harvey-macros/src/lib.rs`) holds [`rustdoc_list`] between
//! [`RUSTDOC_BEGIN`] and [`RUSTDOC_END`]. The test `tests/reference.rs` compares both with
//! the generators, and rewrites them when run with `UPDATE_DOCS=1`.

use std::fmt::Write;

use crate::{Detector, Literal, PANIC_NAMES, SETTINGS, Setting};

/// The line before the generated block of the book's settings page.
pub const BOOK_BEGIN: &str = "<!-- BEGIN generated from harvey-settings' SETTINGS: edit harvey-settings/src/table.rs, then run `UPDATE_DOCS=1 cargo test -p harvey-settings --test reference` -->";

/// The line after the generated block of the book's settings page.
pub const BOOK_END: &str = "<!-- END generated settings reference -->";

/// The line (after `/// `) before a generated block in the macros' rustdoc.
pub const RUSTDOC_BEGIN: &str = "<!-- BEGIN settings: generated; `UPDATE_DOCS=1 cargo test -p harvey-settings --test reference` -->";

/// The line (after `/// `) after a generated block in the macros' rustdoc.
pub const RUSTDOC_END: &str = "<!-- END settings -->";

/// The book's settings reference: a table of every setting (attribute argument, `HARVEY_*`
/// variable, the literal it takes, the first sentence of its documentation) linking to a section per setting with its documentation.
pub fn markdown_reference() -> String {
    let mut out = String::new();
    out.push_str("| attribute | environment | takes | what |\n|---|---|---|---|\n");
    for setting in SETTINGS {
        let doc = plain(setting.doc());
        let _ = writeln!(
            out,
            "| [`{name}`](#{name}) | `{var}` | {takes} | {what} |",
            name = setting.name,
            var = setting.var,
            takes = literal_kind(setting.literal),
            what = first_sentence(&doc).replace('|', "\\|"),
        );
    }
    for setting in SETTINGS {
        let _ = write!(
            out,
            "\n### `{name}`\n\nAttribute `{name} = …`: {expected}. Environment: `{var}`.\n\n{doc}\n",
            name = setting.name,
            expected = setting.expected.replace('|', "\\|"),
            var = setting.var,
            doc = plain(setting.doc()),
        );
        if let Some(names) = accepted_names(setting) {
            let _ = write!(out, "\nNames: {names}.\n");
        }
    }
    out
}

/// The rustdoc list of the settings (lines without the `/// ` prefix): each attribute
/// argument with its variable, what it takes, and the first sentence of its documentation.
pub fn rustdoc_list() -> String {
    let mut out = String::new();
    for setting in SETTINGS {
        let doc = plain(setting.doc());
        let _ = writeln!(
            out,
            "- `{name}` (`{var}`; {expected}): {first}",
            name = setting.name,
            var = setting.var,
            expected = setting.expected,
            first = first_sentence(&doc),
        );
    }
    out
}

/// What kind of literal a setting's attribute argument takes, in a few words.
fn literal_kind(literal: Literal) -> String {
    match literal {
        Literal::Integer => "an integer".to_string(),
        Literal::Bool => "`true` / `false`".to_string(),
        Literal::Str => "a string".to_string(),
        Literal::BoolOrStr => "`true` / `false`, or a string".to_string(),
        Literal::StrOrList => "a string, or a list of strings".to_string(),
        Literal::ListOrWords(words) => {
            let words: Vec<String> = words.iter().map(|w| format!("`\"{w}\"`")).collect();
            format!("a list of strings, or {}", words.join(" / "))
        }
    }
}

/// The names a list-valued setting accepts, from the crate's own lists.
fn accepted_names(setting: &Setting) -> Option<String> {
    let names: Vec<String> = match setting.name {
        "panics" => PANIC_NAMES
            .iter()
            .map(|(code, name)| format!("`{name}` (0x{code:02x})"))
            .collect(),
        "detectors" => Detector::ALL
            .iter()
            .map(|(_, name)| format!("`{name}`"))
            .collect(),
        _ => return None,
    };
    Some(names.join(", "))
}

/// A doc line without rustdoc's intra-doc links: "[`Steering`]" becomes "`Steering`".
fn plain(doc: &str) -> String {
    let mut out = String::with_capacity(doc.len());
    let mut rest = doc;
    while let Some(start) = rest.find("[`") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        match after.find("`]") {
            Some(end) if !after[end + 2..].starts_with('(') => {
                out.push_str(&after[..end + 1]);
                rest = &after[end + 2..];
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The first sentence of `text`: up to the first full stop followed by a space, outside
/// code spans.
fn first_sentence(text: &str) -> &str {
    let mut in_code = false;
    for (i, c) in text.char_indices() {
        match c {
            '`' => in_code = !in_code,
            '.' if !in_code && text[i + 1..].starts_with(' ') => return &text[..=i],
            _ => {}
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intra_doc_links_become_code() {
        assert_eq!(
            plain("see [`Steering`] and [`Config::run_bound`]."),
            "see `Steering` and `Config::run_bound`."
        );
        assert_eq!(plain("[`a`](b) stays"), "[`a`](b) stays");
        assert_eq!(plain("a [`b"), "a [`b");
    }

    #[test]
    fn first_sentences_skip_code_spans() {
        assert_eq!(first_sentence("One. Two."), "One.");
        assert_eq!(first_sentence("Use `a. b` here. Then."), "Use `a. b` here.");
        assert_eq!(first_sentence("No stop"), "No stop");
    }

    #[test]
    fn every_setting_has_a_row_and_a_section() {
        let reference = markdown_reference();
        let list = rustdoc_list();
        for setting in SETTINGS {
            assert!(reference.contains(&format!("\n### `{}`\n", setting.name)));
            assert!(reference.contains(&format!("](#{})", setting.name)));
            assert!(list.contains(&format!("- `{}` (`{}`", setting.name, setting.var)));
        }
        assert!(reference.contains("`division-by-zero` (0x12)"));
        assert!(reference.contains("`transaction-order`"));
        assert_eq!(
            reference.matches("`]").count(),
            reference.matches("`](").count(),
            "an intra-doc link left in the reference"
        );
    }
}
