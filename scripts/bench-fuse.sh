#!/bin/bash
# bench-fuse.sh: the map-fusion tables of docs/benchmarks.md.
#   Victoria Park (20 s maps, Ackermann odometry), every method;
#   a simulated run (synth-landmarks, seeds 7-9, 3 s maps) with its truth.
# Usage: scripts/bench-fuse.sh [DATASETS]   (default ../shared/datasets)
set -euo pipefail
data=${1:-../shared/datasets}
cm=${CLEARMATCH:-./clearmatch}
[ -x "$cm" ] || { echo "bench-fuse.sh: $cm: build it first (make build) or set CLEARMATCH" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "## Victoria Park, 20 s maps"
"$cm" fuse "$data/victoria-park" -motion ackermann -bearing-ahead 1.5708 -methods all -out "$work/vp" 2>/dev/null
for seed in 7 8 9; do
	echo "## simulated run, seed $seed, 3 s maps"
	"$cm" synth-landmarks -seed "$seed" -out "$work/sim$seed" > /dev/null
	"$cm" fuse "$work/sim$seed" -columns time,range,bearing,truth -window 3 -methods clear,baseline,quickmatch,spectral,matcheig -out "$work/fused$seed" 2>/dev/null
done
