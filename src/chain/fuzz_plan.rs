//! What a setup declares about the fuzzed calls, in place of the handler contracts forge
//! users write: which functions of a contract are called ([`Chain::fuzz_only`],
//! [`Chain::fuzz_except`]: forge's `targetSelector`/`excludeSelector`), where address
//! arguments come from ([`Chain::set_address_args`]), and ranges for integer parameters
//! ([`Chain::bound`]: forge-std's `bound(x, lo, hi)`). Each declaration is checked against
//! the contract's ABI when it is made, so a typo fails the setup at its line.
//!
//! [`Chain::fuzz_only`]: super::Chain::fuzz_only
//! [`Chain::fuzz_except`]: super::Chain::fuzz_except
//! [`Chain::set_address_args`]: super::Chain::set_address_args
//! [`Chain::bound`]: super::Chain::bound

use std::ops::RangeInclusive;

use alloy_dyn_abi::{DynSolType, Specifier};
use alloy_json_abi::Function;
use alloy_primitives::{Address, I256, U256};

use crate::abi::{Bound, callable, changes_state, umax};
use crate::project::ContractArtifact;
use crate::{Error, Result};

/// Where the fuzzer takes the values of `address` arguments from (every address leaf,
/// inside arrays and tuples too). forge has no setting for this; its users pick addresses
/// in handlers (`actors[bound(seed, 0, actors.length - 1)]`). Senders are chosen by
/// [`Chain::set_senders`](super::Chain::set_senders) (forge's `targetSender`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum AddressArgs {
    /// The default: mostly the senders and deployed contracts, sometimes the zero address,
    /// constants from the fuzzed contracts' bytecode read as addresses, or random ones
    /// (forge's default too: its dictionary plus random addresses).
    #[default]
    Dictionary,
    /// Only the senders and the contracts deployed through the chain (not the zero
    /// address, not contracts that contracts created): what an invariant that sums over
    /// holders can enumerate.
    SendersAndContracts,
    /// Only these addresses (deduplicated, in order; not empty).
    Only(Vec<Address>),
}

/// A parameter of a function, by name (`"amount"`) or by index (`0`), for
/// [`Chain::bound`](super::Chain::bound).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Param {
    /// The parameter's name in the ABI.
    Name(String),
    /// Its position, from 0.
    Index(usize),
}

impl From<&str> for Param {
    fn from(name: &str) -> Param {
        Param::Name(name.to_string())
    }
}

impl From<String> for Param {
    fn from(name: String) -> Param {
        Param::Name(name)
    }
}

impl From<usize> for Param {
    fn from(index: usize) -> Param {
        Param::Index(index)
    }
}

/// One end of a [`Chain::bound`](super::Chain::bound) range: any Rust integer, `U256` or
/// `I256` (`0..=100`, `U256::from(1)..=U256::MAX`, `-5i64..=5`). Checked against the
/// parameter's type when the bound is declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundValue {
    /// A non-negative end.
    Uint(U256),
    /// A signed end.
    Int(I256),
}

macro_rules! bound_value_from {
    ($variant:ident: $($t:ty),*) => {$(
        impl From<$t> for BoundValue {
            fn from(v: $t) -> BoundValue {
                BoundValue::$variant(v.try_into().expect("every Rust integer fits 256 bits"))
            }
        }
    )*};
}
bound_value_from!(Uint: u8, u16, u32, u64, u128, usize);
bound_value_from!(Int: i8, i16, i32, i64, i128, isize);

impl From<U256> for BoundValue {
    fn from(v: U256) -> BoundValue {
        BoundValue::Uint(v)
    }
}

impl From<I256> for BoundValue {
    fn from(v: I256) -> BoundValue {
        BoundValue::Int(v)
    }
}

impl std::fmt::Display for BoundValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BoundValue::Uint(v) => write!(f, "{v}"),
            BoundValue::Int(v) => write!(f, "{v}"),
        }
    }
}

/// How far the block may move before a fuzzed call: forge's `[invariant] max_time_delay`
/// and `max_block_delay`. `None` leaves the choice to harvey's environment fuzzing (any wait
/// up to a year, the block number advancing with the time); `Some(0)` never moves it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Delays {
    /// The most seconds added to `block.timestamp` before one call.
    pub(crate) seconds: Option<u32>,
    /// The most blocks added to `block.number` before one call.
    pub(crate) blocks: Option<u32>,
}

impl Delays {
    /// forge's default: the block never moves between fuzzed calls.
    pub(crate) const STILL: Delays = Delays {
        seconds: Some(0),
        blocks: Some(0),
    };

    /// These delays where they are set, `under`'s elsewhere.
    pub(crate) fn over(self, under: Delays) -> Delays {
        Delays {
            seconds: self.seconds.or(under.seconds),
            blocks: self.blocks.or(under.blocks),
        }
    }

    /// Whether a call may wait `warp` before it.
    pub(crate) fn allow(&self, warp: super::Warp) -> bool {
        let within = |limit: Option<u32>, amount: u64| limit.is_none_or(|l| amount <= u64::from(l));
        within(self.seconds, warp.seconds) && within(self.blocks, warp.blocks)
    }

    /// `warp` cut down to these delays.
    pub(crate) fn clamp(&self, warp: super::Warp) -> super::Warp {
        let cut =
            |limit: Option<u32>, amount: u64| limit.map_or(amount, |l| amount.min(u64::from(l)));
        super::Warp {
            seconds: cut(self.seconds, warp.seconds),
            blocks: cut(self.blocks, warp.blocks),
        }
    }

    /// Whether the block never moves between calls.
    pub(crate) fn still(&self) -> bool {
        *self == Delays::STILL
    }
}

/// The setup's declarations, as [`Chain`](super::Chain) records them; the campaign's
/// surface applies them.
#[derive(Debug, Clone, Default)]
pub(crate) struct FuzzPlan {
    selections: Vec<Selection>,
    address_args: AddressArgs,
    bounds: Vec<ParamBound>,
    /// Whether fuzzed calls never carry ether, payable or not (forge's invariant calls
    /// always send 0).
    no_ether: bool,
    /// Whether contracts that fuzzed transactions create are fuzzed too; `None`: as forge,
    /// only when setup named no fuzzed contract.
    created: Option<bool>,
    /// How far the block may move before a fuzzed call.
    delays: Delays,
    /// Whether view and pure functions may be selected and called (a forge fuzz test's).
    views: bool,
}

/// Which functions of one contract are called.
#[derive(Debug, Clone)]
struct Selection {
    address: Address,
    /// Only these signatures, when given.
    only: Option<Vec<String>>,
    /// Never these.
    except: Vec<String>,
}

/// A range for one parameter of one function.
#[derive(Debug, Clone)]
struct ParamBound {
    address: Address,
    signature: String,
    index: usize,
    bound: Bound,
}

impl FuzzPlan {
    /// Calls only `signatures` of the contract at `address` (`artifact`).
    pub(crate) fn only<S: AsRef<str>>(
        &mut self,
        address: Address,
        artifact: Option<&ContractArtifact>,
        signatures: impl IntoIterator<Item = S>,
    ) -> Result<()> {
        let artifact = deployed(address, artifact)?;
        let signatures = resolve_all(artifact, signatures, self.views)?;
        if signatures.is_empty() {
            return Err(Error::Config(format!(
                "fuzz_only on {} got no signature; to fuzz none of its functions, do not fuzz \
                 it (Chain::fuzz the others)",
                artifact.name
            )));
        }
        self.selection(address).only = Some(signatures);
        Ok(())
    }

    /// Never calls `signatures` of the contract at `address` (`artifact`).
    pub(crate) fn except<S: AsRef<str>>(
        &mut self,
        address: Address,
        artifact: Option<&ContractArtifact>,
        signatures: impl IntoIterator<Item = S>,
    ) -> Result<()> {
        let artifact = deployed(address, artifact)?;
        let signatures = resolve_all(artifact, signatures, self.views)?;
        let selection = self.selection(address);
        for signature in signatures {
            if !selection.except.contains(&signature) {
                selection.except.push(signature);
            }
        }
        Ok(())
    }

    /// Sets where address arguments come from.
    pub(crate) fn set_address_args(&mut self, args: AddressArgs) -> Result<()> {
        self.address_args = match args {
            AddressArgs::Only(list) => {
                let mut unique: Vec<Address> = Vec::with_capacity(list.len());
                for address in list {
                    if !unique.contains(&address) {
                        unique.push(address);
                    }
                }
                if unique.is_empty() {
                    return Err(Error::Config(
                        "AddressArgs::Only got an empty list: address arguments need at least \
                         one address to take"
                            .into(),
                    ));
                }
                AddressArgs::Only(unique)
            }
            other => other,
        };
        Ok(())
    }

    /// Bounds parameter `param` of `signature` on the contract at `address` to `range`.
    pub(crate) fn bound<T: Into<BoundValue>>(
        &mut self,
        address: Address,
        artifact: Option<&ContractArtifact>,
        signature: &str,
        param: Param,
        range: RangeInclusive<T>,
    ) -> Result<()> {
        let artifact = deployed(address, artifact)?;
        let signature = resolve(artifact, signature, self.views)?;
        let function = artifact
            .abi
            .functions()
            .find(|f| f.signature() == signature)
            .ok_or_else(|| {
                Error::Config(format!(
                    "{}.{signature} has no parameters to bound",
                    artifact.name
                ))
            })?;
        let index = param_index(&artifact.name, function, &param)?;
        let input = &function.inputs[index];
        let ty = input.resolve().map_err(|e| {
            Error::Config(format!(
                "parameter `{}` of {}.{signature}: {e}",
                input.name, artifact.name
            ))
        })?;
        let (lo, hi) = range.into_inner();
        let (lo, hi) = (lo.into(), hi.into());
        let context = || {
            format!(
                "bound {lo}..={hi} for parameter `{}` ({}) of {}.{signature}",
                input.name, input.ty, artifact.name
            )
        };
        let bound = match ty {
            DynSolType::Uint(bits) => {
                let end = |v: BoundValue| uint_end(v, bits).ok_or_else(|| outside(&context()));
                Bound::uint(end(lo)?, end(hi)?)
            }
            DynSolType::Int(bits) => {
                let end = |v: BoundValue| int_end(v, bits).ok_or_else(|| outside(&context()));
                Bound::int(end(lo)?, end(hi)?)
            }
            other => {
                return Err(Error::Config(format!(
                    "{}: bounds apply to uint and int parameters, and this one is {other}",
                    context()
                )));
            }
        }
        .ok_or_else(|| {
            Error::Config(format!("{}: the low end is above the high end", context()))
        })?;
        self.bounds
            .retain(|b| !(b.address == address && b.signature == signature && b.index == index));
        self.bounds.push(ParamBound {
            address,
            signature,
            index,
            bound,
        });
        Ok(())
    }

    /// Contracts whose functions setup selected, in order of the first declaration.
    pub(crate) fn selected(&self) -> impl Iterator<Item = Address> + '_ {
        self.selections
            .iter()
            .filter(|s| s.only.is_some())
            .map(|s| s.address)
    }

    /// Whether the fuzzer calls `signature` on `address`.
    pub(crate) fn calls(&self, address: Address, signature: &str) -> bool {
        let Some(selection) = self.selections.iter().find(|s| s.address == address) else {
            return true;
        };
        let included = selection
            .only
            .as_ref()
            .is_none_or(|only| only.iter().any(|s| s == signature));
        included && !selection.except.iter().any(|s| s == signature)
    }

    /// The ranges of `signature`'s parameters on `address`, by parameter index.
    pub(crate) fn bounds(&self, address: Address, signature: &str) -> Vec<(usize, Bound)> {
        self.bounds
            .iter()
            .filter(|b| b.address == address && b.signature == signature)
            .map(|b| (b.index, b.bound))
            .collect()
    }

    /// Where address arguments come from.
    pub(crate) fn address_args(&self) -> &AddressArgs {
        &self.address_args
    }

    /// Lets view and pure functions be selected and called: a forge fuzz test may be one.
    pub(crate) fn call_views(&mut self) {
        self.views = true;
    }

    /// Whether view and pure functions may be called.
    pub(crate) fn calls_views(&self) -> bool {
        self.views
    }

    /// Makes every fuzzed call send no ether, as forge's invariant calls do.
    pub(crate) fn send_no_ether(&mut self) {
        self.no_ether = true;
    }

    /// Whether fuzzed calls may carry ether (to payable functions).
    pub(crate) fn sends_ether(&self) -> bool {
        !self.no_ether
    }

    /// Sets how far the block may move before a fuzzed call, over what was set before.
    pub(crate) fn set_delays(&mut self, delays: Delays) {
        self.delays = delays.over(self.delays);
    }

    /// How far the block may move before a fuzzed call.
    pub(crate) fn delays(&self) -> Delays {
        self.delays
    }

    /// Sets whether contracts that fuzzed transactions create are fuzzed too.
    pub(crate) fn fuzz_created(&mut self, on: bool) {
        self.created = Some(on);
    }

    /// Whether contracts that fuzzed transactions create are fuzzed too, when setup
    /// `named_targets` (marked contracts to fuzz) or not.
    pub(crate) fn fuzzes_created(&self, named_targets: bool) -> bool {
        self.created.unwrap_or(!named_targets)
    }

    fn selection(&mut self, address: Address) -> &mut Selection {
        let at = match self.selections.iter().position(|s| s.address == address) {
            Some(at) => at,
            None => {
                self.selections.push(Selection {
                    address,
                    only: None,
                    except: Vec::new(),
                });
                self.selections.len() - 1
            }
        };
        &mut self.selections[at]
    }
}

/// The artifact of the contract at `address`, or an error saying it was not deployed
/// through the chain.
fn deployed(address: Address, artifact: Option<&ContractArtifact>) -> Result<&ContractArtifact> {
    artifact.ok_or_else(|| {
        Error::Config(format!(
            "{address} holds no contract deployed through this chain: declare what is fuzzed \
             on an address Chain::deploy returned"
        ))
    })
}

/// [`resolve`] of each of `signatures`.
fn resolve_all<S: AsRef<str>>(
    artifact: &ContractArtifact,
    signatures: impl IntoIterator<Item = S>,
    views: bool,
) -> Result<Vec<String>> {
    signatures
        .into_iter()
        .map(|s| resolve(artifact, s.as_ref(), views))
        .collect()
}

/// `signature` as the surface spells it (`transfer(address, uint)` gives
/// `transfer(address,uint256)`; a selector `0xa9059cbb`, as forge's `targetSelector` takes,
/// gives its function's signature), when the fuzzer can call it on `artifact`; else an
/// error naming the contract and listing what it can call.
fn resolve(artifact: &ContractArtifact, signature: &str, views: bool) -> Result<String> {
    let trimmed = signature.trim();
    let selector = trimmed
        .strip_prefix("0x")
        .filter(|hex| hex.len() == 8)
        .and_then(|hex| alloy_primitives::hex::decode(hex).ok());
    let by_selector = selector.and_then(|selector| {
        artifact
            .abi
            .functions()
            .find(|f| f.selector().as_slice() == selector.as_slice())
    });
    let normalized = match (by_selector, Function::parse(trimmed)) {
        (Some(function), _) => function.signature(),
        (None, Ok(parsed)) => parsed.signature(),
        (None, Err(_)) => trimmed.to_string(),
    };
    let callable: Vec<String> = callable(&artifact.abi, views)
        .map(|c| c.signature())
        .collect();
    if callable.contains(&normalized) {
        return Ok(normalized);
    }
    let view = artifact
        .abi
        .functions()
        .any(|f| f.signature() == normalized && !changes_state(f));
    let why = if view {
        "is a view function, and the fuzzer calls only functions that can change state"
    } else {
        "is not a function of it"
    };
    Err(Error::Config(format!(
        "`{}` {why}: {} can be called with {}",
        signature.trim(),
        artifact.name,
        if callable.is_empty() {
            "nothing (it has no state-changing function)".to_string()
        } else {
            callable.join(", ")
        }
    )))
}

/// The index of `param` among `function`'s parameters, or an error listing them.
fn param_index(contract: &str, function: &Function, param: &Param) -> Result<usize> {
    let found = match param {
        Param::Name(name) => function.inputs.iter().position(|p| p.name == *name),
        Param::Index(index) => (*index < function.inputs.len()).then_some(*index),
    };
    found.ok_or_else(|| {
        let params: Vec<String> = function
            .inputs
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let name = if p.name.is_empty() {
                    "(unnamed)"
                } else {
                    &p.name
                };
                format!("{i}: {name} {}", p.ty)
            })
            .collect();
        let which = match param {
            Param::Name(name) => format!("no parameter named `{name}`"),
            Param::Index(index) => format!("no parameter {index}"),
        };
        Error::Config(format!(
            "{contract}.{} has {which}; its parameters are {}",
            function.signature(),
            if params.is_empty() {
                "none".to_string()
            } else {
                params.join(", ")
            }
        ))
    })
}

fn outside(context: &str) -> Error {
    Error::Config(format!(
        "{context}: an end lies outside the parameter's type"
    ))
}

/// `v` as an end of a `uint<bits>` range, if it is one.
fn uint_end(v: BoundValue, bits: usize) -> Option<U256> {
    let word = match v {
        BoundValue::Uint(u) => u,
        BoundValue::Int(i) if !i.is_negative() => i.into_raw(),
        BoundValue::Int(_) => return None,
    };
    (word <= umax(bits)).then_some(word)
}

/// `v` as an end of an `int<bits>` range, if it is one.
fn int_end(v: BoundValue, bits: usize) -> Option<I256> {
    let value = match v {
        BoundValue::Int(i) => i,
        BoundValue::Uint(u) => I256::try_from(u).ok()?,
    };
    let max = I256::from_raw(umax(bits - 1));
    let min = -max - I256::ONE;
    (min..=max).contains(&value).then_some(value)
}
