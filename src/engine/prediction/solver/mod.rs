//! The solver-backed step of input prediction (issue 30, after ConFuzzius): for a branch of
//! a call that prediction (the secant and joint prediction) could not flip, the call is run
//! once with its own frame followed symbolically (`observe::symbolic`), the branches before
//! the wanted one are kept as they went and the wanted one flipped, and z3 is asked for
//! argument words that satisfy that path condition. A model is a proposal: the worker runs
//! it, and the run says whether the branch flipped.
//!
//! z3 is the `z3` program the campaign names (`HARVEY_Z3`, else `z3` on `PATH`), spoken to
//! over SMT-LIB; easy-smt builds the terms, `process` runs z3 with a deadline on every
//! answer. The whole module exists only with the `solver` cargo feature. Each check has a
//! resource limit ([`RLIMIT`], z3's deterministic budget, not a time limit) so that answers
//! do not depend on the machine's load; z3 does not always keep it, so the caller gives
//! every exchange a wall-clock deadline too, past which the process is killed
//! ([`Failed::Late`]). The path condition is encoded over the integers (`encode`); upper
//! bounds of the argument words are left out of the first check (with them, z3's
//! nonlinear integer arithmetic often answers `unknown`) and added in a second only if the
//! first model lies outside them.

mod ahead;
mod encode;
mod process;
mod roots;

use std::time::Instant;

use alloy_primitives::{Address, I256, U256};
use easy_smt::{Context, ContextBuilder, SExpr};

use crate::engine::prediction::Z3Program;
use crate::engine::prediction::secant::{Domain, Wide, wide, wide_signed};
use crate::observe::symbolic::{CONCRETE, PathCondition, Term, TermId, UnaryOp};
pub(crate) use ahead::{conjunction_end, next_forced};
use encode::{Encoder, arg_name};
pub(crate) use process::Failed;
use process::{Process, clip};

/// z3's resource limit per check, its deterministic budget (measured with z3 4.8.12: 300,000
/// ran out after 0.4 s on a bounded nonlinear query that a plain check answers in
/// milliseconds; 2,000,000 took 35 s on a modular one).
const RLIMIT: u64 = 500_000;

/// z3's time limit per check, in milliseconds: a guard for versions whose resource units
/// buy more time than [`RLIMIT`] means to (the budget, not this, should end a check, so
/// that answers do not depend on the machine's load). z3 keeps it no better than the
/// budget; the caller's deadline is the bound harvey enforces.
const TIMEOUT_MS: u64 = 5_000;

/// A running z3.
pub(crate) struct Solver {
    /// Builds and prints the terms (easy-smt without a process of its own).
    ctx: Context,
    process: Process,
    /// Commands sent whose `success` has not been read yet: the set-up of a launched z3
    /// and each check's `pop`, sent without waiting. z3 answers in order, so these are
    /// read before the next answer waited for; the worker does not wait for z3 to set up
    /// or to leave a scope.
    unacknowledged: Vec<String>,
}

/// What z3 said about a path condition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Answer {
    /// Argument words (by head index) that satisfy it, each inside its domain.
    Model(Vec<(u32, U256)>),
    /// No argument words do (with the others as they are).
    Unsat,
    /// z3 ran out of its budget.
    Unknown,
    /// The wanted branch's condition is not one the follower could express.
    Unencodable,
}

/// Which branches before the wanted one a question asserts as they went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Question {
    /// All of them, but those that test the value the wanted one tests (see
    /// [`constrains`]).
    AsTheyWent,
    /// As [`Question::AsTheyWent`], without the conjuncts that held in earlier conjunctions
    /// that failed (see [`released`]): asked when the first question has no answer, so
    /// that an earlier `if` on the same arguments may fail at another conjunct than the
    /// one that failed in this run.
    Released,
    /// As [`Question::AsTheyWent`] (or [`Question::Released`]) on a path whose JUMPIs
    /// after the wanted one were forced (the look-ahead, see `ahead`): also the branches
    /// after the wanted one up to index `through` as they went, but later tests of a value
    /// already asserted.
    Ahead {
        /// The last forced branch's index in the path.
        through: usize,
        /// Whether the branches before the wanted one are as [`Question::Released`] leaves
        /// them.
        released: bool,
    },
}

/// Whether a [`Question::Released`] on the `nth` JUMPI at `(code, pc)` in `path` differs
/// from the first question: it leaves out a branch the first one asserted.
pub(crate) fn releases(path: &PathCondition, (code, pc, nth): (Address, u32, u32)) -> bool {
    path.branch_index(code, pc, nth).is_some_and(|target| {
        let released = released(path, target);
        (0..target).any(|i| released[i] && constrains(path, i, target))
    })
}

/// One check: the argument words, each at least 0 and within its bound when there is one,
/// then `body`, the named terms' definitions and the assertions as commands (rendered once
/// for both checks of a query).
struct Query<'q> {
    args: &'q [u32],
    bounds: &'q [Option<SExpr>],
    body: &'q [String],
}

impl Solver {
    /// Starts `z3` and sets it up; `Err` when it cannot be started, or has not answered
    /// the set-up commands by `deadline` ([`Failed::Late`]) or answered them wrongly.
    #[cfg(test)]
    pub(crate) fn start(z3: &Z3Program, deadline: Instant) -> Result<Solver, Failed> {
        let mut solver = Solver::launch(z3).map_err(Failed::Broken)?;
        solver.ready(deadline)?;
        Ok(solver)
    }

    /// Starts `z3` and sends its set-up commands without waiting for the answers
    /// ([`Solver::ready`] waits); `Err` says why it cannot be started. The set-up ends with an
    /// empty scope: z3 (4.x) builds its solver at the first `push`, which takes it about
    /// 10 ms, three times what starting the process takes. Launched before the first
    /// question, z3 does that beside the fuzzing instead of while a question waits.
    pub(crate) fn launch(z3: &Z3Program) -> Result<Solver, String> {
        let args = [
            "-smt2".to_string(),
            "-in".to_string(),
            "-v:0".to_string(),
            format!("-t:{TIMEOUT_MS}"),
        ];
        let process = Process::start(&z3.program, &args, z3.log.clone())?;
        let ctx = ContextBuilder::new()
            .without_solver()
            .build()
            .map_err(|e| format!("easy-smt: {e}"))?;
        let mut solver = Solver {
            ctx,
            process,
            unacknowledged: Vec::new(),
        };
        let rlimit = format!("(set-option :rlimit {RLIMIT})");
        solver.send_unacknowledged(&[
            "(set-option :print-success true)",
            "(set-option :produce-models true)",
            &rlimit,
            "(push 1)",
            "(pop 1)",
        ]);
        Ok(solver)
    }

    /// Waits until `deadline` for z3 to answer every command sent so far
    /// ([`Failed::Late`] when it has not; [`Failed::Broken`] when it answered one wrongly).
    pub(crate) fn ready(&mut self, deadline: Instant) -> Result<(), Failed> {
        for command in std::mem::take(&mut self.unacknowledged) {
            let answer = self.process.answer(deadline)?;
            if answer != "success" {
                return Err(self.unexpected(&answer, &command));
            }
        }
        Ok(())
    }

    /// Asks for argument words under which the `nth` JUMPI at `(code, pc)` in `path` goes
    /// the way `want` says (jumps when true) and the branches before it go as `question`
    /// says. `domain(i)` is the type of argument word `i`, `None` for words the solver may
    /// not choose (conditions on them are left out). Every answer is waited for until
    /// `deadline` at most.
    pub(crate) fn solve(
        &mut self,
        path: &PathCondition,
        (code, pc, nth): (Address, u32, u32),
        want: bool,
        question: Question,
        domain: impl Fn(u32) -> Option<Domain>,
        deadline: Instant,
    ) -> Result<Answer, Failed> {
        let Some(target) = path.branch_index(code, pc, nth) else {
            return Ok(Answer::Unencodable);
        };
        let released = match question {
            Question::AsTheyWent
            | Question::Ahead {
                released: false, ..
            } => vec![false; target],
            Question::Released | Question::Ahead { released: true, .. } => released(path, target),
        };
        let ahead = match question {
            Question::Ahead { through, .. } => ahead::asserted(path, target, through),
            Question::AsTheyWent | Question::Released => Vec::new(),
        };
        let ctx = &self.ctx;
        let mut encoder = Encoder::new(ctx, path, |i| domain(i).map(max_word));
        let Some(wanted) = encoder.branch(path.branches[target].condition, want) else {
            return Ok(Answer::Unencodable);
        };
        // The conditions asserted, the wanted branch's last.
        let asserted: Vec<(TermId, bool)> = path.branches[..target]
            .iter()
            .enumerate()
            .filter(|&(i, _)| constrains(path, i, target) && !released[i])
            .map(|(_, b)| (b.condition, b.taken))
            .chain(ahead.iter().map(|&i| {
                let b = path.branches[i];
                (b.condition, b.taken)
            }))
            .chain([(path.branches[target].condition, want)])
            .collect();
        let mut assertions: Vec<SExpr> = asserted[..asserted.len() - 1]
            .iter()
            .filter_map(|&(condition, taken)| encoder.branch(condition, taken))
            .collect();
        assertions.push(wanted);
        let args = std::mem::take(&mut encoder.args);
        let sort = |boolean: bool| if boolean { "Bool" } else { "Int" };
        let body: Vec<String> = encoder
            .definitions
            .iter()
            .map(|d| {
                let (name, sort) = (&d.name, sort(d.boolean));
                format!("(define-fun {name} () {sort} {})", ctx.display(d.expr))
            })
            .chain(
                assertions
                    .iter()
                    .map(|&a| format!("(assert {})", ctx.display(a))),
            )
            .collect();
        let fits = |model: &[(u32, U256)]| {
            model
                .iter()
                .all(|&(i, v)| domain(i).is_some_and(|d| within(d, v)))
        };
        let query = Query {
            args: &args,
            bounds: &vec![None; args.len()],
            body: &body,
        };
        let answer = self.checks(query, &domain, fits, deadline)?;
        if answer != Answer::Unknown {
            return Ok(answer);
        }
        // z3 gave up: the equalities may still determine the words (`roots`).
        let roots = roots::solve(path, &asserted, |i| domain(i).map(max_word));
        Ok(roots
            .filter(|model| fits(model))
            .map_or(Answer::Unknown, Answer::Model))
    }

    /// z3's answer to `query`: checked without the argument words' upper bounds first, and
    /// again with them when the model lies outside them (`fits` says).
    fn checks(
        &mut self,
        query: Query<'_>,
        domain: impl Fn(u32) -> Option<Domain>,
        fits: impl Fn(&[(u32, U256)]) -> bool,
        deadline: Instant,
    ) -> Result<Answer, Failed> {
        let first = self.check(&query, deadline)?;
        let Answer::Model(model) = first else {
            return Ok(first);
        };
        if fits(&model) {
            return Ok(Answer::Model(model));
        }
        let ctx = &self.ctx;
        let args = query.args;
        let bounds: Vec<Option<SExpr>> = args
            .iter()
            .map(|&i| domain(i).map(|d| bound(ctx, ctx.atom(arg_name(i)), d)))
            .collect();
        let bounded = Query {
            bounds: &bounds,
            ..query
        };
        let second = self.check(&bounded, deadline)?;
        Ok(match second {
            Answer::Model(model) if !fits(&model) => Answer::Unknown,
            other => other,
        })
    }

    /// One check of `query`, in a scope of its own.
    fn check(&mut self, query: &Query<'_>, deadline: Instant) -> Result<Answer, Failed> {
        let ctx = &self.ctx;
        let mut head = vec!["(push 1)".to_string()];
        for (&i, bound) in query.args.iter().zip(query.bounds) {
            let name = arg_name(i);
            head.push(format!("(declare-const {name} Int)"));
            head.push(format!("(assert (>= {name} 0))"));
            if let Some(bound) = *bound {
                head.push(format!("(assert {})", ctx.display(bound)));
            }
        }
        let commands: Vec<&str> = head.iter().chain(query.body).map(String::as_str).collect();
        // One exchange: the scope's commands go with the check, and are acknowledged
        // before its answer.
        self.send_unacknowledged(&commands);
        let answer = self.ask("(check-sat)", deadline)?;
        let answer = match answer.as_str() {
            "sat" => self.model(query.args, deadline)?,
            "unsat" => Answer::Unsat,
            "unknown" => Answer::Unknown,
            _ => return Err(self.unexpected(&answer, "(check-sat)")),
        };
        self.send_unacknowledged(&["(pop 1)"]);
        Ok(answer)
    }

    /// The values of `args` in z3's model.
    fn model(&mut self, args: &[u32], deadline: Instant) -> Result<Answer, Failed> {
        if args.is_empty() {
            return Ok(Answer::Model(Vec::new()));
        }
        let names: Vec<String> = args.iter().map(|&i| arg_name(i)).collect();
        let command = format!("(get-value ({}))", names.join(" "));
        let answer = self.ask(&command, deadline)?;
        let Some(values) = values(&answer) else {
            return Err(self.unexpected(&answer, &command));
        };
        let mut model = Vec::with_capacity(args.len());
        for (&i, name) in args.iter().zip(&names) {
            let value = values.iter().find(|(n, _)| n == name);
            let Some((_, value)) = value else {
                return Err(self.unexpected(&answer, &command));
            };
            // A value that is no word (z3 prints negatives as `(- n)`) is no answer.
            let Some(word) = value
                .as_deref()
                .and_then(|v| U256::from_str_radix(v, 10).ok())
            else {
                return Ok(Answer::Unknown);
            };
            model.push((i, word));
        }
        Ok(Answer::Model(model))
    }

    /// Sends `commands` at once; their `success`es are read before the next answer.
    fn send_unacknowledged(&mut self, commands: &[&str]) {
        let mut text = commands.join("\n");
        text.push('\n');
        self.process.send(text);
        (self.unacknowledged).extend(commands.iter().map(|c| c.to_string()));
    }

    /// Sends `command` and returns its answer, after the `success`es still owed.
    fn ask(&mut self, command: &str, deadline: Instant) -> Result<String, Failed> {
        self.process.send(format!("{command}\n"));
        self.ready(deadline)?;
        self.process.answer(deadline)
    }

    /// z3 answered `answer` to `command`, which it should not have.
    fn unexpected(&self, answer: &str, command: &str) -> Failed {
        Failed::Broken(format!(
            "`{}` answered `{}` to `{}`",
            self.process.program().display(),
            clip(answer),
            clip(command)
        ))
    }
}

/// Whether branch `i` of `path`, before branch `target`, is asserted as it went in the
/// question on `target`: unless its condition is concrete, or it tests the value `target`
/// tests ([`tests_same_value`]). Kept as it went, such a branch contradicts the flip.
fn constrains(path: &PathCondition, i: usize, target: usize) -> bool {
    path.branches[i].condition != CONCRETE && !tests_same_value(path, i, target)
}

/// Whether branch `i` of `path` tests the value branch `target` tests (a condition that is
/// not concrete, the same term under any number of `ISZERO`s): flipping the one flips the
/// other. solc tests a conjunction's failing conjunct at its short-circuit JUMPI and again
/// at every later one up to the `if`'s (the end of the conjunction).
fn tests_same_value(path: &PathCondition, i: usize, target: usize) -> bool {
    let condition = path.branches[i].condition;
    condition != CONCRETE
        && tested(path, condition) == tested(path, path.branches[target].condition)
}

/// Which branches before branch `target` of `path` a second question leaves out: the
/// conjuncts that held in an earlier conjunction that failed. solc tests a failing
/// conjunct at its short-circuit JUMPI and again at each later one up to the `if`'s, so a
/// conjunction ends, on the path, in a run of two or more consecutive JUMPIs at distinct
/// pcs testing one value (the conjunct that failed, or for `||` the disjunct that held).
/// Kept as it went, that value alone decides the conjunction; the conjuncts before it that
/// held (fell through, as solc's JUMPIs do when a conjunct holds) are released, back to
/// the end of the run before. An answer may then make the earlier `if` fail at another
/// conjunct: its arguments need not repeat this run's. The branches after the last such
/// run, the target's own conjunction among them, stay kept; so do the runs themselves and
/// what jumped. A branch released that did decide whether the target runs (an enclosing
/// `if` before an inner conjunction) costs one proposal that does not flip.
fn released(path: &PathCondition, target: usize) -> Vec<bool> {
    let branches = &path.branches[..target];
    let wanted = tested(path, path.branches[target].condition);
    let value = |i: usize| {
        let condition = branches[i].condition;
        (condition != CONCRETE).then(|| tested(path, condition))
    };
    let mut released = vec![false; target];
    let (mut segment, mut i) = (0, 0);
    while i < target {
        if value(i).is_none_or(|t| t == wanted) {
            i += 1;
            continue;
        }
        let end = run_past(path, i).min(target);
        if end - i < 2 {
            i += 1;
            continue;
        }
        for (k, branch) in branches.iter().enumerate().take(i).skip(segment) {
            released[k] =
                branch.condition != CONCRETE && !branch.taken && branch.code == branches[i].code;
        }
        segment = end;
        i = end;
    }
    released
}

/// Where an answer to the question on the `nth` JUMPI at `(code, pc)` in `path` shows: the
/// first branch of the path that tests the value that JUMPI tests, as its pc, its
/// occurrence at that pc and whether flipping it makes it jump. An answer that flips the
/// value leaves the old path there, and the JUMPI asked about may then test another value:
/// solc's short-circuit JUMPIs pass a conjunction's value on, so the `if`'s JUMPI that
/// tested a failing conjunct tests the next one once that one holds. `None` when the
/// JUMPI is not in `path`.
pub(crate) fn first_test(
    path: &PathCondition,
    (code, pc, nth): (Address, u32, u32),
) -> Option<(u32, u32, bool)> {
    let target = path.branch_index(code, pc, nth)?;
    let first = (0..=target)
        .find(|&i| tests_same_value(path, i, target))
        .unwrap_or(target);
    let branch = path.branches[first];
    let occurrence = path.branches[..first]
        .iter()
        .filter(|b| b.code == branch.code && b.pc == branch.pc)
        .count();
    Some((branch.pc, u32::try_from(occurrence).ok()?, !branch.taken))
}

/// The index just past the run of tests of one value that starts at branch `start` of
/// `path` (whose condition is not concrete): the consecutive JUMPIs of its code, each at
/// another pc than the one before, that test the value it tests. solc tests a failing
/// conjunct at its short-circuit JUMPI and again at every later one of its conjunction, so
/// a run of two or more ends a conjunction at its `if` (`released`, `ahead`).
fn run_past(path: &PathCondition, start: usize) -> usize {
    let branches = &path.branches;
    let first = branches[start];
    let value = tested(path, first.condition);
    (start + 1..branches.len())
        .find(|&j| {
            let branch = branches[j];
            branch.condition == CONCRETE
                || tested(path, branch.condition) != value
                || branch.code != first.code
                || branches[j - 1].pc == branch.pc
        })
        .unwrap_or(branches.len())
}

/// The term whose truth the condition `id` decides on, under any number of `ISZERO`s:
/// two branches on the same term go the same way or opposite ways, never independently.
fn tested(path: &PathCondition, mut id: TermId) -> TermId {
    while let Some(&Term::Unary(UnaryOp::IsZero, inner)) = path.terms.get(id as usize) {
        id = inner;
    }
    id
}

/// The pairs of z3's answer to `get-value`, `((name value) ...)`: each value a numeral, or
/// `None` for one that is not (`(- 5)`); `None` for an answer of another shape.
fn values(answer: &str) -> Option<Vec<(String, Option<String>)>> {
    let spaced = answer.replace('(', " ( ").replace(')', " ) ");
    let mut tokens = spaced.split_whitespace();
    let mut pairs = Vec::new();
    if tokens.next()? != "(" {
        return None;
    }
    loop {
        match tokens.next()? {
            ")" => break,
            "(" => {}
            _ => return None,
        }
        let name = tokens.next().filter(|t| *t != "(" && *t != ")")?;
        let value = match tokens.next()? {
            "(" => {
                // A compound value: skipped to its end.
                let mut depth = 1;
                while depth > 0 {
                    match tokens.next()? {
                        "(" => depth += 1,
                        ")" => depth -= 1,
                        _ => {}
                    }
                }
                None
            }
            ")" => return None,
            atom => Some(atom.to_string()),
        };
        if tokens.next()? != ")" {
            return None;
        }
        pairs.push((name.to_string(), value));
    }
    tokens.next().is_none().then_some(pairs)
}

/// The largest word an argument of `domain` may hold (ABI-encoded).
fn max_word(domain: Domain) -> U256 {
    match domain {
        Domain::Uint(bits) if bits < 256 => (U256::ONE << bits) - U256::ONE,
        Domain::Address => (U256::ONE << 160) - U256::ONE,
        _ => U256::MAX,
    }
}

/// Whether `word` is a valid ABI encoding of a value of `domain`.
fn within(domain: Domain, word: U256) -> bool {
    match domain {
        Domain::Uint(bits) => bits >= 256 || word < U256::ONE << bits,
        Domain::Int(bits) => {
            let half = U256::ONE << (bits.clamp(8, 256) - 1);
            bits >= 256 || word < half || word >= U256::ZERO.wrapping_sub(half)
        }
        Domain::Address => word < U256::ONE << 160,
        Domain::FixedBytes(size) => size >= 32 || (word << (size * 8)).is_zero(),
        Domain::Value | Domain::Warp => false,
    }
}

/// The constraint that `variable` (at least 0) is a valid encoding of a value of `domain`.
fn bound(ctx: &Context, variable: SExpr, domain: Domain) -> SExpr {
    let number = |v: U256| ctx.atom(v.to_string());
    let words = ctx.lte(variable, number(U256::MAX));
    match domain {
        Domain::Uint(bits) | Domain::Int(bits) if bits >= 256 => words,
        Domain::Uint(_) | Domain::Address => ctx.lte(variable, number(max_word(domain))),
        Domain::Int(bits) => {
            let half = U256::ONE << (bits.max(8) - 1);
            ctx.and(
                words,
                ctx.or(
                    ctx.lt(variable, number(half)),
                    ctx.gte(variable, number(U256::ZERO.wrapping_sub(half))),
                ),
            )
        }
        Domain::FixedBytes(size) if size < 32 => ctx.and(
            words,
            ctx.eq(
                ctx.modulo(variable, number(U256::ONE << (256 - size * 8))),
                ctx.numeral(0),
            ),
        ),
        _ => words,
    }
}

/// The number a model's word gives a leaf of `domain` (`secant::with_number`'s input, as
/// `secant::number` reads leaves): the word itself, signed for `intN`, the leading bytes
/// for `bytesN`.
pub(crate) fn number_of(domain: Domain, word: U256) -> Wide {
    match domain {
        Domain::Int(_) => wide_signed(I256::from_raw(word)),
        Domain::FixedBytes(size) if size < 32 => wide(word >> (256 - size * 8)),
        _ => wide(word),
    }
}

#[cfg(test)]
mod tests;
