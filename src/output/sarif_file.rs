//! The SARIF file tests add their findings to (`sarif = "file"`, `HARVEY_SARIF`): one run of
//! the `harvey` tool holding every test's results, merged under a lock file since tests
//! write it from parallel threads (`cargo test`) or processes (`cargo nextest`). A test's
//! results replace the ones it added before; a file that is not harvey's SARIF is never
//! overwritten.

use std::path::Path;

use serde_json::{Value, json};

use crate::output::file_lock::{FileLock, write_atomically};
use crate::{Error, Result};

/// Adds test `test`'s `rules` and `results` to the SARIF file at `path` (creating it),
/// replacing the results `test` added before.
pub(crate) fn add(path: &Path, test: &str, rules: Vec<Value>, results: Vec<Value>) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, &e))?;
    }
    let _lock = FileLock::take(path)?;
    let mut log = match std::fs::read_to_string(path) {
        Ok(text) if !text.trim().is_empty() => harvey_log(path, &text)?,
        Ok(_) => empty_log(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => empty_log(),
        Err(e) => return Err(Error::io(path, &e)),
    };
    let run = &mut log["runs"][0];
    let known = run["tool"]["driver"]["rules"]
        .as_array_mut()
        .expect("harvey_log checked the rules array");
    for rule in rules {
        if !known.iter().any(|k| k["id"] == rule["id"]) {
            known.push(rule);
        }
    }
    let kept = run["results"]
        .as_array_mut()
        .expect("harvey_log checked the results array");
    kept.retain(|result| result["properties"]["test"] != test);
    kept.extend(results);
    let mut text = serde_json::to_string_pretty(&log).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    text.push('\n');
    write_atomically(path, &text)
}

/// A SARIF log with one empty harvey run (the crate has no published home page yet, so
/// the driver names no `informationUri`).
fn empty_log() -> Value {
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "harvey",
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "rules": [],
                }
            },
            "results": [],
        }],
    })
}

/// `text` as a SARIF log harvey wrote; anything else is an error (it is not ours to
/// overwrite).
fn harvey_log(path: &Path, text: &str) -> Result<Value> {
    let not_ours = |why: &str| Error::Io {
        path: path.to_path_buf(),
        message: format!(
            "{why}: not a SARIF file harvey writes; give harvey a file of its own (or delete this one)"
        ),
    };
    let log: Value = serde_json::from_str(text).map_err(|e| not_ours(&e.to_string()))?;
    let run = &log["runs"][0];
    if log["version"] != "2.1.0" || run["tool"]["driver"]["name"] != "harvey" {
        return Err(not_ours("its first run is not harvey's SARIF 2.1.0 run"));
    }
    if !run["tool"]["driver"]["rules"].is_array() || !run["results"].is_array() {
        return Err(not_ours("its run has no rules or results array"));
    }
    Ok(log)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(test: &str, rule: &str) -> Value {
        json!({ "ruleId": rule, "message": { "text": "m" }, "properties": { "test": test } })
    }

    #[test]
    fn parallel_writers_merge_and_a_test_replaces_its_own_results() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out").join("harvey.sarif");
        std::thread::scope(|scope| {
            for t in 0..8 {
                let path = &path;
                scope.spawn(move || {
                    let rule = json!({ "id": format!("r{}", t % 2) });
                    add(
                        path,
                        &format!("t{t}"),
                        vec![rule],
                        vec![result(&format!("t{t}"), "r")],
                    )
                    .unwrap();
                });
            }
        });
        let log: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), 8);
        assert_eq!(
            log["runs"][0]["tool"]["driver"]["rules"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
        // Test t3 again, with two results: its old one goes.
        add(
            &path,
            "t3",
            vec![],
            vec![result("t3", "a"), result("t3", "b")],
        )
        .unwrap();
        let log: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let results = log["runs"][0]["results"].as_array().unwrap();
        assert_eq!(results.len(), 9);
        assert_eq!(
            results
                .iter()
                .filter(|r| r["properties"]["test"] == "t3")
                .count(),
            2
        );
        assert!(!crate::output::file_lock::lock_path(&path).exists());
    }

    #[test]
    fn a_file_that_is_not_harveys_sarif_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("other.sarif");
        let theirs =
            r#"{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"semgrep"}},"results":[]}]}"#;
        std::fs::write(&path, theirs).unwrap();
        let err = add(&path, "t", vec![], vec![]).unwrap_err().to_string();
        assert!(err.contains("not a SARIF file harvey writes"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), theirs);
        std::fs::write(&path, "garbage").unwrap();
        assert!(add(&path, "t", vec![], vec![]).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "garbage");
    }
}
