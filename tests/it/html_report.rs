//! The HTML report (`report = "dir"`, issue 32): a page per test with the violation's
//! sequence, the sources' hit counts, the targets, plots and revert causes, and one index
//! of the tests written into the directory; rendered by a real browser in `.ci/run`.

use std::path::{Path, PathBuf};

use crate::support::{campaign_on, repo};

/// The planted bug of `PoolFactory`: in the pools it creates.
const POOL_ASSERT: &str = "contracts/factories/Pools.sol:42";

/// Writes the report of two campaigns into `dir`: the pool factory (a violation in a
/// created contract, targeted lines in it, reverts with reasons) and the guarded counter
/// (which passes). Returns the pool factory's page.
fn write_report(dir: &Path) -> PathBuf {
    let report = dir.to_str().unwrap();
    let outcome = campaign_on(repo())
        .name("report::pools")
        .contract("PoolFactory")
        .seed(1)
        .runs(3_000)
        .fail_fast(false)
        .targets(
            "contracts/factories/Pools.sol:11,contracts/factories/Pools.sol:12"
                .parse()
                .unwrap(),
        )
        .report(report)
        .run()
        .unwrap();
    assert!(
        outcome
            .failures
            .iter()
            .any(|f| f.violation.source_line() == Some(POOL_ASSERT)),
        "the planted bug was not found: {outcome}"
    );
    campaign_on(repo())
        .name("report::guarded")
        .contract("Guarded")
        .seed(2)
        .runs(500)
        .report(report)
        .run()
        .unwrap();
    dir.join("tests/report.pools.html")
}

/// The row of `line` of the source `file` on `page`.
fn source_row<'a>(page: &'a str, file: &str, line: u32) -> &'a str {
    let id: String = file
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let start = page
        .find(&format!("id=\"{id}-{line}\""))
        .unwrap_or_else(|| panic!("no row for {file}:{line}"));
    let row_start = page[..start].rfind("<tr").unwrap();
    let end = start + page[start..].find("</tr>").unwrap();
    &page[row_start..end]
}

/// The hit count a source row shows.
fn hits(row: &str) -> Option<u64> {
    let cell = row.split("class=\"hits\">").nth(1)?.split('<').next()?;
    cell.replace(',', "").parse().ok()
}

#[test]
fn the_report_shows_the_violation_counts_targets_plots_and_reverts() {
    let dir = tempfile::tempdir().unwrap();
    let page = std::fs::read_to_string(write_report(dir.path())).unwrap();
    // The violation: its message at its line, the shrunk sequence through the created
    // pool, the replay command.
    assert!(
        page.contains("Solidity Panic(0x01): assertion failed at contracts/factories/Pools.sol:42"),
        "{page}"
    );
    let sequence = page.split("<pre class=\"sequence\">").nth(1).unwrap();
    assert!(
        sequence.contains("createPool") && sequence.contains("withdraw"),
        "{sequence}"
    );
    assert!(
        page.contains("HARVEY_SEED=1 cargo test report::pools"),
        "{page}"
    );
    // Hit counts in the created pool's code; the violation's line is marked.
    let deposit = source_row(&page, "contracts/factories/Pools.sol", 31);
    assert!(
        deposit.contains("class=\"hit") && hits(deposit) > Some(1),
        "{deposit}"
    );
    let assert_row = source_row(&page, "contracts/factories/Pools.sol", 42);
    assert!(assert_row.contains("violation"), "{assert_row}");
    let target = source_row(&page, "contracts/factories/Pools.sol", 11);
    assert!(target.contains("hit target"), "{target}");
    // A comment has no code; a target reached is marked so.
    let comment = source_row(&page, "contracts/factories/Pools.sol", 4);
    assert!(
        comment.contains("class=\"plain") && hits(comment).is_none(),
        "{comment}"
    );
    assert!(page.contains("Targets: 2 of 2 reached"), "{page}");
    // The plots, with a curve each.
    for plot in ["edges", "corpus", "violations", "lengths"] {
        let svg = page
            .split(&format!("id=\"plot-{plot}\""))
            .nth(1)
            .unwrap_or_else(|| panic!("no {plot} plot"));
        let svg = svg.split("</svg>").next().unwrap();
        assert!(
            svg.contains("<path d=\"M") || svg.contains("<rect"),
            "{plot}: {svg}"
        );
    }
    // Why functions reverted, by cause.
    assert!(
        page.contains("× Error(&quot;fee out of range&quot;)"),
        "{page}"
    );
    // The settings and the seed.
    assert!(
        page.contains("<code>seed</code></td><td class=\"set\"><code>1</code>"),
        "{page}"
    );
    // The index lists both tests, linking their pages.
    let index = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    assert!(
        index.contains("href=\"tests/report.pools.html\""),
        "{index}"
    );
    assert!(
        index.contains("href=\"tests/report.guarded.html\""),
        "{index}"
    );
    assert!(index.contains("2 tests"), "{index}");
}

/// Headless Chromium (Debian's `chromium`; `.ci/run` installs it and runs this with
/// `--ignored`) loads the page from the file system: the rendered DOM has the violation,
/// a hit count and the plots.
#[test]
#[ignore = "needs chromium (apt-get install chromium); .ci/run runs it"]
fn chromium_renders_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let page = write_report(dir.path());
    let rendered = std::process::Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--allow-file-access-from-files",
            "--dump-dom",
        ])
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs (apt-get install chromium)");
    let dom = String::from_utf8_lossy(&rendered.stdout);
    assert!(
        rendered.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&rendered.stderr)
    );
    assert!(
        dom.contains("assertion failed at contracts/factories/Pools.sol:42"),
        "{dom}"
    );
    let sequence = dom
        .split("<pre class=\"sequence\">")
        .nth(1)
        .unwrap_or_default();
    assert!(sequence.contains("PoolFactory.createPool"), "{sequence}");
    let deposit = source_row(&dom, "contracts/factories/Pools.sol", 31);
    assert!(hits(deposit) > Some(1), "{deposit}");
    assert_eq!(dom.matches("<svg class=\"plot\"").count(), 4, "{dom}");
    assert!(dom.contains("<path d=\"M"), "{dom}");
}

/// Code the lookahead analysis proves no call reaches (a branch on a constant, kept without
/// the optimizer) is told apart from code fuzzing merely missed: in the line coverage and on
/// the page.
#[test]
fn lines_no_call_can_reach_are_marked_unreachable() {
    let dir = tempfile::tempdir().unwrap();
    let outcome = campaign_on(repo())
        .name("report::dead")
        .contract("DeadBranch")
        .seed(1)
        .runs(300)
        .report(dir.path().to_str().unwrap())
        .run()
        .unwrap();
    let dead = std::path::Path::new("contracts/report/Dead.sol");
    let lines = outcome.stats.lines.as_ref().unwrap();
    assert_eq!(lines.files[dead].get(&19), Some(&0), "{lines:?}");
    assert_eq!(
        lines
            .unreachable
            .get(dead)
            .map(|l| l.iter().copied().collect::<Vec<_>>()),
        Some(vec![19]),
        "only the dead branch's line"
    );
    let page = std::fs::read_to_string(dir.path().join("tests/report.dead.html")).unwrap();
    let row = source_row(&page, "contracts/report/Dead.sol", 19);
    assert!(row.contains("class=\"unreachable"), "{row}");
    assert!(hits(row).is_none(), "{row}");
    let after = source_row(&page, "contracts/report/Dead.sol", 21);
    assert!(after.contains("class=\"hit"), "{after}");
}
