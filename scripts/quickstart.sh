#!/usr/bin/env bash
# Strata's main job on a shipped sample, from nothing: install dependencies, build, bake the
# `tower` sample (road under a bridge under a roof) with its profile, describe the world file and
# print a path from the road up the stairs to the roof. Output goes to build-quickstart/out/.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
scripts/install-deps.sh
cmake -S . -B build-quickstart -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=OFF >/dev/null
cmake --build build-quickstart -j"$(nproc)"
strata=build-quickstart/tools/strata
out=build-quickstart/out
mkdir -p "$out"
set -x
"$strata" bake samples/tower.obj --profile samples/tower.toml -o "$out/tower.h5"
"$strata" info "$out/tower.h5"
"$strata" path "$out/tower.h5" --from 20,0,20 --to 0,8,-4
