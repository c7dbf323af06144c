//! Distinct assertion violations found over time on generated maze contracts (issue 13):
//! harvey with `fail_fast(false)` against forge 1.7.1's invariant fuzzer.
//!
//! Each maze (`maze/generator.rs`, one per generator seed in [`MAZES`]) is a 6x6 grid with
//! walls, a position moved by `up()`/`down()`/`left()`/`right()`, and 12 `assert(false)`s in
//! `probe(uint64,uint64,uint64,uint64)`, each behind its cell and a conjunction of linear
//! constraints on the arguments; 3 of them are contradictions, so 9 can fail. Before
//! measuring, every feasible assertion's witness (BFS moves around the walls, then a probe
//! with arguments that satisfy its constraints) is replayed on harvey's `Chain` and must end
//! in Panic 0x01.
//!
//! Per maze and per seed (`HARVEY_BENCH_SEEDS`, default 3), both tools get the same
//! wall-clock budget (`HARVEY_MAZE_BUDGET_SECS`, default 60), one thread each and the same
//! three sender addresses (harvey's third holds its attacker contract, forge's are plain
//! accounts); harvey runs at its default depth (8, which bounds the generator's paths to
//! 7 moves), forge at the same depth and again at its own default (500), at which its
//! random walks cover the grid:
//! - harvey: one campaign, `fail_fast(false)`, one worker; a violation counts at its
//!   `found_after` (from the end of setup; compiling and setup are not timed).
//! - forge: one `invariant_N()` per assertion over a variant of the maze where the
//!   assertion sets `hit[N] = true` instead (forge ignores a reverting call unless
//!   `fail_on_revert`, which cannot be on: moves into walls revert). Repeated `forge test
//!   --fuzz-seed <fresh> -j 1 --json` runs (cache/invariant deleted before each) until the
//!   budget is spent, each run over the invariants not yet reported, each invariant's
//!   campaign limited by `FOUNDRY_INVARIANT_TIMEOUT` (budget / (4 × assertions), at least
//!   1 s, less when that would not fit in what is left of the budget; at 60 s, runs of
//!   twelve 1-second campaigns). Time is the cumulative wall-clock time of the forge
//!   processes (start-up and the no-op compile check included); a run still going when the
//!   budget ends is killed.
//!
//! How forge 1.7.1 runs several invariants of one contract (observed on a test contract
//! with four invariants, `timeout = 5`): each `invariant_*` function is its own campaign,
//! with the full `runs` and `timeout`, and checks only its own invariant (a campaign in
//! which another invariant's flag was set passes); campaigns run in parallel, one per
//! thread (two cores: 4 campaigns of 5 s took 10 s; `-j 1` runs them one after another). A
//! campaign ends at its first failure. forge prints the results (`[FAIL]`/`[PASS]` per test)
//! only when the whole run ends, but writes a JSON line
//! `{"event":"failure","invariant":"invariant_3",…}` to stderr the moment a campaign fails.
//! So forge's curve is given twice: an invariant counts as found at the end of the first
//! run whose results report it ("end of run", the result a user sees), or when its failure
//! event arrived ("failure event").
//!
//! `HARVEY_MAZE_SCALE=large` runs the large mazes instead (issue 30; seeds in
//! [`LARGE_MAZES`], default budget 300 s): 7x7 grids with 40 assertions each (a cell may
//! hold several), each behind 1 to 10 comparisons — linear equalities and inequalities,
//! bounds, and products of two parameters — most built around one witness, some around two
//! alternately; whether each can fail is decided by z3 (`HARVEY_Z3`, else `z3` on `PATH`),
//! whose models are the witnesses replayed before measuring. What z3 cannot decide in its
//! time (its verdicts depend on the machine's load) is reported apart, as undecided; a
//! fuzzer failing one shows it feasible and is not an error.
//!
//! `HARVEY_MAZE_HARVEY` (comma-separated, default `default`) says which configurations of
//! harvey run, each a row: `default`, `no-solver` (joint prediction without the
//! solver-backed step) and `one-dimensional` (joint prediction and solver off: HARVEY's
//! secant method on one input at a time), `flipped-novelty` and `flipped-conditions` (the
//! defaults with the `state_novelty` or the `condition_states` setting flipped), for the
//! ablations; `HARVEY_MAZE_FORGE=0` leaves
//! forge out. The solver's rows need z3 (`HARVEY_Z3`; `.cargo/config.toml` names the
//! repository's shim).
//!
//! `HARVEY_MAZE_ONLY` (comma-separated generator seeds, e.g. `5` or `1,3`) runs only those
//! mazes of the chosen scale; verdicts and campaigns of the others are skipped.
//!
//! `HARVEY_MAZE_SHARDS=N` compares N shards merged against one campaign instead (issue 32,
//! `maze/shards.rs`).
//!
//! Run with `cargo bench --bench maze`; the table at the end is markdown.

#[path = "maze/constraint.rs"]
mod constraint;
// Shared with vs_forge, which uses other parts of it.
#[allow(dead_code)]
#[path = "peer/forge.rs"]
mod forge;
#[path = "maze/generator.rs"]
mod generator;
#[path = "peer/install.rs"]
mod install;
#[path = "support/root.rs"]
mod root;
#[path = "maze/shards.rs"]
mod shards;
#[path = "maze/solver.rs"]
mod solver;
// Shared with the other benches, which use other parts of it.
#[allow(dead_code)]
#[path = "support/timing.rs"]
mod timing;

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use harvey::Violation;
use harvey::chain::{PanicCode, RevertReason, TxStatus};
use harvey::prelude::*;

use generator::{Maze, Variant};
use timing::{bench_seeds, median, solver_share};

/// Generator seeds: one maze each.
const MAZES: [u64; 3] = [1, 2, 3];

/// Generator seeds of the large mazes.
const LARGE_MAZES: [u64; 5] = [1, 2, 3, 4, 5];

/// Times (seconds) at which the found violations are counted, up to the budget.
const CHECKPOINTS: [u64; 7] = [1, 5, 15, 30, 60, 120, 300];

/// Whether the large mazes run (`HARVEY_MAZE_SCALE=large`) instead of the small ones.
fn large() -> bool {
    match std::env::var("HARVEY_MAZE_SCALE").as_deref() {
        Ok("large") => true,
        Ok("small") | Err(_) => false,
        Ok(other) => panic!("HARVEY_MAZE_SCALE: {other:?} is neither small nor large"),
    }
}

/// The per-maze budget: `HARVEY_MAZE_BUDGET_SECS`, default 60 s (300 s for the large
/// mazes).
fn budget(large: bool) -> Duration {
    let secs = std::env::var("HARVEY_MAZE_BUDGET_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if large { 300 } else { 60 });
    Duration::from_secs(secs)
}

/// When one run of one tool first found each assertion it found (by index in the maze).
type Found = BTreeMap<usize, Duration>;

/// Times at which one run of one tool found each distinct violation, sorted.
type Curve = Vec<Duration>;

/// The sorted times of `found`.
fn curve(found: &Found) -> Curve {
    let mut curve: Curve = found.values().copied().collect();
    curve.sort();
    curve
}

/// `#3 at 0.1s, #7 at 2.4s, …` in the order found.
fn shown(found: &Found) -> String {
    let mut order: Vec<(Duration, usize)> = found.iter().map(|(&i, &t)| (t, i)).collect();
    order.sort();
    let shown: Vec<String> = order
        .iter()
        .map(|(t, i)| format!("#{i} at {:.1}s", t.as_secs_f64()))
        .collect();
    format!("[{}]", shown.join(", "))
}

/// A configuration of harvey the bench runs (see the module's comment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Harvey {
    Default,
    /// Joint prediction without the solver-backed step.
    NoSolver,
    OneDimensional,
    /// The defaults with `state_novelty` flipped (issue 43's ablation).
    FlippedNovelty,
    /// The defaults with `condition_states` flipped (issue 43's ablation).
    FlippedConditions,
}

impl Harvey {
    /// The configurations `HARVEY_MAZE_HARVEY` names; panics on an unknown one.
    fn chosen() -> Vec<Harvey> {
        let names = std::env::var("HARVEY_MAZE_HARVEY").unwrap_or_else(|_| "default".into());
        names
            .split(',')
            .map(|name| match name.trim() {
                "default" => Harvey::Default,
                "no-solver" => Harvey::NoSolver,
                "one-dimensional" => Harvey::OneDimensional,
                "flipped-novelty" => Harvey::FlippedNovelty,
                "flipped-conditions" => Harvey::FlippedConditions,
                other => panic!(
                    "HARVEY_MAZE_HARVEY: unknown configuration {other:?} (known: default, no-solver, one-dimensional, flipped-novelty, flipped-conditions)"
                ),
            })
            .collect()
    }

    /// Its row's name.
    fn name(self) -> &'static str {
        match self {
            Harvey::Default => "harvey",
            Harvey::NoSolver => "harvey, no solver",
            Harvey::OneDimensional => "harvey, one-dimensional prediction",
            Harvey::FlippedNovelty => "harvey, state novelty flipped",
            Harvey::FlippedConditions => "harvey, condition states flipped",
        }
    }

    /// `campaign` in this configuration.
    fn apply(self, campaign: Campaign) -> Campaign {
        match self {
            Harvey::Default => campaign,
            Harvey::NoSolver => campaign.solver(false),
            Harvey::OneDimensional => campaign.joint_prediction(false).solver(false),
            Harvey::FlippedNovelty => {
                campaign.state_novelty(!harvey::Config::default().state_novelty)
            }
            Harvey::FlippedConditions => {
                campaign.condition_states(!harvey::Config::default().condition_states)
            }
        }
    }
}

/// The generator seeds of `all` that `HARVEY_MAZE_ONLY` names (all of them when unset);
/// panics on a seed not in `all`, listing the known ones.
fn chosen_mazes(all: &[u64]) -> Vec<u64> {
    let Ok(names) = std::env::var("HARVEY_MAZE_ONLY") else {
        return all.to_vec();
    };
    names
        .split(',')
        .map(|name| {
            name.trim()
                .parse()
                .ok()
                .filter(|seed| all.contains(seed))
                .unwrap_or_else(|| {
                    panic!("HARVEY_MAZE_ONLY: {name:?} is not a maze seed (known: {all:?})")
                })
        })
        .collect()
}

/// Whether forge runs (`HARVEY_MAZE_FORGE`, default on).
fn forge_on() -> bool {
    std::env::var("HARVEY_MAZE_FORGE").map_or(true, |v| v != "0")
}

/// forge 1.7.1's default `[invariant] depth`: forge also runs at it, besides harvey's.
const FORGE_DEPTH: u32 = 500;

/// One row of the table: a tool (and how its time is read), its curve per seed.
struct Row {
    tool: String,
    curves: Vec<Curve>,
}

/// Runs everything and prints the table.
fn main() {
    let Some(seeds) = bench_seeds(3) else {
        return;
    };
    let large = large();
    let budget = budget(large);
    let root = root::harvey_root();
    let depth = harvey::Config::default().depth;
    let moves = depth as usize - 1;
    let mazes: Vec<Maze> = if large {
        chosen_mazes(&LARGE_MAZES)
            .into_iter()
            .map(|s| {
                let (maze, unknown) = Maze::generate_large(s, moves);
                println!(
                    "{}: z3 decides {} of {} assertions feasible, {unknown} undecided in its time",
                    maze.name,
                    maze.feasible(),
                    maze.assertions.len()
                );
                maze
            })
            .collect()
    } else {
        chosen_mazes(&MAZES)
            .into_iter()
            .map(|s| Maze::generate(s, moves))
            .collect()
    };
    let project = harvey_project(root, &mazes);
    check_witnesses(&project, &mazes);
    if let Some(n) = shards::shards() {
        shards::compare(&project, &mazes, n, budget, seeds, depth);
        return;
    }
    let forge = forge_on().then(|| install::ensure_forge().unwrap_or_else(|e| panic!("{e}")));
    let configs = Harvey::chosen();
    println!(
        "maze: {} mazes, {seeds} seeds, {}s per maze and seed; harvey at depth {depth}{}",
        mazes.len(),
        budget.as_secs(),
        if forge.is_some() {
            format!(", forge at {depth} and {FORGE_DEPTH}")
        } else {
            String::new()
        }
    );
    let mut table = Vec::new();
    for maze in &mazes {
        let mut rows: Vec<Row> = configs
            .iter()
            .map(|c| Row {
                tool: c.name().into(),
                curves: Vec::new(),
            })
            .collect();
        let peers: Vec<(u32, forge::ForgeProject)> = match &forge {
            Some(forge) => [depth, FORGE_DEPTH]
                .into_iter()
                .map(|d| (d, forge_project(root, forge, maze, d)))
                .collect(),
            None => Vec::new(),
        };
        for (d, _) in &peers {
            for how in ["end of run", "failure event"] {
                rows.push(Row {
                    tool: format!("forge depth {d}, {how}"),
                    curves: Vec::new(),
                });
            }
        }
        let harvey_rows = configs.len();
        for seed in 1..=seeds {
            for (k, config) in configs.iter().enumerate() {
                let start = Instant::now();
                let (found, sequences) = harvey_run(&project, maze, *config, seed, budget, depth);
                println!(
                    "  {} seed {seed}: {} found {} {} ({sequences} sequences; {:.1}s with setup and shrinking)",
                    maze.name,
                    config.name(),
                    found.len(),
                    shown(&found),
                    start.elapsed().as_secs_f64()
                );
                rows[k].curves.push(curve(&found));
            }
            for (k, (d, peer)) in peers.iter().enumerate() {
                let (end, event, runs) = forge_runs(peer, maze, seed, budget);
                println!(
                    "  {} seed {seed}: forge at depth {d} found {} in {runs} runs, at the end of runs {}; failure events {}",
                    maze.name,
                    end.len(),
                    shown(&end),
                    shown(&event)
                );
                rows[harvey_rows + 2 * k].curves.push(curve(&end));
                rows[harvey_rows + 1 + 2 * k].curves.push(curve(&event));
            }
        }
        table.push((maze, rows));
    }
    print_table(&table, budget, seeds);
}

/// The harvey project of all mazes (assert variant) under the scratch directory, with the
/// repo's solc shim.
fn harvey_project(root: &Path, mazes: &[Maze]) -> PathBuf {
    let dir = install::scratch().join("maze");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let toml = format!(
        "[profile.default]\nsrc = \"src\"\nlibs = []\nsolc = \"{}\"\noffline = true\n",
        root.join("tools/solc-shim/solc").display()
    );
    std::fs::write(dir.join("foundry.toml"), toml).expect("foundry.toml written");
    for maze in mazes {
        let file = dir.join("src").join(format!("{}.sol", maze.name));
        std::fs::write(&file, maze.render(Variant::Harvey))
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    }
    dir
}

/// Replays every feasible assertion's witness by direct calls on a fresh deployment and
/// panics unless it ends in Panic 0x01 at the assertion's cell.
fn check_witnesses(project: &Path, mazes: &[Maze]) {
    let artifacts = harvey::project::compiled(project).unwrap_or_else(|e| panic!("{e}"));
    let mut chain = Chain::new(artifacts);
    for maze in mazes {
        for (i, assertion) in maze.assertions.iter().enumerate() {
            let Some(witness) = &assertion.witness else {
                continue;
            };
            let what = format!("{} assertion {i} (line {})", maze.name, assertion.line);
            let at = chain
                .deploy(&maze.name, ())
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            for m in &witness.moves {
                let outcome = chain
                    .try_call(at, m.signature(), ())
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(
                    outcome.status,
                    TxStatus::Success,
                    "{what}: witness move {}",
                    m.signature()
                );
            }
            let x: U256 = chain.view(at, "x()", ()).expect("x()");
            let y: U256 = chain.view(at, "y()", ()).expect("y()");
            assert_eq!(
                (x, y),
                (U256::from(assertion.cell.0), U256::from(assertion.cell.1)),
                "{what}: the witness moves end elsewhere"
            );
            let [a, b, c, d] = witness.args;
            let outcome = chain
                .try_call(at, "probe(uint64,uint64,uint64,uint64)", (a, b, c, d))
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(
                outcome.status,
                TxStatus::Revert(RevertReason::Panic(PanicCode::Assert)),
                "{what}: the witness probe {:?} does not fail the assertion",
                witness.args
            );
        }
        println!(
            "{}: {} feasible assertions, each witness reaches its Panic 0x01; {} infeasible, {} undecided",
            maze.name,
            maze.feasible(),
            maze.assertions.len() - maze.feasible() - maze.undecided(),
            maze.undecided()
        );
    }
}

/// One harvey campaign on `maze`: when it found each assertion, and the sequences it
/// ran. Panics if harvey reports a violation that is not one of the maze's feasible
/// assertions.
fn harvey_run(
    project: &Path,
    maze: &Maze,
    config: Harvey,
    seed: u64,
    budget: Duration,
    depth: u32,
) -> (Found, u64) {
    let outcome = harvey_campaign(project, maze, config, seed, depth)
        .time(budget)
        .run()
        .unwrap_or_else(|e| panic!("{e}"));
    let found = found_in(&outcome, maze);
    eprintln!(
        "{} [{}] seed {seed}: missed {}",
        maze.name,
        config.name(),
        missed(maze, &found)
    );
    // The solver's share of the campaign (issue 30's ablation asks for it).
    let p = &outcome.stats.predictions;
    eprintln!(
        "{} [{}] seed {seed}: joint prediction {} of {} flipped; {}",
        maze.name,
        config.name(),
        p.joint_flipped,
        p.joint,
        solver_share(p, outcome.stats.elapsed),
    );
    (found, outcome.stats.sequences)
}

/// The feasible assertions `found` lacks, each as `#index (x, y) moves/comparisons`, with a
/// `+` when another assertion of its cell was found (the campaign probed there, so the miss
/// is the arguments'), and a `*` when its constraints multiply parameters: where the misses
/// lie, reaching a cell or solving it.
fn missed(maze: &Maze, found: &Found) -> String {
    let reached = |cell| found.keys().any(|&i| maze.assertions[i].cell == cell);
    let list: Vec<String> = maze
        .assertions
        .iter()
        .enumerate()
        .filter(|(i, a)| a.witness.is_some() && !found.contains_key(i))
        .map(|(i, a)| {
            let moves = a.witness.as_ref().map_or(0, |w| w.moves.len());
            format!(
                "#{i} {:?} {moves}/{}{}{}",
                a.cell,
                a.comparisons(),
                if a.nonlinear() { "*" } else { "" },
                if reached(a.cell) { "+" } else { "" }
            )
        })
        .collect();
    match list.len() {
        0 => "none".into(),
        n => format!("{n}: {}", list.join(", ")),
    }
}

/// The campaign the bench runs on `maze`: `config`, `fail_fast(false)`, one worker, `seed`,
/// at `depth`; its budget is the caller's.
fn harvey_campaign<'a>(
    project: &Path,
    maze: &Maze,
    config: Harvey,
    seed: u64,
    depth: u32,
) -> Campaign<'a> {
    config
        .apply(Campaign::new(project))
        .contract(&maze.name)
        .fail_fast(false)
        .depth(depth)
        .seed(seed)
        .workers(1)
}

/// When `outcome` found each of `maze`'s assertions. Panics on a violation that is not one
/// of its feasible (or undecided) assertions.
fn found_in(outcome: &harvey::Outcome, maze: &Maze) -> Found {
    let file = format!("{}.sol:", maze.name);
    let mut found = BTreeMap::new();
    for failure in &outcome.failures {
        let line = match &failure.violation {
            Violation::Panic {
                code: PanicCode::Assert,
                place,
            } => place
                .line
                .as_deref()
                .and_then(|l| l.rsplit_once(&file))
                .and_then(|(_, line)| line.parse().ok()),
            _ => None,
        };
        let assertion = line.and_then(|l| maze.assertion_at(l)).unwrap_or_else(|| {
            panic!(
                "{}: a violation on no assertion: {}",
                maze.name, failure.violation
            )
        });
        let failed = &maze.assertions[assertion];
        assert!(
            failed.witness.is_some() || failed.undecided,
            "{}: harvey failed the infeasible assertion on line {}",
            maze.name,
            maze.assertions[assertion].line
        );
        found.entry(assertion).or_insert(failure.found_after);
    }
    found
}

/// The forge project of `maze`: the flag variant and one invariant per assertion.
fn forge_project(root: &Path, forge: &Path, maze: &Maze, depth: u32) -> forge::ForgeProject {
    let invariants: String = (0..maze.assertions.len())
        .map(|i| {
            format!(
                "    function invariant_{i}() public view {{\n        require(!target.hit({i}), \"assertion {i} failed\");\n    }}\n\n"
            )
        })
        .collect();
    let settings = forge::Invariant {
        depth,
        fail_on_revert: false,
        timeout: Duration::from_secs(1),
    };
    forge::write_project(
        root,
        forge,
        &format!("maze-{}-depth{depth}", maze.name),
        &[(maze.name.clone(), maze.render(Variant::Forge))],
        &forge::test_contract(&maze.name, &invariants),
        &settings,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Repeated forge runs on `maze` until `budget` is spent: when (cumulative time) each
/// assertion's invariant was first reported at the end of a run, and when its failure
/// event arrived; and the number of runs.
fn forge_runs(
    project: &forge::ForgeProject,
    maze: &Maze,
    seed: u64,
    budget: Duration,
) -> (Found, Found, u32) {
    let n = maze.assertions.len();
    // A campaign timeout that gives each invariant about four fresh seeds in the budget.
    let slice = (budget.as_secs() / (4 * n as u64)).max(1);
    let mut pending: VecDeque<usize> = (0..n).collect();
    let mut at_end = BTreeMap::new();
    let mut at_event = BTreeMap::new();
    let mut spent = Duration::ZERO;
    // forge's start-up and compile check, learned from the runs.
    let mut overhead = Duration::from_secs(1);
    let mut runs = 0u32;
    while !pending.is_empty() {
        let left = budget.saturating_sub(spent);
        let room = left.saturating_sub(overhead).as_secs();
        // As many campaigns of at least a second as fit, the least recently run first.
        let count = pending.len().min(room as usize);
        if count == 0 {
            break;
        }
        let timeout = (room / count as u64).clamp(1, slice);
        let chosen: Vec<usize> = pending.iter().take(count).copied().collect();
        pending.rotate_left(count);
        let filter = chosen
            .iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join("|");
        let run_seed = seed * 1_000_000 + u64::from(runs);
        let mut command = forge::test_command(project, run_seed);
        command
            .args(["-j", "1", "--match-test"])
            .arg(format!("^invariant_({filter})\\("))
            .env("FOUNDRY_INVARIANT_TIMEOUT", timeout.to_string());
        let run = forge::run_streamed(command, left).unwrap_or_else(|e| panic!("{e}"));
        runs += 1;
        let name = |invariant: &str| -> usize {
            invariant
                .strip_prefix("invariant_")
                .and_then(|i| i.parse().ok())
                .unwrap_or_else(|| panic!("forge reported an unknown test {invariant}"))
        };
        for (invariant, at) in &run.events {
            at_event.entry(name(invariant)).or_insert(spent + *at);
        }
        spent += run.wall;
        for invariant in &run.failed {
            let i = name(invariant);
            at_end.entry(i).or_insert(spent);
            pending.retain(|&p| p != i);
        }
        let planned = Duration::from_secs(timeout * count as u64);
        overhead = overhead.max(run.wall.saturating_sub(planned));
        if run.killed {
            break;
        }
    }
    for i in at_end.keys().chain(at_event.keys()) {
        assert!(
            maze.assertions[*i].witness.is_some() || maze.assertions[*i].undecided,
            "{}: forge failed the infeasible invariant_{i}",
            maze.name
        );
    }
    (at_end, at_event, runs)
}

/// The markdown table: per maze and tool, the median over seeds of the violations found
/// by each checkpoint; then the same over all mazes together (per seed, the sum over
/// mazes).
fn print_table(table: &[(&Maze, Vec<Row>)], budget: Duration, seeds: u64) {
    let mut checkpoints: Vec<Duration> = CHECKPOINTS
        .iter()
        .map(|&s| Duration::from_secs(s))
        .filter(|&t| t < budget)
        .collect();
    checkpoints.push(budget);
    println!(
        "\ndistinct assertion violations found by time t (median of {seeds} seeds; {}s per maze and seed):\n",
        budget.as_secs()
    );
    let header: Vec<String> = checkpoints
        .iter()
        .map(|t| format!("{} s", t.as_secs()))
        .collect();
    println!(
        "| maze | feasible / infeasible | fuzzer | {} |",
        header.join(" | ")
    );
    println!("|---|---|---|{}", "---:|".repeat(checkpoints.len()));
    let counts = |curves: &[Curve]| -> String {
        let counts: Vec<String> = checkpoints
            .iter()
            .map(|&t| {
                let mut found: Vec<usize> = curves
                    .iter()
                    .map(|c| c.iter().filter(|&&f| f <= t).count())
                    .collect();
                median(&mut found).expect("at least one seed").to_string()
            })
            .collect();
        counts.join(" | ")
    };
    let print_rows =
        |name: &str, feasible: usize, infeasible: usize, undecided: usize, rows: &[Row]| {
            for (k, row) in rows.iter().enumerate() {
                let (name, kinds) = if k == 0 {
                    let kinds = match undecided {
                        0 => format!("{feasible} / {infeasible}"),
                        u => format!("{feasible} / {infeasible} / {u} undecided"),
                    };
                    (name.to_string(), kinds)
                } else {
                    (String::new(), String::new())
                };
                println!(
                    "| {name} | {kinds} | {} | {} |",
                    row.tool,
                    counts(&row.curves)
                );
            }
        };
    for (maze, rows) in table {
        let feasible = maze.feasible();
        let undecided = maze.undecided();
        print_rows(
            &maze.name,
            feasible,
            maze.assertions.len() - feasible - undecided,
            undecided,
            rows,
        );
    }
    // All mazes: per tool and seed, every maze's found times in one curve.
    let feasible: usize = table.iter().map(|(m, _)| m.feasible()).sum();
    let all: usize = table.iter().map(|(m, _)| m.assertions.len()).sum();
    let undecided: usize = table.iter().map(|(m, _)| m.undecided()).sum();
    let merged: Vec<Row> = (0..table[0].1.len())
        .map(|k| Row {
            tool: table[0].1[k].tool.clone(),
            curves: (0..seeds as usize)
                .map(|s| {
                    table
                        .iter()
                        .flat_map(|(_, rows)| rows[k].curves[s].clone())
                        .collect()
                })
                .collect(),
        })
        .collect();
    print_rows(
        "all",
        feasible,
        all - feasible - undecided,
        undecided,
        &merged,
    );
    println!(
        "\n(harvey: time from the end of setup; forge: cumulative wall-clock time of its runs; \"end of run\":"
    );
    println!(
        "an invariant counts when the run that reported it ended, forge's results being printed at the end;"
    );
    println!("\"failure event\": when forge's stderr announced the failing campaign)");
}
