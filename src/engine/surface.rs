//! The attack surface of a campaign: the fuzzed contracts' callable functions (ABI
//! functions, `receive()` and `fallback()`) with their resolved parameter types and the
//! ranges setup declared for them, the senders, and where address arguments come from.
//! Turns typed inputs into raw transactions and into decoded calls for reports, and keeps
//! every input inside what setup declared.
//!
//! Besides the contracts setup deployed, the surface has the functions of the contracts
//! fuzzed transactions may create ("kinds": a factory's pools, clones of a vault). Their
//! addresses differ from run to run, so a call of one names a kind and an instance, and
//! resolves against the contracts the run created so far.

use std::sync::Arc;

use alloy_dyn_abi::{DynSolType, DynSolValue, Specifier};
use alloy_json_abi::StateMutability;
use alloy_primitives::{Address, Bytes, Selector};

use crate::abi::{self, Bound, Callable, callable};
use crate::chain::{AddressArgs, Chain, Created, Delays, Tx};
use crate::engine::input::TxInput;
use crate::oracle::{Oracles, Property};
use crate::outcome::Call;
use crate::project::ContractArtifact;
use crate::{Error, Result};

/// One function the fuzzer calls.
#[derive(Debug, Clone)]
pub(crate) struct FuzzFunction {
    /// The contract's name.
    pub(crate) contract: String,
    /// Where it is deployed.
    pub(crate) at: At,
    /// `name(types)`; `receive()` and `fallback()` for those.
    pub(crate) signature: String,
    /// How its calldata is made.
    pub(crate) entry: Entry,
    /// Parameter names (empty for unnamed ones).
    pub(crate) params: Vec<String>,
    /// Resolved parameter types, in order.
    pub(crate) types: Vec<DynSolType>,
    /// Whether it accepts `msg.value`.
    pub(crate) payable: bool,
    /// Whether it is `view` or `pure`: a call of it changes nothing a later call sees.
    pub(crate) reads_only: bool,
    /// Ranges setup declared for integer parameters, by parameter index (usually none).
    pub(crate) bounds: Vec<(usize, Bound)>,
}

/// Where a fuzzed function's contract is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum At {
    /// Deployed by setup, at this address.
    Deployed(Address),
    /// Created by fuzzed transactions: a contract of this kind (index into
    /// [`Surface::kinds`]) the run created before the call.
    Created(usize),
}

/// A compiled contract whose instances fuzzed transactions may create.
#[derive(Debug, Clone)]
pub(crate) struct Kind {
    pub(crate) artifact: Arc<ContractArtifact>,
    /// Its functions (surface indices).
    pub(crate) functions: Vec<usize>,
}

impl Kind {
    /// Whether `artifact` is this kind's contract.
    fn is(&self, artifact: &ContractArtifact) -> bool {
        artifact.name == self.artifact.name && artifact.source_path == self.artifact.source_path
    }
}

/// How a fuzzed call's calldata is made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Entry {
    /// An ABI function: its selector, then the ABI-encoded arguments.
    Function(Selector),
    /// `receive()`: empty calldata (a plain ether transfer); no arguments.
    Receive,
    /// `fallback()`: one `bytes` argument that is the whole calldata. It never starts with
    /// one of the contract's `selectors`, and is never empty when the contract has
    /// `receive()` (either would call something else).
    Fallback {
        selectors: Vec<Selector>,
        receive: bool,
    },
    /// A Rust property's case: its arguments are the property's inputs, and running it
    /// runs the property (`Oracles::property`), not a transaction.
    Property,
}

/// The functions and senders of a campaign, fixed after setup.
#[derive(Debug, Clone)]
pub(crate) struct Surface {
    /// The deployed contracts' functions, then the created kinds'.
    pub(crate) functions: Vec<FuzzFunction>,
    /// How many of `functions` are deployed contracts' (they come first).
    pub(crate) deployed: usize,
    /// The contracts fuzzed transactions may create.
    pub(crate) kinds: Vec<Kind>,
    pub(crate) senders: Vec<Address>,
    /// The only addresses address arguments may take, when setup restricted them.
    pub(crate) addresses: Option<Vec<Address>>,
    /// How far the block may move before a call.
    pub(crate) delays: Delays,
}

/// The chain's senders, then every contract deployed through it: the accounts a campaign
/// knows by name, and the addresses of [`AddressArgs::SendersAndContracts`].
pub(crate) fn senders_and_contracts(chain: &Chain) -> Vec<Address> {
    let mut known = chain.senders().to_vec();
    known.extend(chain.deployed().iter().map(|(_, address)| *address));
    known
}

impl Surface {
    /// The surface of a campaign on `chain` under `oracles`: the property's when the
    /// campaign runs a Rust property, else what the chain fuzzes ([`Surface::from_chain`]).
    pub(crate) fn for_campaign(
        chain: &Chain,
        oracles: &Oracles<'_>,
        warnings: &mut Vec<String>,
    ) -> Result<Surface> {
        match oracles.property() {
            Some(property) => Surface::for_property(property, chain),
            None => Surface::from_chain(chain, warnings),
        }
    }

    /// The surface of a Rust property: one function, the property, whose typed inputs are
    /// its parameters, called from the chain's first sender (the calls a case makes send
    /// from whom they name). A parameter type the fuzzer cannot generate is an error.
    fn for_property(property: &Property<'_>, chain: &Chain) -> Result<Surface> {
        for (name, ty) in &property.params {
            if let Some(why) = abi::unsupported(ty) {
                return Err(Error::Config(format!(
                    "property `{}`: parameter `{name}` ({ty}) cannot be fuzzed: {why}",
                    property.name
                )));
            }
        }
        let types: Vec<DynSolType> = property.params.iter().map(|(_, t)| t.clone()).collect();
        let names: Vec<String> = types
            .iter()
            .map(|t| t.sol_type_name().into_owned())
            .collect();
        Ok(Surface {
            functions: vec![FuzzFunction {
                contract: String::new(),
                at: At::Deployed(Address::ZERO),
                signature: format!("{}({})", property.name, names.join(",")),
                entry: Entry::Property,
                params: property.params.iter().map(|(n, _)| n.clone()).collect(),
                types,
                payable: false,
                reads_only: false,
                bounds: Vec::new(),
            }],
            deployed: 1,
            kinds: Vec::new(),
            senders: vec![chain.senders().first().copied().unwrap_or_default()],
            addresses: None,
            delays: Delays::STILL,
        })
    }

    /// What the contracts `chain` fuzzes can be called with (every deployed contract when
    /// setup marked none, plus any contract setup selected functions of), narrowed by the
    /// setup's declarations ([`Chain::fuzz_only`], [`Chain::bound`], ...), and the chain's senders. Functions with parameter types the
    /// fuzzer cannot generate are skipped with a warning in `warnings`.
    pub(crate) fn from_chain(chain: &Chain, warnings: &mut Vec<String>) -> Result<Surface> {
        let plan = chain.fuzz_plan();
        let mut targets: Vec<Address> = if chain.fuzzed().is_empty() {
            chain
                .deployed()
                .iter()
                .map(|(_, address)| *address)
                .collect()
        } else {
            chain.fuzzed().to_vec()
        };
        // As forge adds a targetSelector's contract to the targeted ones.
        for address in plan.selected() {
            if !targets.contains(&address) {
                targets.push(address);
            }
        }
        let mut functions = Vec::new();
        let mut artifacts = Vec::new();
        for &address in &targets {
            let Some(artifact) = chain.artifact_at(address) else {
                return Err(Error::Config(format!(
                    "fuzzed address {address} holds no contract deployed through this chain"
                )));
            };
            let before = functions.len();
            functions.extend(
                fuzz_functions(
                    artifact,
                    At::Deployed(address),
                    plan.calls_views(),
                    warnings,
                )
                .into_iter()
                .filter(|f| plan.calls(address, &f.signature))
                .map(|mut f| {
                    f.bounds = plan.bounds(address, &f.signature);
                    f.payable &= plan.sends_ether();
                    f
                }),
            );
            if functions.len() == before {
                warnings.push(format!(
                    "{} has no state-changing function the fuzzer can call",
                    artifact.name
                ));
            }
            artifacts.push(Arc::clone(artifact));
        }
        let deployed = functions.len();
        let mut kinds = Vec::new();
        if plan.fuzzes_created(!chain.fuzzed().is_empty()) {
            for artifact in creatable(chain, &artifacts) {
                let at = At::Created(kinds.len());
                let mut created = fuzz_functions(&artifact, at, false, &mut Vec::new());
                if created.is_empty() {
                    continue;
                }
                for f in &mut created {
                    f.payable &= plan.sends_ether();
                }
                let indices = (functions.len()..functions.len() + created.len()).collect();
                functions.extend(created);
                kinds.push(Kind {
                    artifact,
                    functions: indices,
                });
            }
        }
        if deployed == 0 {
            return Err(Error::Config(
                "nothing to fuzz: deploy a contract with a state-changing function (no setup: \
                 `contract = \"Name\"`; with setup: `chain.fuzz(address)`)"
                    .into(),
            ));
        }
        if chain.senders().is_empty() {
            return Err(Error::Config(
                "no senders: `Chain::set_senders` was given an empty list".into(),
            ));
        }
        let addresses = match plan.address_args() {
            AddressArgs::Dictionary => None,
            AddressArgs::SendersAndContracts => Some(senders_and_contracts(chain)),
            AddressArgs::Only(list) => Some(list.clone()),
        };
        Ok(Surface {
            functions,
            deployed,
            kinds,
            senders: chain.senders().to_vec(),
            addresses,
            delays: plan.delays(),
        })
    }

    /// The address `input` calls in a state where the contracts `created` were created
    /// (oldest first): a deployed contract's, or for a created kind the instance `input`
    /// names, counted back from the newest of its kind (wrapping around). `None` when the
    /// run created no contract of that kind yet: the call cannot be made.
    pub(crate) fn address(&self, input: &TxInput, created: &[Created]) -> Option<Address> {
        match self.functions[input.function].at {
            At::Deployed(address) => Some(address),
            At::Created(kind) => {
                let kind = &self.kinds[kind];
                let of_kind = || {
                    created.iter().rev().filter_map(|(address, artifact)| {
                        artifact
                            .as_deref()
                            .filter(|artifact| kind.is(artifact))
                            .map(|_| *address)
                    })
                };
                let count = of_kind().count();
                (count > 0).then(|| of_kind().nth(usize::from(input.instance) % count))?
            }
        }
    }

    /// [`Surface::call`] of a deployed contract's function (what unit tests decode).
    #[cfg(test)]
    pub(crate) fn deployed_call(&self, input: &TxInput) -> Call {
        let to = self
            .address(input, &[])
            .expect("a deployed contract's function");
        self.call(input, to)
    }

    /// [`Surface::tx`] of a deployed contract's function (what unit tests send).
    #[cfg(test)]
    pub(crate) fn deployed_tx(&self, input: &TxInput) -> Tx {
        let to = self
            .address(input, &[])
            .expect("a deployed contract's function");
        self.tx(input, to)
    }

    /// The kind `artifact` is (a created contract's), if the surface fuzzes it.
    pub(crate) fn kind_of(&self, artifact: &ContractArtifact) -> Option<usize> {
        self.kinds.iter().position(|kind| kind.is(artifact))
    }

    /// The raw transaction of `input` to the contract at `to` (see [`Surface::address`]).
    pub(crate) fn tx(&self, input: &TxInput, to: Address) -> Tx {
        let function = &self.functions[input.function];
        let calldata = match &function.entry {
            Entry::Function(selector) => {
                let mut calldata = selector.to_vec();
                calldata.extend(DynSolValue::Tuple(input.args.clone()).abi_encode_params());
                calldata
            }
            Entry::Receive | Entry::Property => Vec::new(),
            Entry::Fallback { .. } => match input.args.first() {
                Some(DynSolValue::Bytes(data)) => data.clone(),
                _ => Vec::new(),
            },
        };
        Tx {
            sender: self.senders[input.sender],
            to,
            calldata: Bytes::from(calldata),
            value: input.value,
            warp: input.warp,
        }
    }

    /// `input`, made to the contract at `to`, decoded for a report or a regression file.
    pub(crate) fn call(&self, input: &TxInput, to: Address) -> Call {
        let function = &self.functions[input.function];
        Call {
            sender: self.senders[input.sender],
            contract: function.contract.clone(),
            address: to,
            instance: matches!(function.at, At::Created(_)).then_some(input.instance),
            signature: function.signature.clone(),
            params: function.params.clone(),
            args: input.args.clone(),
            value: input.value,
            warp: input.warp,
        }
    }

    /// The index of `contract`'s function with `signature`.
    pub(crate) fn find(&self, contract: &str, signature: &str) -> Option<usize> {
        self.functions
            .iter()
            .position(|f| f.contract == contract && f.signature == signature)
    }

    /// Whether `other` calls the same functions at the same addresses from the same
    /// senders, in the same order.
    pub(crate) fn same_as(&self, other: &Surface) -> bool {
        self.senders == other.senders
            && self.functions.len() == other.functions.len()
            && self.addresses == other.addresses
            && self.delays == other.delays
            && self.deployed == other.deployed
            && self.functions.iter().zip(&other.functions).all(|(a, b)| {
                a.at == b.at
                    && a.entry == b.entry
                    && a.contract == b.contract
                    && a.bounds == b.bounds
            })
    }

    /// Brings a freshly generated or mutated `tx` back inside what setup declared: bounded
    /// parameters mapped into their ranges (as forge-std's `bound` does), `fallback()`
    /// calldata kept off the contract's selectors. Address arguments need nothing here:
    /// the dictionary produces only allowed ones. Costs a length check for functions with
    /// neither.
    pub(crate) fn conform(&self, tx: &mut TxInput) {
        let function = &self.functions[tx.function];
        for (index, bound) in &function.bounds {
            if let Some(arg) = tx.args.get_mut(*index) {
                bound.apply(arg);
            }
        }
        if let Entry::Fallback { selectors, receive } = &function.entry {
            if let Some(DynSolValue::Bytes(data)) = tx.args.first_mut() {
                keep_off_selectors(data, selectors, *receive);
            }
        }
    }

    /// The range setup declared for argument `arg` of function `function`, if any.
    pub(crate) fn bound(&self, function: usize, arg: usize) -> Option<&Bound> {
        self.functions[function]
            .bounds
            .iter()
            .find(|(index, _)| *index == arg)
            .map(|(_, bound)| bound)
    }

    /// Simpler candidates for argument `arg` of a call of `function` (for shrinking),
    /// simplest first, all inside what setup declared: toward the range's simplest value
    /// for a bounded parameter, and never `fallback()` calldata that would call something
    /// else.
    pub(crate) fn simplifications(
        &self,
        function: usize,
        arg: usize,
        value: &DynSolValue,
    ) -> Vec<DynSolValue> {
        match self.bound(function, arg) {
            Some(bound) => bound.simplifications(value),
            None => {
                let mut out = abi::simplifications(value);
                if let Entry::Fallback { selectors, receive } = &self.functions[function].entry {
                    out.retain(|candidate| match candidate {
                        DynSolValue::Bytes(data) => {
                            let mut kept = data.clone();
                            keep_off_selectors(&mut kept, selectors, *receive);
                            kept == *data
                        }
                        _ => false,
                    });
                }
                out
            }
        }
    }

    /// Why `input` (rebuilt from a regression file) lies outside what setup declares now:
    /// an argument outside its range, an address argument outside the allowed ones,
    /// `fallback()` calldata that now calls something else, or a wait longer than the
    /// campaign's delays allow.
    pub(crate) fn admits(&self, input: &TxInput) -> std::result::Result<(), String> {
        let function = &self.functions[input.function];
        let calls_elsewhere = match (&function.entry, input.args.first()) {
            (Entry::Fallback { selectors, receive }, Some(DynSolValue::Bytes(data))) => {
                let mut kept = data.clone();
                keep_off_selectors(&mut kept, selectors, *receive);
                kept != *data
            }
            _ => false,
        };
        if calls_elsewhere {
            return Err(format!(
                "the saved calldata of {}.fallback() now calls a function or receive()",
                function.contract
            ));
        }
        if !self.delays.allow(input.warp) {
            return Err(format!(
                "the call of {}.{} waits {} s and {} blocks before it, more than \
                 max_time_delay / max_block_delay now allow",
                function.contract, function.signature, input.warp.seconds, input.warp.blocks
            ));
        }
        for (index, bound) in &function.bounds {
            if let Some(arg) = input.args.get(*index).filter(|arg| !bound.contains(arg)) {
                let name = match function.params[*index].as_str() {
                    "" => index.to_string(),
                    name => name.to_string(),
                };
                return Err(format!(
                    "argument {name} of {}.{} is {}, outside its bound {bound}",
                    function.contract,
                    function.signature,
                    crate::chain::SolDisplay(arg)
                ));
            }
        }
        if let Some(allowed) = &self.addresses {
            let mut outside = None;
            for arg in &input.args {
                find_address(arg, &mut |a| !allowed.contains(&a), &mut outside);
            }
            if let Some(address) = outside {
                return Err(format!(
                    "{}.{} is called with {address}, not one of the addresses setup allows",
                    function.contract, function.signature
                ));
            }
        }
        Ok(())
    }

    /// Whether an address argument may take `address`: always, unless setup restricted
    /// address arguments to a list without it.
    pub(crate) fn allows(&self, address: Address) -> bool {
        self.addresses
            .as_ref()
            .is_none_or(|allowed| allowed.contains(&address))
    }

    /// The index of `sender` among the senders.
    pub(crate) fn sender_index(&self, sender: Address) -> Option<usize> {
        self.senders.iter().position(|s| *s == sender)
    }
}

/// The functions of `artifact`'s contract at `at` the fuzzer can call (every callable but
/// those with a parameter type the fuzzer cannot generate, skipped with a warning), without
/// bounds: the caller applies what setup declared.
fn fuzz_functions(
    artifact: &ContractArtifact,
    at: At,
    views: bool,
    warnings: &mut Vec<String>,
) -> Vec<FuzzFunction> {
    let selectors: Vec<Selector> = artifact.abi.functions().map(|f| f.selector()).collect();
    callable(&artifact.abi, views)
        .filter_map(|callable| {
            let reads_only = matches!(
                callable,
                Callable::Function(f)
                    if matches!(f.state_mutability, StateMutability::View | StateMutability::Pure)
            );
            let function = |entry, params, types, payable| FuzzFunction {
                contract: artifact.name.clone(),
                at,
                signature: callable.signature(),
                entry,
                params,
                types,
                payable,
                reads_only,
                bounds: Vec::new(),
            };
            match callable {
                Callable::Receive => Some(function(Entry::Receive, Vec::new(), Vec::new(), true)),
                Callable::Fallback { payable } => Some(function(
                    Entry::Fallback {
                        selectors: selectors.clone(),
                        receive: artifact.abi.receive.is_some(),
                    },
                    vec!["calldata".into()],
                    vec![DynSolType::Bytes],
                    payable,
                )),
                Callable::Function(abi_function) => {
                    let types = parameter_types(abi_function, &artifact.name, warnings)?;
                    Some(function(
                        Entry::Function(abi_function.selector()),
                        abi_function.inputs.iter().map(|p| p.name.clone()).collect(),
                        types,
                        abi_function.state_mutability == StateMutability::Payable,
                    ))
                }
            }
        })
        .collect()
}

/// The resolved parameter types of `function` of `contract`, or `None` when one is a type
/// the fuzzer cannot generate (then with a warning).
fn parameter_types(
    function: &alloy_json_abi::Function,
    contract: &str,
    warnings: &mut Vec<String>,
) -> Option<Vec<DynSolType>> {
    let mut types = Vec::with_capacity(function.inputs.len());
    for param in &function.inputs {
        let problem = match param.resolve() {
            Ok(ty) => match abi::unsupported(&ty) {
                None => {
                    types.push(ty);
                    continue;
                }
                Some(why) => why,
            },
            Err(e) => e.to_string(),
        };
        warnings.push(format!(
            "skipping {contract}.{}: parameter `{}` ({}): {problem}",
            function.signature(),
            param.name,
            param.ty
        ));
        return None;
    }
    Some(types)
}

/// Bytes of the minimal-proxy code a cloning contract writes out (`CALLDATASIZE
/// RETURNDATASIZE RETURNDATASIZE CALLDATACOPY`): EIP-1167's and solady's proxies start
/// copying calldata so; solc never emits it.
const CLONE_MARKER: [u8; 4] = [0x36, 0x3d, 0x3d, 0x37];

/// The compiled contracts whose instances fuzzed transactions may create: those whose
/// creation code the code of a fuzzed or deployed contract holds (`new C()`, in a fuzzed
/// factory or in one a fuzzed handler calls; the creation code, since a factory's
/// constructor often creates the implementation it then clones), and what those hold in
/// turn; and when one of all these can clone (holds minimal-proxy code), also the fuzzed
/// and deployed ones, as implementations behind a clone.
fn creatable(chain: &Chain, fuzzed: &[Arc<ContractArtifact>]) -> Vec<Arc<ContractArtifact>> {
    let same = |a: &ContractArtifact, b: &ContractArtifact| {
        a.name == b.name && a.source_path == b.source_path
    };
    let mut holders: Vec<Arc<ContractArtifact>> = fuzzed.to_vec();
    for (_, address) in chain.deployed() {
        if let Some(artifact) = chain.artifact_at(*address) {
            if !holders.iter().any(|h| same(h, artifact)) {
                holders.push(Arc::clone(artifact));
            }
        }
    }
    let mut found: Vec<Arc<ContractArtifact>> = Vec::new();
    let mut unscanned: Vec<Arc<ContractArtifact>> = holders.clone();
    while let Some(holder) = unscanned.pop() {
        for artifact in chain.artifacts().contracts() {
            let known = found.iter().any(|f| same(f, artifact));
            if !known && !same(&holder, artifact) && holds_creation_code(&holder, artifact) {
                found.push(Arc::clone(artifact));
                unscanned.push(Arc::clone(artifact));
            }
        }
    }
    let clones = holders
        .iter()
        .chain(&found)
        .any(|artifact| contains(&artifact.runtime_code, &CLONE_MARKER));
    if clones {
        for artifact in &holders {
            if !found.iter().any(|f| same(f, artifact)) {
                found.push(Arc::clone(artifact));
            }
        }
    }
    found
}

/// Whether `holder`'s creation code (its constructor and runtime code) holds
/// `artifact`'s creation code: it then holds `artifact`'s runtime code, whose last bytes
/// (solc's metadata hash) are unique to it.
fn holds_creation_code(holder: &ContractArtifact, artifact: &ContractArtifact) -> bool {
    const TAIL: usize = 32;
    let runtime = &artifact.runtime_code;
    artifact.is_deployable()
        && runtime.len() >= TAIL
        && contains(&holder.creation_code, &runtime[runtime.len() - TAIL..])
}

/// Whether `needle` (not empty) occurs in `haystack`: a scan for its first byte, then a
/// comparison (every deployed contract's code is searched for every artifact's tail).
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    let Some(last_start) = haystack.len().checked_sub(needle.len()) else {
        return false;
    };
    haystack[..=last_start]
        .iter()
        .enumerate()
        .any(|(at, &byte)| byte == first && haystack[at + 1..at + needle.len()] == *rest)
}

/// Changes `data` as little as possible so that as `fallback()` calldata it reaches the
/// fallback: its first four bytes match none of `selectors`, and it is not empty when the
/// contract has `receive()`.
fn keep_off_selectors(data: &mut Vec<u8>, selectors: &[Selector], receive: bool) {
    if data.is_empty() && receive {
        data.push(0);
    }
    // At most 256 steps: each changes the first byte, and a selector set cannot cover
    // every first byte with the same remaining three.
    for _ in 0..256 {
        match data.get(..4) {
            Some(head) if selectors.iter().any(|s| s.as_slice() == head) => {
                data[0] = data[0].wrapping_add(1);
            }
            _ => return,
        }
    }
}

/// Records in `found` the first address leaf of `value` for which `outside` holds.
fn find_address(
    value: &DynSolValue,
    outside: &mut dyn FnMut(Address) -> bool,
    found: &mut Option<Address>,
) {
    if found.is_some() {
        return;
    }
    match value {
        DynSolValue::Address(a) if outside(*a) => *found = Some(*a),
        DynSolValue::Array(items) | DynSolValue::FixedArray(items) | DynSolValue::Tuple(items) => {
            for item in items {
                find_address(item, outside, found);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::engine::input::TxInput;
    use alloy_primitives::U256;

    /// `WETH` with `withdraw(uint256 amount)` bounded to 1..=10, `give(address to)`,
    /// `receive()`, `fallback()` and an unbounded `mint(uint256 amount, address[] to)`;
    /// address arguments limited to the senders.
    pub(crate) fn ether_surface() -> Surface {
        let address = Address::with_last_byte(9);
        let function = |signature: &str, entry, params: &[&str], types, payable| FuzzFunction {
            contract: "WETH".into(),
            at: At::Deployed(address),
            signature: signature.into(),
            entry,
            params: params.iter().map(|p| p.to_string()).collect(),
            types,
            payable,
            reads_only: false,
            bounds: Vec::new(),
        };
        let selectors = vec![[1, 2, 3, 4].into(), [5, 6, 7, 8].into()];
        let mut withdraw = function(
            "withdraw(uint256)",
            Entry::Function(selectors[0]),
            &["amount"],
            vec![DynSolType::Uint(256)],
            false,
        );
        withdraw.bounds = vec![(0, Bound::uint(U256::ONE, U256::from(10)).unwrap())];
        let senders = vec![Address::with_last_byte(1), Address::with_last_byte(2)];
        Surface {
            functions: vec![
                withdraw,
                function(
                    "give(address)",
                    Entry::Function(selectors[1]),
                    &["to"],
                    vec![DynSolType::Address],
                    false,
                ),
                function("receive()", Entry::Receive, &[], vec![], true),
                function(
                    "fallback()",
                    Entry::Fallback {
                        selectors,
                        receive: true,
                    },
                    &["calldata"],
                    vec![DynSolType::Bytes],
                    true,
                ),
                function(
                    "mint(uint256,address[])",
                    Entry::Function([9, 9, 9, 9].into()),
                    &["amount", "to"],
                    vec![
                        DynSolType::Uint(256),
                        DynSolType::Array(Box::new(DynSolType::Address)),
                    ],
                    false,
                ),
            ],
            deployed: 5,
            kinds: Vec::new(),
            addresses: Some(senders.clone()),
            delays: Delays::default(),
            senders,
        }
    }

    #[test]
    fn conform_maps_bounded_arguments_and_keeps_fallback_calldata_off_selectors() {
        let surface = ether_surface();
        let mut withdraw = TxInput::of(0, vec![DynSolValue::Uint(U256::from(25), 256)]);
        surface.conform(&mut withdraw);
        // forge-std: bound(25, 1, 10) == 1 + (25 - 10) % 10 - 1 == 5.
        assert_eq!(withdraw.args, [DynSolValue::Uint(U256::from(5), 256)]);
        for (data, expected) in [
            // A selector's bytes would call withdraw(): the first byte moves off it.
            (vec![1, 2, 3, 4, 9], vec![2, 2, 3, 4, 9]),
            // Empty calldata would call receive().
            (vec![], vec![0]),
            (vec![1, 2, 3], vec![1, 2, 3]),
            (vec![5, 6, 7, 9], vec![5, 6, 7, 9]),
        ] {
            let mut fallback = TxInput::of(3, vec![DynSolValue::Bytes(data.clone())]);
            surface.conform(&mut fallback);
            assert_eq!(fallback.args, [DynSolValue::Bytes(expected)], "{data:?}");
        }
        // Without receive(), empty calldata reaches the fallback and stays.
        let mut data = Vec::new();
        keep_off_selectors(&mut data, &[], false);
        assert!(data.is_empty());
    }

    #[test]
    fn simplifications_stay_inside_bounds_and_fallback_calldata() {
        let surface = ether_surface();
        let amount = DynSolValue::Uint(U256::from(9), 256);
        let simpler = surface.simplifications(0, 0, &amount);
        assert_eq!(simpler[0], DynSolValue::Uint(U256::ONE, 256));
        assert!(
            simpler
                .iter()
                .all(|c| surface.bound(0, 0).unwrap().contains(c))
        );
        // Shorter calldata, but never empty (that is receive()).
        let data = DynSolValue::Bytes(vec![0xff, 1, 2]);
        let simpler = surface.simplifications(3, 0, &data);
        assert!(!simpler.is_empty());
        assert!(
            !simpler.contains(&DynSolValue::Bytes(vec![])),
            "{simpler:?}"
        );
        // An unbounded parameter simplifies as usual.
        assert!(surface.bound(1, 0).is_none());
    }
}
