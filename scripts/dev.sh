#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine: installs what is missing, builds, and then
#   scripts/dev.sh run [bcastsim run arguments...]   runs a scenario (default: the built-in one)
#   scripts/dev.sh test [--preset release|debug|asan] builds and runs the whole test suite
#   scripts/dev.sh bench                              runs the benchmarks (bench/README.md)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make pkg-config libsystemc-dev libboost-test-dev libyaml-cpp-dev
          libcli11-dev nlohmann-json3-dev python3 python3-matplotlib verilator
          libopenmpi-dev openmpi-bin)

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "Installing Debian packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build() {
  local preset=$1
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$(nproc)"
}

cmd=${1:-run}
shift || true
install_missing
case "$cmd" in
  run)
    build release
    exec build/release/bcastsim run "$@"
    ;;
  test)
    preset=release
    if [ "${1:-}" = "--preset" ]; then preset=$2; shift 2; fi
    build "$preset"
    ctest --preset "$preset" "$@"
    ;;
  bench)
    build release
    exec bench/run.sh build/release/bcastsim
    ;;
  *)
    echo "usage: scripts/dev.sh run [bcastsim run args] | test [--preset P] | bench" >&2
    exit 2
    ;;
esac
