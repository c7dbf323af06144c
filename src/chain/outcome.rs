//! What a transaction did, in harvey's terms: success with its output, a revert with its
//! decoded reason (`Error(string)`, a named Panic code, a custom error decoded from the
//! contracts' ABIs), or a halt. Also renders ABI values the way Solidity developers write
//! them.

use std::fmt;

use alloy_dyn_abi::{DynSolValue, FunctionExt, JsonAbiExt};
use alloy_json_abi::Function;
use alloy_primitives::{Address, Bytes, Log, U256, hex};
use alloy_sol_types::{Panic, Revert, SolError};
use revm::context::result::{ExecutionResult, HaltReason as EvmHalt, Output};

use crate::project::ContractArtifact;
use crate::{Error, Result};
use harvey_settings::PanicNumber;

/// The result of one executed transaction. A revert is an outcome, not an error.
#[derive(Debug, Clone, PartialEq)]
pub struct TxOutcome {
    /// How the transaction ended.
    pub status: TxStatus,
    /// Return data (success) or revert data (revert); empty after a halt or a creation.
    pub output: Bytes,
    /// Gas used by the transaction, after refunds.
    pub gas_used: u64,
    /// Logs emitted (none unless the transaction succeeded).
    pub logs: Vec<Log>,
    /// The deployed contract's address, for a successful creation.
    pub created: Option<Address>,
}

/// How a transaction ended.
#[derive(Debug, Clone, PartialEq)]
pub enum TxStatus {
    /// It ran to the end.
    Success,
    /// It reverted (this includes `require`, custom errors, `assert` and every Panic).
    Revert(RevertReason),
    /// The EVM stopped it: out of gas, invalid opcode, ...
    Halt(HaltReason),
}

/// Why a transaction reverted, decoded from its revert data.
#[derive(Debug, Clone, PartialEq)]
pub enum RevertReason {
    /// `require(cond, "message")` or `revert("message")`: `Error(string)`.
    Error(String),
    /// A Solidity Panic: failed `assert`, overflow, division by zero, ...
    Panic(PanicCode),
    /// A custom error found in a compiled contract's ABI.
    Custom {
        /// The contract whose ABI declares the error.
        contract: String,
        /// The error's name.
        name: String,
        /// The names of its parameters (empty strings for unnamed ones).
        params: Vec<String>,
        /// The decoded arguments.
        args: Vec<DynSolValue>,
    },
    /// `revert()` or `require(cond)`: no data at all.
    Bare,
    /// Data that is none of the above (an error no compiled ABI declares, or garbage).
    Unknown(Bytes),
}

/// A Solidity Panic code (`Panic(uint256)`), named as in the Solidity documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PanicCode {
    /// 0x00: generic compiler-inserted panic.
    Generic,
    /// 0x01: `assert` failed.
    Assert,
    /// 0x11: arithmetic overflow or underflow outside `unchecked`.
    ArithmeticOverflow,
    /// 0x12: division or modulo by zero.
    DivisionByZero,
    /// 0x21: conversion of an out-of-range value to an enum.
    EnumConversion,
    /// 0x22: access to an incorrectly encoded storage byte array.
    StorageEncoding,
    /// 0x31: `.pop()` on an empty array.
    EmptyArrayPop,
    /// 0x32: array index out of bounds.
    ArrayOutOfBounds,
    /// 0x41: too much memory allocated, or an array too large.
    TooMuchMemory,
    /// 0x51: call to a zero-initialized internal function variable.
    ZeroInternalFunction,
    /// Any other code.
    Other(U256),
}

/// Why the EVM halted a transaction (no revert data exists for a halt).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HaltReason {
    /// The gas ran out (including memory expansion and the call-stack gas rules).
    OutOfGas,
    /// An undefined opcode, or `INVALID` (0xFE, what `assembly { invalid() }` emits).
    InvalidOpcode,
    /// A jump to something that is not a `JUMPDEST`.
    InvalidJump,
    /// More than 1024 stack items.
    StackOverflow,
    /// An opcode needed more stack items than there were.
    StackUnderflow,
    /// A creation returned more runtime code (or ran more initcode) than the chain's code
    /// size limit allows (EIP-170/3860; foundry.toml `code_size_limit` raises it).
    CodeSizeLimit,
    /// Anything else, as revm describes it.
    Other(String),
}

impl TxOutcome {
    /// Converts revm's result; `decode_revert` turns revert data into a reason.
    pub(crate) fn from_result(
        result: ExecutionResult,
        decode_revert: impl FnOnce(&[u8]) -> RevertReason,
    ) -> Self {
        let gas_used = result.tx_gas_used();
        match result {
            ExecutionResult::Success { output, logs, .. } => {
                let (output, created) = match output {
                    Output::Call(data) => (data, None),
                    Output::Create(data, address) => (data, address),
                };
                TxOutcome {
                    status: TxStatus::Success,
                    output,
                    gas_used,
                    logs,
                    created,
                }
            }
            ExecutionResult::Revert { output, .. } => TxOutcome {
                status: TxStatus::Revert(decode_revert(&output)),
                output,
                gas_used,
                logs: Vec::new(),
                created: None,
            },
            ExecutionResult::Halt { reason, .. } => TxOutcome {
                status: TxStatus::Halt(HaltReason::from_evm(&reason)),
                output: Bytes::new(),
                gas_used,
                logs: Vec::new(),
                created: None,
            },
        }
    }

    /// Whether the transaction succeeded.
    pub fn is_success(&self) -> bool {
        self.status == TxStatus::Success
    }

    /// Why the transaction did not succeed, without its arguments' values: what a revert
    /// report groups calls by (`Error("...")`, a Panic, `Contract.Error(..)`, a halt);
    /// `None` if it succeeded.
    pub fn cause(&self) -> Option<String> {
        Some(match &self.status {
            TxStatus::Success => return None,
            TxStatus::Revert(RevertReason::Custom { contract, name, .. }) => {
                format!("{contract}.{name}(..)")
            }
            TxStatus::Revert(RevertReason::Unknown(data)) if data.len() > 4 => {
                format!("unrecognised revert data 0x{}..", hex::encode(&data[..4]))
            }
            TxStatus::Revert(reason) => reason.to_string(),
            TxStatus::Halt(reason) => format!("halted: {reason}"),
        })
    }

    /// The revert reason, if the transaction reverted.
    pub fn revert_reason(&self) -> Option<&RevertReason> {
        match &self.status {
            TxStatus::Revert(reason) => Some(reason),
            _ => None,
        }
    }

    /// Decodes the output as `function`'s return values (use an ABI entry, which knows the
    /// output types: a bare signature like `f(uint256)` declares none).
    pub fn decode_returns(&self, function: &Function) -> Result<Vec<DynSolValue>> {
        let signature = function.signature();
        if !self.is_success() {
            return Err(Error::Call(format!(
                "`{signature}` has no return values: it {}",
                self.status
            )));
        }
        if self.output.is_empty() && !function.outputs.is_empty() {
            return Err(Error::Call(format!(
                "`{signature}` returned no data; is there a contract at the address?"
            )));
        }
        function
            .abi_decode_output(&self.output)
            .map_err(|e| Error::Abi(format!("return data of `{signature}`: {e}")))
    }
}

impl RevertReason {
    /// Decodes revert data. Custom errors are looked up in `contracts` in order (put the
    /// called contract first: an error raised by a nested call is only declared by the
    /// callee).
    pub fn decode<'a>(
        data: &[u8],
        contracts: impl IntoIterator<Item = &'a ContractArtifact>,
    ) -> RevertReason {
        let Some(selector) = data.get(..4) else {
            return if data.is_empty() {
                RevertReason::Bare
            } else {
                RevertReason::Unknown(Bytes::copy_from_slice(data))
            };
        };
        if selector == Revert::SELECTOR {
            if let Ok(revert) = Revert::abi_decode(data) {
                return RevertReason::Error(revert.reason);
            }
        } else if selector == Panic::SELECTOR {
            if let Ok(panic) = Panic::abi_decode(data) {
                return RevertReason::Panic(PanicCode::from_code(panic.code));
            }
        } else if let Some(custom) = decode_custom(data, contracts) {
            return custom;
        }
        RevertReason::Unknown(Bytes::copy_from_slice(data))
    }

    /// Whether this is the Panic of a failed `assert`.
    pub fn is_assert(&self) -> bool {
        *self == RevertReason::Panic(PanicCode::Assert)
    }
}

/// The first custom error of `contracts` whose selector and parameter types fit `data`.
fn decode_custom<'a>(
    data: &[u8],
    contracts: impl IntoIterator<Item = &'a ContractArtifact>,
) -> Option<RevertReason> {
    let (selector, body) = data.split_at(4);
    contracts.into_iter().find_map(|contract| {
        contract
            .abi
            .errors()
            .filter(|error| error.selector().as_slice() == selector)
            .find_map(|error| {
                let args = error.abi_decode_input(body).ok()?;
                Some(RevertReason::Custom {
                    contract: contract.name.clone(),
                    name: error.name.clone(),
                    params: error.inputs.iter().map(|p| p.name.clone()).collect(),
                    args,
                })
            })
    })
}

impl PanicCode {
    /// The code's name for a Panic code.
    pub fn from_code(code: U256) -> PanicCode {
        let Ok(small) = u8::try_from(code) else {
            return PanicCode::Other(code);
        };
        match small {
            0x00 => PanicCode::Generic,
            0x01 => PanicCode::Assert,
            0x11 => PanicCode::ArithmeticOverflow,
            0x12 => PanicCode::DivisionByZero,
            0x21 => PanicCode::EnumConversion,
            0x22 => PanicCode::StorageEncoding,
            0x31 => PanicCode::EmptyArrayPop,
            0x32 => PanicCode::ArrayOutOfBounds,
            0x41 => PanicCode::TooMuchMemory,
            0x51 => PanicCode::ZeroInternalFunction,
            _ => PanicCode::Other(code),
        }
    }

    /// The numeric code.
    pub fn code(self) -> U256 {
        let small: u8 = match self {
            PanicCode::Generic => 0x00,
            PanicCode::Assert => 0x01,
            PanicCode::ArithmeticOverflow => 0x11,
            PanicCode::DivisionByZero => 0x12,
            PanicCode::EnumConversion => 0x21,
            PanicCode::StorageEncoding => 0x22,
            PanicCode::EmptyArrayPop => 0x31,
            PanicCode::ArrayOutOfBounds => 0x32,
            PanicCode::TooMuchMemory => 0x41,
            PanicCode::ZeroInternalFunction => 0x51,
            PanicCode::Other(code) => return code,
        };
        U256::from(small)
    }

    /// Every named code, in numeric order (not [`PanicCode::Other`]).
    pub const NAMED: [PanicCode; 10] = [
        PanicCode::Generic,
        PanicCode::Assert,
        PanicCode::ArithmeticOverflow,
        PanicCode::DivisionByZero,
        PanicCode::EnumConversion,
        PanicCode::StorageEncoding,
        PanicCode::EmptyArrayPop,
        PanicCode::ArrayOutOfBounds,
        PanicCode::TooMuchMemory,
        PanicCode::ZeroInternalFunction,
    ];

    /// The short name settings use for the code (`panics = ["assert", "overflow"]`,
    /// `HARVEY_PANICS=assert,overflow`; the names are `harvey_settings::PANIC_NAMES`);
    /// `None` for [`PanicCode::Other`], which is written as its hex code.
    pub fn name(self) -> Option<&'static str> {
        match self {
            PanicCode::Other(_) => None,
            named => PanicNumber::from(named).name(),
        }
    }

    /// The code called `name` ([`PanicCode::name`]), or written as a number (`0x11`, `17`).
    pub fn from_name(name: &str) -> Option<PanicCode> {
        PanicNumber::from_name(name).map(PanicCode::from)
    }

    /// What the code means, as the Solidity documentation puts it.
    pub fn description(self) -> &'static str {
        match self {
            PanicCode::Generic => "generic compiler-inserted panic",
            PanicCode::Assert => "assertion failed",
            PanicCode::ArithmeticOverflow => "arithmetic overflow or underflow",
            PanicCode::DivisionByZero => "division or modulo by zero",
            PanicCode::EnumConversion => "invalid enum conversion",
            PanicCode::StorageEncoding => "incorrectly encoded storage byte array",
            PanicCode::EmptyArrayPop => "pop() on an empty array",
            PanicCode::ArrayOutOfBounds => "array index out of bounds",
            PanicCode::TooMuchMemory => "too much memory allocated",
            PanicCode::ZeroInternalFunction => "call to a zero-initialized internal function",
            PanicCode::Other(_) => "unknown panic code",
        }
    }
}

impl From<PanicCode> for PanicNumber {
    /// The code's number, for [`crate::PanicSet`] (which lives in `harvey-settings`,
    /// without a 256-bit integer type).
    fn from(code: PanicCode) -> PanicNumber {
        PanicNumber::from_limbs(code.code().into_limbs())
    }
}

impl From<PanicNumber> for PanicCode {
    fn from(number: PanicNumber) -> PanicCode {
        PanicCode::from_code(U256::from_limbs(number.limbs()))
    }
}

impl HaltReason {
    fn from_evm(reason: &EvmHalt) -> HaltReason {
        match reason {
            EvmHalt::OutOfGas(_) => HaltReason::OutOfGas,
            EvmHalt::OpcodeNotFound | EvmHalt::InvalidFEOpcode => HaltReason::InvalidOpcode,
            EvmHalt::InvalidJump => HaltReason::InvalidJump,
            EvmHalt::StackOverflow => HaltReason::StackOverflow,
            EvmHalt::StackUnderflow => HaltReason::StackUnderflow,
            EvmHalt::CreateContractSizeLimit | EvmHalt::CreateInitCodeSizeLimit => {
                HaltReason::CodeSizeLimit
            }
            other => HaltReason::Other(other.to_string()),
        }
    }
}

impl fmt::Display for TxStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TxStatus::Success => f.write_str("succeeded"),
            TxStatus::Revert(reason) => write!(f, "reverted with {reason}"),
            TxStatus::Halt(reason) => write!(f, "halted: {reason}"),
        }
    }
}

impl fmt::Display for RevertReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RevertReason::Error(message) => write!(f, "Error({message:?})"),
            RevertReason::Panic(code) => code.fmt(f),
            RevertReason::Custom {
                contract,
                name,
                params,
                args,
            } => {
                write!(f, "{contract}.{name}(")?;
                for (i, arg) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    match params.get(i).filter(|p| !p.is_empty()) {
                        Some(param) => write!(f, "{param}: {}", SolDisplay(arg))?,
                        None => write!(f, "{}", SolDisplay(arg))?,
                    }
                }
                f.write_str(")")
            }
            RevertReason::Bare => f.write_str("a bare revert (no reason given)"),
            RevertReason::Unknown(data) => {
                write!(f, "unrecognised revert data 0x{}", hex::encode(data))
            }
        }
    }
}

impl fmt::Display for PanicCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Panic(0x{:02x}): {}", self.code(), self.description())
    }
}

impl fmt::Display for HaltReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HaltReason::OutOfGas => f.write_str("out of gas"),
            HaltReason::InvalidOpcode => f.write_str("invalid opcode"),
            HaltReason::InvalidJump => f.write_str("invalid jump destination"),
            HaltReason::StackOverflow => f.write_str("stack overflow"),
            HaltReason::StackUnderflow => f.write_str("stack underflow"),
            HaltReason::CodeSizeLimit => f.write_str(
                "contract code size limit exceeded (foundry.toml's `code_size_limit`, \
                 twice that for initcode; raise or remove it)",
            ),
            HaltReason::Other(what) => f.write_str(what),
        }
    }
}

/// Displays an ABI value as Solidity source would spell it: decimal integers, checksummed
/// addresses, quoted strings, `0x` bytes, `[..]` arrays and `(..)` tuples.
#[derive(Debug, Clone, Copy)]
pub struct SolDisplay<'a>(pub &'a DynSolValue);

impl fmt::Display for SolDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            DynSolValue::Bool(b) => write!(f, "{b}"),
            DynSolValue::Int(i, _) => write!(f, "{i}"),
            DynSolValue::Uint(u, _) => write!(f, "{u}"),
            DynSolValue::Address(a) => write!(f, "{a}"),
            DynSolValue::Function(func) => write!(f, "{func}"),
            DynSolValue::FixedBytes(word, size) => {
                write!(f, "0x{}", hex::encode(&word[..*size]))
            }
            DynSolValue::Bytes(bytes) => write!(f, "0x{}", hex::encode(bytes)),
            DynSolValue::String(s) => write!(f, "{s:?}"),
            DynSolValue::Array(items) | DynSolValue::FixedArray(items) => {
                write_list(f, "[", items, "]")
            }
            DynSolValue::Tuple(items) => write_list(f, "(", items, ")"),
            #[allow(unreachable_patterns)] // CustomStruct exists only with alloy's eip712 feature
            other => write!(f, "{other:?}"),
        }
    }
}

fn write_list(
    f: &mut fmt::Formatter<'_>,
    open: &str,
    items: &[DynSolValue],
    close: &str,
) -> fmt::Result {
    f.write_str(open)?;
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{}", SolDisplay(item))?;
    }
    f.write_str(close)
}

#[cfg(test)]
mod tests;
