//! forge's stateless fuzz tests: a `test*` function with parameters of a forge test contract,
//! run as `forge test` runs it. Each fuzz test is a campaign of its own whose sequences are
//! one call long: the test contract set up once (`setUp()`), every case a call of the test
//! function from forge's sender on a fresh copy of that state, a case failing when it
//! reverts (forge's `[fuzz] fail_on_revert`, on by default; without it, when the test
//! contract raised the revert itself) or sets forge's failure flag, and a `vm.assume` that
//! rejects its input not counting as a case. The inputs are the engine's, input prediction
//! included: the function's arguments are the call's.

use alloy_json_abi::Function;
use alloy_primitives::Address;

use super::{FORGE_SENDER, Suite};
use crate::Result;
use crate::chain::Chain;
use crate::oracle::Invariant;

impl Suite {
    /// Fuzzes the fuzz test alone: its function of the test contract (view and pure ones
    /// too), called from forge's sender.
    pub(super) fn select_fuzz_test(
        &self,
        chain: &mut Chain,
        test: Address,
        function: &Function,
    ) -> Result<()> {
        chain.call_views();
        chain.fuzz(test);
        chain.fuzz_only(test, [function.signature()])?;
        chain.set_senders([FORGE_SENDER]);
        chain.fuzz_created(false);
        Ok(())
    }

    /// The check after every case of a fuzz test: forge's failure flag (forge-std's and
    /// ds-test's `fail()`, which sets it without reverting) is not set.
    pub(super) fn failure_flag(&self) -> Option<Invariant<'static>> {
        let function = self.fuzz_test.as_ref()?;
        Some(Invariant {
            name: function.name.clone(),
            check: Box::new(|chain: &Chain| {
                if chain.forge_failed() {
                    Err("a forge-std assertion failed (forge's failure flag is set)".into())
                } else {
                    Ok(())
                }
            }),
            // A final check, after the case, never skipped.
            through_probes: false,
        })
    }
}
