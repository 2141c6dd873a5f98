#!/usr/bin/env bash
# Latency vs offered load: runs a synthetic-traffic scenario (experiments/traffic/*.yaml) at
# loads 0.05 .. 0.95 for routing minimal, nonminimal and adaptive, and prints a CSV:
#   load,routing,accepted,latency_avg_ns,latency_p99_ns,dropped_at_source
# Latency is packet latency from creation (handed to the source NIC, so source queueing
# included) to delivery, over packets created in the measurement window.
# Usage: scripts/load_sweep.sh SCENARIO.yaml [--set key=value]... > out.csv
#   environment: BCASTSIM (binary, default build/release/bcastsim), LOADS, ROUTINGS
set -euo pipefail
cd "$(dirname "$0")/.."
scenario=${1:?usage: scripts/load_sweep.sh SCENARIO.yaml [--set key=value]...}
shift
bin=${BCASTSIM:-build/release/bcastsim}
loads=${LOADS:-"0.05 0.15 0.25 0.35 0.45 0.55 0.65 0.75 0.85 0.95"}
routings=${ROUTINGS:-"minimal nonminimal adaptive"}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "load,routing,accepted,latency_avg_ns,latency_p99_ns,dropped_at_source"
for routing in $routings; do
  for load in $loads; do
    "$bin" run "$scenario" "$@" -q --out "$out" --set routing.kind="$routing" \
      --set traffic.load="$load"
    python3 - "$out/result.json" "$load" "$routing" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["traffic"]
l = t["latency_ns"]
print(f'{sys.argv[2]},{sys.argv[3]},{t["accepted_load"]:.4f},{l["avg"]:.1f},{l["p99"]:.1f},'
      f'{t["dropped_at_source"]}')
PY
  done
done
