#!/usr/bin/env bash
# Runs the benchmark scenarios with the real program and prints one Markdown row each:
# wall time (elaboration and simulation apart), simulated packet-hops per wall second of
# simulation, peak RSS. Usage: bench/run.sh path/to/bcastsim [name-pattern]
#
# A scenario is scenarios/NAME.yaml, or scenarios/NAME.args: one line, a scenario file of the
# repository (path from its root) and `run` options, so a bench case can reuse an experiment's
# preset instead of copying it, e.g.
#   experiments/codes/df72.yaml --set traffic.measure_ns=200000
set -euo pipefail
bin=${1:?usage: bench/run.sh path/to/bcastsim [name-pattern]}
pattern=${2:-*}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "| scenario | terminals | packet-hops | elaborate s | simulate s | packet-hops/s | peak RSS MiB |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for s in $(ls "$here"/scenarios/$pattern.yaml "$here"/scenarios/$pattern.args 2>/dev/null | sort); do
  name=$(basename "${s%.*}")
  if [[ $s == *.args ]]; then
    read -r -a args <"$s"
    args[0]=$root/${args[0]}
    "$bin" run -q "${args[@]}" --out "$out/$name"
  else
    "$bin" run -q "$s" --out "$out/$name"
  fi
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
