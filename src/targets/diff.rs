//! Reading `git diff -U0` output: which lines of each file's new version a change touched.

use std::ops::RangeInclusive;
use std::path::PathBuf;

use crate::{Error, Result};

/// A set of 1-based lines of one file, kept as sorted, merged ranges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ChangedLines {
    /// Sorted, disjoint and non-adjacent.
    ranges: Vec<RangeInclusive<u32>>,
}

impl ChangedLines {
    /// The set of the lines in `ranges` (in any order, possibly overlapping).
    pub(crate) fn from_ranges(ranges: impl IntoIterator<Item = RangeInclusive<u32>>) -> Self {
        let mut sorted: Vec<_> = ranges.into_iter().filter(|r| !r.is_empty()).collect();
        sorted.sort_by_key(|r| *r.start());
        let mut merged: Vec<RangeInclusive<u32>> = Vec::with_capacity(sorted.len());
        for range in sorted {
            match merged.last_mut() {
                // Adjacent ranges merge too, so that a source range spanning both is covered.
                Some(last) if *range.start() <= last.end().saturating_add(1) => {
                    *last = *last.start()..=*last.end().max(range.end());
                }
                _ => merged.push(range),
            }
        }
        ChangedLines { ranges: merged }
    }

    /// This set with `lines` added.
    pub(crate) fn with(&self, lines: impl IntoIterator<Item = u32>) -> Self {
        let added = lines.into_iter().map(|line| line..=line);
        Self::from_ranges(self.ranges.iter().cloned().chain(added))
    }

    /// Every line of a file (a file that is new as a whole).
    pub(crate) fn all() -> Self {
        Self::from_ranges([1..=u32::MAX])
    }

    /// Whether every line of `first..=last` is in the set.
    pub(crate) fn covers(&self, first: u32, last: u32) -> bool {
        // Ranges are merged, so a covered span lies inside one of them.
        let i = self.ranges.partition_point(|r| *r.end() < first);
        self.ranges
            .get(i)
            .is_some_and(|r| *r.start() <= first && last <= *r.end())
    }
}

/// One file of a diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileChange {
    /// The path in the new version (the old one for a deleted file), relative to the
    /// repository's top level, as git printed it.
    pub(crate) path: PathBuf,
    /// The new version's added and changed lines; empty for a deleted file or a pure
    /// rename.
    pub(crate) lines: ChangedLines,
    /// Where lines were only removed: the new version's line after which they sat (0: at
    /// the top). Which nearby line stands for the removal is the mapping's choice, since
    /// only it knows which lines hold code.
    pub(crate) deleted_after: Vec<u32>,
}

/// The file section being read: paths seen so far and the hunks' line ranges.
#[derive(Default)]
struct Section {
    old: Option<PathBuf>,
    new: Option<PathBuf>,
    ranges: Vec<RangeInclusive<u32>>,
    deleted_after: Vec<u32>,
}

impl Section {
    fn finish(self) -> Option<FileChange> {
        // A deleted file's hunk (`+0,0`) would mark a version that does not exist.
        let (lines, deleted_after) = match self.new {
            Some(_) => (ChangedLines::from_ranges(self.ranges), self.deleted_after),
            None => (ChangedLines::default(), Vec::new()),
        };
        Some(FileChange {
            path: self.new.or(self.old)?,
            lines,
            deleted_after,
        })
    }
}

/// The files of a `git diff -U0 --src-prefix=a/ --dst-prefix=b/` output with the lines each
/// new version changed.
///
/// Hunk bodies are skipped by count rather than by looking at their first characters: an
/// added line that reads `++ x` is printed as `+++ x` and must not start a new file.
pub(crate) fn parse(diff: &str) -> Result<Vec<FileChange>> {
    let mut files = Vec::new();
    let mut section: Option<Section> = None;
    let mut lines = diff.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("diff --git ") {
            files.extend(section.take().and_then(Section::finish));
            section = Some(Section::default());
            continue;
        }
        let Some(current) = section.as_mut() else {
            continue;
        };
        if let Some(header) = line.strip_prefix("@@ ") {
            let hunk = Hunk::parse(header)?;
            match hunk.changed() {
                Some(range) => current.ranges.push(range),
                None => current.deleted_after.push(hunk.new_start),
            }
            skip_body(&mut lines, &hunk)?;
        } else if let Some(path) = line.strip_prefix("--- ") {
            current.old = header_path(path, "a/");
        } else if let Some(path) = line.strip_prefix("+++ ") {
            current.new = header_path(path, "b/");
        } else if let Some(path) = line.strip_prefix("rename from ") {
            current.old = Some(unquote(path).into());
        } else if let Some(path) = line.strip_prefix("rename to ") {
            current.new = Some(unquote(path).into());
        }
    }
    files.extend(section.and_then(Section::finish));
    Ok(files)
}

/// A hunk header's line counts: `-old_start[,old_count] +new_start[,new_count]`.
#[derive(Debug, PartialEq, Eq)]
struct Hunk {
    old_count: u32,
    new_start: u32,
    new_count: u32,
}

impl Hunk {
    /// Reads the header after its leading `@@ `.
    fn parse(header: &str) -> Result<Hunk> {
        let malformed = || {
            Error::Targets(format!(
                "unreadable hunk header in git's diff: `@@ {header}`"
            ))
        };
        let mut fields = header.split(' ');
        let old = fields.next().and_then(|f| f.strip_prefix('-'));
        let new = fields.next().and_then(|f| f.strip_prefix('+'));
        let (Some((_, old_count)), Some((new_start, new_count))) =
            (old.and_then(start_count), new.and_then(start_count))
        else {
            return Err(malformed());
        };
        Ok(Hunk {
            old_count,
            new_start,
            new_count,
        })
    }

    /// The new version's lines this hunk added or changed; `None` for a pure deletion
    /// (`+c,0`: the removed lines sat after line c).
    fn changed(&self) -> Option<RangeInclusive<u32>> {
        (self.new_count > 0)
            .then(|| self.new_start..=self.new_start.saturating_add(self.new_count - 1))
    }
}

/// `start[,count]`; an omitted count means 1.
fn start_count(field: &str) -> Option<(u32, u32)> {
    match field.split_once(',') {
        Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
        None => Some((field.parse().ok()?, 1)),
    }
}

/// Consumes the body of `hunk`: its removed, added and context lines, and the `\ No newline
/// at end of file` markers between them.
fn skip_body<'a>(lines: &mut impl Iterator<Item = &'a str>, hunk: &Hunk) -> Result<()> {
    let (mut old, mut new) = (hunk.old_count, hunk.new_count);
    while old > 0 || new > 0 {
        let line = lines
            .next()
            .ok_or_else(|| Error::Targets("git's diff output ends inside a hunk".into()))?;
        match line.as_bytes().first() {
            Some(b'-') => old = old.saturating_sub(1),
            Some(b'+') => new = new.saturating_sub(1),
            Some(b' ') => {
                old = old.saturating_sub(1);
                new = new.saturating_sub(1);
            }
            Some(b'\\') => {}
            _ => {
                return Err(Error::Targets(format!(
                    "unexpected line inside a hunk of git's diff: `{line}`"
                )));
            }
        }
    }
    Ok(())
}

/// The path of a `---`/`+++` header without its `a/`/`b/` prefix; `None` for `/dev/null`.
fn header_path(text: &str, prefix: &str) -> Option<PathBuf> {
    // git ends the header with a tab when the name contains a space (for patch(1)).
    let text = text.strip_suffix('\t').unwrap_or(text);
    if text == "/dev/null" {
        return None;
    }
    let path = unquote(text);
    Some(path.strip_prefix(prefix).unwrap_or(&path).into())
}

/// A path as git prints it: verbatim, or C-quoted (`"caf\303\251.sol"`) when it holds bytes
/// outside printable ASCII, quotes or backslashes.
pub(crate) fn unquote(text: &str) -> String {
    let Some(inner) = text
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
    else {
        return text.to_string();
    };
    let mut bytes = Vec::with_capacity(inner.len());
    let mut rest = inner.bytes().peekable();
    while let Some(b) = rest.next() {
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        let Some(escaped) = rest.next() else {
            bytes.push(b'\\');
            break;
        };
        bytes.push(match escaped {
            b'a' => 0x07,
            b'b' => 0x08,
            b't' => b'\t',
            b'n' => b'\n',
            b'v' => 0x0b,
            b'f' => 0x0c,
            b'r' => b'\r',
            b'0'..=b'7' => {
                // Up to three octal digits: one byte of the (UTF-8) name.
                let mut value = u32::from(escaped - b'0');
                for _ in 0..2 {
                    match rest.peek() {
                        Some(&d @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(d - b'0');
                            rest.next();
                        }
                        _ => break,
                    }
                }
                value as u8
            }
            other => other,
        });
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(ranges: &[RangeInclusive<u32>]) -> ChangedLines {
        ChangedLines::from_ranges(ranges.iter().cloned())
    }

    fn change(path: &str, ranges: &[RangeInclusive<u32>]) -> FileChange {
        FileChange {
            path: path.into(),
            lines: lines(ranges),
            deleted_after: Vec::new(),
        }
    }

    #[test]
    fn added_lines() {
        let diff = "diff --git a/src/V.sol b/src/V.sol
index 1..2 100644
--- a/src/V.sol
+++ b/src/V.sol
@@ -4,0 +5,2 @@ contract V {
+    uint256 a;
+    uint256 b;
";
        assert_eq!(parse(diff).unwrap(), vec![change("src/V.sol", &[5..=6])]);
    }

    #[test]
    fn lines_ending_in_crlf_count_as_git_counts_them() {
        // A file with CRLF line breaks: git prints each body line with its `\r`, and the
        // hunk header's function context too. A lone `\r` inside a line breaks no line,
        // for git as for the source maps' line index.
        let diff = "diff --git a/W.sol b/W.sol\n--- a/W.sol\n+++ b/W.sol\n\
                    @@ -3 +3,2 @@ contract W {\r\n-    uint a;\r\n+    uint b;\r\n+    // x\ry\r\n\
                    @@ -9,0 +11 @@ contract W {\r\n+}\r\n";
        assert_eq!(parse(diff).unwrap(), vec![change("W.sol", &[3..=4, 11..=11])]);
    }

    #[test]
    fn changed_line_with_omitted_counts() {
        let diff = "diff --git a/V.sol b/V.sol
--- a/V.sol
+++ b/V.sol
@@ -7 +7 @@ function f() {
-        x = 1;
+        x = 2;
";
        assert_eq!(parse(diff).unwrap(), vec![change("V.sol", &[7..=7])]);
    }

    #[test]
    fn a_pure_deletion_is_a_point_between_lines() {
        let diff = "diff --git a/V.sol b/V.sol
--- a/V.sol
+++ b/V.sol
@@ -8,2 +7,0 @@ function f() {
-        x = 1;
-        y = 1;
@@ -12 +10 @@ function g() {
-        z = 1;
+        z = 2;
";
        assert_eq!(
            parse(diff).unwrap(),
            vec![FileChange {
                deleted_after: vec![7],
                ..change("V.sol", &[10..=10])
            }]
        );
    }

    #[test]
    fn multiple_hunks_and_files() {
        let diff = "diff --git a/A.sol b/A.sol
--- a/A.sol
+++ b/A.sol
@@ -2 +2 @@
-a
+A
@@ -10,3 +10,2 @@
-b
-c
-d
+B
+C
\\ No newline at end of file
diff --git a/B.sol b/B.sol
--- a/B.sol
+++ b/B.sol
@@ -1,0 +2 @@
+++ added line that reads like a header
@@ -3,0 +4 @@
+x
";
        assert_eq!(
            parse(diff).unwrap(),
            vec![
                change("A.sol", &[2..=2, 10..=11]),
                change("B.sol", &[2..=2, 4..=4])
            ]
        );
    }

    #[test]
    fn new_file_is_changed_throughout() {
        let diff = "diff --git a/N.sol b/N.sol
new file mode 100644
index 0000000..8ba3a16
--- /dev/null
+++ b/N.sol
@@ -0,0 +1,3 @@
+a
+b
+c
";
        assert_eq!(parse(diff).unwrap(), vec![change("N.sol", &[1..=3])]);
    }

    #[test]
    fn renamed_files_take_the_new_path() {
        let diff = "diff --git a/c/A.sol b/c/B.sol
similarity index 50%
rename from c/A.sol
rename to c/B.sol
index d68dd40..760e56e 100644
--- a/c/A.sol
+++ b/c/B.sol
@@ -2,2 +2 @@ a
-b
-c
+B
diff --git a/c/Same.sol b/c/Moved.sol
similarity index 100%
rename from c/Same.sol
rename to c/Moved.sol
";
        assert_eq!(
            parse(diff).unwrap(),
            vec![change("c/B.sol", &[2..=2]), change("c/Moved.sol", &[])]
        );
    }

    #[test]
    fn deleted_file_keeps_its_old_path_and_no_lines() {
        let diff = "diff --git a/Gone.sol b/Gone.sol
deleted file mode 100644
--- a/Gone.sol
+++ /dev/null
@@ -1,2 +0,0 @@
-a
-b
";
        assert_eq!(parse(diff).unwrap(), vec![change("Gone.sol", &[])]);
    }

    #[test]
    fn quoted_paths_are_unquoted() {
        let diff = "diff --git \"a/sp ace \\303\\251.sol\" \"b/sp ace \\303\\251.sol\"
--- \"a/sp ace \\303\\251.sol\"\t
+++ \"b/sp ace \\303\\251.sol\"\t
@@ -2 +1,0 @@ x
-y
";
        assert_eq!(
            parse(diff).unwrap(),
            vec![FileChange {
                deleted_after: vec![1],
                ..change("sp ace é.sol", &[])
            }]
        );
        assert_eq!(unquote("\"a\\\"b\\\\c\\td\""), "a\"b\\c\td");
        assert_eq!(unquote("plain name.sol"), "plain name.sol");
    }

    #[test]
    fn malformed_output_is_an_error() {
        for diff in [
            "diff --git a/A b/A\n@@ -x +1 @@\n+a\n",
            "diff --git a/A b/A\n@@ -1 +1,2 @@\n+a\n",
            "diff --git a/A b/A\n@@ -1 +1 @@\nnot a hunk line\n",
        ] {
            assert!(matches!(parse(diff), Err(Error::Targets(_))), "{diff}");
        }
    }

    #[test]
    fn changed_lines_merge_and_cover() {
        let set = lines(&[5..=6, 1..=2, 3..=3, 9..=9]);
        assert_eq!(set, lines(&[1..=3, 5..=6, 9..=9]));
        assert!(set.covers(1, 3) && set.covers(2, 2) && set.covers(9, 9));
        assert!(!set.covers(3, 5) && !set.covers(4, 4) && !set.covers(8, 9));
        assert!(ChangedLines::all().covers(1, u32::MAX));
        assert_eq!(set.with([4, 12]), lines(&[1..=6, 9..=9, 12..=12]));
        assert!(!ChangedLines::default().covers(1, 1));
    }
}
