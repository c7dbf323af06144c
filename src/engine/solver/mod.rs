//! The solver-backed step of input prediction (issue 30, after ConFuzzius): for a branch of
//! a call that prediction (the secant and joint prediction) could not flip, the call is run
//! once with its own frame followed symbolically (`observe::symbolic`), the branches before
//! the wanted one are kept as they went and the wanted one flipped, and z3 is asked for
//! argument words that satisfy that path condition. A model is a proposal: the worker runs
//! it, and the run says whether the branch flipped.
//!
//! z3 is the `z3` program (`HARVEY_Z3`, else `z3` on `PATH`), spoken to over SMT-LIB through
//! easy-smt; the whole module exists only with the `solver` cargo feature. Each check has a
//! resource limit ([`RLIMIT`], z3's deterministic budget, not a time limit) so that answers
//! do not depend on the machine's load. The path condition is encoded over the integers
//! (`encode`); upper bounds of the argument words are left out of the first check (with
//! them, z3's nonlinear integer arithmetic often answers `unknown`) and added in a second
//! only if the first model lies outside them.

mod encode;

use std::io;
use std::path::PathBuf;

use alloy_primitives::{Address, I256, U256};
use easy_smt::{Context, ContextBuilder, Response, SExpr};

use crate::engine::predict::{Domain, Wide, wide, wide_signed};
use crate::observe::symbolic::{CONCRETE, PathCondition};
use encode::{Encoder, arg_name};

/// z3's resource limit per check, its deterministic budget (measured with z3 4.8.12: 300,000
/// ran out after 0.4 s on a bounded nonlinear query that a plain check answers in
/// milliseconds; 2,000,000 took 35 s on a modular one).
const RLIMIT: u64 = 500_000;

/// z3's time limit per check, in milliseconds: a guard for versions whose resource units
/// buy more time than [`RLIMIT`] means to (the budget, not this, should end a check, so
/// that answers do not depend on the machine's load).
const TIMEOUT_MS: u64 = 5_000;

/// The environment variable naming the z3 program.
pub(crate) const Z3_VARIABLE: &str = "HARVEY_Z3";

/// The environment variable naming a file that receives every command sent to z3 (to
/// replay a query with `z3 -smt2 <file>` when an answer looks wrong).
pub(crate) const LOG_VARIABLE: &str = "HARVEY_Z3_LOG";

/// A running z3.
pub(crate) struct Solver {
    ctx: Context,
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

/// The program harvey runs as z3.
fn program() -> PathBuf {
    std::env::var_os(Z3_VARIABLE).map_or_else(|| PathBuf::from("z3"), PathBuf::from)
}

impl Solver {
    /// Starts z3, or says why it could not be.
    pub(crate) fn start() -> Result<Solver, String> {
        let program = program();
        let log = std::env::var_os(LOG_VARIABLE)
            .map(std::fs::File::create)
            .transpose()
            .map_err(|e| format!("{LOG_VARIABLE}: {e}"))?;
        let started = ContextBuilder::new()
            .solver(program.clone())
            .solver_args([
                "-smt2".to_string(),
                "-in".to_string(),
                "-v:0".to_string(),
                format!("-t:{TIMEOUT_MS}"),
            ])
            .replay_file(log)
            .build()
            .and_then(|mut ctx| {
                ctx.set_option(":rlimit", ctx.atom(RLIMIT.to_string()))?;
                Ok(ctx)
            });
        match started {
            Ok(ctx) => Ok(Solver { ctx }),
            Err(error) => Err(format!(
                "could not start z3 (`{}`: {error}); install it (Debian: `apt-get install z3`) \
                 or name it with {Z3_VARIABLE}",
                program.display()
            )),
        }
    }

    /// Asks for argument words under which the `nth` JUMPI at `(code, pc)` in `path` goes
    /// the way `want` says (jumps when true) and every branch before it goes as it went.
    /// `domain(i)` is the type of argument word `i`, `None` for words the solver may not
    /// choose (conditions on them are left out).
    pub(crate) fn solve(
        &mut self,
        path: &PathCondition,
        (code, pc, nth): (Address, u32, u32),
        want: bool,
        domain: impl Fn(u32) -> Option<Domain>,
    ) -> io::Result<Answer> {
        let Some(target) = path
            .branches
            .iter()
            .enumerate()
            .filter(|(_, b)| b.code == code && b.pc == pc)
            .nth(nth as usize)
            .map(|(i, _)| i)
        else {
            return Ok(Answer::Unencodable);
        };
        let ctx = &self.ctx;
        let mut encoder = Encoder::new(ctx, path, |i| domain(i).map(max_word));
        let Some(wanted) = encoder.branch(path.branches[target].condition, want) else {
            return Ok(Answer::Unencodable);
        };
        let mut assertions: Vec<SExpr> = path.branches[..target]
            .iter()
            .filter(|b| b.condition != CONCRETE)
            .filter_map(|b| encoder.branch(b.condition, b.taken))
            .collect();
        assertions.push(wanted);
        let args = std::mem::take(&mut encoder.args);
        let fits = |model: &[(u32, U256)]| {
            model
                .iter()
                .all(|&(i, v)| domain(i).is_some_and(|d| within(d, v)))
        };
        let first = self.check(&args, &assertions, &vec![None; args.len()])?;
        let Answer::Model(model) = first else {
            return Ok(first);
        };
        if fits(&model) {
            return Ok(Answer::Model(model));
        }
        let ctx = &self.ctx;
        let bounds: Vec<Option<SExpr>> = args
            .iter()
            .map(|&i| domain(i).map(|d| bound(ctx, ctx.atom(arg_name(i)), d)))
            .collect();
        let second = self.check(&args, &assertions, &bounds)?;
        Ok(match second {
            Answer::Model(model) if !fits(&model) => Answer::Unknown,
            other => other,
        })
    }

    /// One check of `assertions` over argument words `args` (each at least 0, and within
    /// its bound in `bounds` when there is one), in a scope of its own.
    fn check(
        &mut self,
        args: &[u32],
        assertions: &[SExpr],
        bounds: &[Option<SExpr>],
    ) -> io::Result<Answer> {
        self.ctx.push()?;
        let answer = self.check_in_scope(args, assertions, bounds);
        self.ctx.pop()?;
        answer
    }

    fn check_in_scope(
        &mut self,
        args: &[u32],
        assertions: &[SExpr],
        bounds: &[Option<SExpr>],
    ) -> io::Result<Answer> {
        let ctx = &mut self.ctx;
        let mut variables = Vec::with_capacity(args.len());
        for (&i, bound) in args.iter().zip(bounds) {
            let variable = ctx.declare_const(arg_name(i), ctx.int_sort())?;
            ctx.assert(ctx.gte(variable, ctx.numeral(0)))?;
            if let Some(bound) = *bound {
                ctx.assert(bound)?;
            }
            variables.push(variable);
        }
        for &assertion in assertions {
            ctx.assert(assertion)?;
        }
        match ctx.check()? {
            Response::Sat => {}
            Response::Unsat => return Ok(Answer::Unsat),
            Response::Unknown => return Ok(Answer::Unknown),
        }
        if variables.is_empty() {
            return Ok(Answer::Model(Vec::new()));
        }
        let values = ctx.get_value(variables)?;
        let mut model = Vec::with_capacity(args.len());
        for (&i, (_, value)) in args.iter().zip(values) {
            // A value that is no word (z3 prints negatives as `(- n)`) is no answer.
            let Some(word) = ctx
                .get_atom(value)
                .and_then(|atom| U256::from_str_radix(atom, 10).ok())
            else {
                return Ok(Answer::Unknown);
            };
            model.push((i, word));
        }
        Ok(Answer::Model(model))
    }
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

/// The number a model's word gives a leaf of `domain` (`predict::with_number`'s input, as
/// `predict::number` reads leaves): the word itself, signed for `intN`, the leading bytes
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
