#!/usr/bin/env bash
# Which `[profile.dev]` settings make harvey fast under plain `cargo test` for the least cold
# build time (README, "Speed under cargo test"). For each profile it creates a user crate in a
# scratch directory with harvey as a path dev-dependency and one seeded campaign test, builds it
# from cold (its own target dir, nothing shared), and then runs the test, which prints the
# campaign's transactions per second.
#
#   benches/debug_profile/run.sh [scratch-dir]        # build every profile, then run them
#   RUN_ONLY=1 benches/debug_profile/run.sh [dir]     # re-run the built tests (idle machine)
#   PROFILES="debug hot-o3" benches/debug_profile/run.sh   # only these profiles
#
# Cold builds are reported as wall time and CPU time (user+sys): CPU time is what a build
# costs whatever else the machine is doing; wall time needs an idle machine to mean anything.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
scratch=${1:-/tmp/harvey-debug-profile}
mkdir -p "$scratch"

# The crates whose code runs per EVM instruction or per transaction: revm and its parts, the
# 256-bit integers, keccak, and harvey's own engine.
hot=(revm revm-bytecode revm-context revm-context-interface revm-database
     revm-database-interface revm-handler revm-inspector revm-interpreter revm-precompile
     revm-primitives revm-state ruint alloy-primitives keccak sha3 harvey)
# The same plus what the engine calls per transaction around the EVM: dynamic ABI values,
# hash maps, the seeded RNG, byte buffers.
hot_plus=("${hot[@]}" alloy-dyn-abi alloy-sol-types alloy-json-abi hashbrown foldhash
          rand rand_core rand_chacha ppv-lite86 bytes smallvec const-hex)
hot_profile() {
  local level=$1; shift
  for crate in "$@"; do printf '[profile.dev.package.%s]\nopt-level = %s\n' "$crate" "$level"; done
}

declare -A profiles
profiles[debug]=""
profiles[all-deps-o3]=$'[profile.dev.package."*"]\nopt-level = 3\n'
profiles[all-deps-o1]=$'[profile.dev.package."*"]\nopt-level = 1\n'
profiles[hot-o3]=$(hot_profile 3 "${hot[@]}")
profiles[hot-o2]=$(hot_profile 2 "${hot[@]}")
profiles[hot-plus-o3]=$(hot_profile 3 "${hot_plus[@]}")

make_crate() {
  local dir=$1 profile=$2
  mkdir -p "$dir/contracts" "$dir/tests"
  cp "$repo/contracts/bugs/Bank.sol" "$dir/contracts/"
  printf '[profile.default]\nsrc = "contracts"\nlibs = []\nsolc = "%s"\noffline = true\n' \
    "$repo/tools/solc-shim/solc" > "$dir/foundry.toml"
  cat > "$dir/Cargo.toml" <<TOML
[package]
name = "debug-profile-probe"
version = "0.0.0"
edition = "2024"
publish = false

[dev-dependencies]
harvey = { path = "$repo" }

$profile
TOML
  cat > "$dir/tests/bank.rs" <<'RS'
use harvey::prelude::*;

#[test]
fn bank_throughput() {
    let outcome = Campaign::new(env!("CARGO_MANIFEST_DIR"))
        .contract("Bank")
        .seed(1)
        .runs(20_000)
        .invariant("total matches", |chain: &Chain| {
            let bank = chain.get("Bank");
            chain.view::<U256>(bank, "total()", ()).unwrap() <= chain.balance(bank)
        })
        .run()
        .unwrap();
    println!(
        "TXS_PER_SEC {:.0} TRANSACTIONS {}",
        outcome.stats.execs_per_sec(),
        outcome.stats.transactions
    );
}
RS
}

for name in ${PROFILES:-debug hot-o2 hot-o3 hot-plus-o3 all-deps-o1 all-deps-o3}; do
  dir="$scratch/$name"
  if [ -z "${RUN_ONLY:-}" ]; then
    rm -rf "$dir"
    make_crate "$dir" "${profiles[$name]}"
    start=$(date +%s)
    /usr/bin/time -f "%U %S" -o "$dir/cpu" cargo test --manifest-path "$dir/Cargo.toml" --no-run -q 2> "$dir/build.log"
    end=$(date +%s)
    read -r user sys < "$dir/cpu"
    echo "$name: cold build $((end - start)) s wall, $(python3 -c "print(round($user + $sys))") s CPU" | tee "$dir/build-time"
  fi
  for i in 1 2 3; do
    cargo test --manifest-path "$dir/Cargo.toml" -q -- --nocapture 2>/dev/null | grep TXS_PER_SEC
  done | awk -v n="$name" '{print $2}' | sort -n | awk -v n="$name" '{a[NR]=$1} END {print n ": median " a[int((NR+1)/2)] " tx/s over " NR " runs"}'
done
