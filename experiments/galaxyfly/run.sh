#!/bin/sh
# The Galaxyfly experiment (experiments/galaxyfly/README.md). Run from the repository root
# after `cmake --build build/release`:
#   experiments/galaxyfly/run.sh paper    # ~2 min: the paper's five shapes, 4 packet sizes,
#                                          # SFATA and RFATA from every root supernode, A2A
#   experiments/galaxyfly/run.sh larger   # ~3 min: larger shapes, PS 160 B
#   experiments/galaxyfly/run.sh host     # ~1 min: host-based allgathers and broadcasts,
#                                          # Galaxyfly against dragonflies of as many routers
#   /usr/bin/python3 experiments/galaxyfly/tables.py   # the README's tables
# Each sweep is scripts/sweep.py over one scenario; results/<name>.csv gets one row per run,
# results/<name>.csv.d/ each run's result.json (not committed).
set -e
BIN=${BIN:-build/release/bcastsim}
JOBS=${JOBS:-2}
D=experiments/galaxyfly
run() { python3 scripts/sweep.py "$@" --bin "$BIN" --seeds 1 --jobs "$JOBS"; }
# roots N Q A: rank k*a for every supernode k, so each supernode collects once.
roots() { python3 -c "import sys; n,q,a=map(int,sys.argv[1:]); print(','.join(str(k*a) for k in range(n*q)))" "$@"; }
galaxy() {  # NAME N Q A H SIZES
  run $D/galaxyfly.yaml --out $D/results/$1.csv --set topology.n=$2 --set topology.q=$3 \
      --set topology.a=$4 --set topology.h=$5 --grid collective.algorithm=sfata,rfata \
      --grid collective.bytes=$6 --grid collective.root="$(roots $2 $3 $4)"
}
dragonfly() {  # NAME G A SIZES
  run $D/dragonfly.yaml --out $D/results/$1.csv --set topology.g=$2 --set topology.a=$3 \
      --grid collective.bytes=$4
}
PS=160,320,640,1280
case "$1" in
paper)
  # h = ceil(D / a), D = (n - 1) + (q - delta) / 2 the Galaxy graph's degree: the fewest
  # global ports that wire it (the paper: its results do not depend on p and h).
  galaxy gf-3-5-4 3 5 4 1 $PS
  galaxy gf-4-5-4 4 5 4 2 $PS
  galaxy gf-4-5-5 4 5 5 1 $PS
  galaxy gf-4-7-4 4 7 4 2 $PS
  galaxy gf-3-5-8 3 5 8 1 $PS
  galaxy gf-4-7-5 4 7 5 2 $PS
  dragonfly df-3-20 3 20 $PS
  dragonfly df-4-20 4 20 $PS
  dragonfly df-4-25 4 25 $PS
  dragonfly df-4-28 4 28 $PS
  dragonfly df-3-40 3 40 $PS
  ;;
larger)
  galaxy gf-5-9-4 5 9 4 2 160
  galaxy gf-7-7-8 7 7 8 2 160
  galaxy gf-6-13-4 6 13 4 3 160
  dragonfly df-5-36 5 36 160
  dragonfly df-7-56 7 56 160
  dragonfly df-6-52 6 52 160
  ;;
host)
  # One rank per router (p = 1), 1 KiB per rank for the allgathers and a 64 KiB broadcast:
  # Galaxyfly(4,5,4) (h = 2, radix 6) against two dragonflies of 80 routers: 20 groups of 4
  # (h = 5, radix 9) and the paper's 4 groups of 20 (h = 1, radix 21).
  for shape in "gf galaxyfly n=4 q=5 a=4 h=2" "df20x4 dragonfly g=20 a=4 h=5" \
               "df4x20 dragonfly g=4 a=20 h=1"; do
    set -- $shape
    name=$1; yaml=$D/$2.yaml; shift 2
    sets=""
    for kv in "$@"; do sets="$sets --set topology.$kv"; done
    run $yaml --out $D/results/host-$name-allgather.csv $sets --set collective.bytes=1024 \
        --grid collective.algorithm=allgather-ring,allgather-bruck,allgather-mpich
    run $yaml --out $D/results/host-$name-bcast.csv $sets --set collective.bytes=65536 \
        --grid collective.algorithm=binomial,scatter-ring-allgather
  done
  ;;
*) echo "usage: $0 paper|larger|host" >&2; exit 2 ;;
esac
