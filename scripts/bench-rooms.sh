#!/bin/bash
# bench-rooms.sh: map fusion on many barcoded rooms, where one robot's
# outcome swings with a single wrong placement and two seeds say little.
#   For each seed (default 1-10): the room of scripts/bench-fuse.sh's
#   "tracked" rows (5 x 7 m, 15 landmarks at least 1.2 m apart, five
#   robots at 0.15 m/s for 25 minutes, a 60° camera of 5 m, the held-out
#   platform's noise, maps built one landmark per barcode per 30 s
#   window), each robot alone and (TOGETHER=1) the five together. Prints
#   the precision and recall of the map fuse writes (clear+reassociated)
#   per run, then per group: how many runs meet the issue's targets
#   (precision >= 0.97 and recall >= 0.6) and the mean P, R and F1.
#   NOISE scales the range, bearing, turn-rate and speed noise (default
#   1; 1.2 gives maps that fit each other about as loosely as the
#   held-out lab's). SPURIOUS is the mean number of false detections a
#   scan (default none; 0.01 makes about 5% of the detections false, each
#   its own barcode, seen once). STARTS (default 0) lists offsets in seconds: each
#   run is repeated with its windows cut that much later (fuse -start),
#   grouped by offset. Which scan falls in which window is arbitrary, and
#   the offsets show how far a figure moves with it: a rule read off one
#   cut can be fitted to it. Extra arguments go to fuse (e.g. -track=false).
# Usage: SEEDS="1 2 3" TOGETHER=1 NOISE=1.2 SPURIOUS=0.01 STARTS="0 1 2" scripts/bench-rooms.sh [FUSE FLAGS]
set -euo pipefail
cm=${CLEARMATCH:-./clearmatch}
[ -x "$cm" ] || { echo "bench-rooms.sh: $cm: build it first (make build) or set CLEARMATCH" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scores() { # the P R F1 of fuse's first map, from its table
	awk '/^clear\+reassociated /{print $7, $8, $9}'
}
noise() { awk -v k="${NOISE:-1}" -v x="$1" 'BEGIN {printf "%g", k * x}'; }
read -r rn bn tn sn <<< "$(noise 0.25) $(noise 0.05) $(noise 0.05) $(noise 0.05)"
for seed in ${SEEDS:-1 2 3 4 5 6 7 8 9 10}; do
	room="$work/room$seed"
	"$cm" synth-landmarks -seed "$seed" -arena 5x7 -landmarks 15 -robots 5 -duration 1500 -speed 0.15 -range 5 -fov 60 -miss 0.9 -spurious "${SPURIOUS:-1e-9}" \
		-range-noise "$rn" -bearing-noise "$bn" -turn-noise "$tn" -speed-noise "$sn" -landmark-gap 1.2 -out "$room" > /dev/null
	for start in ${STARTS:-0}; do
		tag="" cut=()
		if [ "$start" != 0 ]; then tag="start $start " cut=(-start "$start"); fi
		for r in 1 2 3 4 5; do
			echo "alone ${tag}seed $seed robot $r $("$cm" fuse "$room/robot-$r" -window 30 -skip-empty -merge-by-truth "${cut[@]}" "$@" -out "$room-$start-$r" 2>/dev/null | scores)"
		done
		if [ "${TOGETHER:-0}" = 1 ]; then
			echo "together ${tag}seed $seed $("$cm" fuse "$room"/robot-{1,2,3,4,5} -window 30 -skip-empty -merge-by-truth "${cut[@]}" "$@" -out "$room-$start-all" 2>/dev/null | scores)"
		fi
	done
done | tee "$work/runs"
awk '{g=$1; if ($2 == "start") g=g" start "$3; p=$(NF-2); r=$(NF-1); f=$NF; n[g]++; P[g]+=p; R[g]+=r; F[g]+=f; if (p >= 0.97 && r >= 0.6) m[g]++}
	END {for (g in n) printf "%-16s %d runs, %d meet P >= 0.97 and R >= 0.6; mean P %.3f, R %.3f, F1 %.3f\n", g, n[g], m[g], P[g]/n[g], R[g]/n[g], F[g]/n[g]}' "$work/runs" | sort
