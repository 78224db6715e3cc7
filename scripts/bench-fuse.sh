#!/bin/bash
# bench-fuse.sh: the map-fusion tables of docs/benchmarks.md.
#   Victoria Park (20 s maps, Ackermann odometry), every method, and its
#   optimized trajectory against gps.dat with either kernel;
#   a simulated run (synth-landmarks, seeds 7-9, 3 s maps) with its truth,
#   with and without the pose gate (-drift -1);
#   a circling arena (seeds 1-3: 25 minutes at 0.3 m/s, a 60° camera of
#   5 m, 30 s maps), the optimized trajectory against the true path;
#   five robots in the sparse arena (seeds 1-2): each alone, and together;
#   a sparse arena (seeds 1-3: 25 minutes at 0.3 m/s, a 60° camera of
#   2.5 m, 30 s maps of about 7 landmarks), with and without the gate;
#   a room like a lab's (seeds 1-2: 5 x 7 m, 15 landmarks, five robots at
#   0.15 m/s, a 60° camera of 5 m, 30 s maps), clean, with noise like
#   the held-out platform's, and with that noise among landmarks at least
#   1.2 m apart (spaced as the held-out lab's), and spaced with maps built
#   as a barcode reader builds them (-merge-by-truth, no false detections)
#   without tracking (-track=false, "barcoded") and with it (the default
#   with -merge-by-truth, "tracked"), each robot alone and the five
#   together.
# Usage: scripts/bench-fuse.sh [DATASETS]   (default ../shared/datasets)
set -euo pipefail
data=${1:-../shared/datasets}
cm=${CLEARMATCH:-./clearmatch}
[ -x "$cm" ] || { echo "bench-fuse.sh: $cm: build it first (make build) or set CLEARMATCH" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The optimizer's lines of fuse's console (stderr).
optimizer() { grep -E '^(optimize|gps) ' "$1" || true; }
echo "## Victoria Park, 20 s maps"
"$cm" fuse "$data/victoria-park" -motion ackermann -bearing-ahead 1.5708 -methods all -out "$work/vp" 2>"$work/vp.err"
optimizer "$work/vp.err"
echo "## Victoria Park, 20 s maps, -kernel huber"
"$cm" fuse "$data/victoria-park" -motion ackermann -bearing-ahead 1.5708 -kernel huber -out "$work/vph" 2>"$work/vph.err" > /dev/null
optimizer "$work/vph.err"
for seed in 7 8 9; do
	echo "## simulated run, seed $seed, 3 s maps"
	"$cm" synth-landmarks -seed "$seed" -out "$work/sim$seed" > /dev/null
	"$cm" fuse "$work/sim$seed" -columns time,range,bearing,truth -window 3 -methods clear,baseline,quickmatch,spectral,matcheig -out "$work/fused$seed" 2>"$work/sim$seed.err"
	optimizer "$work/sim$seed.err"
	echo "## simulated run, seed $seed, 3 s maps, without the pose gate (-drift -1)"
	"$cm" fuse "$work/sim$seed" -columns time,range,bearing,truth -window 3 -methods clear -drift -1 -out "$work/nogate$seed" 2>/dev/null
done
for seed in 1 2 3; do
	echo "## circling arena, seed $seed, 30 s maps"
	"$cm" synth-landmarks -seed "$seed" -duration 1500 -speed 0.3 -range 5 -fov 60 -spacing 1.5 -radius 2 -margin 1 -out "$work/circle$seed" > /dev/null
	"$cm" fuse "$work/circle$seed" -window 30 -skip-empty -out "$work/circlefused$seed" 2>"$work/circle$seed.err"
	optimizer "$work/circle$seed.err"
done
for seed in 1 2 3; do
	"$cm" synth-landmarks -seed "$seed" -duration 1500 -speed 0.3 -range 2.5 -fov 60 -spacing 1.5 -radius 2 -margin 1 -miss 0.7 -spurious 1e-9 -out "$work/arena$seed" > /dev/null
	for drift in 0 -1; do
		echo "## sparse arena, seed $seed, 30 s maps, -drift $drift (0: estimated)"
		"$cm" fuse "$work/arena$seed" -window 30 -skip-empty -methods clear,clear+merge -drift "$drift" -out "$work/arena$seed$drift" 2>/dev/null
	done
done
for seed in 1 2; do
	"$cm" synth-landmarks -seed "$seed" -robots 5 -duration 1500 -speed 0.3 -range 2.5 -fov 60 -spacing 1.5 -radius 2 -margin 1 -miss 0.7 -spurious 1e-9 -out "$work/team$seed" > /dev/null
	for r in 1 2 3 4 5; do
		echo "## sparse arena, five robots, seed $seed, robot $r alone"
		"$cm" fuse "$work/team$seed/robot-$r" -window 30 -skip-empty -out "$work/team$seed-$r" 2>/dev/null | grep -E '^(method|clear)'
	done
	echo "## sparse arena, five robots, seed $seed, together"
	"$cm" fuse "$work/team$seed"/robot-{1,2,3,4,5} -window 30 -skip-empty -out "$work/team$seed-all" 2>"$work/team$seed.err" | grep -E '^(method|clear)'
	grep -E '^(robots|join) ' "$work/team$seed.err" || true
done
for seed in 1 2; do
	for noise in clean noisy spaced barcoded tracked; do
		flags=() spurious=0.05 merge=()
		[ "$noise" != clean ] && flags+=(-range-noise 0.25 -bearing-noise 0.05 -turn-noise 0.05 -speed-noise 0.05)
		[ "$noise" = spaced ] || [ "$noise" = barcoded ] || [ "$noise" = tracked ] && flags+=(-landmark-gap 1.2)
		[ "$noise" = barcoded ] || [ "$noise" = tracked ] && spurious=1e-9 && merge=(-merge-by-truth)
		[ "$noise" = barcoded ] && merge+=(-track=false) # -merge-by-truth tracks by default
		room="$work/room$seed$noise"
		"$cm" synth-landmarks -seed "$seed" -arena 5x7 -landmarks 15 -robots 5 -duration 1500 -speed 0.15 -range 5 -fov 60 -miss 0.9 -spurious "$spurious" "${flags[@]}" -out "$room" > /dev/null
		for r in 1 2 3 4 5; do
			echo "## room, $noise, seed $seed, robot $r alone"
			"$cm" fuse "$room/robot-$r" -window 30 -skip-empty "${merge[@]}" -out "$room-$r" 2>"$room-$r.err" | grep -E '^(method|clear)'
			grep -E '^(gate|track|gps|warning)' "$room-$r.err" || true
		done
		echo "## room, $noise, seed $seed, together"
		"$cm" fuse "$room"/robot-{1,2,3,4,5} -window 30 -skip-empty "${merge[@]}" -out "$room-all" 2>"$room-all.err" | grep -E '^(method|clear)'
		grep -E '^(robots|join|track|warning)' "$room-all.err" || true
	done
done
