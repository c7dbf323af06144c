//! A campaign ends on its budget whatever z3 does (issue 44): the targeted maze whose loop
//! once held a 60-second test for over fifteen minutes, with the repository's z3 and with a
//! z3 that never answers; and z3 stand-ins that hang, exit, print garbage, answer
//! `unknown` forever or hang in the middle of a query, each ending on its budget with the
//! warning that names what happened. The stand-ins are shell scripts the tests write.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use harvey::Outcome;

use crate::support::{campaign_on, committed_project, repo};

/// harvey's wait for one solver query (`SOLVER_QUERY_WALL`, crate-private).
const SOLVER_QUERY_WALL: Duration = Duration::from_secs(10);

/// The maze: an even `x` runs two loops of up to 255 steps (path conditions whose
/// terms share their operands step after step), an odd one a quadratic in `a`.
const MAZE: &str = "// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Maze {
    uint256 public hits;
    function walk(uint256 w, uint256 x, uint256 z, uint256 a) external returns (uint256 r) {
        if (x % 2 == 0) {
            r = 256;
            w = w % r;
            while (w != 0) { w--; }
            z = z % r;
            while (r != z) { z++; }
        } else {
            r = 3 * (a % 2**64) * (a % 2**64) + 7 * (a % 2**64) + 101;
            if (r == 5687) {
                hits += 1;
            }
        }
    }
}
";

/// What a campaign may take past its time budget: shrinking's share (a tenth of the budget,
/// 1 s at least; the campaigns here find nothing to shrink), the post-setup check and the
/// lookahead analysis, with room for a machine busy with other tests. The failure this
/// guards against took minutes.
const SLACK: Duration = Duration::from_secs(15);

/// The maze committed, then changed in the working tree (`hits += 2`): the changed line is
/// a `diff:HEAD` target.
fn maze_repository() -> (tempfile::TempDir, PathBuf) {
    let (repo, root) = committed_project("", &[("Maze.sol", MAZE)]);
    let changed = MAZE.replace("hits += 1;", "hits += 2;");
    std::fs::write(root.join("contracts/Maze.sol"), changed).unwrap();
    (repo, root)
}

/// The campaign (depth 1, seed 3, 60 s, targets `diff:HEAD`) with z3 `program`
/// (`None`: the one `cargo test` names), and the time `run` took (compiling excluded).
fn maze_campaign(program: Option<PathBuf>) -> (Outcome, Duration) {
    bounded(Duration::from_secs(60), move || maze_campaign_here(program))
}

fn maze_campaign_here(program: Option<PathBuf>) -> (Outcome, Duration) {
    let (_repo, root) = maze_repository();
    let mut campaign = campaign_on(&root)
        .contract("Maze")
        .depth(1)
        .seed(3)
        .time(Duration::from_secs(60))
        .targets("diff:HEAD".parse().unwrap());
    if let Some(program) = program {
        campaign = campaign.z3(program);
    }
    let started = Instant::now();
    let outcome = campaign.run().unwrap();
    (outcome, started.elapsed())
}

/// A z3 stand-in: `body` as a `/bin/sh` script in `dir`.
fn stand_in(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A stand-in that answers every command `success` and `(check-sat)` with `at_check`.
fn speaking(at_check: &str) -> String {
    format!(
        "while read -r line; do\n  case \"$line\" in\n    \"(check-sat)\") {at_check} ;;\n    *) echo success ;;\n  esac\ndone\n"
    )
}

/// Runs `campaign` on a thread of its own and waits for it four times its budget and slack
/// at most: a campaign that outlives its budget fails the test with a message, where it
/// would otherwise hold the test (and CI) for as long as z3 cares to run.
fn bounded(
    budget: Duration,
    campaign: impl FnOnce() -> (Outcome, Duration) + Send + 'static,
) -> (Outcome, Duration) {
    let (done, result) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        // The test may have given up waiting: nobody to tell.
        let _ = done.send(campaign());
    });
    let limit = (budget + SLACK) * 4;
    result
        .recv_timeout(limit)
        .unwrap_or_else(|_| panic!("a {budget:?} campaign was still running after {limit:?}"))
}

fn assert_within(elapsed: Duration, budget: Duration, what: &str, outcome: &Outcome) {
    assert!(
        elapsed < budget + SLACK,
        "{what}: a {budget:?} campaign took {elapsed:?}\n{outcome}"
    );
}

#[test]
fn the_targeted_maze_ends_on_its_budget_with_the_repositorys_z3() {
    let (outcome, elapsed) = maze_campaign(None);
    assert_within(elapsed, Duration::from_secs(60), "default z3", &outcome);
    let predictions = &outcome.stats.predictions;
    assert!(
        predictions.solver_failure.is_none(),
        "the repository's z3 answers: {outcome}"
    );
    assert!(
        predictions.solver_queries > 0,
        "the loops went to z3: {outcome}"
    );
}

/// The stand-in, word for word: a shell waiting on a `sleep` child (killing the
/// shell alone would leave the child holding z3's pipes).
#[test]
fn the_targeted_maze_ends_on_its_budget_with_a_z3_that_never_answers() {
    let dir = tempfile::tempdir().unwrap();
    let never = stand_in(dir.path(), "z3", "sleep 100000\n");
    let (outcome, elapsed) = maze_campaign(Some(never.clone()));
    assert_within(elapsed, Duration::from_secs(60), "silent z3", &outcome);
    let why = outcome.stats.predictions.solver_failure.as_deref();
    assert!(
        why.is_some_and(|why| why.contains("did not answer its set-up commands")),
        "{outcome}"
    );
    let warnings: Vec<&String> = outcome
        .warnings
        .iter()
        .filter(|w| w.contains("solver-backed step stopped"))
        .collect();
    assert_eq!(warnings.len(), 1, "one warning: {:?}", outcome.warnings);
    assert!(warnings[0].contains(&never.display().to_string()));
}

/// `ModularProduct` goes to the solver within its first thousand runs (secant chains stall
/// on the residue at once): each stand-in is started and asked.
fn modular_campaign(program: &Path, budget: Budget) -> (Outcome, Duration) {
    let time = match budget {
        Budget::Time(time) => time,
        Budget::Runs(_) => SOLVER_QUERY_WALL,
    };
    let program = program.to_path_buf();
    bounded(time, move || modular_campaign_here(&program, budget))
}

fn modular_campaign_here(program: &Path, budget: Budget) -> (Outcome, Duration) {
    let campaign = campaign_on(repo())
        .contract("ModularProduct")
        .seed(1)
        .z3(program);
    let campaign = match budget {
        Budget::Time(time) => campaign.time(time),
        Budget::Runs(runs) => campaign.runs(runs),
    };
    let started = Instant::now();
    let outcome = campaign.run().unwrap();
    (outcome, started.elapsed())
}

#[derive(Clone, Copy, Debug)]
enum Budget {
    Time(Duration),
    Runs(u64),
}

/// z3 is launched when a worker starts, but a z3 that cannot be started is said only when
/// a question needs it: a campaign that asks none (its campaign with the repository's z3
/// asked none) neither warns nor counts a failure.
#[test]
fn a_z3_that_cannot_start_is_said_only_when_asked() {
    let campaign = |program: PathBuf| {
        campaign_on(repo())
            .contract("Outcomes")
            .seed(1)
            .runs(300)
            .z3(program)
            .run()
            .unwrap()
    };
    let z3 = std::env::var_os("HARVEY_Z3").map_or_else(|| PathBuf::from("z3"), PathBuf::from);
    let with_z3 = campaign(z3);
    let predictions = &with_z3.stats.predictions;
    assert_eq!(
        (predictions.solver_queries, &predictions.solver_failure),
        (0, &None),
        "the campaign must need no z3 for this test: {with_z3}"
    );
    let dir = tempfile::tempdir().unwrap();
    let missing = campaign(dir.path().join("no-such-z3"));
    assert_eq!(missing.stats.predictions.solver_failure, None, "{missing}");
    assert!(
        !(missing.warnings.iter()).any(|w| w.contains("solver-backed step")),
        "{:?}",
        missing.warnings
    );
    assert_eq!(missing.stats.transactions, with_z3.stats.transactions);
}

/// Every way a z3 can fail: the campaign ends on its budget, z3's failure is one warning
/// naming what happened, and the campaign found what it finds without the solver (it ran).
#[test]
fn every_broken_z3_lets_the_campaign_end_on_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let short = Duration::from_secs(3);
    // z3 has 5 s to start: a silent one is only found out in a longer campaign (in a
    // shorter one the campaign ends first, and nothing is said about z3). The first query
    // comes within the first 5,000 runs (a fraction of a second), so 10 s leaves margin.
    let longer = Duration::from_secs(10);
    let cases: Vec<(&str, PathBuf, &str, Duration)> = vec![
        (
            "missing",
            dir.path().join("no-such-z3"),
            "could not start",
            short,
        ),
        (
            "never answers",
            stand_in(dir.path(), "silent", "sleep 100000\n"),
            "did not answer its set-up commands within 5 s",
            longer,
        ),
        (
            "exits at once",
            stand_in(
                dir.path(),
                "exits",
                "echo 'stand-in: no licence' >&2\nexit 3\n",
            ),
            "stand-in: no licence",
            short,
        ),
        (
            "prints garbage",
            stand_in(
                dir.path(),
                "garbage",
                "echo 'Segmentation fault?'\nexec cat >/dev/null\n",
            ),
            "answered `Segmentation fault?` to `(set-option :print-success true)`",
            short,
        ),
        (
            "crashes in a query",
            stand_in(dir.path(), "crashes", &speaking("exit 9")),
            "exited (exit status: 9)",
            short,
        ),
    ];
    for (what, program, said, time) in &cases {
        let (outcome, elapsed) = modular_campaign(program, Budget::Time(*time));
        assert_within(elapsed, *time, what, &outcome);
        let why = outcome.stats.predictions.solver_failure.as_deref();
        assert!(
            why.is_some_and(|why| why.contains(said)),
            "{what}: {why:?}\n{outcome}"
        );
        let warned = outcome
            .warnings
            .iter()
            .filter(|w| w.contains("solver-backed step stopped"))
            .count();
        assert_eq!(warned, 1, "{what}: {:?}", outcome.warnings);
        assert!(outcome.stats.sequences > 0, "{what}: fuzzing went on");
    }
    // One that answers `unknown` to everything: no failure, every query counted.
    let unknown = stand_in(dir.path(), "unknown", &speaking("echo unknown"));
    let (outcome, elapsed) = modular_campaign(&unknown, Budget::Time(short));
    assert_within(elapsed, short, "unknown forever", &outcome);
    let predictions = &outcome.stats.predictions;
    assert_eq!(predictions.solver_failure, None, "{outcome}");
    assert!(predictions.solver_queries > 0, "{outcome}");
    assert_eq!(
        (predictions.solver_models, predictions.solver_abandoned),
        (0, 0)
    );
}

/// A z3 that takes its set-up and then never finishes a check (a shell waiting on a
/// `sleep` child: the process group goes): the query is abandoned after harvey's 10 s,
/// said in a warning, and the campaign ends on its budget; bounded by runs alone, the
/// budget then keeps z3 from being asked again before the campaign's runs are spent.
#[test]
fn a_query_z3_never_finishes_is_abandoned_and_the_campaign_ends_on_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let stuck = stand_in(dir.path(), "stuck", &speaking("sleep 100000"));
    for budget in [Budget::Time(Duration::from_secs(14)), Budget::Runs(20_000)] {
        let (outcome, elapsed) = modular_campaign(&stuck, budget);
        let predictions = &outcome.stats.predictions;
        assert_eq!(predictions.solver_failure, None, "{budget:?}: {outcome}");
        assert_eq!(predictions.solver_abandoned, 1, "{budget:?}: {outcome}");
        let warning = outcome
            .warnings
            .iter()
            .find(|w| w.contains("abandoned"))
            .unwrap_or_else(|| panic!("{budget:?}: {:?}", outcome.warnings));
        assert!(
            warning.contains("1 solver query abandoned after 10 s")
                && warning.contains("may not replay bit for bit"),
            "{warning}"
        );
        // Bounded by runs, the campaign waited the 10 s once.
        let bound = match budget {
            Budget::Time(time) => time,
            Budget::Runs(_) => SOLVER_QUERY_WALL,
        };
        assert_within(elapsed, bound, &format!("{budget:?}"), &outcome);
    }
}
