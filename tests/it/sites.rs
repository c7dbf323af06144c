//! A generator of Solidity contracts with dozens of violation sites, for `places`: every
//! kind of statement a violation is placed at (`assert`, `require` with a message, a custom
//! error, an `AssertionFailed` event, Panics raised through solc's shared checked-arithmetic
//! helpers), each on a line of its own under nested branches, in the dispatching function,
//! an internal function, an internal library function and an external (linked) library
//! function, each after comments with multi-byte UTF-8 text. The generator knows the line of
//! every site, and which call reaches it: `run(site, noise)` violates at `site` exactly when
//! `noise > threshold(site)`.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The statement a site is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `assert(noise <= T);`: Panic 0x01.
    Assert,
    /// `require(noise <= T, "…");`: a revert with `Error(string)`.
    Require,
    /// `if (noise > T) revert Failed(k);`: a custom error.
    Custom,
    /// `if (noise > T) emit AssertionFailed("bound", noise);`: the same label at every
    /// such site, so that only the place tells them apart.
    Emit,
    /// A division whose divisor is zero when `noise > T`: Panic 0x12.
    DivisionByZero,
    /// `T - noise`: Panic 0x11 through the checked subtraction helper.
    Underflow,
    /// `noise + (max - T)`: Panic 0x11 through the checked addition helper.
    Overflow,
}

const KINDS: [Kind; 7] = [
    Kind::Assert,
    Kind::Require,
    Kind::Custom,
    Kind::Emit,
    Kind::DivisionByZero,
    Kind::Underflow,
    Kind::Overflow,
];

/// The code a site runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Frame {
    /// The external function `run` itself.
    Run,
    /// An internal function of the contract.
    Internal,
    /// An internal library function (its code is the contract's).
    InternalLibrary,
    /// A public library function, called by DELEGATECALL into the linked library.
    ExternalLibrary,
}

const FRAMES: [Frame; 4] = [
    Frame::Run,
    Frame::Internal,
    Frame::InternalLibrary,
    Frame::ExternalLibrary,
];

/// One generated violation site.
#[derive(Debug, Clone)]
pub(crate) struct Site {
    /// Its number: the `site` argument of `run` that reaches it.
    pub(crate) id: u64,
    pub(crate) kind: Kind,
    pub(crate) frame: Frame,
    /// Its 1-based line in the generated file.
    pub(crate) line: u32,
}

impl Site {
    /// The largest `noise` that does not violate at this site.
    pub(crate) fn threshold(&self) -> u64 {
        1_000 + 7 * self.id
    }
}

/// A generated contract file: its name (the contract's; the libraries are `<name>Lib` and
/// `<name>Math`), its text and its sites, in id order.
pub(crate) struct Generated {
    pub(crate) name: String,
    pub(crate) text: String,
    pub(crate) sites: Vec<Site>,
}

/// Text that is not ASCII, to put before sites: two- to four-byte UTF-8 characters.
const WIDE: [&str; 4] = [
    "ünïcödé",
    "— naïve café",
    "日本語のコメント",
    "✓ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 🦀",
];

/// Builds the file line by line, knowing each line's number.
struct Writer {
    lines: Vec<String>,
    rng: StdRng,
}

impl Writer {
    fn line(&mut self, depth: usize, text: &str) {
        self.lines.push(format!("{}{text}", "    ".repeat(depth)));
    }

    /// The line the next [`Writer::line`] writes.
    fn next_line(&self) -> u32 {
        self.lines.len() as u32 + 1
    }

    /// One or two comment lines of multi-byte text.
    fn wide_comment(&mut self, depth: usize) {
        for _ in 0..self.rng.random_range(1..=2) {
            let text = WIDE[self.rng.random_range(0..WIDE.len())];
            self.line(depth, &format!("// {text}"));
        }
    }

    /// A binary tree of `if (site < mid)` branches over `sites`, each leaf one site.
    fn tree(&mut self, depth: usize, sites: &mut [Site]) {
        if let [site] = sites {
            self.site(depth, site);
            return;
        }
        let mid = sites.len() / 2;
        let (low, high) = sites.split_at_mut(mid);
        self.line(depth, &format!("if (site < {}) {{", high[0].id));
        self.tree(depth + 1, low);
        self.line(depth, "} else {");
        self.tree(depth + 1, high);
        self.line(depth, "}");
    }

    /// The site's statement after a comment, its line recorded.
    fn site(&mut self, depth: usize, site: &mut Site) {
        self.wide_comment(depth);
        let (k, t) = (site.id, site.threshold());
        // Multi-byte text before the statement on its own line too.
        let prefix = WIDE[(k as usize) % WIDE.len()];
        let statement = match site.kind {
            Kind::Assert => format!("assert(noise <= {t});"),
            Kind::Require => format!("require(noise <= {t}, unicode\"site {k}: {prefix}\");"),
            Kind::Custom => format!("if (noise > {t}) revert Failed({k});"),
            Kind::Emit => format!("if (noise > {t}) emit AssertionFailed(\"bound\", noise);"),
            Kind::DivisionByZero => format!("r = {} / ({} / (noise + 1));", 3 * k + 3, t + 1),
            Kind::Underflow => format!("r = {t} - noise;"),
            Kind::Overflow => format!("r = noise + (type(uint256).max - {t});"),
        };
        site.line = self.next_line();
        self.line(depth, &format!("/* {prefix} */ {statement}"));
    }
}

/// A contract file `name` with `count` sites (at least one per frame), their kinds drawn
/// from `seed` (the first seven cover every kind), its lines ending in `eol`.
pub(crate) fn generate(name: &str, count: u64, seed: u64, eol: &str) -> Generated {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut sites: Vec<Site> = (0..count)
        .map(|id| Site {
            id,
            kind: KINDS
                .get(id as usize)
                .copied()
                .unwrap_or_else(|| KINDS[rng.random_range(0..KINDS.len())]),
            frame: FRAMES[(id as usize) % FRAMES.len()],
            line: 0,
        })
        .collect();
    // Each frame owns a contiguous range of ids (in `FRAMES` order), which `run` dispatches.
    sites.sort_by_key(|s| (FRAMES.iter().position(|f| *f == s.frame), s.id));
    for (id, site) in sites.iter_mut().enumerate() {
        site.id = id as u64;
    }
    let span = |frame: Frame| {
        let start = sites.iter().position(|s| s.frame == frame).unwrap();
        start
            ..start
                + sites[start..]
                    .iter()
                    .take_while(|s| s.frame == frame)
                    .count()
    };
    let [run, internal, math, lib] = FRAMES.map(span);
    let mut w = Writer {
        lines: Vec::new(),
        rng,
    };
    w.line(0, "// SPDX-License-Identifier: MIT");
    w.line(0, "pragma solidity ^0.8.22;");
    w.line(0, "");
    w.wide_comment(0);
    w.line(0, "error Failed(uint256 site);");
    w.line(0, "event AssertionFailed(string reason, uint256 value);");
    w.line(0, "");
    for (library, visibility, ids) in [
        ("Lib", "public", lib.clone()),
        ("Math", "internal", math.clone()),
    ] {
        w.line(0, &format!("library {name}{library} {{"));
        w.line(
            1,
            &format!(
                "function check(uint256 site, uint256 noise) {visibility} returns (uint256 r) {{"
            ),
        );
        w.tree(2, &mut sites[ids]);
        w.line(1, "}");
        w.line(0, "}");
        w.line(0, "");
    }
    w.line(0, &format!("contract {name} {{"));
    w.line(1, "uint256 public sink;");
    w.line(0, "");
    w.line(1, "function run(uint256 site, uint256 noise) external {");
    w.line(2, "uint256 r;");
    w.line(2, &format!("if (site >= {}) {{", internal.start));
    w.line(3, &format!("if (site < {}) {{", internal.end));
    w.line(4, "r = inner(site, noise);");
    w.line(3, &format!("}} else if (site < {}) {{", math.end));
    w.line(4, &format!("r = {name}Math.check(site, noise);"));
    w.line(3, "} else {");
    w.line(4, &format!("r = {name}Lib.check(site, noise);"));
    w.line(3, "}");
    w.line(2, "} else {");
    w.tree(3, &mut sites[run]);
    w.line(2, "}");
    w.line(2, "sink = r;");
    w.line(1, "}");
    w.line(0, "");
    w.line(
        1,
        "function inner(uint256 site, uint256 noise) internal returns (uint256 r) {",
    );
    w.tree(2, &mut sites[internal]);
    w.line(1, "}");
    w.line(0, "}");
    w.line(0, "");
    Generated {
        name: name.to_string(),
        text: w.lines.join(eol),
        sites,
    }
}
