#!/usr/bin/env bash
# Runs the benchmark scenarios with the real program and prints one Markdown row each:
# wall time (elaboration and simulation apart), simulated packet-hops per wall second of
# simulation, peak RSS. Usage: bench/run.sh path/to/bcastsim
set -euo pipefail
bin=${1:?usage: bench/run.sh path/to/bcastsim}
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "| scenario | terminals | packet-hops | elaborate s | simulate s | packet-hops/s | peak RSS MiB |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for s in "$here"/scenarios/*.yaml; do
  name=$(basename "$s" .yaml)
  "$bin" run -q "$s" --out "$out/$name"
  python3 - "$out/$name/result.json" "$name" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
p = r["perf"]
terminals = re.search(r"([0-9]+) terminals", r["topology"]).group(1)
print(f"| {sys.argv[2]} | {terminals} | {p['packet_hops']} | "
      f"{p['elaborate_wall_s']:.2f} | {p['simulate_wall_s']:.2f} | "
      f"{p['packet_hops_per_s']:,.0f} | {p['peak_rss_mb']:.0f} |")
PY
done
