//! The lcov tracefile tests add their line coverage to (`lcov = "file"`, `HARVEY_LCOV`):
//! one record per test and source file (`TN:` the test, `SF:` the file, `DA:line,hits` with
//! the times the line ran),
//! which `genhtml` and coverage services merge. Tests write it from parallel threads or
//! processes under a lock; a test's records replace the ones it wrote before.

use std::fmt::Write as _;
use std::path::Path;

use crate::outcome::LineCoverage;
use crate::output::file_lock::{FileLock, write_atomically};
use crate::{Error, Result};

/// Adds test `test`'s `lines` to the tracefile at `path` (creating it), replacing the
/// records `test` wrote before. `source` turns a source path as compiled into the path the
/// records give (`SF:`).
pub(crate) fn add(
    path: &Path,
    test: &str,
    lines: &LineCoverage,
    source: &dyn Fn(&Path) -> String,
) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, &e))?;
    }
    let _lock = FileLock::take(path)?;
    let existing = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Error::io(path, &e)),
    };
    let mut text = others_records(&existing, test);
    // A test name is one token in lcov: `::` and spaces would split it.
    let name: String = test
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '_' })
        .collect();
    for (file, file_lines) in &lines.files {
        let _ = writeln!(text, "TN:{name}");
        let _ = writeln!(text, "SF:{}", source(file));
        for (line, hits) in file_lines {
            let _ = writeln!(text, "DA:{line},{hits}");
        }
        let hit = file_lines.values().filter(|hits| **hits > 0).count();
        let _ = writeln!(text, "LH:{hit}");
        let _ = writeln!(text, "LF:{}", file_lines.len());
        text.push_str("end_of_record\n");
    }
    write_atomically(path, &text)
}

/// The records of `text` that another test wrote (whole records, `TN:` to
/// `end_of_record`).
fn others_records(text: &str, test: &str) -> String {
    let ours: String = test
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '_' })
        .collect();
    let mut kept = String::new();
    let mut record = String::new();
    for line in text.lines() {
        record.push_str(line);
        record.push('\n');
        if line == "end_of_record" {
            if record.lines().next() != Some(&format!("TN:{ours}")) {
                kept.push_str(&record);
            }
            record.clear();
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    fn coverage(file: &str, lines: &[(u32, u64)]) -> LineCoverage {
        let mut coverage = LineCoverage::default();
        coverage.files.insert(
            PathBuf::from(file),
            lines.iter().copied().collect::<BTreeMap<_, _>>(),
        );
        coverage
    }

    #[test]
    fn tests_add_records_and_replace_their_own() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lcov.info");
        let shown = |file: &Path| file.display().to_string();
        std::thread::scope(|scope| {
            for t in 0..4 {
                let path = &path;
                scope.spawn(move || {
                    let lines = coverage("contracts/A.sol", &[(3, 7), (4, u64::from(t % 2 == 0))]);
                    add(path, &format!("mod::t{t}"), &lines, &shown).unwrap();
                });
            }
        });
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.matches("end_of_record").count(), 4);
        assert!(
            text.contains(
                "TN:mod__t0\nSF:contracts/A.sol\nDA:3,7\nDA:4,1\nLH:2\nLF:2\nend_of_record\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("TN:mod__t1\nSF:contracts/A.sol\nDA:3,7\nDA:4,0\nLH:1\nLF:2\n"),
            "{text}"
        );
        // t1 again, now with everything hit: its old record goes.
        add(
            &path,
            "mod::t1",
            &coverage("contracts/A.sol", &[(3, 1), (4, 2)]),
            &shown,
        )
        .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.matches("end_of_record").count(), 4);
        assert_eq!(text.matches("TN:mod__t1").count(), 1);
        assert!(
            text.contains("TN:mod__t1\nSF:contracts/A.sol\nDA:3,1\nDA:4,2\n"),
            "{text}"
        );
    }
}
