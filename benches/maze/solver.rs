//! Which of a large maze's assertions can fail, decided by an SMT solver: z3 (`HARVEY_Z3`,
//! as harvey finds it, else `z3` on `PATH`, e.g. Debian's package) over the integers, each parameter in `[0, 2^64)`,
//! the constraints as the contract computes them in `uint256` (no sum or product of these
//! magnitudes wraps). A satisfiable assertion's model is its witness, which the bench then
//! replays on a chain, so a wrong verdict would show.

use std::io::Write;
use std::process::{Command, Stdio};

use super::constraint::{Args, Constraint, PARAMS};

/// Seconds z3 may spend on one assertion.
const TIMEOUT_SECS: u32 = 15;

/// What the solver says of one conjunction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Satisfiable, with arguments that satisfy it.
    Feasible(Args),
    /// No arguments satisfy it.
    Infeasible,
    /// The solver gave up (timeout, or a nonlinear problem it could not decide).
    Unknown,
}

/// The verdict on `constraints`; panics when z3 is missing or answers nonsense (the bench
/// cannot count without it). z3 is asked first without the parameters' upper bound —
/// over the naturals, where its nonlinear arithmetic answers at once what it cannot in
/// the box `[0, 2^64)` (an `unsat` there holds in the box too; a model inside the box is
/// a model of it) — and only with the bound when its model lies outside.
pub(crate) fn decide(constraints: &[Constraint]) -> Verdict {
    match ask(constraints, false) {
        Answer::Model(None) => match ask(constraints, true) {
            Answer::Model(Some(args)) => Verdict::Feasible(args),
            Answer::Unsat => Verdict::Infeasible,
            Answer::Model(None) | Answer::Unknown => Verdict::Unknown,
        },
        Answer::Model(Some(args)) => Verdict::Feasible(args),
        Answer::Unsat => Verdict::Infeasible,
        Answer::Unknown => Verdict::Unknown,
    }
}

/// What one z3 query answered.
enum Answer {
    /// `sat`, with the model's arguments when they fit `uint64`s.
    Model(Option<Args>),
    Unsat,
    /// `unknown`, or out of time.
    Unknown,
}

/// z3's answer on `constraints` over the naturals, or (`bounded`) inside `[0, 2^64)`. A z3
/// that printed nothing (it happened once on a loaded machine, beside another bench's z3)
/// is asked again; a second silence counts as `unknown`, with a warning.
fn ask(constraints: &[Constraint], bounded: bool) -> Answer {
    let mut script = String::new();
    for (name, _) in PARAMS {
        script.push_str(&format!(
            "(declare-const {name} Int)\n(assert (<= 0 {name}))\n"
        ));
        if bounded {
            script.push_str(&format!("(assert (< {name} 18446744073709551616))\n"));
        }
    }
    for c in constraints {
        script.push_str(&format!("(assert {})\n", c.smt()));
    }
    let names: Vec<&str> = PARAMS.iter().map(|(name, _)| *name).collect();
    script.push_str(&format!("(check-sat)\n(get-value ({}))\n", names.join(" ")));
    for attempt in 1..=2 {
        match run_z3(&script, &names) {
            Ok(answer) => return answer,
            Err(ended) => eprintln!("z3 printed nothing (attempt {attempt} of 2): {ended}"),
        }
    }
    Answer::Unknown
}

/// Runs z3 on `script`, which asks for the values of `names`: its answer, or how z3 ended
/// when it printed nothing.
fn run_z3(script: &str, names: &[&str]) -> Result<Answer, String> {
    let z3 = std::env::var_os("HARVEY_Z3").unwrap_or_else(|| "z3".into());
    let mut child = Command::new(z3)
        .args(["-in", "-smt2", &format!("-T:{TIMEOUT_SECS}")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("the large mazes need z3 to count their feasible assertions (apt-get install z3): {e}")
        });
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(script.as_bytes())
        .expect("z3 reads the script");
    let output = child.wait_with_output().expect("z3 runs");
    let text = String::from_utf8_lossy(&output.stdout);
    let answer = match text.lines().next().map(str::trim) {
        Some("sat") => Answer::Model(model(&text, names)),
        Some("unsat") => Answer::Unsat,
        Some("unknown") | Some("timeout") => Answer::Unknown,
        None => {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(format!("{}, stderr: {}", output.status, stderr.trim()));
        }
        other => panic!("z3 answered {other:?} to:\n{script}\n{text}"),
    };
    Ok(answer)
}

/// The parameters' values in z3's `get-value` answer, `((a 12)\n (b 7) …)`; `None` when
/// one does not fit a `uint64`.
fn model(text: &str, names: &[&str]) -> Option<Args> {
    let mut args: Args = [0; PARAMS.len()];
    let tokens: Vec<&str> = text
        .split(|c: char| c == '(' || c == ')' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .collect();
    for (i, name) in names.iter().enumerate() {
        let at = tokens
            .iter()
            .position(|t| t == name)
            .unwrap_or_else(|| panic!("z3's model has no value for {name}: {text}"));
        args[i] = tokens[at + 1].parse().ok()?;
    }
    Some(args)
}
