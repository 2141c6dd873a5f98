#!/bin/sh
# The Tofu2 experiment (experiments/tofu2/README.md). Run from the repository root after
# `cmake --build build/release`:
#   experiments/tofu2/run.sh unit      # ~5 min: 3 algorithms x 2 modes x 9 sizes x 4 segment counts
#   experiments/tofu2/run.sh overlap   # ~1 min: computation between MPI_Start and MPI_Wait, 128 MiB
#   experiments/tofu2/run.sh t768      # ~6 min: 768 nodes, with binomial and scatter + ring allgather
# Each sweep is scripts/sweep.py over one scenario; results/<name>.csv gets one row per run,
# results/<name>.csv.d/ each run's result.json (not committed). Runs go one at a time under
# nice: the machine has two cores and is shared.
set -e
BIN=${BIN:-build/release/bcastsim}
NICE=${NICE:-10}
D=experiments/tofu2
SIZES=4096,16384,65536,262144,1048576,4194304,16777216,67108864,134217728
run() { nice -n "$NICE" python3 scripts/sweep.py "$@" --bin "$BIN" --seeds 1 --jobs 1; }
case "$1" in
unit)
  run $D/unit.yaml --out $D/results/unit.csv \
      --grid collective.algorithm=tofu2-trinaryx3,tofu2-trinary,tofu2-pipeline \
      --grid tofu2.mode=offload,host --grid tofu2.segments=1,4,16,64 --grid collective.bytes=$SIZES
  ;;
overlap)
  # Trinaryx3, 128 MiB, 16 segments: compute_ns between MPI_Start and MPI_Wait (offload) or
  # between MPI_Ibcast and MPI_Wait (host), one repetition.
  run $D/unit.yaml --out $D/results/overlap.csv --set collective.bytes=134217728 \
      --set collective.mode=overlap --grid tofu2.mode=offload,host \
      --grid collective.compute_ns=0,2000000,5000000,10000000,15000000,20000000,25000000,30000000
  ;;
t768)
  run $D/t768.yaml --out $D/results/t768.csv \
      --grid collective.algorithm=tofu2-trinaryx3,tofu2-trinary,tofu2-pipeline \
      --grid tofu2.mode=offload,host --grid collective.bytes=65536,1048576,16777216
  run $D/t768.yaml --out $D/results/t768-host.csv --grid collective.algorithm=binomial,scatter-ring-allgather \
      --grid collective.bytes=65536,1048576,16777216
  # 16 segments leave a 768-rank pipeline mostly filling and draining: more, at 16 MiB.
  run $D/t768.yaml --out $D/results/t768-segments.csv \
      --grid collective.algorithm=tofu2-trinaryx3,tofu2-pipeline --grid tofu2.mode=offload,host \
      --grid tofu2.segments=64,256 --set collective.bytes=16777216
  ;;
*) echo "usage: $0 unit|overlap|t768" >&2; exit 2 ;;
esac
