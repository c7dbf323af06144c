//! Linear constraints over the maze's `uint64` probe parameters, as the generator builds
//! them: each one either satisfied by a known witness (feasible) or contradictory by
//! construction (infeasible), rendered as Solidity over `uint256` copies of the parameters
//! so that no sum or product can overflow (no Panic 0x11 next to the assertions).

use alloy_primitives::U256;
use rand::Rng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;

/// Parameters of `probe`: their Solidity names and the `uint256` copies constraints use.
pub(crate) const PARAMS: [(&str, &str); 4] = [("a", "A"), ("b", "B"), ("c", "C"), ("d", "D")];

/// Arguments of one `probe` call.
pub(crate) type Args = [u64; PARAMS.len()];

/// A comparison between two sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Relation {
    Eq,
    Lt,
    Gt,
    Ge,
}

impl Relation {
    fn symbol(self) -> &'static str {
        match self {
            Relation::Eq => "==",
            Relation::Lt => "<",
            Relation::Gt => ">",
            Relation::Ge => ">=",
        }
    }

    /// The SMT-LIB operator.
    fn smt(self) -> &'static str {
        match self {
            Relation::Eq => "=",
            Relation::Lt => "<",
            Relation::Gt => ">",
            Relation::Ge => ">=",
        }
    }

    fn holds(self, left: U256, right: U256) -> bool {
        match self {
            Relation::Eq => left == right,
            Relation::Lt => left < right,
            Relation::Gt => left > right,
            Relation::Ge => left >= right,
        }
    }
}

/// `c1 * P1 + c2 * P2 + … + Q1 * R1 + … + k`: non-negative coefficients and constant,
/// since the contract computes in `uint256`; products of two parameters (the large mazes'
/// nonlinear terms) have coefficient 1.
#[derive(Debug, Clone, Default)]
struct Side {
    /// (coefficient, parameter index).
    terms: Vec<(u64, usize)>,
    /// Products of two parameters, by index.
    products: Vec<(usize, usize)>,
    constant: u128,
}

impl Side {
    /// Its value at `args`, exactly: at most a few terms of 9 * 2^64 and products below
    /// 2^128, plus a constant below 2^128, far below 2^256 (so `uint256` never wraps).
    fn value(&self, args: &Args) -> U256 {
        let linear = self
            .terms
            .iter()
            .map(|&(c, p)| U256::from(c) * U256::from(args[p]));
        let products = self
            .products
            .iter()
            .map(|&(p, q)| U256::from(args[p]) * U256::from(args[q]));
        linear.chain(products).sum::<U256>() + U256::from(self.constant)
    }

    fn render(&self) -> String {
        let mut parts: Vec<String> = self
            .terms
            .iter()
            .map(|&(c, p)| match c {
                1 => PARAMS[p].1.to_string(),
                c => format!("{c} * {}", PARAMS[p].1),
            })
            .chain(
                self.products
                    .iter()
                    .map(|&(p, q)| format!("{} * {}", PARAMS[p].1, PARAMS[q].1)),
            )
            .collect();
        if self.constant != 0 || parts.is_empty() {
            parts.push(self.constant.to_string());
        }
        parts.join(" + ")
    }

    /// SMT-LIB over integer constants named as the parameters.
    fn smt(&self) -> String {
        let parts: Vec<String> = self
            .terms
            .iter()
            .map(|&(c, p)| format!("(* {c} {})", PARAMS[p].0))
            .chain(
                self.products
                    .iter()
                    .map(|&(p, q)| format!("(* {} {})", PARAMS[p].0, PARAMS[q].0)),
            )
            .chain(std::iter::once(self.constant.to_string()))
            .collect();
        format!("(+ {})", parts.join(" "))
    }
}

/// One linear constraint `left <relation> right`.
#[derive(Debug, Clone)]
pub(crate) struct Constraint {
    left: Side,
    relation: Relation,
    right: Side,
}

impl Constraint {
    /// Whether `args` satisfy it (the contract's `uint256` arithmetic, exactly).
    pub(crate) fn holds(&self, args: &Args) -> bool {
        self.relation
            .holds(self.left.value(args), self.right.value(args))
    }

    /// Solidity over the `uint256` copies `A`, `B`, ….
    pub(crate) fn render(&self) -> String {
        format!(
            "{} {} {}",
            self.left.render(),
            self.relation.symbol(),
            self.right.render()
        )
    }

    /// SMT-LIB, over integer constants named as the parameters.
    pub(crate) fn smt(&self) -> String {
        format!(
            "({} {} {})",
            self.relation.smt(),
            self.left.smt(),
            self.right.smt()
        )
    }

    /// Whether either side multiplies two parameters.
    pub(crate) fn nonlinear(&self) -> bool {
        !self.left.products.is_empty() || !self.right.products.is_empty()
    }

    /// The parameters it mentions.
    pub(crate) fn params(&self) -> impl Iterator<Item = usize> + '_ {
        let linear = self.left.terms.iter().chain(&self.right.terms).map(|t| t.1);
        let products = self
            .left
            .products
            .iter()
            .chain(&self.right.products)
            .flat_map(|&(p, q)| [p, q]);
        linear.chain(products)
    }

    /// `left - right = diff` made into `left == right` with the constant on the side that
    /// keeps it non-negative.
    fn balanced(mut left: Side, relation: Relation, mut right: Side, diff: i128) -> Self {
        if diff >= 0 {
            right.constant += diff.unsigned_abs();
        } else {
            left.constant += diff.unsigned_abs();
        }
        Constraint {
            left,
            relation,
            right,
        }
    }
}

/// A random witness value: uniform bit length from 4 to 64 bits, so both small and large
/// numbers occur.
pub(crate) fn witness_value(rng: &mut StdRng) -> u64 {
    let bits = rng.random_range(4..=64u32);
    rng.random::<u64>() >> (64 - bits)
}

/// A random equality over `params` that `witness` satisfies: `free` has coefficient 1 (so
/// changing it alone can always satisfy the equality again), the others 2 to 9; each term
/// lands on a random side, and the constant balances the sides at the witness.
pub(crate) fn equality(
    rng: &mut StdRng,
    witness: &Args,
    params: &[usize],
    free: usize,
) -> Constraint {
    let (mut left, mut right) = (Side::default(), Side::default());
    let mut diff: i128 = 0;
    for &p in params {
        let coefficient = if p == free {
            1
        } else {
            rng.random_range(2..=9)
        };
        let term = i128::from(coefficient) * i128::from(witness[p]);
        // The free parameter always on the left, so that neither side is empty.
        if p == free || rng.random_bool(0.5) {
            left.terms.push((coefficient, p));
            diff += term;
        } else {
            right.terms.push((coefficient, p));
            diff -= term;
        }
    }
    Constraint::balanced(left, Relation::Eq, right, diff)
}

/// `P + k == Q * R` (or `P == Q * R + k`) that `witness` satisfies: the large mazes'
/// nonlinear equality, solvable by `P` alone (coefficient 1) but coupled, through `Q` and
/// `R`, with every other constraint that mentions them.
pub(crate) fn product_equality(witness: &Args, p: usize, q: usize, r: usize) -> Constraint {
    let product = u128::from(witness[q]) * u128::from(witness[r]);
    let value = u128::from(witness[p]);
    let (left_constant, right_constant) = if product >= value {
        (product - value, 0)
    } else {
        (0, value - product)
    };
    Constraint {
        left: Side {
            terms: vec![(1, p)],
            constant: left_constant,
            ..Side::default()
        },
        relation: Relation::Eq,
        right: Side {
            products: vec![(q, r)],
            constant: right_constant,
            ..Side::default()
        },
    }
}

/// A random inequality between `p` and `c * q` that `witness` satisfies with a slack of at
/// most 1000, so that random arguments satisfy it often (about half the time).
pub(crate) fn relation(rng: &mut StdRng, witness: &Args, p: usize, q: usize) -> Constraint {
    let c = rng.random_range(1..=3u64);
    let diff = i128::from(witness[p]) - i128::from(c) * i128::from(witness[q]);
    let left = Side {
        terms: vec![(1, p)],
        products: Vec::new(),
        constant: 0,
    };
    let right = Side {
        terms: vec![(c, q)],
        products: Vec::new(),
        constant: 0,
    };
    if diff >= 0 {
        // P >= c * Q + k with k <= diff.
        let k = rng.random_range(0..=diff.min(1000));
        Constraint {
            left,
            relation: Relation::Ge,
            right: Side {
                constant: k.unsigned_abs(),
                ..right
            },
        }
    } else {
        // P + k < c * Q with k < -diff.
        let k = rng.random_range(0..(-diff).min(1000));
        Constraint {
            left: Side {
                constant: k.unsigned_abs(),
                ..left
            },
            relation: Relation::Lt,
            right,
        }
    }
}

/// A bound on one parameter that `witness` satisfies: `P > k` a few bits below the
/// witness value, or `P < k` above it when it is too small for that.
pub(crate) fn bound(rng: &mut StdRng, witness: &Args, p: usize) -> Constraint {
    let value = u128::from(witness[p]);
    let shifted = value >> rng.random_range(1..=8u32);
    let param = Side {
        terms: vec![(1, p)],
        products: Vec::new(),
        constant: 0,
    };
    let (relation, k) = if value > 16 {
        (Relation::Gt, shifted)
    } else {
        (Relation::Lt, value + 1 + rng.random_range(0..16u128))
    };
    Constraint {
        left: param,
        relation,
        right: Side {
            terms: Vec::new(),
            products: Vec::new(),
            constant: k,
        },
    }
}

/// The shapes of contradictory constraint sets; each is infeasible over the naturals, which
/// is what `uint256` arithmetic on `uint64` values computes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Contradiction {
    /// `P + Q == k && P > k1 && Q > k2` with `k1 + k2 + 2 > k`: the bounds force the sum
    /// above `k`.
    SumAboveBounds,
    /// `2a * P + 2b * Q == 2c * R + odd`: even on one side, odd on the other.
    Parity,
    /// `P + c * Q == k && 2 * P + 2c * Q == k2` with `k2 != 2k`: twice the first
    /// equality contradicts the second.
    ParallelEqualities,
    /// `P > k && m * P < m * k + m - 1`: the first makes `m * P >= m * k + m`.
    Sandwich,
}

impl Contradiction {
    /// Every shape, for the generator to pick from.
    pub(crate) const ALL: [Contradiction; 4] = [
        Contradiction::SumAboveBounds,
        Contradiction::Parity,
        Contradiction::ParallelEqualities,
        Contradiction::Sandwich,
    ];

    /// A random instance over distinct random parameters.
    pub(crate) fn build(self, rng: &mut StdRng) -> Vec<Constraint> {
        let mut order: Vec<usize> = (0..PARAMS.len()).collect();
        order.shuffle(rng);
        let (p, q, r) = (order[0], order[1], order[2]);
        let big = |rng: &mut StdRng| u128::from(witness_value(rng)) + 100;
        let term = |c: u64, p: usize| Side {
            terms: vec![(c, p)],
            products: Vec::new(),
            constant: 0,
        };
        let constant = |k: u128| Side {
            terms: Vec::new(),
            products: Vec::new(),
            constant: k,
        };
        let odd = |rng: &mut StdRng| 2 * rng.random_range(0..1_000_000u128) + 1;
        match self {
            Contradiction::SumAboveBounds => {
                let k = big(rng);
                let k1 = rng.random_range(k / 2..=k);
                let k2 = k - k1 - 1 + rng.random_range(1..=3);
                vec![
                    Constraint {
                        left: Side {
                            terms: vec![(1, p), (1, q)],
                            products: Vec::new(),
                            constant: 0,
                        },
                        relation: Relation::Eq,
                        right: constant(k),
                    },
                    Constraint {
                        left: term(1, p),
                        relation: Relation::Gt,
                        right: constant(k1),
                    },
                    Constraint {
                        left: term(1, q),
                        relation: Relation::Gt,
                        right: constant(k2),
                    },
                ]
            }
            Contradiction::Parity => {
                let even = |rng: &mut StdRng| 2 * rng.random_range(1..=4u64);
                vec![Constraint {
                    left: Side {
                        terms: vec![(even(rng), p), (even(rng), q)],
                        products: Vec::new(),
                        constant: 0,
                    },
                    relation: Relation::Eq,
                    right: Side {
                        terms: vec![(even(rng), r)],
                        products: Vec::new(),
                        constant: odd(rng),
                    },
                }]
            }
            Contradiction::ParallelEqualities => {
                let c = rng.random_range(2..=9u64);
                let k = big(rng);
                let k2 = 2 * k + odd(rng);
                let pair = |a: u64, b: u64| Side {
                    terms: vec![(a, p), (b, q)],
                    products: Vec::new(),
                    constant: 0,
                };
                vec![
                    Constraint {
                        left: pair(1, c),
                        relation: Relation::Eq,
                        right: constant(k),
                    },
                    Constraint {
                        left: pair(2, 2 * c),
                        relation: Relation::Eq,
                        right: constant(k2),
                    },
                ]
            }
            Contradiction::Sandwich => {
                let m = rng.random_range(2..=9u64);
                let k = big(rng);
                vec![
                    Constraint {
                        left: term(1, p),
                        relation: Relation::Gt,
                        right: constant(k),
                    },
                    Constraint {
                        left: term(m, p),
                        relation: Relation::Lt,
                        right: constant(u128::from(m) * k + u128::from(m) - 1),
                    },
                ]
            }
        }
    }
}
