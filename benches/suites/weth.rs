//! horsefacts/weth-invariant-testing's planted bugs (issue 14's suites bench, kept as they
//! were) and their witnesses: direct calls on a fresh WETH9 of a copy, on harvey's chain,
//! showing each bug on its copy and not on the unpatched one before anything is measured.

use std::path::Path;
use std::sync::Arc;

use alloy_dyn_abi::DynSolValue;
use harvey::chain::{Chain, Tx, TxOptions};
use harvey::prelude::*;
use harvey::project::Artifacts;

use super::table::{Bug, Expect, Patch};

/// The file the bugs are planted in.
const WETH9: &str = "src/WETH9.sol";

/// Bugs 1-4 are the repository's own `bugs/bug{1..4}.patch` as replacements; bug 5 is this
/// bench's.
pub(crate) const BUGS: [Bug; 5] = [
    Bug {
        name: "deposit-credits-1-wei",
        patch: Some(Patch {
            file: WETH9,
            from: "balanceOf[msg.sender] += msg.value;",
            to: "balanceOf[msg.sender] += 1;",
        }),
        expect: Expect::Invariant(&["invariant_solvencyBalances"]),
        forge_invariant: Some("invariant_solvencyBalances"),
        witness: Some(|w| {
            w.send("deposit()", &[], 2);
            w.balance_of(w.alice) != U256::from(2)
        }),
    },
    Bug {
        name: "withdraw-pays-1-wei",
        patch: Some(Patch {
            file: WETH9,
            from: "payable(msg.sender).transfer(wad);",
            to: "payable(msg.sender).transfer(1);",
        }),
        expect: Expect::Invariant(&["invariant_conservationOfETH"]),
        forge_invariant: Some("invariant_conservationOfETH"),
        witness: Some(|w| {
            w.send("deposit()", &[], 2);
            w.send("withdraw(uint256)", &[uint(2)], 0);
            w.chain.balance(w.weth) != U256::ZERO
        }),
    },
    Bug {
        name: "fallback-does-not-deposit",
        patch: Some(Patch {
            file: WETH9,
            from: "    fallback() external payable {\n        deposit();\n    }",
            to: "    fallback() external payable {\n    }",
        }),
        expect: Expect::Invariant(&["invariant_solvencyBalances"]),
        forge_invariant: Some("invariant_solvencyBalances"),
        witness: Some(|w| {
            w.send_plain(2);
            w.balance_of(w.alice) != U256::from(2)
        }),
    },
    Bug {
        name: "transferFrom-unchecked-credits-1-wei",
        patch: Some(Patch {
            file: WETH9,
            from: "        require(balanceOf[src] >= wad);\n\n        \
               if (src != msg.sender && allowance[src][msg.sender] != type(uint256).max) {\n            \
               require(allowance[src][msg.sender] >= wad);\n            \
               allowance[src][msg.sender] -= wad;\n        }\n\n        \
               balanceOf[src] -= wad;\n        balanceOf[dst] += wad;",
            to: "        balanceOf[src] -= wad;\n        balanceOf[dst] += 1;",
        }),
        expect: Expect::Invariant(&["invariant_solvencyBalances"]),
        forge_invariant: Some("invariant_solvencyBalances"),
        witness: Some(|w| {
            w.send("deposit()", &[], 2);
            let to = DynSolValue::from(w.bob);
            w.send("transfer(address,uint256)", &[to, uint(2)], 0);
            w.balance_of(w.bob) != U256::from(2)
        }),
    },
    Bug {
        name: "withdraw-keeps-balance",
        patch: Some(Patch {
            file: WETH9,
            from: "        balanceOf[msg.sender] -= wad;\n        payable",
            to: "        payable",
        }),
        expect: Expect::Invariant(&["invariant_solvencyBalances"]),
        forge_invariant: Some("invariant_solvencyBalances"),
        witness: Some(|w| {
            w.send("deposit()", &[], 2);
            w.send("withdraw(uint256)", &[uint(2)], 0);
            w.balance_of(w.alice) != U256::ZERO
        }),
    },
];

/// A fresh WETH9 of one copy on harvey's chain, and two funded senders.
pub(crate) struct Witness {
    chain: Chain,
    weth: Address,
    alice: Address,
    bob: Address,
}

impl Witness {
    /// Deploys WETH9 from the copy's artifacts.
    fn new(artifacts: Arc<Artifacts>) -> Result<Witness, String> {
        let mut chain = Chain::new(artifacts);
        let weth = chain.deploy("WETH9", ()).map_err(|e| e.to_string())?;
        let (alice, bob) = (chain.senders()[0], chain.senders()[1]);
        Ok(Witness {
            chain,
            weth,
            alice,
            bob,
        })
    }

    /// alice calls `signature` on WETH9 with `value` wei; the call must succeed.
    fn send(&mut self, signature: &str, args: &[DynSolValue], value: u64) {
        let options = TxOptions {
            sender: Some(self.alice),
            value: U256::from(value),
        };
        let outcome = self
            .chain
            .try_call_with(self.weth, signature, args, options)
            .unwrap_or_else(|e| panic!("witness: {signature}: {e}"));
        assert!(outcome.is_success(), "witness: {signature}: {outcome:?}");
    }

    /// alice sends `value` wei to WETH9 with no calldata (its fallback).
    fn send_plain(&mut self, value: u64) {
        let tx = Tx {
            sender: self.alice,
            to: self.weth,
            value: U256::from(value),
            ..Tx::default()
        };
        let outcome = self
            .chain
            .execute(&tx)
            .unwrap_or_else(|e| panic!("witness: plain transfer: {e}"));
        assert!(outcome.is_success(), "witness: plain transfer: {outcome:?}");
        self.chain.commit();
    }

    /// WETH9's `balanceOf(holder)`.
    fn balance_of(&self, holder: Address) -> U256 {
        self.chain
            .view(self.weth, "balanceOf(address)", (holder,))
            .unwrap_or_else(|e| panic!("witness: balanceOf: {e}"))
    }
}

/// A `uint256` argument.
fn uint(value: u64) -> DynSolValue {
    DynSolValue::Uint(U256::from(value), 256)
}

/// Runs the bug's witness, if it has one, on the unpatched copy (`unpatched`) and on the bug's copy:
/// the bug's state must show on the latter only.
pub(crate) fn check_witness(bug: &Bug, unpatched: &Path, patched: &Path) -> Result<(), String> {
    let Some(show) = bug.witness else {
        return Ok(());
    };
    for (dir, expected) in [(unpatched, false), (patched, true)] {
        let artifacts = harvey::project::compiled(dir).map_err(|e| e.to_string())?;
        let mut witness = Witness::new(artifacts)?;
        if show(&mut witness) != expected {
            return Err(format!(
                "{}: the witness {} the bug in {}",
                bug.name,
                if expected { "does not show" } else { "shows" },
                dir.display()
            ));
        }
    }
    Ok(())
}
