#!/bin/sh
# The all-to-all broadcast experiment (experiments/allgather/README.md). Run from the
# repository root after `cmake --build build/release`:
#   experiments/allgather/run.sh df72         # ~4.5 min of one core
#   experiments/allgather/run.sh df72-extra   # ~10 s: sizes in between
#   experiments/allgather/run.sh df1056       # ~18 min of one core; sizes capped, see README.md
#   experiments/allgather/run.sh df72-ragasa  # ~2 min: Ragasa (nodes relaying), roots all, own CSVs
#   experiments/allgather/run.sh df1056-ragasa  # ~3 min: the same on 1,056 terminals, 8 to 512 B
# Each sweep is scripts/sweep.py over one scenario; results/<name>.csv gets one row per run,
# results/<name>.csv.d/ each run's result.json (not committed). Runs go one at a time
# (--jobs 1) under nice: the machine has two cores and is shared.
#
# The algorithm grids: host allgathers (collective.bytes = bytes per rank) and broadcast
# algorithms with collective.roots: all (set in the scenarios: every rank broadcasts
# collective.bytes). Ragasa with roots: all (each root its own tree, default
# ragasa.relay: node) has its own case, df72-ragasa, writing its own CSVs
# (results/df72-{pow2,all}-ragasa[-extra].csv) so the earlier sweeps stay as they ran.
# BIN and NICE may be set from the environment (defaults below); the df72-ragasa rows ran with
# BIN=<a build of main at 4e88ebb> NICE=10, the df1056-ragasa rows with BIN=<a build of main at
# a614c96> NICE=19 (before step 10).
set -e
BIN=${BIN:-build/release/bcastsim}
NICE=${NICE:-10}
D=experiments/allgather
ALLGATHERS=allgather-ring,allgather-bruck,allgather-mpich
BCAST=binomial,forest
run() { nice -n "$NICE" python3 scripts/sweep.py "$@" --bin "$BIN" --seeds 1 --jobs 1; }
case "$1" in
df72)
  SIZES=8,64,512,4096,32768,262144,1048576
  # Largest power-of-two communicator, ranks 0-63 (groups 0-7): every algorithm, rd too.
  run $D/df72.yaml --out $D/results/df72-pow2.csv --grid collective.ranks=0-63 \
      --grid collective.algorithm=allgather-rd,$ALLGATHERS,$BCAST --grid collective.bytes=$SIZES
  # All 72 ranks: every algorithm but rd (needs a power of two).
  run $D/df72.yaml --out $D/results/df72-all.csv --grid collective.ranks=all \
      --grid collective.algorithm=$ALLGATHERS,$BCAST --grid collective.bytes=$SIZES
  ;;
df72-extra)
  # Sizes in between, to place the crossovers (ring vs Bruck / rd, binomial roots all).
  SIZES=128,256,1024,2048
  run $D/df72.yaml --out $D/results/df72-pow2-extra.csv --grid collective.ranks=0-63 \
      --grid collective.algorithm=allgather-rd,$ALLGATHERS,$BCAST --grid collective.bytes=$SIZES
  run $D/df72.yaml --out $D/results/df72-all-extra.csv --grid collective.ranks=all \
      --grid collective.algorithm=$ALLGATHERS,$BCAST --grid collective.bytes=$SIZES
  ;;
df72-ragasa)
  # Ragasa, collective.roots: all, ragasa.relay: node (the default; units relaying deadlocks
  # from 8 KiB per root with all 72 nodes, experiments/ragasa/README.md), the unit
  # parameters bcastsim's defaults (those of experiments/ragasa/df72.yaml). Same sizes as
  # df72 and df72-extra, both communicators.
  for C in pow2:0-63 all:all; do
    run $D/df72.yaml --out $D/results/df72-${C%%:*}-ragasa.csv --grid collective.ranks=${C#*:} \
        --grid collective.algorithm=ragasa --grid collective.bytes=8,64,512,4096,32768,262144,1048576
    run $D/df72.yaml --out $D/results/df72-${C%%:*}-ragasa-extra.csv --grid collective.ranks=${C#*:} \
        --grid collective.algorithm=ragasa --grid collective.bytes=128,256,1024,2048
  done
  ;;
df1056)
  # Sizes capped: see README.md ("Sizes left out"). allgather-mpich is left out here: it
  # runs the same schedule as the algorithm it picks (checked bit for bit on df72), and
  # each 1,056-rank run costs 15 to 60 s.
  SIZES=8,64,512,4096
  run $D/df1056.yaml --out $D/results/df1056-pow2.csv --grid collective.ranks=0-1023 \
      --grid collective.algorithm=allgather-rd,allgather-ring,allgather-bruck,$BCAST \
      --grid collective.bytes=$SIZES
  run $D/df1056.yaml --out $D/results/df1056-all.csv --grid collective.ranks=all \
      --grid collective.algorithm=allgather-ring,allgather-bruck,$BCAST --grid collective.bytes=$SIZES
  ;;
df1056-ragasa)
  # Ragasa, roots all, nodes relaying, 8 to 512 B per rank only. Every unit then holds up to
  # 1,056 broadcasts at once, so ragasa.membership_entries (default 128) is raised to 2048.
  for C in pow2:0-1023 all:all; do
    run $D/df1056.yaml --out $D/results/df1056-${C%%:*}-ragasa.csv --grid collective.ranks=${C#*:} \
        --grid collective.algorithm=ragasa --grid collective.bytes=8,64,512 \
        --set ragasa.membership_entries=2048
  done
  ;;
*) echo "usage: $0 df72|df72-extra|df72-ragasa|df1056|df1056-ragasa" >&2; exit 2 ;;
esac
