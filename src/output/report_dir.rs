//! The HTML report directory (`report = "dir"`, `HARVEY_REPORT`): a page per test under
//! `tests/`, and `index.html` listing every test reported there, rebuilt from `index.json`
//! (the rows, harvey's own file) under a lock, since tests write from parallel threads
//! (`cargo test`) or processes (`cargo nextest`). A test's page and row replace its earlier
//! ones; an `index.json` that is not harvey's is never overwritten. What goes in (the page,
//! the rows and the index made of them) is rendered by `report/html.rs`.

use std::hash::{Hash, Hasher};
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::hash::KeyHasher;
use crate::output::file_lock::{FileLock, write_atomically};
use crate::{Error, Result};

/// What `index.json` holds: a row per test.
#[derive(Debug, Serialize, Deserialize)]
struct Index<Row> {
    /// Marks the file as harvey's report index (its format's version).
    harvey_report: u32,
    tests: Vec<Row>,
}

/// How the rows of the index are told apart and shown.
pub(crate) struct Rows<'a, Row> {
    /// The test a row is of.
    pub(crate) test: &'a dyn Fn(&Row) -> &str,
    /// `index.html` made of the rows.
    pub(crate) index: &'a dyn Fn(&[Row]) -> String,
}

/// The index format's version.
const FORMAT: u32 = 1;

/// Where test `test`'s page goes, relative to the directory: `tests/<name>.html`, the name
/// made of the test's own characters (`::` as `.`; anything but letters, digits, `_`, `-`
/// and `.` as `_`, and then a hash of the name so that two tests never share a page).
pub(crate) fn page_path(test: &str) -> String {
    let dotted = test.replace("::", ".");
    let mut name: String = dotted
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name != dotted || name.is_empty() || name.starts_with('.') {
        let mut hasher = KeyHasher::default();
        test.hash(&mut hasher);
        name.push_str(&format!("-{:08x}", hasher.finish() as u32));
    }
    format!("tests/{name}.html")
}

/// Writes test `test`'s `page` (HTML) into the report directory `dir` (creating it) and
/// its `row` into the index, replacing what `test` wrote before.
pub(crate) fn add<Row: Serialize + DeserializeOwned>(
    dir: &Path,
    test: &str,
    page: &str,
    row: Row,
    rows: &Rows<'_, Row>,
) -> Result<()> {
    let pages = dir.join("tests");
    std::fs::create_dir_all(&pages).map_err(|e| Error::io(&pages, &e))?;
    let index_path = dir.join("index.json");
    let _lock = FileLock::take(&index_path)?;
    let mut index = match std::fs::read_to_string(&index_path) {
        Ok(text) => harvey_index(&index_path, &text)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Index {
            harvey_report: FORMAT,
            tests: Vec::new(),
        },
        Err(e) => return Err(Error::io(&index_path, &e)),
    };
    write_atomically(&dir.join(page_path(test)), page)?;
    index.tests.retain(|known| (rows.test)(known) != test);
    index.tests.push(row);
    let mut json = serde_json::to_string_pretty(&index).map_err(|e| Error::Io {
        path: index_path.clone(),
        message: e.to_string(),
    })?;
    json.push('\n');
    write_atomically(&index_path, &json)?;
    write_atomically(&dir.join("index.html"), &(rows.index)(&index.tests))
}

/// `text` as harvey's report index; anything else is an error (it is not ours to
/// overwrite).
fn harvey_index<Row: DeserializeOwned>(path: &Path, text: &str) -> Result<Index<Row>> {
    serde_json::from_str::<Index<Row>>(text)
        .ok()
        .filter(|index| index.harvey_report == FORMAT)
        .ok_or_else(|| Error::Io {
            path: path.to_path_buf(),
            message: "not the index of a harvey report (or one of another harvey version): \
                      give the report a directory of its own, or delete this file"
                .into(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row as the tests write them: the test and a number.
    type Row = (String, u64);

    fn add_row(dir: &Path, test: &str, page: &str, n: u64) -> Result<()> {
        let rows = Rows {
            test: &|row: &Row| row.0.as_str(),
            index: &|rows: &[Row]| format!("{rows:?}"),
        };
        add(dir, test, page, (test.to_string(), n), &rows)
    }

    #[test]
    fn pages_are_named_by_the_test_and_never_shared() {
        assert_eq!(
            page_path("tests::vault_holds"),
            "tests/tests.vault_holds.html"
        );
        let odd = page_path("a b/c");
        assert!(odd.starts_with("tests/a_b_c-"), "{odd}");
        assert_ne!(page_path("a b"), page_path("a/b"));
        assert_ne!(page_path(".."), "tests/...html");
    }

    #[test]
    fn tests_add_their_rows_and_replace_their_own() {
        let dir = std::env::temp_dir().join(format!("harvey-report-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        add_row(&dir, "a::one", "<p>first</p>", 1).unwrap();
        add_row(&dir, "a::two", "<p>two</p>", 2).unwrap();
        add_row(&dir, "a::one", "<p>again</p>", 3).unwrap();
        let index: Index<Row> =
            serde_json::from_str(&std::fs::read_to_string(dir.join("index.json")).unwrap())
                .unwrap();
        assert_eq!(index.tests, [("a::two".into(), 2), ("a::one".into(), 3)]);
        let page = std::fs::read_to_string(dir.join(page_path("a::one"))).unwrap();
        assert_eq!(page, "<p>again</p>");
        let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
        assert_eq!(html, r#"[("a::two", 2), ("a::one", 3)]"#);
        // Someone else's index.json is left alone.
        std::fs::write(dir.join("index.json"), "{\"mine\": true}").unwrap();
        let err = add_row(&dir, "a::one", "x", 4).unwrap_err();
        assert!(
            err.to_string().contains("not the index of a harvey report"),
            "{err}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("index.json")).unwrap(),
            "{\"mine\": true}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
