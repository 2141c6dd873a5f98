#!/usr/bin/env bash
# What `bcastsim sweep` costs beyond its points: runs a study with -j 1, -j 2 and (when built
# with Open MPI) mpirun -n 2, and prints the wall time of each against the sum of the points'
# own wall times (status.json), plus the start-up cost of one bcastsim process.
# Usage: bench/sweep.sh path/to/bcastsim [STUDY.yaml]   (default: experiments/sweep-algorithms.yaml)
set -euo pipefail
bin=$(realpath "${1:?usage: bench/sweep.sh path/to/bcastsim [STUDY.yaml]}")
here=$(cd "$(dirname "$0")/.." && pwd)
study=${2:-$here/experiments/sweep-algorithms.yaml}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

start=$EPOCHREALTIME
for _ in $(seq 50); do "$bin" --version > /dev/null; done
echo "process start-up (bcastsim --version, mean of 50): $(python3 -c "print(f'{($EPOCHREALTIME - $start) / 50 * 1000:.1f}')") ms"
echo
echo "| how | points | wall s | sum of point wall s | overhead per point ms |"
echo "|---|---:|---:|---:|---:|"
row() {  # name dir wall_s
  python3 - "$1" "$2" "$3" <<'PY'
import json, glob, sys
name, d, wall = sys.argv[1], sys.argv[2], float(sys.argv[3])
st = [json.load(open(f)) for f in glob.glob(d + "/points/*/status.json")]
busy = sum(s["wall_s"] for s in st)
slots = 1 if name.endswith("-j 1") else 2
print(f"| {name} | {len(st)} | {wall:.2f} | {busy:.2f} | {(wall * slots - busy) / len(st) * 1000:.1f} |")
PY
}
for j in 1 2; do
  start=$EPOCHREALTIME
  "$bin" sweep "$study" -j $j -q --no-plots --out "$out/j$j"
  row "sweep -j $j" "$out/j$j" "$(python3 -c "print($EPOCHREALTIME - $start)")"
done
if ldd "$bin" | grep -q libmpi && command -v mpirun > /dev/null; then
  flags="--oversubscribe"
  [ "$(id -u)" -eq 0 ] && flags="$flags --allow-run-as-root"
  start=$EPOCHREALTIME
  mpirun $flags -n 2 "$bin" sweep "$study" -q --no-plots --out "$out/mpi"
  row "mpirun -n 2 sweep" "$out/mpi" "$(python3 -c "print($EPOCHREALTIME - $start)")"
  cmp -s "$out/j2/results.csv" "$out/mpi/results.csv" && echo && echo "results.csv: -j 2 and mpirun -n 2 identical"
fi
cmp -s "$out/j1/results.csv" "$out/j2/results.csv" && echo "results.csv: -j 1 and -j 2 identical"
