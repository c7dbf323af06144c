//! The attack surface of a campaign: the fuzzed contracts' callable functions with their
//! resolved parameter types, and the senders. Turns typed inputs into raw transactions and
//! into decoded calls for reports.

use alloy_dyn_abi::{DynSolType, DynSolValue, Specifier};
use alloy_json_abi::{Function, StateMutability};
use alloy_primitives::{Address, Bytes, Selector};

use crate::abi;
use crate::chain::{Chain, Tx};
use crate::engine::input::TxInput;
use crate::error::{Error, Result};
use crate::outcome::Call;

/// One function the fuzzer calls.
#[derive(Debug, Clone)]
pub(crate) struct FuzzFunction {
    /// The contract's name.
    pub(crate) contract: String,
    /// Where it is deployed.
    pub(crate) address: Address,
    /// `name(types)`.
    pub(crate) signature: String,
    pub(crate) selector: Selector,
    /// Parameter names (empty for unnamed ones).
    pub(crate) params: Vec<String>,
    /// Resolved parameter types, in order.
    pub(crate) types: Vec<DynSolType>,
    /// Whether it accepts `msg.value`.
    pub(crate) payable: bool,
}

/// The functions and senders of a campaign, fixed after setup.
#[derive(Debug, Clone)]
pub(crate) struct Surface {
    pub(crate) functions: Vec<FuzzFunction>,
    pub(crate) senders: Vec<Address>,
}

impl Surface {
    /// The state-changing functions of the contracts `chain` fuzzes (every deployed contract
    /// when setup marked none), and the chain's senders. Functions with parameter types the
    /// fuzzer cannot generate are skipped with a warning in `warnings`; view and pure
    /// functions are skipped silently (they cannot change state).
    pub(crate) fn from_chain(chain: &Chain, warnings: &mut Vec<String>) -> Result<Surface> {
        let targets: Vec<Address> = if chain.fuzzed().is_empty() {
            chain
                .deployed()
                .iter()
                .map(|(_, address)| *address)
                .collect()
        } else {
            chain.fuzzed().to_vec()
        };
        let mut functions = Vec::new();
        for address in targets {
            let Some(artifact) = chain.artifact_at(address) else {
                return Err(Error::Config(format!(
                    "fuzzed address {address} holds no contract deployed through this chain"
                )));
            };
            let before = functions.len();
            for function in artifact.abi.functions() {
                if let Some(f) = fuzz_function(&artifact.name, address, function, warnings) {
                    functions.push(f);
                }
            }
            if functions.len() == before {
                warnings.push(format!(
                    "{} has no state-changing function the fuzzer can call",
                    artifact.name
                ));
            }
        }
        if functions.is_empty() {
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
        Ok(Surface {
            functions,
            senders: chain.senders().to_vec(),
        })
    }

    /// The raw transaction of `input`.
    pub(crate) fn tx(&self, input: &TxInput) -> Tx {
        let function = &self.functions[input.function];
        let mut calldata = function.selector.to_vec();
        calldata.extend(DynSolValue::Tuple(input.args.clone()).abi_encode_params());
        Tx {
            sender: self.senders[input.sender],
            to: function.address,
            calldata: Bytes::from(calldata),
            value: input.value,
            warp: input.warp,
        }
    }

    /// `input` decoded for a report or a regression file.
    pub(crate) fn call(&self, input: &TxInput) -> Call {
        let function = &self.functions[input.function];
        Call {
            sender: self.senders[input.sender],
            contract: function.contract.clone(),
            address: function.address,
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
            && self.functions.iter().zip(&other.functions).all(|(a, b)| {
                a.address == b.address && a.selector == b.selector && a.contract == b.contract
            })
    }

    /// The index of `sender` among the senders.
    pub(crate) fn sender_index(&self, sender: Address) -> Option<usize> {
        self.senders.iter().position(|s| *s == sender)
    }
}

/// `function` as a fuzz target, or `None` when it is view/pure or has a parameter type the
/// fuzzer cannot generate (then with a warning).
fn fuzz_function(
    contract: &str,
    address: Address,
    function: &Function,
    warnings: &mut Vec<String>,
) -> Option<FuzzFunction> {
    if matches!(
        function.state_mutability,
        StateMutability::View | StateMutability::Pure
    ) {
        return None;
    }
    let signature = function.signature();
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
            "skipping {contract}.{signature}: parameter `{}` ({}): {problem}",
            param.name, param.ty
        ));
        return None;
    }
    Some(FuzzFunction {
        contract: contract.to_string(),
        address,
        selector: function.selector(),
        params: function.inputs.iter().map(|p| p.name.clone()).collect(),
        types,
        payable: function.state_mutability == StateMutability::Payable,
        signature,
    })
}
