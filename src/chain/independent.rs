//! Whether the fuzzed calls of a chain are independent of one another: nothing one call does
//! can change what a later one sees. Then a sequence is worth its last call alone, and a
//! campaign runs one call per case (a harness of stateless functions, issue 41).

use alloy_primitives::{Address, Bytes};

use super::{CHEATCODE_ADDRESS, Chain};
use crate::bytecode::{self, BALANCE_READS, CLOCK_READS, STATE_WRITES};

/// STATICCALL: reaches other code, which cannot write.
const STATICCALL: u8 = 0xfa;

impl Chain {
    /// Whether no fuzzed call can leave anything a later call sees, read from the code
    /// (committed state): the code of every fuzzed contract writes no storage and calls,
    /// creates or destroys nothing except through STATICCALL; and the code the calls can
    /// reach (with a STATICCALL, any code on the chain) does not name the cheatcodes (a view
    /// cheatcode reads nonces and the clock), reads the clock only where the block never
    /// moves, and reads no balance where calls may send ether. `false` when setup marked
    /// nothing to fuzz.
    pub(crate) fn fuzzed_calls_are_independent(&self) -> bool {
        let fuzzed: Vec<Bytes> = self.fuzzed.iter().map(|&a| self.code(a)).collect();
        if fuzzed.is_empty()
            || fuzzed
                .iter()
                .any(|code| bytecode::has_any(code, &STATE_WRITES))
        {
            return false;
        }
        let reached = if fuzzed
            .iter()
            .any(|code| bytecode::has_any(code, &[STATICCALL]))
        {
            self.vm.borrow().committed_codes()
        } else {
            fuzzed
        };
        let clock_moves = !self.plan.delays().still();
        let ether_moves = self.plan.sends_ether();
        // What a later call could see change: nonces and the clock through cheatcodes, the
        // clock the delays move, balances ether moves.
        let sees_change = |code: &Bytes| {
            names(code, CHEATCODE_ADDRESS)
                || (clock_moves && bytecode::has_any(code, &CLOCK_READS))
                || (ether_moves && bytecode::has_any(code, &BALANCE_READS))
        };
        !reached.iter().any(sees_change)
    }
}

/// Whether `code` pushes `address` as a constant.
fn names(code: &[u8], address: Address) -> bool {
    bytecode::instructions(code).any(|i| i.immediate == address.as_slice())
}
