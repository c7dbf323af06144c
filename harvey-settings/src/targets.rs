//! The target specification a person writes, in the attribute (`targets = "..."`) or in
//! `HARVEY_TARGETS`: `diff:<rev>`, or a comma-separated list of `file:line`.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use crate::Invalid;

type Result<T> = std::result::Result<T, Invalid>;

/// What targeted fuzzing aims at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetSpec {
    /// `diff:<rev>`: every Solidity line that differs between `rev` and the working tree, so
    /// uncommitted (and untracked) changes count too.
    Diff {
        /// The revision as git understands it: `origin/main`, `HEAD~1`, a commit hash.
        rev: String,
    },
    /// `file:line,...`: explicit source lines.
    Lines(Vec<SourceLine>),
}

/// One explicitly named source line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLine {
    /// The Solidity file, relative to the project root (or absolute).
    pub file: PathBuf,
    /// The 1-based line in it.
    pub line: u32,
}

/// Appended to every syntax error, so the message says what would have been accepted.
const ACCEPTED: &str = "accepted forms: `diff:<rev>` (e.g. `diff:origin/main`, `diff:HEAD~1`) \
     or comma-separated `file:line` (e.g. `src/Vault.sol:42,src/Token.sol:7`)";

impl FromStr for TargetSpec {
    type Err = Invalid;

    /// Parses `diff:<rev>` or `file:line[,file:line...]`; surrounding whitespace is ignored,
    /// and so are empty items (a trailing comma).
    fn from_str(text: &str) -> Result<Self> {
        let text = text.trim();
        if let Some(rev) = text.strip_prefix("diff:") {
            let rev = rev.trim();
            if rev.is_empty() {
                return Err(bad(text, "the revision after `diff:` is missing"));
            }
            // git would read a leading dash as an option, never as a revision.
            if rev.starts_with('-') {
                return Err(bad(text, "a revision cannot start with `-`"));
            }
            return Ok(TargetSpec::Diff {
                rev: rev.to_string(),
            });
        }
        let lines = text
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(|item| parse_line(text, item))
            .collect::<Result<Vec<_>>>()?;
        if lines.is_empty() {
            return Err(bad(text, "no target given"));
        }
        Ok(TargetSpec::Lines(lines))
    }
}

/// One `file:line` item of `text`.
fn parse_line(text: &str, item: &str) -> Result<SourceLine> {
    let parsed = item.rsplit_once(':').and_then(|(file, line)| {
        let line = line.trim().parse::<u32>().ok().filter(|&l| l >= 1)?;
        let file = file.trim();
        (!file.is_empty()).then(|| SourceLine {
            file: PathBuf::from(file),
            line,
        })
    });
    parsed.ok_or_else(|| {
        bad(
            text,
            &format!("`{item}` is not `file:line` with a line number of at least 1"),
        )
    })
}

fn bad(text: &str, problem: &str) -> Invalid {
    Invalid::new(format!("invalid targets `{text}`: {problem}; {ACCEPTED}"))
}

impl fmt::Display for TargetSpec {
    /// The spelling [`TargetSpec::from_str`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetSpec::Diff { rev } => write!(f, "diff:{rev}"),
            TargetSpec::Lines(lines) => {
                for (i, SourceLine { file, line }) in lines.iter().enumerate() {
                    let comma = if i == 0 { "" } else { "," };
                    write!(f, "{comma}{}:{line}", file.display())?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(file: &str, line: u32) -> SourceLine {
        SourceLine {
            file: file.into(),
            line,
        }
    }

    #[test]
    fn diff_takes_any_revision() {
        for rev in ["origin/main", "HEAD~1", "abc123", "HEAD@{1 day ago}"] {
            let spec: TargetSpec = format!(" diff:{rev} ").parse().unwrap();
            assert_eq!(spec, TargetSpec::Diff { rev: rev.into() });
            assert_eq!(spec.to_string().parse::<TargetSpec>().unwrap(), spec);
        }
    }

    #[test]
    fn lines_are_comma_separated_file_colon_line() {
        let spec: TargetSpec = "src/Vault.sol:42, contracts/X.sol:7,".parse().unwrap();
        assert_eq!(
            spec,
            TargetSpec::Lines(vec![line("src/Vault.sol", 42), line("contracts/X.sol", 7)])
        );
        assert_eq!(spec.to_string(), "src/Vault.sol:42,contracts/X.sol:7");
    }

    #[test]
    fn only_the_last_colon_separates_the_line() {
        let spec: TargetSpec = "C:/work/Vault.sol:3".parse().unwrap();
        assert_eq!(spec, TargetSpec::Lines(vec![line("C:/work/Vault.sol", 3)]));
    }

    #[test]
    fn bad_syntax_names_the_accepted_forms() {
        for text in [
            "",
            " , ",
            "diff:",
            "diff:--output=x",
            "HEAD~1",
            "src/Vault.sol",
            "src/Vault.sol:0",
            "src/Vault.sol:-3",
            ":12",
            "src/Vault.sol:4x",
            "a.sol:1,b.sol",
        ] {
            let err = text.parse::<TargetSpec>().unwrap_err();
            let message = err.to_string();
            assert!(message.starts_with("invalid targets"), "{text}: {message}");
            assert!(
                message.contains("`diff:<rev>`") && message.contains("`file:line`"),
                "{text}: {message}"
            );
        }
    }
}
