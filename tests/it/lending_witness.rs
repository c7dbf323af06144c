//! Witnesses for the three planted bugs of the lending suite in `tests/fixtures/forge-suites`
//! (`LendingTest`, `test/Lending.t.sol`; see its `EXPECTED.md`): the protocol is deployed on
//! harvey's chain as the suite's setUp deploys it, without the forge test contract and its
//! handler (whose cheatcodes the chain does not serve), and each bug is reached by direct calls
//! that break its invariant's condition; the same calls on the sound twins
//! (`SoundPriceOracle`, `SoundLendingPool`: `LendingSoundTest`'s) are refused or keep it.

use harvey::chain::SolArgs;
use harvey::prelude::*;

use crate::forge_suites_witness::artifacts;
use crate::support::{ether, send};

const SENIOR: u8 = 0;
const JUNIOR: u8 = 1;
/// Market 0 lends USDL against WETHL (LLTV 80%); 1, USDL against WBTCL; 2, WETHL against USDL.
const USD_WETH: u64 = 0;

/// `n` hundredths as an 18-decimal number: cents as the oracle's dollar prices, percents as
/// the rate model's yearly rates.
fn hundredths(n: u64) -> U256 {
    U256::from(n) * U256::from(10u64.pow(16))
}

/// The protocol as `LendingInvariants.setUp` deploys it, the chain's deployer standing for
/// the test contract: the tokens' minter, the oracle's and the pool's owner, and the seeder
/// of every tranche ($50,000 senior, $10,000 junior, from its sub-account 0). The chain's
/// first three senders stand for the handler's actors, each holding 10^30 of every token,
/// the pool approved.
struct Lending {
    chain: Chain,
    usd: Address,
    weth: Address,
    oracle: Address,
    pool: Address,
}

impl Lending {
    /// Deploys the buggy protocol (`LendingTest`'s) or the sound one (`LendingSoundTest`'s).
    fn deploy(sound: bool) -> Lending {
        let mut chain = Chain::new(artifacts());
        let mut token = |name: &str, symbol: &str| {
            chain
                .deploy("LendingToken", (name, symbol))
                .unwrap_or_else(|e| panic!("deploying {symbol}: {e}"))
        };
        let usd = token("Lending USD", "USDL");
        let weth = token("Lending Wrapped Ether", "WETHL");
        let wbtc = token("Lending Wrapped Bitcoin", "WBTCL");
        let (oracle, pool) = if sound {
            ("SoundPriceOracle", "SoundLendingPool")
        } else {
            ("PriceOracle", "LendingPool")
        };
        let oracle = chain.deploy(oracle, ()).unwrap();
        let rates = chain
            .deploy(
                "InterestRateModel",
                (
                    hundredths(2),
                    hundredths(20),
                    hundredths(200),
                    hundredths(80),
                ),
            )
            .unwrap();
        let pool = chain.deploy(pool, (oracle, rates)).unwrap();
        let mut lending = Lending {
            chain,
            usd,
            weth,
            oracle,
            pool,
        };
        let owner = lending.chain.deployer();
        // In cents: USDL at $1 within [$0.95, $1.05], WETHL at $2,000 within [$1,000, $4,000],
        // WBTCL at $60,000 within [$30,000, $120,000].
        let feeds = [
            (usd, 100, 95, 105),
            (weth, 200_000, 100_000, 400_000),
            (wbtc, 6_000_000, 3_000_000, 12_000_000),
        ];
        for (token, price, min, max) in feeds {
            let (price, min, max) = (hundredths(price), hundredths(min), hundredths(max));
            lending.ok(
                owner,
                oracle,
                "addFeed(address,uint256,uint256,uint256)",
                (token, price, min, max),
            );
        }
        for (loan, collateral, lltv) in [
            (usd, weth, 8_000u64),
            (usd, wbtc, 7_500),
            (weth, usd, 8_500),
        ] {
            let add = "addMarket(address,address,uint256)";
            lending.ok(owner, pool, add, (loan, collateral, U256::from(lltv)));
        }
        let mut accounts = vec![owner];
        accounts.extend_from_slice(&lending.chain.senders()[..3]);
        for account in accounts {
            for token in [usd, weth, wbtc] {
                let minted = U256::from(10u64).pow(U256::from(30));
                lending.ok(owner, token, "mint(address,uint256)", (account, minted));
                let approve = "approve(address,uint256)";
                lending.ok(account, token, approve, (pool, U256::MAX));
            }
        }
        // $50,000 and $10,000 of each market's loan token: USDL at $1, WETHL at $2,000.
        for (market, dollar) in [
            (0u64, ether(1)),
            (1, ether(1)),
            (2, ether(1) / U256::from(2_000)),
        ] {
            for (tranche, seed) in [(SENIOR, 50_000u64), (JUNIOR, 10_000)] {
                let deposit = "deposit(uint256,uint8,uint96,uint256)";
                let args = (market, tranche, 0u64, dollar * U256::from(seed));
                lending.ok(owner, pool, deposit, args);
            }
        }
        lending
    }

    /// The handler's actor `index` (a chain sender).
    fn actor(&self, index: usize) -> Address {
        self.chain.senders()[index]
    }

    /// Calls `signature` with `args` on `to` from `from`; the outcome, reverted or not.
    fn act(
        &mut self,
        from: Address,
        to: Address,
        signature: &str,
        args: impl SolArgs,
    ) -> TxOutcome {
        send(
            &mut self.chain,
            from,
            to,
            signature,
            &args.sol_values(),
            U256::ZERO,
        )
    }

    /// [`Lending::act`], which must succeed.
    fn ok(&mut self, from: Address, to: Address, signature: &str, args: impl SolArgs) {
        let outcome = self.act(from, to, signature, args);
        assert!(outcome.is_success(), "{signature}: {}", outcome.status);
    }

    /// The owner sets `token`'s price (as the handler's `movePrice` does).
    fn set_price(&mut self, token: Address, price: U256) -> TxOutcome {
        let owner = self.chain.deployer();
        self.act(
            owner,
            self.oracle,
            "setPrice(address,uint256)",
            (token, price),
        )
    }

    fn price(&self, token: Address) -> U256 {
        self.chain
            .view(self.oracle, "priceOf(address)", (token,))
            .unwrap()
    }

    /// `invariant_pricesWithinBounds` for `token`.
    fn price_within_bounds(&self, token: Address) -> bool {
        let (min, max): (U256, U256) = self
            .chain
            .view(self.oracle, "boundsOf(address)", (token,))
            .unwrap();
        (min..=max).contains(&self.price(token))
    }

    /// The market's borrowed assets and reserves (`totals`, less the shares and collateral).
    fn borrowed_and_reserves(&self, market: u64) -> (U256, U256) {
        let (borrowed, _, _, reserves): (U256, U256, U256, U256) = self
            .chain
            .view(self.pool, "totals(uint256)", (market,))
            .unwrap();
        (borrowed, reserves)
    }

    /// `invariant_borrowsWithinSupply` for `market`: utilisation at most 100%.
    fn borrows_within_supply(&self, market: u64) -> bool {
        let (borrowed, reserves) = self.borrowed_and_reserves(market);
        let supplied: U256 = self
            .chain
            .view(self.pool, "supplied(uint256)", (market,))
            .unwrap();
        borrowed <= supplied + reserves
    }

    /// Tranche `tranche` of `market`: its assets, shares, losses and whether it is closed.
    fn tranche(&self, market: u64, tranche: u8) -> (U256, U256, U256, bool) {
        self.chain
            .view(self.pool, "trancheOf(uint256,uint8)", (market, tranche))
            .unwrap()
    }

    /// `invariant_juniorTakesLossesFirst` for `market`.
    fn junior_takes_losses_first(&self, market: u64) -> bool {
        let (_, _, senior_losses, _) = self.tranche(market, SENIOR);
        let (junior_assets, _, _, _) = self.tranche(market, JUNIOR);
        senior_losses.is_zero() || junior_assets.is_zero()
    }

    /// A view of the pool on a sub-account: `(market, owner, subId)`.
    fn account_view(&self, signature: &str, market: u64, owner: Address, sub: u64) -> U256 {
        self.chain
            .view(self.pool, signature, (market, owner, sub))
            .unwrap()
    }
}

/// Bug 1 (shallow, one call): `PriceOracle._withinBounds` checks the floor on the current
/// price, so the owner's first update below the floor (USDL at $0.94, floor $0.95) goes
/// through and `invariant_pricesWithinBounds` breaks; the sound oracle refuses it. A second
/// update below the floor is refused by both (the current price is then under it).
#[test]
fn a_price_update_takes_the_stablecoin_below_its_floor() {
    for sound in [false, true] {
        let mut lending = Lending::deploy(sound);
        let usd = lending.usd;
        // Within the bounds, both accept.
        assert!(lending.set_price(usd, hundredths(96)).is_success());
        let below = lending.set_price(usd, hundredths(94));
        assert_eq!(
            below.is_success(),
            !sound,
            "sound: {sound}: {}",
            below.status
        );
        assert_eq!(lending.price_within_bounds(usd), sound, "sound: {sound}");
        let expected = if sound { 96 } else { 94 };
        assert_eq!(lending.price(usd), hundredths(expected));
        assert!(!lending.set_price(usd, hundredths(93)).is_success());
    }
}

/// Bug 2 (medium, four calls by two actors with related amounts): `LendingPool.withdraw`
/// checks liquidity before the tranche gives up the assets. Alice deposits $10,000 in the
/// junior tranche of the USDL/WETHL market (her sub-account 1), Bob puts up 100 WETHL (his
/// sub-account 0) and borrows $65,000 of its $70,000; Alice's withdrawal of her $10,000, more
/// than the $5,000 left, goes through on the USDL the pool holds for the other USDL market,
/// and the market lends more than it holds (`invariant_borrowsWithinSupply`). The sound pool
/// refuses it ("insufficient liquidity"), and a withdrawal within the cash succeeds on both.
#[test]
fn a_withdrawal_lends_out_more_than_the_market_holds() {
    for sound in [false, true] {
        let mut lending = Lending::deploy(sound);
        let (pool, alice, bob) = (lending.pool, lending.actor(0), lending.actor(1));
        let deposit = "deposit(uint256,uint8,uint96,uint256)";
        lending.ok(
            alice,
            pool,
            deposit,
            (USD_WETH, JUNIOR, 1u64, ether(10_000)),
        );
        let collateral = "supplyCollateral(uint256,uint96,uint256)";
        lending.ok(bob, pool, collateral, (USD_WETH, 0u64, ether(100)));
        let borrow = "borrow(uint256,uint96,uint256)";
        lending.ok(bob, pool, borrow, (USD_WETH, 0u64, ether(65_000)));
        assert!(lending.borrows_within_supply(USD_WETH));
        let held = "trancheSharesOf(uint256,uint8,address,uint96)";
        let shares: U256 = lending
            .chain
            .view(pool, held, (USD_WETH, JUNIOR, alice, 1u64))
            .unwrap();
        let withdraw = "withdraw(uint256,uint8,uint96,uint256)";
        // A tenth of her shares ($1,000) is within the $5,000 of cash: both pay it.
        let tenth = shares / U256::from(10);
        lending.ok(alice, pool, withdraw, (USD_WETH, JUNIOR, 1u64, tenth));
        assert!(lending.borrows_within_supply(USD_WETH));
        let rest = lending.act(
            alice,
            pool,
            withdraw,
            (USD_WETH, JUNIOR, 1u64, shares - tenth),
        );
        assert_eq!(rest.is_success(), !sound, "sound: {sound}: {}", rest.status);
        if sound {
            assert!(
                rest.status.to_string().contains("insufficient liquidity"),
                "{}",
                rest.status
            );
        }
        assert_eq!(
            lending.borrows_within_supply(USD_WETH),
            sound,
            "sound: {sound}"
        );
    }
}

/// Bug 3 (deep, five calls with time passing and a price move): `LendingPool.liquidate` writes
/// bad debt off the senior tranche first. Bob puts up 37.5 WETHL ($75,000, a $60,000 limit)
/// and borrows all he may of the USDL/WETHL market's $60,000; thirty days at full utilisation
/// (222% a year) add about $11,000 of interest; WETHL falls 10% to $1,800, and Carol
/// liquidates all his debt: his collateral, worth $67,500, covers $64,286 of it with the 5%
/// bonus, and the rest is bad debt. The buggy pool takes it from the senior tranche while the
/// junior one still holds its $10,000 and its interest (`invariant_juniorTakesLossesFirst`);
/// the sound pool takes it from the junior tranche.
#[test]
fn bad_debt_is_written_off_the_senior_tranche_first() {
    for sound in [false, true] {
        let mut lending = Lending::deploy(sound);
        let (pool, weth, bob, carol) = (
            lending.pool,
            lending.weth,
            lending.actor(1),
            lending.actor(2),
        );
        let collateral = "supplyCollateral(uint256,uint96,uint256)";
        lending.ok(
            bob,
            pool,
            collateral,
            (USD_WETH, 0u64, ether(75) / U256::from(2)),
        );
        let room = lending.account_view("borrowable(uint256,address,uint96)", USD_WETH, bob, 0);
        assert!(room > ether(59_999), "{room}");
        lending.ok(
            bob,
            pool,
            "borrow(uint256,uint96,uint256)",
            (USD_WETH, 0u64, room),
        );
        let index_before: U256 = lending
            .chain
            .view(pool, "borrowIndex(uint256)", (USD_WETH,))
            .unwrap();

        lending.chain.skip(30 * 24 * 60 * 60);
        assert!(lending.set_price(weth, hundredths(180_000)).is_success());
        // As the handler does: accrue, then bound the repayment by the debt.
        lending.ok(carol, pool, "accrueInterest(uint256)", (USD_WETH,));
        let debt = lending.account_view("debtOf(uint256,address,uint96)", USD_WETH, bob, 0);
        let liquidate = "liquidate(uint256,address,uint96,uint256)";
        lending.ok(carol, pool, liquidate, (USD_WETH, bob, 0u64, debt));

        let owed = lending.account_view("debtOf(uint256,address,uint96)", USD_WETH, bob, 0);
        let left = lending.account_view("collateralOf(uint256,address,uint96)", USD_WETH, bob, 0);
        assert_eq!((owed, left), (U256::ZERO, U256::ZERO), "all written off");
        // Thirty days at full utilisation: the debt grew by over a sixth, as did the index.
        assert!(debt > ether(70_000), "{debt}");
        let index: U256 = lending
            .chain
            .view(pool, "borrowIndex(uint256)", (USD_WETH,))
            .unwrap();
        assert!(
            index > index_before + index_before / U256::from(6),
            "{index}"
        );
        let (senior_assets, _, senior_losses, _) = lending.tranche(USD_WETH, SENIOR);
        let (junior_assets, _, junior_losses, junior_closed) = lending.tranche(USD_WETH, JUNIOR);
        assert!(!junior_closed && junior_assets > U256::ZERO);
        let written_off = if sound { junior_losses } else { senior_losses };
        assert!(written_off > ether(5_000), "sound: {sound}: {written_off}");
        assert_eq!(senior_losses.is_zero(), sound, "sound: {sound}");
        assert!(senior_assets > U256::ZERO);
        assert_eq!(
            lending.junior_takes_losses_first(USD_WETH),
            sound,
            "sound: {sound}"
        );
        // The other invariants the liquidation touches still hold.
        assert!(lending.borrows_within_supply(USD_WETH));
    }
}
