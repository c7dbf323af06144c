//! Linking external libraries at deploy, as forge does: a contract that calls external
//! library functions gets each library deployed once per chain (from [`DEPLOYER`], like
//! forge's test runner deploying libraries from its sender), and its bytecode patched with
//! their addresses before its creation code runs.

use std::sync::Arc;

use alloy_primitives::Address;

use super::{Chain, TxOptions};
use crate::project::ContractArtifact;
use crate::{Error, Result};

#[cfg(doc)]
use super::DEPLOYER;

impl Chain {
    /// `artifact` with every library it needs deployed and linked; `artifact` itself when it
    /// needs none. A library already deployed on this chain (by linking or by the user) is
    /// reused.
    pub(super) fn linked(
        &mut self,
        artifact: Arc<ContractArtifact>,
    ) -> Result<Arc<ContractArtifact>> {
        if artifact.libraries.is_empty() {
            return Ok(artifact);
        }
        let mut addresses = Vec::with_capacity(artifact.libraries.len());
        for link in &artifact.libraries {
            let failed = |reason: String| Error::Link {
                library: link.qualified_name(),
                contract: artifact.qualified_name(),
                reason,
            };
            let deployed = self.deployed.iter().find(|(_, address)| {
                self.code_at.get(address).is_some_and(|deployed| {
                    deployed.name == link.name && deployed.source_path == link.source_path
                })
            });
            if let Some(&(_, address)) = deployed {
                addresses.push(address);
                continue;
            }
            let library = self
                .artifacts
                .contracts()
                .find(|c| c.name == link.name && c.source_path == link.source_path)
                .cloned()
                .ok_or_else(|| {
                    failed(format!(
                        "it is not among the compiled contracts; compile {} (check `skip` in foundry.toml and HARVEY_SKIP)",
                        link.source_path.display()
                    ))
                })?;
            if !library.is_deployable() {
                return Err(failed(
                    "it has no creation code, so it cannot be deployed".into(),
                ));
            }
            let address: Address = self
                .deploy_encoded(library, Vec::new(), TxOptions::default())
                .map_err(|e| failed(format!("deploying it failed: {e}")))?;
            addresses.push(address);
        }
        Ok(Arc::new(artifact.linked(&addresses)))
    }
}
