//! The HTML report of one campaign, and the index of the tests reported into one directory:
//! static pages with their style inline and plots drawn as inline SVG, so that they open
//! from the file system with no network and no script. Plain text in, HTML out: which
//! sources to show, and where the pages go, is decided by the campaign and
//! `output/report_dir`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::outcome::{Outcome, Progress, Stats};

use super::failure::{ViolationDisplay, origin, render_failure, replay_command};
use super::format::{contract_name, duration, percent, thousands};
use super::summary::{length_groups, reach_text, walks};

/// One Solidity source a page shows.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SourceText<'a> {
    /// The path line coverage and places name it by (relative to the project's root).
    pub(crate) path: &'a Path,
    /// Its text, lines broken by LF (as solc read it).
    pub(crate) text: &'a str,
}

/// What a test's page shows: the outcome, the sources it covered, the settings.
#[derive(Debug, Clone)]
pub(crate) struct Page<'a> {
    /// The `cargo test` filter of the test (also the page's title).
    pub(crate) test: &'a str,
    pub(crate) outcome: &'a Outcome,
    /// The sources line coverage names, in the order to show them.
    pub(crate) sources: Vec<SourceText<'a>>,
    /// Every setting's name and value, and whether it is the default.
    pub(crate) settings: Vec<(&'static str, String, bool)>,
}

/// A test's row in the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct IndexRow {
    /// The test's `cargo test` filter.
    pub(crate) test: String,
    /// Its page, relative to the index.
    pub(crate) page: String,
    /// `passed`, `failed` or `untested`.
    pub(crate) verdict: String,
    pub(crate) violations: usize,
    pub(crate) sequences: u64,
    pub(crate) edges: usize,
    /// Lines executed and lines with code.
    pub(crate) lines: (usize, usize),
    /// Targets reached and targets.
    pub(crate) targets: (usize, usize),
    pub(crate) seed: u64,
    pub(crate) elapsed_ms: u64,
}

/// Style shared by the pages (inline in each, so that a page is one file).
const STYLE: &str = "\
body{font-family:system-ui,sans-serif;margin:2em;color:#1b1f24;max-width:80em}\
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #d0d7de}\
table{border-collapse:collapse;margin:.5em 0}td,th{padding:.2em .6em;text-align:left;vertical-align:top}\
th{border-bottom:1px solid #d0d7de}td.n,th.n{text-align:right}\
.passed{color:#1a7f37;font-weight:bold}.failed{color:#cf222e;font-weight:bold}.untested{color:#9a6700;font-weight:bold}\
pre{background:#f6f8fa;padding:.8em;overflow-x:auto}code{font-family:ui-monospace,monospace}\
table.source{font-family:ui-monospace,monospace;font-size:.85em;width:100%}\
table.source td{padding:0 .5em;white-space:pre}table.source td.ln,table.source td.hits{text-align:right;color:#57606a}\
tr.hit td.code{background:#dafbe1}tr.miss td.code{background:#ffebe9}tr.unreachable td.code{background:#eaeef2;color:#57606a}\
tr.target td.ln{border-left:4px solid #0969da}tr.target-missed td.ln{border-left:4px solid #bf8700}\
tr.violation td.code{outline:2px solid #cf222e}\
.legend span{margin-right:1.5em;padding:0 .4em}\
svg.plot{border:1px solid #d0d7de;margin:.5em 1em .5em 0;background:#fff}\
.settings td.default{color:#57606a}";

/// The page of one test.
pub(crate) fn test_page(page: &Page<'_>) -> String {
    let outcome = page.outcome;
    let stats = &outcome.stats;
    let mut out = String::new();
    let title = format!("{} — harvey", page.test);
    head(&mut out, &title);
    let _ = writeln!(
        out,
        "<p><a href=\"../index.html\">All tests</a></p><h1><code>{}</code></h1>",
        escape(page.test)
    );
    let (verdict, class) = verdict(outcome);
    let _ = writeln!(
        out,
        "<p class=\"verdict\"><span class=\"{class}\">{}</span> · seed {} · {} sequences, {} transactions in {} · {} edges · {} corpus entries</p>",
        escape(&verdict),
        stats.seed,
        thousands(stats.sequences),
        thousands(stats.transactions),
        duration(stats.elapsed),
        thousands(stats.edges as u64),
        thousands(stats.corpus as u64),
    );
    if let Some(why) = &outcome.untested {
        let _ = writeln!(out, "<p class=\"untested\">{}</p>", escape(why));
    }
    violations(&mut out, page);
    plots(&mut out, stats);
    targets(&mut out, stats);
    functions(&mut out, stats);
    sources(&mut out, page);
    if !outcome.warnings.is_empty() {
        out.push_str("<h2>Warnings</h2><ul>");
        for warning in &outcome.warnings {
            let _ = write!(out, "<li>{}</li>", escape(warning));
        }
        out.push_str("</ul>\n");
    }
    settings(&mut out, page);
    out.push_str("</body></html>\n");
    out
}

/// The index row of a test's page at `page` (relative to the index).
pub(crate) fn index_row(page: &Page<'_>, href: &str) -> IndexRow {
    let stats = &page.outcome.stats;
    let (_, verdict) = verdict(page.outcome);
    let lines = stats.lines.as_ref().map_or((0, 0), |lines| {
        let counts = || lines.files.values().flat_map(BTreeMap::values);
        (counts().filter(|&&n| n > 0).count(), counts().count())
    });
    IndexRow {
        test: page.test.to_string(),
        page: href.to_string(),
        verdict: verdict.to_string(),
        violations: page.outcome.failures.len(),
        sequences: stats.sequences,
        edges: stats.edges,
        lines,
        targets: (
            stats.targets.iter().filter(|t| t.reached.is_some()).count(),
            stats.targets.len(),
        ),
        seed: stats.seed,
        elapsed_ms: u64::try_from(stats.elapsed.as_millis()).unwrap_or(u64::MAX),
    }
}

/// The index of the tests reported, in test name order.
pub(crate) fn index_page(rows: &[IndexRow]) -> String {
    let mut out = String::new();
    head(&mut out, "harvey report");
    let failed = rows.iter().filter(|r| r.verdict == "failed").count();
    let _ = writeln!(
        out,
        "<h1>harvey report</h1><p>{} tests, <span class=\"{}\">{failed} failed</span></p>",
        rows.len(),
        if failed > 0 { "failed" } else { "passed" }
    );
    out.push_str(
        "<table><tr><th>test</th><th>verdict</th><th class=\"n\">violations</th>\
         <th class=\"n\">sequences</th><th class=\"n\">edges</th><th class=\"n\">lines</th>\
         <th class=\"n\">targets</th><th class=\"n\">time</th><th class=\"n\">seed</th></tr>\n",
    );
    let mut sorted: Vec<&IndexRow> = rows.iter().collect();
    sorted.sort_by(|a, b| a.test.cmp(&b.test));
    for row in sorted {
        let (hit, lines) = row.lines;
        let targets = match row.targets {
            (_, 0) => "-".to_string(),
            (reached, all) => format!("{reached} of {all}"),
        };
        let _ = writeln!(
            out,
            "<tr><td><a href=\"{}\"><code>{}</code></a></td><td class=\"{}\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{targets}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td></tr>",
            escape(&row.page),
            escape(&row.test),
            escape(&row.verdict),
            escape(&row.verdict),
            row.violations,
            thousands(row.sequences),
            thousands(row.edges as u64),
            if lines == 0 {
                "-".to_string()
            } else {
                format!("{hit} of {lines} ({})", percent(hit as u64, lines as u64))
            },
            duration(std::time::Duration::from_millis(row.elapsed_ms)),
            row.seed,
        );
    }
    out.push_str("</table></body></html>\n");
    out
}

/// The document's head, its style, and the body's start.
fn head(out: &mut String, title: &str) {
    let _ = writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{}</title><style>{STYLE}</style></head><body>",
        escape(title)
    );
}

/// The verdict in words, and its class: `passed`, `failed` or `untested`.
fn verdict(outcome: &Outcome) -> (String, &'static str) {
    let missed = outcome.missed_targets().len();
    match outcome.failures.len() {
        0 if outcome.untested.is_some() => ("untested".into(), "untested"),
        // Missed targets fail a campaign only with `require_targets`.
        0 if missed > 0 => (format!("failed: {missed} target(s) not reached"), "failed"),
        0 => ("passed".into(), "passed"),
        1 => ("failed: 1 violation".into(), "failed"),
        n => (format!("failed: {n} violations"), "failed"),
    }
}

/// Each violation: what was violated, the shrunk sequence as the terminal report shows
/// it, and the command that replays it.
fn violations(out: &mut String, page: &Page<'_>) {
    let failures = &page.outcome.failures;
    if failures.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<h2 id=\"violations\">Violations ({})</h2>",
        failures.len()
    );
    for (index, failure) in failures.iter().enumerate() {
        let _ = writeln!(
            out,
            "<h3 class=\"violation\" id=\"violation-{}\">{}</h3>",
            index + 1,
            escape(&ViolationDisplay(&failure.violation, &failure.labels).to_string())
        );
        let mut text = String::new();
        render_failure(&mut text, failure);
        // The first line repeats the heading.
        let body = text.split_once('\n').map_or("", |(_, rest)| rest);
        let _ = writeln!(
            out,
            "<p>Found {}</p><pre class=\"sequence\">{}</pre>",
            escape(&origin(failure)),
            escape(body)
        );
        let _ = writeln!(
            out,
            "<p>Replay: <code class=\"replay\">{}</code></p>",
            escape(&replay_command(failure.seed, page.test))
        );
        if let Some(file) = &failure.regression_file {
            let _ = writeln!(
                out,
                "<p>Saved to <code>{}</code>, replayed first on every run.</p>",
                escape(&file.display().to_string())
            );
        }
    }
}

/// The plots: edges, corpus and violations over the campaign's time, sequences by length.
fn plots(out: &mut String, stats: &Stats) {
    out.push_str("<h2 id=\"plots\">Over the campaign</h2>\n");
    if stats.timeline.is_empty() {
        out.push_str("<p>No fuzzing ran (the campaign ended before it).</p>\n");
        return;
    }
    let over_time = |value: fn(&Progress) -> f64| -> Vec<(f64, f64)> {
        stats
            .timeline
            .iter()
            .map(|p| (p.elapsed.as_secs_f64(), value(p)))
            .collect()
    };
    line_plot(
        out,
        "edges",
        "edges covered",
        &over_time(|p| p.edges as f64),
    );
    line_plot(
        out,
        "corpus",
        "corpus entries",
        &over_time(|p| p.corpus as f64),
    );
    line_plot(
        out,
        "violations",
        "distinct violations",
        &over_time(|p| p.violations as f64),
    );
    let bars = length_groups(&stats.sequencing.runs_by_length);
    // Walks are the long bars; say so, with their share of the transactions.
    let title = match walks(&stats.sequencing, stats.transactions) {
        Some(walks) => format!("sequences by length · {walks}"),
        None => "sequences by length".to_string(),
    };
    bar_plot(out, "lengths", &title, &bars);
}

/// The plots' size, and the margins left for labels.
const PLOT_WIDTH: f64 = 420.0;
const PLOT_HEIGHT: f64 = 180.0;
const MARGIN_LEFT: f64 = 56.0;
const MARGIN_BOTTOM: f64 = 28.0;
const MARGIN_TOP: f64 = 24.0;
const MARGIN_RIGHT: f64 = 12.0;

/// A step plot of `points` (seconds, value), each value held until the next point.
fn line_plot(out: &mut String, id: &str, title: &str, points: &[(f64, f64)]) {
    let x_max = points.iter().map(|p| p.0).fold(0.0, f64::max).max(1e-3);
    let y_max = points.iter().map(|p| p.1).fold(0.0, f64::max).max(1.0);
    let (width, height) = plot_area();
    let x = |t: f64| MARGIN_LEFT + t / x_max * width;
    let y = |v: f64| MARGIN_TOP + height - v / y_max * height;
    let mut path = String::new();
    let mut last: Option<f64> = None;
    for &(t, v) in points {
        match last {
            None => {
                let _ = write!(path, "M{:.1},{:.1}", x(t), y(v));
            }
            Some(before) => {
                let _ = write!(
                    path,
                    " L{:.1},{:.1} L{:.1},{:.1}",
                    x(t),
                    y(before),
                    x(t),
                    y(v)
                );
            }
        }
        last = Some(v);
    }
    plot_frame(out, id, title, y_max, &format!("{:.1}s", x_max));
    let _ = writeln!(
        out,
        "<path d=\"{path}\" fill=\"none\" stroke=\"#0969da\" stroke-width=\"2\"/></svg>"
    );
}

/// A bar plot of labelled counts.
fn bar_plot(out: &mut String, id: &str, title: &str, bars: &[(String, u64)]) {
    let y_max = bars.iter().map(|b| b.1).max().unwrap_or(0).max(1) as f64;
    let (width, height) = plot_area();
    plot_frame(out, id, title, y_max, "");
    let slot = width / bars.len().max(1) as f64;
    for (i, (label, n)) in bars.iter().enumerate() {
        let bar = *n as f64 / y_max * height;
        let left = MARGIN_LEFT + i as f64 * slot;
        let _ = writeln!(
            out,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{bar:.1}\" fill=\"#0969da\"><title>{}: {}</title></rect>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"middle\">{}</text>",
            left + slot * 0.15,
            MARGIN_TOP + height - bar,
            slot * 0.7,
            escape(label),
            thousands(*n),
            left + slot / 2.0,
            PLOT_HEIGHT - 8.0,
            escape(label)
        );
    }
    out.push_str("</svg>\n");
}

/// The width and height inside the margins.
fn plot_area() -> (f64, f64) {
    (
        PLOT_WIDTH - MARGIN_LEFT - MARGIN_RIGHT,
        PLOT_HEIGHT - MARGIN_TOP - MARGIN_BOTTOM,
    )
}

/// Opens a plot's `<svg>`: its title, axes, the top value and the right end's label.
fn plot_frame(out: &mut String, id: &str, title: &str, y_max: f64, x_end: &str) {
    let (width, height) = plot_area();
    let bottom = MARGIN_TOP + height;
    let _ = writeln!(
        out,
        "<svg class=\"plot\" id=\"plot-{id}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{PLOT_WIDTH}\" height=\"{PLOT_HEIGHT}\" role=\"img\" aria-label=\"{title}\">\
         <text x=\"{MARGIN_LEFT}\" y=\"16\" font-size=\"13\" font-weight=\"bold\">{title}</text>\
         <line x1=\"{MARGIN_LEFT}\" y1=\"{MARGIN_TOP}\" x2=\"{MARGIN_LEFT}\" y2=\"{bottom}\" stroke=\"#57606a\"/>\
         <line x1=\"{MARGIN_LEFT}\" y1=\"{bottom}\" x2=\"{:.1}\" y2=\"{bottom}\" stroke=\"#57606a\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"end\">{}</text>\
         <text x=\"{:.1}\" y=\"{bottom}\" font-size=\"10\" text-anchor=\"end\">0</text>\
         <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"end\">{x_end}</text>",
        MARGIN_LEFT + width,
        MARGIN_LEFT - 4.0,
        MARGIN_TOP + 8.0,
        thousands(y_max as u64),
        MARGIN_LEFT - 4.0,
        MARGIN_LEFT + width,
        PLOT_HEIGHT - 8.0,
    );
}

/// The targets, reached or not.
fn targets(out: &mut String, stats: &Stats) {
    if stats.targets.is_empty() {
        return;
    }
    let reached = stats.targets.iter().filter(|t| t.reached.is_some()).count();
    let _ = writeln!(
        out,
        "<h2 id=\"targets\">Targets: {reached} of {} reached</h2><table><tr><th>line</th><th>contract</th><th>reached</th></tr>",
        stats.targets.len()
    );
    for target in &stats.targets {
        let reached = match &target.reached {
            Some(reach) => reach_text(reach, &stats.labels),
            None => "not reached".to_string(),
        };
        let _ = writeln!(
            out,
            "<tr class=\"{}\"><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
            if target.reached.is_some() {
                "reached"
            } else {
                "missed"
            },
            escape(&target.location),
            escape(&target.contract),
            escape(&reached)
        );
    }
    out.push_str("</table>\n");
}

/// Revert causes shown per function.
const CAUSES_SHOWN: usize = 3;

/// Per function: calls, reverts, and the most frequent revert causes.
fn functions(out: &mut String, stats: &Stats) {
    if stats.functions.is_empty() {
        return;
    }
    out.push_str(
        "<h2 id=\"functions\">Functions</h2><table class=\"functions\"><tr><th>function</th>\
         <th class=\"n\">calls</th><th class=\"n\">reverts</th><th>most frequent revert causes</th></tr>\n",
    );
    for function in &stats.functions {
        let top = function.revert_causes.most_frequent();
        let top = &top[..top.len().min(CAUSES_SHOWN)];
        let mut shown: Vec<String> = top
            .iter()
            .map(|(cause, n)| format!("{} × {}", thousands(*n), escape(cause)))
            .collect();
        let rest = function
            .reverts
            .saturating_sub(top.iter().map(|(_, n)| n).sum());
        if rest > 0 && !shown.is_empty() {
            shown.push(format!("{} × other causes", thousands(rest)));
        }
        let _ = writeln!(
            out,
            "<tr><td><code>{}.{}</code></td><td class=\"n\">{}</td><td class=\"n\">{} ({})</td><td>{}</td></tr>",
            escape(&contract_name(
                &function.contract,
                function.address,
                &stats.labels
            )),
            escape(&function.signature),
            thousands(function.calls),
            thousands(function.reverts),
            percent(function.reverts, function.calls),
            shown.join("<br>")
        );
    }
    out.push_str("</table>\n");
}

/// How a source line is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    /// No code of a deployed contract lies on it.
    Plain,
    /// Executed this often.
    Hit(u64),
    /// Code that was never executed.
    Missed,
    /// Code the static analysis proved no call reaches.
    Unreachable,
}

/// The sources with each line's hit count, the targets and the violation sites marked.
fn sources(out: &mut String, page: &Page<'_>) {
    let stats = &page.outcome.stats;
    let Some(lines) = &stats.lines else {
        out.push_str(
            "<h2 id=\"sources\">Sources</h2><p>No line coverage: fuzzing did not run.</p>\n",
        );
        return;
    };
    out.push_str(
        "<h2 id=\"sources\">Sources</h2><p class=\"legend\"><span class=\"hit\" style=\"background:#dafbe1\">executed (count)</span>\
         <span style=\"background:#ffebe9\">never executed</span>\
         <span style=\"background:#eaeef2\">unreachable for the analysis</span>\
         <span style=\"border-left:4px solid #0969da\">target reached</span>\
         <span style=\"border-left:4px solid #bf8700\">target not reached</span>\
         <span style=\"outline:2px solid #cf222e\">violation</span></p>\n",
    );
    // Per file and line: whether a target there was reached, whether a violation is there.
    let mut marks: BTreeMap<(&str, u32), (Option<bool>, bool)> = BTreeMap::new();
    for target in &stats.targets {
        if let Some(at) = file_line(&target.location) {
            marks.entry(at).or_default().0 = Some(target.reached.is_some());
        }
    }
    for failure in &page.outcome.failures {
        if let Some(at) = failure.violation.source_line().and_then(file_line) {
            marks.entry(at).or_default().1 = true;
        }
    }
    for source in &page.sources {
        let shown = source.path.display().to_string();
        let hits = lines.files.get(source.path);
        let unreachable = lines.unreachable.get(source.path);
        let counted = hits.map_or(0, BTreeMap::len);
        let executed = hits.map_or(0, |h| h.values().filter(|&&n| n > 0).count());
        let marked = |line: u32| {
            marks
                .get(&(shown.as_str(), line))
                .copied()
                .unwrap_or_default()
        };
        // Files with a violation or a target are open; the others fold away.
        let open = marks.keys().any(|(file, _)| *file == shown);
        let _ = writeln!(
            out,
            "<details class=\"file\"{}><summary><code>{}</code>: {executed} of {counted} lines executed ({})</summary>\
             <table class=\"source\">",
            if open { " open" } else { "" },
            escape(&shown),
            percent(executed as u64, counted as u64),
        );
        let mut texts: Vec<&str> = source.text.split('\n').collect();
        if texts.last() == Some(&"") {
            texts.pop();
        }
        for (index, text) in texts.into_iter().enumerate() {
            let line = u32::try_from(index + 1).unwrap_or(u32::MAX);
            let kind = match hits.and_then(|h| h.get(&line)) {
                None => LineKind::Plain,
                Some(&n) if n > 0 => LineKind::Hit(n),
                Some(_) if unreachable.is_some_and(|u| u.contains(&line)) => LineKind::Unreachable,
                Some(_) => LineKind::Missed,
            };
            let mut classes = vec![match kind {
                LineKind::Plain => "plain",
                LineKind::Hit(_) => "hit",
                LineKind::Missed => "miss",
                LineKind::Unreachable => "unreachable",
            }];
            let (target, site) = marked(line);
            match target {
                Some(true) => classes.push("target"),
                Some(false) => classes.push("target-missed"),
                None => {}
            }
            if site {
                classes.push("violation");
            }
            let count = match kind {
                LineKind::Hit(n) => thousands(n),
                LineKind::Missed => "0".to_string(),
                LineKind::Plain | LineKind::Unreachable => String::new(),
            };
            let _ = writeln!(
                out,
                "<tr class=\"{}\" id=\"{}-{line}\"><td class=\"ln\">{line}</td><td class=\"hits\">{count}</td><td class=\"code\">{}</td></tr>",
                classes.join(" "),
                escape(&anchor(&shown)),
                escape(text.strip_suffix('\r').unwrap_or(text))
            );
        }
        out.push_str("</table></details>\n");
    }
}

/// The settings, defaults greyed.
fn settings(out: &mut String, page: &Page<'_>) {
    out.push_str("<h2 id=\"settings\">Settings</h2><table class=\"settings\">\n");
    for (name, value, default) in &page.settings {
        let _ = writeln!(
            out,
            "<tr><td><code>{name}</code></td><td class=\"{}\"><code>{}</code></td></tr>",
            if *default { "default" } else { "set" },
            escape(value)
        );
    }
    out.push_str("</table>\n");
}

/// `file:line` split at its last colon, if the line is a number.
fn file_line(text: &str) -> Option<(&str, u32)> {
    let (file, line) = text.rsplit_once(':')?;
    Some((file, line.parse().ok()?))
}

/// An HTML id made of `text`: letters and digits kept, anything else `_`.
fn anchor(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// `text` with HTML's special characters escaped.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::PathBuf;

    use super::*;
    use crate::outcome::LineCoverage;

    #[test]
    fn the_length_plot_says_what_walks_ran() {
        let mut stats = Stats {
            transactions: 2_000,
            timeline: vec![Progress::default()],
            ..Stats::default()
        };
        stats.sequencing.runs_by_length = vec![0, 90, 10];
        let plotted = |stats: &Stats| {
            let mut out = String::new();
            plots(&mut out, stats);
            out
        };
        assert!(!plotted(&stats).contains("random walks"));
        stats.sequencing.walks = 2;
        stats.sequencing.walk_transactions = 1_000;
        let page = plotted(&stats);
        assert!(
            page.contains("sequences by length · random walks: 2 (1,000 transactions, 50% of all)"),
            "{page}"
        );
    }

    #[test]
    fn sources_are_escaped_and_lines_classified() {
        let path = PathBuf::from("src/Odd.sol");
        let text = "// <script>alert('x')</script> é\r\nuint a = 1;\r\nuint b;\r\n";
        let mut lines = LineCoverage::default();
        lines.files.insert(path.clone(), [(2, 7), (3, 0)].into());
        lines.unreachable.insert(path.clone(), BTreeSet::from([3]));
        let outcome = Outcome {
            failures: Vec::new(),
            stats: Stats {
                lines: Some(lines),
                ..Stats::default()
            },
            warnings: Vec::new(),
            require_targets: false,
            untested: None,
        };
        let html = test_page(&Page {
            test: "odd<test>",
            outcome: &outcome,
            sources: vec![SourceText { path: &path, text }],
            settings: vec![("seed", "1".into(), false)],
        });
        assert!(
            !html.contains("<script>") && !html.contains("odd<test>"),
            "{html}"
        );
        assert!(
            html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; é</td>"),
            "{html}"
        );
        assert!(html.contains("class=\"hit\" id=\"src_Odd_sol-2\"><td class=\"ln\">2</td><td class=\"hits\">7</td><td class=\"code\">uint a = 1;</td>"), "{html}");
        assert!(
            html.contains("class=\"unreachable\" id=\"src_Odd_sol-3\""),
            "{html}"
        );
        assert!(
            !html.contains("id=\"src_Odd_sol-4\""),
            "no row after the last line break"
        );
        assert!(html.contains("No fuzzing ran"), "{html}");
        assert!(html.contains("1 of 2 lines executed (50%)"), "{html}");
    }
}
