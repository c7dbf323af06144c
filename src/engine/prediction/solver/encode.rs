//! Terms over the argument words (`observe::Term`) as SMT-LIB integer terms.
//!
//! Integers, not 256-bit vectors: z3 bit-blasts a 256-bit (even a 128-bit) multiplication
//! and does not answer `a * b == a + 74565` within minutes, while nonlinear integer
//! arithmetic answers it at once. Each EVM instruction is encoded exactly, its wrap-around
//! included, but an interval per term (from the argument words' declared types) drops the
//! `mod 2^256` where the result cannot wrap, which is nearly always: solc 0.8 checks its
//! arithmetic, and what it checks stays far below 2^256. Instructions with no cheap exact
//! integer form (`OR`/`XOR` of two unknowns, a shift by an unknown amount, `EXP` of an
//! unknown, masks that are not a run of ones) make the encoding give up: the term and every
//! condition on it are left out.
//!
//! Every compound term is defined once under a name of its own (`(define-fun t7 () Int
//! ...)`) and referred to by it: a path condition is a DAG whose terms share operands (a
//! loop's counter is the previous iteration's counter minus one), and printed as a tree it
//! grows exponentially with the loop (a 255-step loop made gigabytes).

use alloy_primitives::U256;
use easy_smt::{Context, SExpr};

use crate::observe::symbolic::{BinaryOp, PathCondition, Term, TermId, UnaryOp};

/// What an encoded term is: a word (an integer in `[0, 2^256)`) or a truth value (a
/// comparison's result, the word 1 or 0).
#[derive(Debug, Clone, Copy)]
struct Encoded {
    expr: SExpr,
    boolean: bool,
    /// The word's bounds (for a truth value: 0 and 1).
    lo: U256,
    hi: U256,
}

/// A compound term, named: `(define-fun <name> () <Int or Bool> <expr>)`.
#[derive(Debug, Clone)]
pub(super) struct Definition {
    pub(super) name: String,
    pub(super) expr: SExpr,
    pub(super) boolean: bool,
}

/// The encoder of one path condition's terms. `arg_max(i)` is the largest word argument
/// word `i` may hold, or `None` when the word is not one the solver may choose (its
/// terms then give up).
pub(super) struct Encoder<'a, F> {
    ctx: &'a Context,
    path: &'a PathCondition,
    arg_max: F,
    memo: Vec<Option<Option<Encoded>>>,
    /// The argument words the encoded terms use, in order of first use.
    pub(super) args: Vec<u32>,
    /// The compound terms encoded, each defined after the terms it uses.
    pub(super) definitions: Vec<Definition>,
}

/// `2^k` as an SMT-LIB numeral.
fn power(ctx: &Context, k: usize) -> SExpr {
    ctx.atom((U256::ONE << k).to_string())
}

fn numeral(ctx: &Context, value: U256) -> SExpr {
    ctx.atom(value.to_string())
}

/// `2^256`, the modulus of EVM words.
fn modulus(ctx: &Context) -> SExpr {
    ctx.atom("115792089237316195423570985008687907853269984665640564039457584007913129639936")
}

/// The name of argument word `i`'s variable.
pub(super) fn arg_name(i: u32) -> String {
    format!("arg{i}")
}

impl<'a, F: Fn(u32) -> Option<U256>> Encoder<'a, F> {
    pub(super) fn new(ctx: &'a Context, path: &'a PathCondition, arg_max: F) -> Self {
        Encoder {
            ctx,
            path,
            arg_max,
            memo: vec![None; path.terms.len()],
            args: Vec::new(),
            definitions: Vec::new(),
        }
    }

    /// The condition "the JUMPI whose condition is `id` went the way `taken` says", or
    /// `None` when the condition cannot be encoded.
    pub(super) fn branch(&mut self, id: TermId, taken: bool) -> Option<SExpr> {
        let condition = self.truth(id)?;
        Some(if taken {
            condition
        } else {
            self.ctx.not(condition)
        })
    }

    /// Term `id` as a truth value (a word is true when non-zero).
    fn truth(&mut self, id: TermId) -> Option<SExpr> {
        // `a - b` is non-zero exactly when `a != b` (solc compiles `a == b` to `SUB`,
        // `ISZERO`): said so, z3 need not reason about the wrap-around of the difference.
        if let Some(&Term::Binary(BinaryOp::Sub, a, b)) = self.path.terms.get(id as usize) {
            let (a, b) = (self.word(a)?, self.word(b)?);
            return Some(self.ctx.not(self.ctx.eq(a.expr, b.expr)));
        }
        let e = self.term(id)?;
        Some(if e.boolean {
            e.expr
        } else {
            self.ctx.not(self.ctx.eq(e.expr, self.ctx.numeral(0)))
        })
    }

    fn term(&mut self, id: TermId) -> Option<Encoded> {
        let index = id as usize;
        if let Some(done) = self.memo.get(index).copied().flatten() {
            return done;
        }
        let encoded = self
            .encode(*self.path.terms.get(index)?)
            .map(|e| self.named(id, e));
        if let Some(slot) = self.memo.get_mut(index) {
            *slot = Some(encoded);
        }
        encoded
    }

    /// `e`, the encoding of term `id`, under a name of its own unless it is an atom.
    fn named(&mut self, id: TermId, e: Encoded) -> Encoded {
        if self.ctx.get_atom(e.expr).is_some() {
            return e;
        }
        let name = format!("t{id}");
        self.definitions.push(Definition {
            name: name.clone(),
            expr: e.expr,
            boolean: e.boolean,
        });
        Encoded {
            expr: self.ctx.atom(name),
            ..e
        }
    }

    /// A word: truth values become 1 or 0.
    fn word(&mut self, id: TermId) -> Option<Encoded> {
        let e = self.term(id)?;
        Some(if e.boolean {
            Encoded {
                expr: self
                    .ctx
                    .ite(e.expr, self.ctx.numeral(1), self.ctx.numeral(0)),
                boolean: false,
                ..e
            }
        } else {
            e
        })
    }

    fn encode(&mut self, term: Term) -> Option<Encoded> {
        let ctx = self.ctx;
        match term {
            Term::Arg(i) => {
                let hi = (self.arg_max)(i)?;
                if !self.args.contains(&i) {
                    self.args.push(i);
                }
                Some(word(ctx.atom(arg_name(i)), U256::ZERO, hi))
            }
            Term::Const(value) => Some(word(numeral(ctx, value), value, value)),
            Term::Opaque => None,
            Term::Unary(UnaryOp::IsZero, a) => {
                let condition = self.truth(a)?;
                Some(truth(ctx.not(condition)))
            }
            Term::Unary(UnaryOp::Not, a) => {
                let a = self.word(a)?;
                Some(word(
                    ctx.sub(numeral(ctx, U256::MAX), a.expr),
                    U256::MAX - a.hi,
                    U256::MAX - a.lo,
                ))
            }
            Term::Binary(op, a, b) => {
                let (a, b) = (self.word(a)?, self.word(b)?);
                self.binary(op, a, b)
            }
        }
    }

    fn binary(&mut self, op: BinaryOp, a: Encoded, b: Encoded) -> Option<Encoded> {
        let ctx = self.ctx;
        let constant = |e: &Encoded| (e.lo == e.hi).then_some(e.lo);
        Some(match op {
            BinaryOp::Add => match a.hi.checked_add(b.hi) {
                Some(hi) => word(ctx.plus(a.expr, b.expr), a.lo + b.lo, hi),
                None => wrapped(ctx, ctx.plus(a.expr, b.expr)),
            },
            BinaryOp::Mul => match a.hi.checked_mul(b.hi) {
                Some(hi) => word(ctx.times(a.expr, b.expr), a.lo * b.lo, hi),
                None => wrapped(ctx, ctx.times(a.expr, b.expr)),
            },
            BinaryOp::Sub if a.lo >= b.hi => {
                word(ctx.sub(a.expr, b.expr), a.lo - b.hi, a.hi - b.lo)
            }
            BinaryOp::Sub => {
                let difference = ctx.sub(a.expr, b.expr);
                let expr = ctx.ite(
                    ctx.gte(a.expr, b.expr),
                    difference,
                    ctx.plus(difference, modulus(ctx)),
                );
                word(expr, U256::ZERO, U256::MAX)
            }
            BinaryOp::Div => {
                let quotient = ctx.div(a.expr, b.expr);
                let expr = if b.lo.is_zero() {
                    ctx.ite(ctx.eq(b.expr, ctx.numeral(0)), ctx.numeral(0), quotient)
                } else {
                    quotient
                };
                word(expr, U256::ZERO, a.hi)
            }
            BinaryOp::Mod => {
                let remainder = ctx.modulo(a.expr, b.expr);
                let expr = if b.lo.is_zero() {
                    ctx.ite(ctx.eq(b.expr, ctx.numeral(0)), ctx.numeral(0), remainder)
                } else {
                    remainder
                };
                word(expr, U256::ZERO, a.hi.min(b.hi.saturating_sub(U256::ONE)))
            }
            BinaryOp::Lt => truth(ctx.lt(a.expr, b.expr)),
            BinaryOp::Gt => truth(ctx.gt(a.expr, b.expr)),
            BinaryOp::Eq => truth(ctx.eq(a.expr, b.expr)),
            BinaryOp::SLt => truth(ctx.lt(signed(ctx, &a), signed(ctx, &b))),
            BinaryOp::SGt => truth(ctx.gt(signed(ctx, &a), signed(ctx, &b))),
            BinaryOp::And => {
                let (mask, other) = match (constant(&a), constant(&b)) {
                    (Some(mask), _) => (mask, b),
                    (_, Some(mask)) => (mask, a),
                    _ => return None,
                };
                masked(ctx, mask, other)?
            }
            BinaryOp::Or | BinaryOp::Xor => match (constant(&a), constant(&b)) {
                (Some(zero), _) if zero.is_zero() => b,
                (_, Some(zero)) if zero.is_zero() => a,
                _ => return None,
            },
            BinaryOp::Shl => {
                let shift = shift_amount(constant(&a)?);
                if shift >= 256 {
                    return Some(word(ctx.numeral(0), U256::ZERO, U256::ZERO));
                }
                let product = ctx.times(b.expr, power(ctx, shift));
                match b.hi.checked_mul(U256::ONE << shift) {
                    Some(hi) => word(product, b.lo << shift, hi),
                    None => wrapped(ctx, product),
                }
            }
            BinaryOp::Shr => {
                let shift = shift_amount(constant(&a)?);
                if shift >= 256 {
                    return Some(word(ctx.numeral(0), U256::ZERO, U256::ZERO));
                }
                word(
                    ctx.div(b.expr, power(ctx, shift)),
                    b.lo >> shift,
                    b.hi >> shift,
                )
            }
            // An arithmetic shift of a word known non-negative is a logical one.
            BinaryOp::Sar if b.hi.bit(255) => return None,
            BinaryOp::Sar => return self.binary(BinaryOp::Shr, a, b),
            BinaryOp::SignExtend => {
                let index = constant(&a)?;
                if index >= U256::from(31) {
                    return Some(b);
                }
                let bits = (index.to::<usize>() + 1) * 8;
                let low = if b.hi < U256::ONE << bits {
                    b
                } else {
                    word(
                        ctx.modulo(b.expr, power(ctx, bits)),
                        U256::ZERO,
                        (U256::ONE << bits) - U256::ONE,
                    )
                };
                if !low.hi.bit(bits - 1) {
                    return Some(low);
                }
                // Negative when the sign bit is set: the bits above it become ones.
                let high = U256::MAX - ((U256::ONE << bits) - U256::ONE);
                let expr = ctx.ite(
                    ctx.gte(low.expr, power(ctx, bits - 1)),
                    ctx.plus(low.expr, numeral(ctx, high)),
                    low.expr,
                );
                word(expr, U256::ZERO, U256::MAX)
            }
            BinaryOp::SDiv | BinaryOp::SMod | BinaryOp::Exp | BinaryOp::Byte => return None,
        })
    }
}

fn word(expr: SExpr, lo: U256, hi: U256) -> Encoded {
    Encoded {
        expr,
        boolean: false,
        lo,
        hi,
    }
}

fn truth(expr: SExpr) -> Encoded {
    Encoded {
        expr,
        boolean: true,
        lo: U256::ZERO,
        hi: U256::ONE,
    }
}

/// A sum or product that may pass 2^256, taken modulo it.
fn wrapped(ctx: &Context, expr: SExpr) -> Encoded {
    word(ctx.modulo(expr, modulus(ctx)), U256::ZERO, U256::MAX)
}

/// A word read as a two's-complement integer.
fn signed(ctx: &Context, e: &Encoded) -> SExpr {
    if !e.hi.bit(255) {
        return e.expr;
    }
    ctx.ite(
        ctx.gte(e.expr, power(ctx, 255)),
        ctx.sub(e.expr, modulus(ctx)),
        e.expr,
    )
}

/// A shift amount as a number of bits (256 or more shift everything out).
fn shift_amount(amount: U256) -> usize {
    usize::try_from(amount).unwrap_or(usize::MAX).min(256)
}

/// `other & mask` for masks whose ones are one run: low ones (`x mod 2^k`: `uint64`,
/// `address`), high ones (`x - x mod 2^j`: `bytes4`), or a run in the middle (both).
fn masked(ctx: &Context, mask: U256, other: Encoded) -> Option<Encoded> {
    if mask.is_zero() {
        return Some(word(ctx.numeral(0), U256::ZERO, U256::ZERO));
    }
    let low = mask.trailing_zeros();
    let ones = 256 - mask.leading_zeros() - low;
    let run = if ones == 256 {
        U256::MAX
    } else {
        ((U256::ONE << ones) - U256::ONE) << low
    };
    if run != mask {
        return None;
    }
    let top = low + ones;
    // Bits below `top`: drop the ones above unless the interval says there are none.
    let below = if top == 256 || other.hi < U256::ONE << top {
        other
    } else {
        let limit = (U256::ONE << top) - U256::ONE;
        word(ctx.modulo(other.expr, power(ctx, top)), U256::ZERO, limit)
    };
    if low == 0 {
        return Some(below);
    }
    // Then clear the bits below `low`.
    let expr = ctx.sub(below.expr, ctx.modulo(below.expr, power(ctx, low)));
    Some(word(expr, U256::ZERO, below.hi))
}

#[cfg(test)]
mod tests;
