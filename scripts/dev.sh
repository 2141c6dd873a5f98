#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine: installs what is missing, builds, and then
#   scripts/dev.sh run [bcastsim run arguments...]   runs a scenario (default: the built-in one)
#   scripts/dev.sh test [--preset release|debug|asan] builds and runs the whole test suite
#   scripts/dev.sh bench                              runs the benchmarks (bench/README.md)
#   scripts/dev.sh pgo                                builds build/pgo/bcastsim, tuned by GCC
#                                                     on a profile of bench scenarios: same
#                                                     results, faster (bench/README.md)
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
  pgo)
    # Two builds: one counting branches and calls while it runs bench scenarios, then one
    # laid out and inlined by those counts. BCASTSIM_PGO_DUMP writes the counts before `run`
    # leaves by _Exit; main.cpp differs in the two builds only there, hence the mismatch flag.
    dir=build/pgo
    prof=$PWD/$dir/profile
    # The profile's path goes into CMAKE_CXX_FLAGS, which CMake splits at spaces.
    if [[ $PWD == *' '* ]]; then
      echo "scripts/dev.sh pgo: the repository path has a space: $PWD" >&2
      exit 2
    fi
    scenarios=(default-72 df72-uniform df1056-uniform df72-1mib-ragasa df16k-16kib-binomial
      df5k-16kib-background)
    for s in "${scenarios[@]}"; do
      if [ ! -e bench/scenarios/"$s".yaml ] && [ ! -e bench/scenarios/"$s".args ]; then
        echo "scripts/dev.sh pgo: no bench scenario $s" >&2
        exit 2
      fi
    done
    rm -rf "$prof"
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DBCASTSIM_BUILD_TESTS=OFF \
      -DBCASTSIM_BUILD_BENCH=OFF \
      -DCMAKE_CXX_FLAGS="-fprofile-generate=$prof -fprofile-update=single -DBCASTSIM_PGO_DUMP" \
      >/dev/null
    cmake --build "$dir" --target bcastsim -j "$(nproc)"
    for s in "${scenarios[@]}"; do
      bench/run.sh "$dir/bcastsim" "$s" | tail -n 1
    done
    cmake -S . -B "$dir" -DCMAKE_CXX_FLAGS="-fprofile-use=$prof -fprofile-partial-training \
      -Wno-missing-profile -Wno-coverage-mismatch" >/dev/null
    cmake --build "$dir" --target bcastsim -j "$(nproc)"
    echo "built $dir/bcastsim"
    ;;
  *)
    echo "usage: scripts/dev.sh run [bcastsim run args] | test [--preset P] | bench | pgo" >&2
    exit 2
    ;;
esac
