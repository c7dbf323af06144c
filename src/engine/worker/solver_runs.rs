//! The runs of the solver-backed step (`engine::solver` asks z3): a branch joint
//! prediction missed, or on which secant chains keep failing, is followed symbolically in
//! one run of its sequence, its path condition goes to z3, and z3's argument words are run.
//! When the branch is a failing conjunct, the first question also asks for the conjuncts of
//! its conjunction that fail after it, seen in runs with their JUMPIs forced (the
//! look-ahead, `solver::next_forced`).

use std::time::{Duration, Instant};

use alloy_primitives::{Address, U256};

use super::{Mutator, Worker};
use crate::abi;
use crate::engine::input::Sequence;
use crate::engine::prediction::Asked;
use crate::engine::prediction::cost::{CostKey, CostKind};
use crate::engine::prediction::secant::{self, Domain, Leaf, Prediction};
use crate::engine::prediction::solver::{self, Answer, Failed, Question, Solver};
use crate::engine::prediction::{SOLVER_QUERY_WALL, Z3Program};
use crate::engine::shared_by_workers::Stop;
use crate::observe::symbolic::PathCondition;

/// How long z3 has to start and answer its set-up commands; one that has not is taken for
/// one that never answers.
const START_WALL: Duration = Duration::from_secs(5);

/// z3 for one worker, launched when the worker starts (when its solver-backed step is on)
/// and waited for when first needed.
pub(super) struct Z3 {
    program: Z3Program,
    state: State,
}

enum State {
    NotStarted,
    /// Started, its set-up sent; whether it answered is found out when first needed.
    /// Boxed: the process handle and its expression arena are large beside the others.
    Launched(Box<Solver>),
    /// It could not be launched (why): said when first needed, as a failure to start then
    /// would be, so that a campaign that never asks z3 does not warn about it.
    LaunchFailed(String),
    /// Set up.
    Running(Box<Solver>),
    /// It could not be started, or stopped answering: off for the rest of the campaign.
    Unavailable,
}

impl Z3 {
    /// `program`, not started yet.
    pub(super) fn new(program: Z3Program) -> Z3 {
        Z3 {
            program,
            state: State::NotStarted,
        }
    }

    /// Starts z3 unless it was: its set-up (about 15 ms of z3's time, most of it building
    /// its solver) then runs beside the worker's first runs, not while the first question
    /// waits.
    pub(super) fn launch(&mut self) {
        if matches!(self.state, State::NotStarted) {
            self.state = match Solver::launch(&self.program) {
                Ok(solver) => State::Launched(Box::new(solver)),
                Err(why) => State::LaunchFailed(why),
            };
        }
    }
}

/// The earlier of `wall` from now and the campaign's `deadline`.
fn deadline_within(wall: Duration, deadline: Option<Instant>) -> Instant {
    let own = Instant::now() + wall;
    deadline.map_or(own, |d| d.min(own))
}

/// Solver-backed steps on the next open branch after a flip, at most (see
/// [`Worker::solve_on`]): the conjunctions of a maze's cell hold up to ten comparisons.
const DESCENT_STEPS: u32 = 10;

/// Branches a look-ahead forces, at most, the wanted one included (see
/// [`Worker::look_ahead`]): a conjunction of a maze's cell holds up to ten comparisons,
/// and two for its cell.
const AHEAD_FORCED: usize = 16;

/// What one solver-backed step came to.
enum Step {
    /// Its answer's run flipped the value the branch tested: the sequence the answer made,
    /// and the metric that shows the flip.
    Flipped(Sequence, CostKey),
    /// No arguments flip the branch (`unsat`), or the follower could not express its
    /// condition, or its site had its tries: cheap to learn, and nothing said of the
    /// branches after it.
    Refused,
    /// z3 gave up or was late (the solver's budget is charged), its answer did not flip
    /// the branch, or there is no z3.
    Failed,
}

impl Worker<'_> {
    /// A solver-backed step after the secant chain `ended` failed, if chains have stalled
    /// at its metric's site (see `Predictor::stalled`). Returns the runs spent.
    pub(super) fn solve_stalled(
        &mut self,
        ended: &Prediction,
        mutator: &Mutator<'_>,
    ) -> Result<u64, Stop> {
        let stalled = self
            .predictor
            .as_ref()
            .is_some_and(|predictor| predictor.stalled(&ended.key, &ended.sequence));
        if !stalled {
            return Ok(0);
        }
        self.solve_on(&ended.sequence, &ended.key, mutator)
    }

    /// A solver-backed step on the branch of `key` in `sequence` (which prediction just
    /// missed), if one is wanted there. A flipped branch is followed by a step on the next
    /// branch of the same call its run left open (up to [`DESCENT_STEPS`]): a conjunction
    /// `a == f(b) && c == g(a, d) && d > k` opens one conjunct at a time, and each new path
    /// would otherwise wait for its entry to be picked and for prediction to stall on it
    /// again. A step that no arguments can take (`unsat`: an overflow check between two
    /// conjuncts, which no argument fails, is open forever) moves the descent past its
    /// branch, to the next open one; one that z3 gave up on ends it, since each costs the
    /// solver's budget. The last flip starts chained predictions, as a flipped joint
    /// prediction does. Returns the runs spent.
    pub(super) fn solve_on(
        &mut self,
        sequence: &Sequence,
        key: &CostKey,
        mutator: &Mutator<'_>,
    ) -> Result<u64, Stop> {
        let mut runs = 0;
        let mut flipped: Option<Sequence> = None;
        let mut target = Some(*key);
        let mut descended = 0;
        while let Some(key) = target.take() {
            let from = flipped.as_ref().unwrap_or(sequence);
            let after = match self.solve_once(from, &key, mutator, &mut runs)? {
                Step::Flipped(proposal, at) => {
                    flipped = Some(proposal);
                    at
                }
                // Past a branch no answer takes, once the descent has begun.
                Step::Refused if flipped.is_some() => key,
                // Else prediction goes on as it was.
                Step::Refused | Step::Failed => break,
            };
            if descended < DESCENT_STEPS {
                descended += 1;
                target = self
                    .predictor
                    .as_ref()
                    .and_then(|predictor| predictor.next_open(self.executor.coverage(), &after));
            }
        }
        if let Some(flipped) = flipped.filter(|_| self.chain_predictions) {
            runs += self.chain_steps(&flipped, mutator)?;
        }
        Ok(runs)
    }

    /// One solver-backed step on the branch of `key` in `sequence`, if one is wanted
    /// there. A run flipped the value that branch tested when the metric of `key`, or of
    /// the first branch that tested the same value (see [`solver::first_test`]), went to
    /// zero. Adds the runs it spent to `runs`.
    fn solve_once(
        &mut self,
        sequence: &Sequence,
        key: &CostKey,
        mutator: &Mutator<'_>,
        runs: &mut u64,
    ) -> Result<Step, Stop> {
        let wanted = self
            .predictor
            .as_mut()
            .is_some_and(|predictor| predictor.solver_wanted(key, sequence));
        if !wanted {
            return Ok(Step::Refused);
        }
        if !self.start_z3() {
            return Ok(Step::Failed);
        }
        let Some(predictor) = &mut self.predictor else {
            return Ok(Step::Failed);
        };
        let tx = key.tx as usize;
        // One run with the call followed symbolically.
        predictor.record_relations(Some(tx..=tx));
        self.executor.record_path_conditions(true);
        let ran = self.execute(sequence);
        self.executor.record_path_conditions(false);
        *runs += 1;
        let Some(predictor) = &mut self.predictor else {
            return ran.map(|_| Step::Failed);
        };
        predictor.record_relations(None);
        predictor.take_relations();
        let path = predictor.take_path_condition();
        ran?;
        let heads = sequence
            .txs
            .get(tx)
            .map(|t| abi::head_leaves(&t.args))
            .unwrap_or_default();
        let leaf = |i: u32| -> Option<(Leaf, Domain)> {
            let path = heads.get(i as usize)?.clone()?;
            let leaf = Leaf::Arg { tx, path };
            let (_, domain) = secant::number(sequence, &leaf)?;
            Some((leaf, domain))
        };
        let site = (key.code, key.pc, key.nth);
        let want = key.kind == CostKind::Jump;
        let ahead = self.look_ahead(sequence, tx, &path, site, want);
        let deadline = deadline_within(SOLVER_QUERY_WALL, self.shared.deadline());
        let mut question = match &ahead {
            Some((_, through)) => Question::Ahead {
                through: *through,
                released: false,
            },
            None => Question::AsTheyWent,
        };
        loop {
            let State::Running(z3) = &mut self.z3.state else {
                return Ok(Step::Failed);
            };
            let asked = match (&question, &ahead) {
                (Question::Ahead { .. }, Some((forced, _))) => forced,
                _ => &path,
            };
            let started = Instant::now();
            let answer = z3.solve(
                asked,
                site,
                want,
                question,
                |i| leaf(i).map(|(_, domain)| domain),
                deadline,
            );
            let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
            let unanswered = match answer {
                Ok(Answer::Model(model)) => {
                    let proposal = proposal(sequence, model, &leaf, mutator);
                    let step = self.run_answer(proposal, key, &path, micros, runs)?;
                    if let Some(step) = step {
                        return Ok(step);
                    }
                    None
                }
                Ok(other) => {
                    let gave_up = matches!(other, Answer::Unknown);
                    self.solver_done(Asked::Unanswered { gave_up }, micros);
                    Some(other)
                }
                Err(Failed::Late) => {
                    // z3 was killed; a fresh one answers the next query. Past the campaign's
                    // deadline the campaign is over, and nothing was abandoned.
                    self.z3.state = State::NotStarted;
                    if !self.shared.past_deadline() {
                        self.solver_done(Asked::Abandoned, micros);
                    }
                    return Ok(Step::Failed);
                }
                Err(Failed::Broken(why)) => {
                    self.z3_unavailable(why);
                    return Ok(Step::Failed);
                }
            };
            let release = matches!(unanswered, Some(Answer::Unsat | Answer::Unknown))
                && solver::releases(&path, site);
            question = match question {
                // No answer with the earlier conjunctions as they went: they may fail at
                // other conjuncts. Asked as a query of its own, charged as one.
                Question::Ahead {
                    through,
                    released: false,
                } if release => Question::Ahead {
                    through,
                    released: true,
                },
                Question::AsTheyWent if release => Question::Released,
                // The look-ahead came to nothing: the wanted branch alone, as before.
                Question::Ahead { .. } => Question::AsTheyWent,
                _ => match unanswered {
                    Some(Answer::Unsat | Answer::Unencodable) => return Ok(Step::Refused),
                    _ => return Ok(Step::Failed),
                },
            };
        }
    }

    /// The forced path of the look-ahead (see `solver::next_forced`) on the branch at
    /// `site` of transaction `tx` in `sequence`, whose path condition `path` its last run
    /// recorded, with the index of the last branch forced: the call run again with the
    /// wanted branch forced `want`'s way, then with each conjunct of its conjunction that
    /// failed after it forced too, up to [`AHEAD_FORCED`] branches. `None` when the wanted
    /// branch is no failing conjunct (`solver::conjunction_end`), no conjunct after it
    /// failed, or a forced run left the recorded path before the wanted branch (the chain
    /// did not run the same transaction).
    fn look_ahead(
        &mut self,
        sequence: &Sequence,
        tx: usize,
        path: &PathCondition,
        (code, pc, nth): (Address, u32, u32),
        want: bool,
    ) -> Option<(PathCondition, usize)> {
        let target = path.branch_index(code, pc, nth)?;
        let end = solver::conjunction_end(path, target)?;
        let mut forced = vec![(target, want)];
        loop {
            let run = self
                .executor
                .forced_path_condition(sequence, tx, forced.clone())?;
            let same_before = run.branches.len() > target
                && run.branches[..target]
                    .iter()
                    .zip(&path.branches[..target])
                    .all(|(a, b)| (a.code, a.pc, a.taken) == (b.code, b.pc, b.taken));
            if !same_before {
                return None;
            }
            let last = forced.last().map_or(target, |&(i, _)| i);
            match solver::next_forced(&run, last, end) {
                Some(next) if forced.len() < AHEAD_FORCED => {
                    forced.push((next, !run.branches[next].taken));
                }
                _ => return (last > target).then_some((run, last)),
            }
        }
    }

    /// Runs z3's answer `proposal` (`None`: one outside a declared range, not run) to the
    /// question on the branch of `key`, whose path condition was `path`, and counts it:
    /// [`Step::Flipped`] when its run flipped the value the branch tested, else `None`.
    fn run_answer(
        &mut self,
        proposal: Option<Sequence>,
        key: &CostKey,
        path: &PathCondition,
        micros: u64,
        runs: &mut u64,
    ) -> Result<Option<Step>, Stop> {
        let Some(proposal) = proposal else {
            self.solver_done(Asked::Answered { flipped: false }, micros);
            return Ok(None);
        };
        // Where the flip shows: the metric that goes to zero when the value flips.
        let first =
            solver::first_test(path, (key.code, key.pc, key.nth)).map(|(pc, nth, jump)| CostKey {
                pc,
                nth,
                kind: if jump { CostKind::Jump } else { CostKind::Fall },
                ..*key
            });
        let ran = self.execute(&proposal);
        *runs += 1;
        // A run that ended the campaign (the violation behind the branch, failing fast)
        // still evaluated the branch.
        let at = self.predictor.as_ref().and_then(|predictor| {
            [Some(*key), first]
                .into_iter()
                .flatten()
                .find(|at| predictor.minimized(at))
        });
        self.solver_done(
            Asked::Answered {
                flipped: at.is_some(),
            },
            micros,
        );
        ran?;
        Ok(at.map(|at| Step::Flipped(proposal, at)))
    }

    /// Starts z3 unless it runs (launched, waits for its set-up); whether it does now. One
    /// that cannot be started, or does not answer its set-up commands in time, is off for
    /// the rest of the campaign.
    fn start_z3(&mut self) -> bool {
        self.z3.launch();
        let mut solver = match std::mem::replace(&mut self.z3.state, State::Unavailable) {
            State::Launched(solver) => solver,
            State::LaunchFailed(why) => {
                self.z3_unavailable(why);
                return false;
            }
            running @ State::Running(_) => {
                self.z3.state = running;
                return true;
            }
            // `launch` leaves no z3 not started.
            State::NotStarted | State::Unavailable => return false,
        };
        match solver.ready(deadline_within(START_WALL, self.shared.deadline())) {
            Ok(()) => {
                self.z3.state = State::Running(solver);
                true
            }
            // The campaign ended while z3 started: no verdict on z3.
            Err(Failed::Late) if self.shared.past_deadline() => {
                self.z3.state = State::NotStarted;
                false
            }
            Err(Failed::Late) => {
                let why = format!(
                    "`{}` did not answer its set-up commands within {} s",
                    self.z3.program.program.display(),
                    START_WALL.as_secs()
                );
                self.z3_unavailable(why);
                false
            }
            Err(Failed::Broken(why)) => {
                self.z3_unavailable(why);
                false
            }
        }
    }

    /// z3 failed in a way a fresh one would too (`why`): no more solver-backed steps.
    fn z3_unavailable(&mut self, why: String) {
        self.z3.state = State::Unavailable;
        if let Some(predictor) = &mut self.predictor {
            predictor.solver_unavailable(why);
        }
    }

    fn solver_done(&mut self, asked: Asked, micros: u64) {
        if let Some(predictor) = &mut self.predictor {
            predictor.solver_done(asked, micros);
        }
    }
}

/// `sequence` with the words of `model` (by head index of the call `leaf` reads) in
/// place; `None` when a word would leave its parameter's declared range (forge-std's
/// `bound`, a suite's plan), which no answer may.
fn proposal(
    sequence: &Sequence,
    model: Vec<(u32, U256)>,
    leaf: &impl Fn(u32) -> Option<(Leaf, Domain)>,
    mutator: &Mutator<'_>,
) -> Option<Sequence> {
    let surface = mutator.surface();
    let mut proposal = sequence.clone();
    for (i, word) in model {
        let Some((leaf, domain)) = leaf(i) else {
            continue;
        };
        let number = solver::number_of(domain, word);
        let declared = secant::declared_range(surface, sequence, &leaf);
        if declared.is_some_and(|(lo, hi)| number < lo || number > hi) {
            return None;
        }
        if let Some(next) = secant::with_number(&proposal, &leaf, number, domain) {
            proposal = next;
        }
    }
    Some(proposal)
}
