//! What a setup declares about the chain and the fuzzed calls: the senders, trusted
//! accounts, labels, which contracts and functions are fuzzed and how their arguments are
//! bounded, and the cheatcodes.

use std::sync::Arc;

use alloy_primitives::Address;

use super::*;
use crate::Result;

impl Chain {
    /// Chooses the senders of fuzzed transactions (in a setup function), deduplicated in
    /// order. They are not funded here: use [`Chain::set_balance`] and [`Chain::commit`] for
    /// accounts other than [`SENDERS`]. An empty list is a configuration error the campaign
    /// reports.
    pub fn set_senders(&mut self, senders: impl IntoIterator<Item = Address>) {
        self.senders.clear();
        for sender in senders {
            if !self.senders.contains(&sender) {
                self.senders.push(sender);
            }
        }
    }

    /// Trusts `account` (an owner, an admin: in a setup function): the vulnerability
    /// detectors treat every fuzzed sender as an attacker unless trusted, so a trusted
    /// sender's transactions cannot leak ether, self-destruct or delegate-call
    /// unsafely, and an account a trusted sender names in a call may be paid. [`DEPLOYER`]
    /// is always trusted.
    pub fn trust(&mut self, account: Address) {
        if !self.trusted.contains(&account) {
            self.trusted.push(account);
        }
    }

    /// The accounts the vulnerability detectors trust: [`DEPLOYER`] and those
    /// [`Chain::trust`] named, in order.
    pub fn trusted(&self) -> &[Address] {
        &self.trusted
    }

    /// Names `address` in reports and summaries (`alice@0x10000`), as forge-std's
    /// `vm.label` names it in traces: for senders and other accounts the chain did not
    /// deploy, or to tell apart two deployments of one contract. A later label replaces an
    /// earlier one, and a label replaces a deployed contract's name.
    pub fn label(&mut self, address: Address, name: impl Into<String>) {
        self.labels.insert(address, name.into());
    }

    /// The name reports show for `address`: its [`Chain::label`], else the name of the
    /// contract deployed there through this chain, else `deployer` for [`DEPLOYER`].
    /// Default senders have no name: their short addresses (`0x10000`) already read as one.
    pub fn label_of(&self, address: Address) -> Option<&str> {
        if let Some(name) = self.labels.get(&address) {
            return Some(name);
        }
        if let Some(artifact) = self.artifact_at(address) {
            return Some(&artifact.name);
        }
        (address == DEPLOYER).then_some("deployer")
    }

    /// Every named account (see [`Chain::label_of`]), for a report.
    pub fn labels(&self) -> Labels {
        let mut labels = Labels::default();
        let named = self.labels.keys().chain(self.code_at.keys());
        for address in named.chain(std::iter::once(&DEPLOYER)) {
            if let Some(name) = self.label_of(*address) {
                labels.insert(*address, name);
            }
        }
        labels
    }

    /// Marks `address` as a contract whose functions the fuzzer calls (once, in order).
    pub fn fuzz(&mut self, address: Address) {
        if !self.fuzzed.contains(&address) {
            self.fuzzed.push(address);
        }
    }

    /// Whether the fuzzer also calls the contracts its transactions create (a factory's
    /// pools, vaults, clones): each such contract is called with the functions of the
    /// compiled contract whose runtime code it runs (a minimal proxy: its implementation's)
    /// and named by it in reports. By default, as forge's invariant tests do, only when
    /// setup marked no contract with [`Chain::fuzz`] (forge: when `targetContracts()` is
    /// empty). harvey finds the contracts a fuzzed contract can create from its code (the
    /// creation code `new C()` embeds, and clones when it can clone); forge matches any
    /// created contract.
    pub fn fuzz_created(&mut self, on: bool) {
        self.plan.fuzz_created(on);
    }

    /// The contracts marked with [`Chain::fuzz`].
    pub fn fuzzed(&self) -> &[Address] {
        &self.fuzzed
    }

    /// Calls only `signatures` of the contract at `address` (`["deposit()",
    /// "withdraw(uint256)"]`, or selectors such as `"0x2e1a7d4d"`; `"receive()"` and
    /// `"fallback()"` name those). forge's
    /// `targetSelector`; like it, the contract is fuzzed even when [`Chain::fuzz`] chose
    /// others. Unlike it, signatures are checked at once: one the fuzzer cannot call (not in
    /// the ABI, or a view) is an [`Error::Config`] naming the contract and listing what it
    /// can call. A later call replaces the list; [`Chain::fuzz_except`] still applies.
    pub fn fuzz_only<S: AsRef<str>>(
        &mut self,
        address: Address,
        signatures: impl IntoIterator<Item = S>,
    ) -> Result<()> {
        let artifact = self.code_at.get(&address).map(Arc::as_ref);
        self.plan.only(address, artifact, signatures)
    }

    /// Never calls `signatures` of the contract at `address` (forge's `excludeSelector`),
    /// checked like [`Chain::fuzz_only`]'s; calls add up. It does not make the contract
    /// fuzzed.
    pub fn fuzz_except<S: AsRef<str>>(
        &mut self,
        address: Address,
        signatures: impl IntoIterator<Item = S>,
    ) -> Result<()> {
        let artifact = self.code_at.get(&address).map(Arc::as_ref);
        self.plan.except(address, artifact, signatures)
    }

    /// Where every `address` argument of a fuzzed call comes from, arrays and tuples
    /// included (default [`AddressArgs::Dictionary`]); e.g. [`AddressArgs::SendersAndContracts`]
    /// so that an invariant summing balances over those accounts sees every holder (the
    /// senders and contracts as they are when setup ends). forge
    /// has no such setting (its users pick actors in handlers). An empty
    /// [`AddressArgs::Only`] list is an [`Error::Config`].
    pub fn set_address_args(&mut self, args: AddressArgs) -> Result<()> {
        self.plan.set_address_args(args)
    }

    /// Keeps integer parameter `param` (a name, `"amount"`, or an index, `0`) of
    /// `signature` on the contract at `address` inside `range` (`1..=1_000_000`,
    /// `U256::ZERO..=cap`): what forge users write as `amount = bound(amount, lo, hi)` in a
    /// handler. Fuzzed values outside are mapped in as forge-std's `bound` maps them;
    /// input prediction clamps its proposals to the range, and shrinking simplifies toward
    /// the range's value nearest zero. Unlike a handler's `bound`, nothing outside the
    /// range is ever sent, and reports show the value that was sent. An unknown function or
    /// parameter, a parameter that is not `uint`/`int`, or ends outside its type or in the
    /// wrong order is an [`Error::Config`] saying what exists. A later bound of the same
    /// parameter replaces this one.
    pub fn bound<T: Into<BoundValue>>(
        &mut self,
        address: Address,
        signature: &str,
        param: impl Into<Param>,
        range: std::ops::RangeInclusive<T>,
    ) -> Result<()> {
        let artifact = self.code_at.get(&address).map(Arc::as_ref);
        self.plan
            .bound(address, artifact, signature, param.into(), range)
    }

    /// Turns on forge's cheatcodes at [`CHEATCODE_ADDRESS`] (`0x7109…DD12D`, forge-std's
    /// `vm`) for every later transaction, views included: the contracts can then use
    /// `vm.warp`, `vm.roll`, `vm.fee`, `vm.chainId`, `vm.getBlockTimestamp`,
    /// `vm.getBlockNumber`, `vm.deal`, `vm.label`, `vm.getLabel`, `vm.addr`, `vm.store`,
    /// `vm.load`, `vm.etch`, `vm.getNonce`, `vm.setNonce`, `vm.prank`, `vm.startPrank`,
    /// `vm.stopPrank`, `vm.assume`, `vm.expectRevert` (every form: data, reverter, count),
    /// `vm.expectEmit` (flags, emitter), `vm.broadcast`/`startBroadcast`/`stopBroadcast`
    /// (a prank of the broadcaster), `vm.getCode`/`getDeployedCode`, `vm.mockCall`/
    /// `mockCallRevert`/`clearMockedCalls`, `vm.snapshotState`/`revertToState`/
    /// `deleteStateSnapshot(s)` (and the deprecated names), `vm.computeCreateAddress`/
    /// `computeCreate2Address`, `vm.deriveKey`, `vm.rememberKey`,
    /// `vm.record`/`vm.accesses`, `vm.recordLogs`/`vm.getRecordedLogs`, `vm.toString`, `vm.sign`, `vm.envUint`/`envAddress`/
    /// `envBool`/`envString`/`envOr` (those four types) and the assertions `vm.assert*`,
    /// with forge's semantics and messages (failures revert with `Error(string)` where
    /// forge uses its `CheatcodeError(string)`: the same text). Any other forge
    /// cheatcode (forge 1.7.1's, or one in the ABI of a compiled `Vm`/`VmSafe` interface)
    /// reverts saying harvey does not support it; a selector no cheatcode has reverts as
    /// in forge.
    ///
    /// Enable them before deploying what uses them. A chain without them treats the
    /// address as an empty account, and runs unobserved transactions without any
    /// inspector (the fastest way); with them, every transaction runs through revm's
    /// inspector. Block and chain-id changes last until [`Chain::reset`] (or are kept by
    /// [`Chain::commit`]), pranks and broadcasts end with the sequence at [`Chain::reset`],
    /// and mocks, remembered keys and snapshots made before a commit last.
    pub fn enable_cheatcodes(&mut self) {
        let artifacts = Arc::clone(&self.artifacts);
        self.vm.get_mut().enable_cheatcodes(artifacts);
    }
}
