#!/usr/bin/env bash
# Strata's main job on a shipped sample, from nothing: install dependencies, build, then import
# the `tower` sample into a world file and describe it. Output goes to build-quickstart/.
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
"$strata" import samples/tower.obj -o "$out/tower.h5"
"$strata" info "$out/tower.h5"
