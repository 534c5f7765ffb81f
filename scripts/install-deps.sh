#!/usr/bin/env bash
# Installs Strata's build and test dependencies from Debian 12 packages. Idempotent and
# non-interactive; run as root (or with sudo available). Nothing is downloaded at build time.
#
#   scripts/install-deps.sh          build + test dependencies
#   scripts/install-deps.sh --bench  also the benchmark-only peers (Bullet, Recast, Boost.Graph, Google Benchmark)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libcli11-dev libassimp-dev libtbb-dev libhdf5-dev hdf5-tools libfmt-dev
  libtomlplusplus-dev nlohmann-json3-dev libpng-dev zlib1g-dev libdeflate-dev catch2
  clang libclang-rt-14-dev python3 python3-h5py
)
if [[ "${1:-}" == "--bench" ]]; then
  packages+=(libbullet-dev librecast-dev libboost-graph-dev libbenchmark-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
