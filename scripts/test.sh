#!/usr/bin/env bash
# The whole test suite, from a clean build: the command README.md gives and .ci/run calls.
#
#   scripts/test.sh            install deps, build (warnings as errors), ctest, install + find_package and pkg-config
#                              check, ASan/UBSan suite, brief fuzz runs
#   STRATA_QUICK=1 scripts/test.sh   only the main build and ctest
#
# Build trees go to build-ci/ (override with STRATA_BUILD_ROOT). Uses every core.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
root="${STRATA_BUILD_ROOT:-$here/build-ci}"
jobs="$(nproc)"
# Each stage's header says how long the run has taken so far (bash's SECONDS), so a CI log shows
# where its time went.
step() { printf '\n== %s == (%d s into the run)\n' "$*" "$SECONDS"; }

step "dependencies"
scripts/install-deps.sh

# Compile time is most of a CI run on 2 cores, and debug information about a third of each file's
# compile: the main tree is built at -O2 without it, the sanitizer and fuzz trees with line tables
# only (-g1), which is what their stack traces need.
step "build (-O2, -Werror)"
# The test files themselves at -O1 (STRATA_TEST_CXX_FLAGS): half of -O2's compile on the heavy ones
# (16.9 -> 8.8 s for bake_rules_tests.cpp); the libraries they test stay at -O2.
cmake -S . -B "$root/main" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTRATA_WERROR=ON \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" -DSTRATA_TEST_CXX_FLAGS=-O1 >/dev/null
cmake --build "$root/main" -j"$jobs"

step "test suite"
(cd "$root/main" && ctest -j"$jobs" --output-on-failure --timeout 600)

[[ "${STRATA_QUICK:-0}" == "1" ]] && exit 0

step "install + find_package(Strata) and pkg-config from scratch projects"
rm -rf "$root/prefix" "$root/consumer"
cmake --install "$root/main" --prefix "$root/prefix" >/dev/null
test -x "$root/prefix/bin/strata"
test -f "$root/prefix/share/man/man1/strata.1"
cmake -S tests/package -B "$root/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$root/prefix" >/dev/null
cmake --build "$root/consumer" -j"$jobs"
"$root/consumer/strata_consumer" samples/tower.obj samples/tower.toml "$root/consumer/tower.h5"
# strata::sim alone, with strata::formats' libraries hidden: asking for one fails the configure.
rm -rf "$root/consumer-sim"
cmake -S tests/package/sim_only -B "$root/consumer-sim" -G Ninja -DCMAKE_PREFIX_PATH="$root/prefix" --no-warn-unused-cli \
      -DCMAKE_DISABLE_FIND_PACKAGE_assimp=ON -DCMAKE_DISABLE_FIND_PACKAGE_HDF5=ON -DCMAKE_DISABLE_FIND_PACKAGE_fmt=ON \
      -DCMAKE_DISABLE_FIND_PACKAGE_tomlplusplus=ON -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON \
      -DCMAKE_DISABLE_FIND_PACKAGE_PNG=ON -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON >/dev/null
cmake --build "$root/consumer-sim" -j"$jobs"
"$root/consumer-sim/strata_sim_consumer"
# The same two programs built without CMake, through the installed pkg-config files.
pc_dir=$(dirname "$(find "$root/prefix" -name strata-formats.pc)")
PKG_CONFIG_PATH="$pc_dir" pkg-config --exists --print-errors strata-sim strata-nav strata-formats
# shellcheck disable=SC2046  # pkg-config's flags are words
g++ -std=c++20 tests/package/main.cpp $(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs strata-formats) \
    -o "$root/consumer/strata_consumer_pc"
"$root/consumer/strata_consumer_pc" samples/tower.obj samples/tower.toml "$root/consumer/tower_pc.h5"
# shellcheck disable=SC2046
g++ -std=c++20 tests/package/sim_only/main.cpp $(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs strata-sim) \
    -o "$root/consumer-sim/strata_sim_consumer_pc"
"$root/consumer-sim/strata_sim_consumer_pc"

step "AddressSanitizer + UndefinedBehaviorSanitizer suite"
cmake -S . -B "$root/asan" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSTRATA_SANITIZE=ON -DSTRATA_WERROR=ON \
      -DCMAKE_CXX_FLAGS="-O1" -DCMAKE_CXX_FLAGS_DEBUG="-g1" >/dev/null
cmake --build "$root/asan" -j"$jobs"
# The three whole-benchmark Moving AI sweeps, the query index's brute-force comparison and the
# two on-demand sweeps over every sample (85 s and 52 s sanitized; fourteen other on-demand cases
# run here) run in the main suite above; under the sanitizers (5-10x slower) they would dominate
# CI, so they are left out here. Everything else runs sanitized.
(cd "$root/asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
   LSAN_OPTIONS="suppressions=$here/tests/lsan.supp:print_suppressions=0" \
   ctest -j"$jobs" --output-on-failure --timeout 900 \
     -E 'Moving AI: (astar equals|theta is never|jump point search)|agrees with brute force on every|on-demand search (finds the baked search.s costs on every sample|leaves out an endpoint.s centre where the bake does)')

step "fuzz targets (brief runs; see docs/testing.md for long local runs)"
CC=clang CXX=clang++ cmake -S . -B "$root/fuzz" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DSTRATA_FUZZ=ON -DSTRATA_BUILD_TESTS=OFF >/dev/null
shopt -s nullglob
fuzz_targets=()
for src in tests/fuzz/fuzz_*.cpp; do fuzz_targets+=("$(basename "$src" .cpp)"); done
# The fuzz targets and the libraries they link; the command-line tool is not fuzzed here.
cmake --build "$root/fuzz" -j"$jobs" --target "${fuzz_targets[@]}"
# Runs one target from its seed corpus; its output goes to $root/fuzz/NAME.log.
fuzz_run() {
  local name="$1" runs work status=0
  case "$name" in
    # ~230 inputs/s on the 2-core CI machine (each opens an in-memory HDF5 file, and HDF5's
    # free lists make libFuzzer scan for leaks after most inputs): a count that ends well inside
    # the 120 s cap, so every run covers the same inputs. (40,000 hit the cap at 24-28 k.)
    fuzz_world_reader) runs=15000 ;;
    # Each input of these runs searches or writes out what it read, on the 2-core machine
    # (2026-12-07): 300,000 profiles took 26-28 s; 100,000 Moving AI inputs 24 s (200,000 took
    # 110 s while a compile and another fuzzer ran); fuzz_bake's scenes take two to four bakes,
    # floods and a dozen searches each, 3-10 a second, so 100 take 10-30 s.
    fuzz_profile) runs=300000 ;;
    fuzz_movingai) runs=100000 ;;
    fuzz_bake) runs=100 ;;
    *) runs=1000000 ;;
  esac
  work="$(mktemp -d)"
  [[ -d "tests/fuzz/corpus/$name" ]] && cp -r "tests/fuzz/corpus/$name/." "$work/"
  # The sample profiles seed the profile reader too (they are not copied into its corpus).
  [[ "$name" == fuzz_profile ]] && cp samples/*.toml "$work/"
  # A fixed seed and run count keep CI reproducible: the same commit passes or fails the same
  # way every time. Long randomized runs belong on a workstation (docs/testing.md).
  echo "-- $name ($runs runs, seed 1)" > "$root/fuzz/$name.log"
  LSAN_OPTIONS="suppressions=$here/tests/lsan.supp:print_suppressions=0" \
  "$root/fuzz/tests/fuzz/$name" -seed=1 -runs="$runs" -max_total_time=120 -rss_limit_mb=2048 -timeout=10 "$work" \
    >> "$root/fuzz/$name.log" 2>&1 || status=$?
  rm -rf "$work"
  return "$status"
}
# Each target runs on one core, so they run $jobs at a time, the longest (the world reader's,
# about a minute) first: on 2 cores the five took 94 s instead of 164 s one after another.
# Each one's output is printed when it ends: its last lines, or its last 80 when it failed (the
# crash and its stack; libFuzzer leaves the input as crash-<hash> in the working directory).
fuzz_order=()
[[ " ${fuzz_targets[*]} " == *" fuzz_world_reader "* ]] && fuzz_order+=(fuzz_world_reader)
for name in "${fuzz_targets[@]}"; do [[ "$name" == fuzz_world_reader ]] || fuzz_order+=("$name"); done
declare -A fuzz_of_pid=()
fuzz_failed=0
fuzz_reap() {
  local pid status=0
  wait -n -p pid || status=$?
  local name="${fuzz_of_pid[$pid]}"
  unset "fuzz_of_pid[$pid]"
  head -n 1 "$root/fuzz/$name.log"
  if [[ "$status" == 0 ]]; then
    tail -n +2 "$root/fuzz/$name.log" | tail -n 3
  else
    tail -n +2 "$root/fuzz/$name.log" | tail -n 80
    echo "scripts/test.sh: $name failed (exit $status)"
    fuzz_failed=1
  fi
}
for name in "${fuzz_order[@]}"; do
  (( ${#fuzz_of_pid[@]} < jobs )) || fuzz_reap
  fuzz_run "$name" &
  fuzz_of_pid[$!]="$name"
done
while (( ${#fuzz_of_pid[@]} > 0 )); do fuzz_reap; done
(( fuzz_failed == 0 ))
echo
echo "scripts/test.sh: all stages passed in $SECONDS s"
