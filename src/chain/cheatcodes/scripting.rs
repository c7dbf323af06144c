//! The dispatch of the scripting and testing cheatcodes (broadcasts, keys, artifact code,
//! `expectRevert`'s other forms, `expectEmit`, mocks, snapshots) onto their modules; the
//! block, chain and account cheatcodes go on to `env`.

use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::SolValue;
use revm::handler::MainnetContext;
use revm::interpreter::CallInputs;

use super::{Answer, Cheatcodes, Vm, broadcast, code, env, expect, fail, keys, mock};
use crate::chain::db::Db;

/// A mocked call's answer: returning `data`.
fn returns(data: Bytes) -> mock::Answer {
    mock::Answer {
        reverts: false,
        data,
    }
}

/// A mocked call's answer: reverting with `data`.
fn reverts(data: Bytes) -> mock::Answer {
    mock::Answer {
        reverts: true,
        data,
    }
}

impl Cheatcodes {
    /// `vm.expectRevert` in any form.
    pub(super) fn expect_revert(
        &mut self,
        depth: usize,
        reason: Option<Bytes>,
        reverter: Option<Address>,
        count: u64,
    ) -> Answer {
        let expected = expect::Expectation {
            reason,
            reverter,
            count,
        };
        expect::arm(&mut self.expected_revert, depth, expected)
    }

    /// A broadcast from the frame at `depth` as `origin`, else the only remembered wallet,
    /// else `tx.origin`.
    fn broadcast(
        &mut self,
        context: &MainnetContext<Db>,
        inputs: &CallInputs,
        depth: usize,
        origin: Option<Address>,
        single: bool,
    ) -> Answer {
        let origin = origin
            .or_else(|| self.lasting.wallets.only())
            .unwrap_or(context.tx.caller);
        let pranked = self.pranks.at(depth);
        broadcast::start(
            &mut self.broadcast,
            context,
            inputs.caller,
            depth,
            origin,
            single,
            pranked,
        )
    }

    /// A keyed broadcast: remembers the key's wallet too.
    fn broadcast_key(
        &mut self,
        context: &MainnetContext<Db>,
        inputs: &CallInputs,
        depth: usize,
        key: U256,
        single: bool,
    ) -> Answer {
        let origin = env::signer_address(key)?;
        self.broadcast(context, inputs, depth, Some(origin), single)?;
        self.lasting.wallets.remember(origin);
        Ok(Vec::new())
    }

    /// A mock of the calls `calls` describes: to a callee, sending a value when given, with
    /// calldata starting with the given bytes.
    fn mock(
        &mut self,
        context: &mut MainnetContext<Db>,
        calls: (Address, Option<U256>, Bytes),
        answer: mock::Answer,
    ) -> Answer {
        let (callee, value, data) = calls;
        self.lasting.mocks.add(context, callee, data, value, answer);
        Ok(Vec::new())
    }

    /// The scripting and testing cheatcodes: broadcasts, keys, artifacts, expectations,
    /// mocks and snapshots; then the block, chain and account ones.
    pub(super) fn run_script_and_test(
        &mut self,
        context: &mut MainnetContext<Db>,
        inputs: &CallInputs,
        depth: usize,
        call: Vm::VmCalls,
    ) -> Answer {
        use Vm::VmCalls as C;
        let emits = &mut self.expected_emits;
        match call {
            C::broadcast_0(_) => self.broadcast(context, inputs, depth, None, true),
            C::broadcast_1(c) => self.broadcast(context, inputs, depth, Some(c.signer), true),
            C::broadcast_2(c) => self.broadcast_key(context, inputs, depth, c.privateKey, true),
            C::startBroadcast_0(_) => self.broadcast(context, inputs, depth, None, false),
            C::startBroadcast_1(c) => self.broadcast(context, inputs, depth, Some(c.signer), false),
            C::startBroadcast_2(c) => {
                self.broadcast_key(context, inputs, depth, c.privateKey, false)
            }
            C::stopBroadcast(_) => broadcast::stop(&mut self.broadcast),
            C::rememberKey(c) => {
                let address = env::signer_address(c.privateKey)?;
                self.lasting.wallets.remember(address);
                Ok(address.abi_encode())
            }
            C::deriveKey_0(c) => {
                keys::derive_key(&c.mnemonic, None, c.index, None).map(|k| k.abi_encode())
            }
            C::deriveKey_1(c) => {
                keys::derive_key(&c.mnemonic, Some(&c.derivationPath), c.index, None)
                    .map(|k| k.abi_encode())
            }
            C::deriveKey_2(c) => keys::derive_key(&c.mnemonic, None, c.index, Some(&c.language))
                .map(|k| k.abi_encode()),
            C::deriveKey_3(c) => keys::derive_key(
                &c.mnemonic,
                Some(&c.derivationPath),
                c.index,
                Some(&c.language),
            )
            .map(|k| k.abi_encode()),
            C::computeCreateAddress(c) => {
                keys::create_address(c.deployer, c.nonce).map(|a| a.abi_encode())
            }
            C::computeCreate2Address_0(c) => {
                Ok(keys::create2_address(c.salt, c.initCodeHash, Some(c.deployer)).abi_encode())
            }
            C::computeCreate2Address_1(c) => {
                Ok(keys::create2_address(c.salt, c.initCodeHash, None).abi_encode())
            }
            C::getCode(c) => self.artifact_code(&c.artifactPath, false),
            C::getDeployedCode(c) => self.artifact_code(&c.artifactPath, true),
            C::expectRevert_3(c) => {
                self.expect_revert(depth, Some(c.revertData.into()), Some(c.reverter), c.count)
            }
            C::expectRevert_4(c) => {
                self.expect_revert(depth, Some(c.revertData), Some(c.reverter), c.count)
            }
            C::expectRevert_5(c) => self.expect_revert(depth, None, Some(c.reverter), 1),
            C::expectRevert_6(c) => {
                self.expect_revert(depth, Some(c.revertData.into()), Some(c.reverter), 1)
            }
            C::expectRevert_7(c) => {
                self.expect_revert(depth, Some(c.revertData), Some(c.reverter), 1)
            }
            C::expectRevert_8(c) => self.expect_revert(depth, None, None, c.count),
            C::expectRevert_9(c) => {
                self.expect_revert(depth, Some(c.revertData.into()), None, c.count)
            }
            C::expectRevert_10(c) => self.expect_revert(depth, Some(c.revertData), None, c.count),
            C::expectRevert_11(c) => self.expect_revert(depth, None, Some(c.reverter), c.count),
            C::expectEmit_0(c) => emits.expect(
                depth,
                [c.checkTopic1, c.checkTopic2, c.checkTopic3, c.checkData],
                None,
            ),
            C::expectEmit_1(c) => emits.expect(
                depth,
                [c.checkTopic1, c.checkTopic2, c.checkTopic3, c.checkData],
                Some(c.emitter),
            ),
            C::expectEmit_2(_) => emits.expect(depth, [true; 4], None),
            C::expectEmit_3(c) => emits.expect(depth, [true; 4], Some(c.emitter)),
            C::mockCall_0(c) => self.mock(context, (c.callee, None, c.data), returns(c.returnData)),
            C::mockCall_1(c) => {
                let calls = (c.callee, Some(c.msgValue), c.data);
                self.mock(context, calls, returns(c.returnData))
            }
            C::mockCall_2(c) => {
                let calls = (c.callee, None, c.data.into());
                self.mock(context, calls, returns(c.returnData))
            }
            C::mockCall_3(c) => {
                let calls = (c.callee, Some(c.msgValue), c.data.into());
                self.mock(context, calls, returns(c.returnData))
            }
            C::mockCallRevert_0(c) => {
                self.mock(context, (c.callee, None, c.data), reverts(c.revertData))
            }
            C::mockCallRevert_1(c) => {
                let calls = (c.callee, Some(c.msgValue), c.data);
                self.mock(context, calls, reverts(c.revertData))
            }
            C::mockCallRevert_2(c) => {
                let calls = (c.callee, None, c.data.into());
                self.mock(context, calls, reverts(c.revertData))
            }
            C::mockCallRevert_3(c) => {
                let calls = (c.callee, Some(c.msgValue), c.data.into());
                self.mock(context, calls, reverts(c.revertData))
            }
            C::clearMockedCalls(_) => {
                self.lasting.mocks.clear();
                Ok(Vec::new())
            }
            C::snapshotState(_) | C::snapshot(_) => {
                Ok(self.lasting.snapshots.take(context).abi_encode())
            }
            C::revertToState(c) => Ok(self
                .lasting
                .snapshots
                .revert(context, c.snapshotId, false)
                .abi_encode()),
            C::revertTo(c) => Ok(self
                .lasting
                .snapshots
                .revert(context, c.snapshotId, false)
                .abi_encode()),
            C::revertToStateAndDelete(c) => Ok(self
                .lasting
                .snapshots
                .revert(context, c.snapshotId, true)
                .abi_encode()),
            C::revertToAndDelete(c) => Ok(self
                .lasting
                .snapshots
                .revert(context, c.snapshotId, true)
                .abi_encode()),
            C::deleteStateSnapshot(c) => {
                Ok(self.lasting.snapshots.delete(c.snapshotId).abi_encode())
            }
            C::deleteStateSnapshots(_) => {
                self.lasting.snapshots.delete_all();
                Ok(Vec::new())
            }
            other => env::run(context, other),
        }
    }

    /// `vm.getCode`/`vm.getDeployedCode` of artifact `path`, ABI-encoded.
    fn artifact_code(&self, path: &str, deployed: bool) -> Answer {
        let Some(artifacts) = self.artifacts.as_deref() else {
            return Err(fail("no matching artifact found"));
        };
        code::code(artifacts, path, deployed).map(|code| code.abi_encode())
    }
}
