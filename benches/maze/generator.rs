//! The seeded maze generator: a grid with walls, a position moved by `up()`, `down()`,
//! `left()` and `right()` (a move off the grid or into a wall reverts), and at
//! [`ASSERTIONS`] cells an `assert(false)` in `probe(uint64 a, uint64 b, uint64 c, uint64 d)`
//! behind a conjunction of linear constraints on its arguments. The generator knows which
//! assertions can fail: for each feasible one it keeps a witness (moves found by BFS around
//! the walls, and arguments satisfying the constraints); the infeasible ones are
//! contradictions by construction ([`Contradiction`]).
//!
//! It renders each maze twice: for harvey, with `assert(false)`, and for forge, whose
//! invariant fuzzer ignores reverting calls, with `hit[i] = true;` in its place (code and
//! constraints otherwise identical).

use std::collections::VecDeque;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use super::constraint::{self, Args, Constraint, Contradiction, PARAMS};
use super::solver::{self, Verdict};

/// The small mazes' grid width.
const WIDTH: usize = 6;
/// The small mazes' grid height.
const HEIGHT: usize = 6;
/// The large mazes' grid side.
const LARGE_SIDE: usize = 7;
/// Assertions per large maze (several may share a cell).
const LARGE_ASSERTIONS: usize = 40;
/// Comparisons per large assertion, at most.
const LARGE_COMPARISONS: usize = 10;
/// The share of large assertions whose comparisons are built around two different
/// witnesses (alternately), so that most contradict each other; the solver decides.
const LARGE_MIXED: f64 = 0.3;
/// The chance that a cell (other than the start) is a wall.
const WALL_DENSITY: f64 = 0.3;
/// Assertions per maze, one per cell.
pub(crate) const ASSERTIONS: usize = 12;
/// How many of them are contradictions.
const INFEASIBLE: usize = 3;
/// Among the feasible ones, how many have only inequalities (random arguments satisfy them
/// often); how many have two equalities (the rest have one).
const EASY: usize = 2;
/// See [`EASY`].
const HARD: usize = 3;

/// A move of the position, one call without arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Move {
    Up,
    Down,
    Left,
    Right,
}

impl Move {
    const ALL: [Move; 4] = [Move::Up, Move::Down, Move::Left, Move::Right];

    /// The function that makes it.
    pub(crate) fn signature(self) -> &'static str {
        match self {
            Move::Up => "up()",
            Move::Down => "down()",
            Move::Left => "left()",
            Move::Right => "right()",
        }
    }

    /// The neighbour of `cell` in this direction, if on the `width` by `height` grid.
    fn from(
        self,
        (x, y): (usize, usize),
        (width, height): (usize, usize),
    ) -> Option<(usize, usize)> {
        match self {
            Move::Up => (y + 1 < height).then_some((x, y + 1)),
            Move::Down => y.checked_sub(1).map(|y| (x, y)),
            Move::Left => x.checked_sub(1).map(|x| (x, y)),
            Move::Right => (x + 1 < width).then_some((x + 1, y)),
        }
    }
}

/// How to make a feasible assertion fail from the deployed maze.
#[derive(Debug, Clone)]
pub(crate) struct Witness {
    /// The moves to the assertion's cell, shortest first found by BFS.
    pub(crate) moves: Vec<Move>,
    /// The arguments of the `probe` call there.
    pub(crate) args: Args,
}

/// One `assert(false)` of a maze.
#[derive(Debug, Clone)]
pub(crate) struct Assertion {
    /// Its cell.
    pub(crate) cell: (usize, usize),
    /// The constraints on `probe`'s arguments, in the order the contract checks them.
    constraints: Vec<Constraint>,
    /// `None` when the constraints contradict each other, or the solver could not decide.
    pub(crate) witness: Option<Witness>,
    /// Whether the solver could not decide it (a large maze's): a fuzzer that fails it
    /// shows it feasible.
    pub(crate) undecided: bool,
    /// The line of its `assert(false)` in the harvey variant (1-based).
    pub(crate) line: u32,
}

/// One generated maze.
#[derive(Debug, Clone)]
pub(crate) struct Maze {
    /// The contract's name, `Maze<seed>` (`LargeMaze<seed>`).
    pub(crate) name: String,
    seed: u64,
    /// Grid width and height.
    size: (usize, usize),
    /// Row-major (`y * width + x`): whether the cell is a wall.
    walls: Vec<bool>,
    /// Where the position starts.
    start: (usize, usize),
    /// In source order.
    pub(crate) assertions: Vec<Assertion>,
}

/// Which fuzzer a rendering is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Variant {
    /// `assert(false)`: harvey reports the Panic and its line.
    Harvey,
    /// `hit[i] = true;`: one forge invariant per flag.
    Forge,
}

impl Maze {
    /// The maze of generator seed `seed`, with every witness checked against the
    /// constraints (a generator bug panics here, before anything is measured). Moves to an
    /// assertion's cell take at most `max_moves` (a sequence is the moves and the probe).
    pub(crate) fn generate(seed: u64, max_moves: usize) -> Maze {
        let mut rng = StdRng::seed_from_u64(seed);
        let size = (WIDTH, HEIGHT);
        let (walls, paths, mut cells) = layout(&mut rng, size, max_moves, ASSERTIONS);
        cells.shuffle(&mut rng);
        let mut assertions: Vec<Assertion> = cells[..ASSERTIONS]
            .iter()
            .enumerate()
            .map(|(i, &cell)| {
                let (constraints, witness) = if i < INFEASIBLE {
                    let shape = Contradiction::ALL[rng.random_range(0..Contradiction::ALL.len())];
                    (shape.build(&mut rng), None)
                } else {
                    let hardness = match i - INFEASIBLE {
                        j if j < EASY => Hardness::Easy,
                        j if j < EASY + HARD => Hardness::Hard,
                        _ => Hardness::Medium,
                    };
                    let (constraints, args) = feasible(&mut rng, hardness);
                    let moves = paths[index(cell, size)].clone().expect("a usable cell");
                    (constraints, Some(Witness { moves, args }))
                };
                Assertion {
                    cell,
                    constraints,
                    witness,
                    undecided: false,
                    line: 0,
                }
            })
            .collect();
        // Source order independent of kind.
        assertions.shuffle(&mut rng);
        Maze::finish(format!("Maze{seed}"), seed, size, walls, assertions)
    }

    /// The large maze of generator seed `seed` (issue 30): a 7x7 grid, 40 assertions (a
    /// cell may hold several), each behind 1 to 10 comparisons — linear equalities and
    /// inequalities, bounds and products of two parameters — built around a witness, or
    /// for some around two alternately, and every one decided by the solver: the feasible
    /// count is z3's (its models are the witnesses), not the generator's intent. Also
    /// returns how many the solver could not decide in its time (neither feasible nor
    /// infeasible: a fuzzer may still fail them, which proves them feasible).
    pub(crate) fn generate_large(seed: u64, max_moves: usize) -> (Maze, usize) {
        let mut rng = StdRng::seed_from_u64(seed);
        let size = (LARGE_SIDE, LARGE_SIDE);
        let (walls, paths, cells) = layout(&mut rng, size, max_moves, LARGE_ASSERTIONS / 2);
        let mut unknown = 0;
        let assertions: Vec<Assertion> = (0..LARGE_ASSERTIONS)
            .map(|_| {
                let cell = cells[rng.random_range(0..cells.len())];
                let constraints = large_constraints(&mut rng);
                let verdict = solver::decide(&constraints);
                let undecided = verdict == Verdict::Unknown;
                unknown += usize::from(undecided);
                let witness = match verdict {
                    Verdict::Feasible(args) => Some(Witness {
                        moves: paths[index(cell, size)].clone().expect("a usable cell"),
                        args,
                    }),
                    Verdict::Infeasible | Verdict::Unknown => None,
                };
                Assertion {
                    cell,
                    constraints,
                    witness,
                    undecided,
                    line: 0,
                }
            })
            .collect();
        let maze = Maze::finish(format!("LargeMaze{seed}"), seed, size, walls, assertions);
        (maze, unknown)
    }

    /// The maze of these parts, its witnesses checked against the constraints and the
    /// assert lines recorded from the rendering itself, so they cannot drift.
    fn finish(
        name: String,
        seed: u64,
        size: (usize, usize),
        walls: Vec<bool>,
        assertions: Vec<Assertion>,
    ) -> Maze {
        for a in &assertions {
            if let Some(w) = &a.witness {
                assert!(
                    a.constraints.iter().all(|c| c.holds(&w.args)),
                    "maze generator: the witness {:?} does not satisfy {}",
                    w.args,
                    a.condition()
                );
            }
        }
        let mut maze = Maze {
            name,
            seed,
            size,
            walls,
            start: (0, 0),
            assertions,
        };
        let source = maze.render(Variant::Harvey);
        let lines: Vec<u32> = source
            .lines()
            .enumerate()
            .filter(|(_, l)| l.trim() == "assert(false);")
            .map(|(n, _)| n as u32 + 1)
            .collect();
        assert_eq!(
            lines.len(),
            maze.assertions.len(),
            "one assert per assertion"
        );
        for (a, line) in maze.assertions.iter_mut().zip(lines) {
            a.line = line;
        }
        maze
    }

    /// How many assertions the solver could not decide.
    pub(crate) fn undecided(&self) -> usize {
        self.assertions.iter().filter(|a| a.undecided).count()
    }

    /// How many assertions can fail.
    pub(crate) fn feasible(&self) -> usize {
        self.assertions
            .iter()
            .filter(|a| a.witness.is_some())
            .count()
    }

    /// The index of the assertion whose `assert(false)` is on `line`.
    pub(crate) fn assertion_at(&self, line: u32) -> Option<usize> {
        self.assertions.iter().position(|a| a.line == line)
    }

    /// The Solidity source of the contract for `variant`.
    pub(crate) fn render(&self, variant: Variant) -> String {
        let used: Vec<bool> = (0..PARAMS.len())
            .map(|p| {
                self.assertions
                    .iter()
                    .any(|a| a.constraints.iter().any(|c| c.params().any(|q| q == p)))
            })
            .collect();
        // Unused parameters stay unnamed: solc warns about unused names.
        let params: Vec<String> = PARAMS
            .iter()
            .zip(&used)
            .map(|((name, _), used)| {
                if *used {
                    format!("uint64 {name}")
                } else {
                    "uint64".into()
                }
            })
            .collect();
        let copies: Vec<String> = PARAMS
            .iter()
            .zip(&used)
            .filter(|(_, used)| **used)
            .map(|((name, copy), _)| format!("        uint256 {copy} = {name};\n"))
            .collect();
        let (width, height) = self.size;
        let walls = self
            .walls
            .iter()
            .enumerate()
            .filter(|(_, w)| **w)
            .fold(alloy_primitives::U256::ZERO, |bits, (i, _)| {
                bits | (alloy_primitives::U256::from(1) << i)
            });
        let flags = match variant {
            Variant::Harvey => String::new(),
            Variant::Forge => format!("    bool[{}] public hit;\n", self.assertions.len()),
        };
        let mut checks = String::new();
        for (i, a) in self.assertions.iter().enumerate() {
            let fail = match variant {
                Variant::Harvey => "assert(false);".to_string(),
                Variant::Forge => format!("hit[{i}] = true;"),
            };
            checks.push_str(&format!(
                "        if (px == {} && py == {} && {}) {{\n            {fail}\n        }}\n",
                a.cell.0,
                a.cell.1,
                a.condition()
            ));
        }
        format!(
            r#"// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Generated by harvey's benches/maze.rs from generator seed {seed}: a {width}x{height} grid
/// whose position moves one cell per call (into a wall or off the grid: a revert), and
/// {n} assertions behind constraints on probe's arguments at the position's cell.
contract {name} {{
    uint256 private constant WIDTH = {width};
    uint256 private constant HEIGHT = {height};
    /// Bit y * WIDTH + x set: cell (x, y) is a wall.
    uint256 private constant WALLS = {walls:#x};

    uint256 public x = {sx};
    uint256 public y = {sy};
{flags}
    event Probed(uint256 x, uint256 y);

    function up() external {{
        step(x, y + 1);
    }}

    function down() external {{
        require(y > 0, "edge");
        step(x, y - 1);
    }}

    function left() external {{
        require(x > 0, "edge");
        step(x - 1, y);
    }}

    function right() external {{
        step(x + 1, y);
    }}

    function step(uint256 nx, uint256 ny) private {{
        require(nx < WIDTH && ny < HEIGHT, "edge");
        require((WALLS >> (ny * WIDTH + nx)) & 1 == 0, "wall");
        (x, y) = (nx, ny);
    }}

    function probe({params}) external {{
        (uint256 px, uint256 py) = (x, y);
        emit Probed(px, py);
{copies}{checks}    }}
}}
"#,
            seed = self.seed,
            n = self.assertions.len(),
            name = self.name,
            sx = self.start.0,
            sy = self.start.1,
            params = params.join(", "),
            copies = copies.concat(),
        )
    }
}

impl Assertion {
    /// How many comparisons its condition makes after the cell's two.
    pub(crate) fn comparisons(&self) -> usize {
        self.constraints.len()
    }

    /// Whether a constraint multiplies two parameters.
    pub(crate) fn nonlinear(&self) -> bool {
        self.constraints.iter().any(Constraint::nonlinear)
    }

    /// The constraints as one Solidity conjunction.
    fn condition(&self) -> String {
        self.constraints
            .iter()
            .map(Constraint::render)
            .collect::<Vec<_>>()
            .join(" && ")
    }
}

/// How hard a feasible assertion's constraints are for a fuzzer.
#[derive(Debug, Clone, Copy)]
enum Hardness {
    /// Two inequalities between parameters (random arguments satisfy each about half the
    /// time) and a bound.
    Easy,
    /// One equality over three parameters and a bound on one of them (the brief's
    /// `A + 3 * B == 1000 + C && C > 17`).
    Medium,
    /// Two equalities sharing a parameter, each with a parameter of its own to solve it
    /// by, and a bound.
    Hard,
}

/// Constraints of `hardness` and the arguments that satisfy them.
fn feasible(rng: &mut StdRng, hardness: Hardness) -> (Vec<Constraint>, Args) {
    let args: Args = std::array::from_fn(|_| constraint::witness_value(rng));
    let mut order: Vec<usize> = (0..PARAMS.len()).collect();
    order.shuffle(rng);
    let constraints = match hardness {
        Hardness::Easy => vec![
            constraint::relation(rng, &args, order[0], order[1]),
            constraint::relation(rng, &args, order[2], order[3]),
            constraint::bound(rng, &args, order[1]),
        ],
        Hardness::Medium => vec![
            constraint::equality(rng, &args, &order[..3], order[0]),
            constraint::bound(rng, &args, order[2]),
        ],
        Hardness::Hard => vec![
            constraint::equality(rng, &args, &order[..2], order[0]),
            constraint::equality(rng, &args, &order[1..4], order[2]),
            constraint::bound(rng, &args, order[3]),
        ],
    };
    (constraints, args)
}

/// Walls (the start cell never one) until at least `needed` cells are reachable in 2 to
/// `max_moves` moves: the walls, every cell's shortest path, and those cells.
#[allow(clippy::type_complexity)]
fn layout(
    rng: &mut StdRng,
    size: (usize, usize),
    max_moves: usize,
    needed: usize,
) -> (Vec<bool>, Vec<Option<Vec<Move>>>, Vec<(usize, usize)>) {
    let start = (0, 0);
    let cells = size.0 * size.1;
    loop {
        let walls: Vec<bool> = (0..cells)
            .map(|i| i != index(start, size) && rng.random_bool(WALL_DENSITY))
            .collect();
        let paths = shortest_paths(&walls, start, size);
        let usable: Vec<(usize, usize)> = (0..cells)
            .filter(|&i| {
                paths[i]
                    .as_ref()
                    .is_some_and(|p| (2..=max_moves).contains(&p.len()))
            })
            .map(|i| (i % size.0, i / size.0))
            .collect();
        if usable.len() >= needed {
            return (walls, paths, usable);
        }
    }
}

/// A large assertion's comparisons (see [`Maze::generate_large`]).
fn large_constraints(rng: &mut StdRng) -> Vec<Constraint> {
    let first: Args = std::array::from_fn(|_| constraint::witness_value(rng));
    let second: Args = std::array::from_fn(|_| constraint::witness_value(rng));
    let mixed = rng.random_bool(LARGE_MIXED);
    let count = rng.random_range(1..=LARGE_COMPARISONS);
    (0..count)
        .map(|k| {
            let witness = if mixed && k % 2 == 1 { &second } else { &first };
            let mut order: Vec<usize> = (0..PARAMS.len()).collect();
            order.shuffle(rng);
            match rng.random_range(0..8) {
                0..=2 => {
                    let terms = rng.random_range(2..=3);
                    constraint::equality(rng, witness, &order[..terms], order[0])
                }
                3 | 4 => constraint::product_equality(witness, order[0], order[1], order[2]),
                5 | 6 => constraint::relation(rng, witness, order[0], order[1]),
                _ => constraint::bound(rng, witness, order[0]),
            }
        })
        .collect()
}

fn index((x, y): (usize, usize), (width, _): (usize, usize)) -> usize {
    y * width + x
}

/// BFS from `start` around the walls: for every cell, the moves of a shortest path to it,
/// or `None` when walls enclose it.
fn shortest_paths(
    walls: &[bool],
    start: (usize, usize),
    size: (usize, usize),
) -> Vec<Option<Vec<Move>>> {
    let mut paths: Vec<Option<Vec<Move>>> = vec![None; size.0 * size.1];
    paths[index(start, size)] = Some(Vec::new());
    let mut queue = VecDeque::from([start]);
    while let Some(cell) = queue.pop_front() {
        let path = paths[index(cell, size)]
            .clone()
            .expect("queued cells have paths");
        for m in Move::ALL {
            let Some(next) = m.from(cell, size) else {
                continue;
            };
            if walls[index(next, size)] || paths[index(next, size)].is_some() {
                continue;
            }
            let mut longer = path.clone();
            longer.push(m);
            paths[index(next, size)] = Some(longer);
            queue.push_back(next);
        }
    }
    paths
}
