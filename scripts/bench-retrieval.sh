#!/usr/bin/env bash
# bench-retrieval.sh [OUTDIR] [-- MATCH_FLAGS...]
#
# Retrieval on real mixed folders. From $CLEARMATCH_DATA (default
# ../shared/datasets) it lays out, as symbolic links named scene_photo:
#   mixed-64:  fountain-p11 (11), herz-jesus-p25 (25), sceaux-castle (11),
#              Graffiti (6) and every 10th CMU Hotel frame (11);
#   mixed-104: the same four scenes and every 2nd Hotel frame (51).
# It matches each scene alone with -pairs exhaustive: its "strong" pairs are
# those verified with at least 50 inliers. Then it runs `match -pairs
# retrieval` (plus MATCH_FLAGS) on each mixed folder and prints the share
# of the strong pairs it matched and verified, the pairs it tried out of
# all pairs, and the pairs it verified across scenes (none overlap, so any
# such pair is a false verification), with its wall time.
# Every run is at -max-dim 1536 and shares one feature and pair cache
# (OUTDIR/cache), so only the first run extracts and matches from scratch.
# Needs python3, GNU time and the clearmatch binary (CLEARMATCH, default
# bin/clearmatch: `make build`).
set -euo pipefail
out=$(mktemp -d)
if [ $# -gt 0 ] && [ "$1" != "--" ]; then out=$1; shift; fi
[ "${1:-}" = "--" ] && shift
cm=${CLEARMATCH:-bin/clearmatch}
data=$(cd "${CLEARMATCH_DATA:-../shared/datasets}" && pwd)
mkdir -p "$out"

# scene NAME PREFIX FILES...: a folder of links PREFIX_basename.
scene() {
	local dir=$out/scenes/$1 prefix=$2
	shift 2
	rm -rf "$dir"
	mkdir -p "$dir"
	for f in "$@"; do ln -s "$f" "$dir/${prefix}_$(basename "$f")"; done
}
scene fountain fountain "$data"/fountain-p11/images/*.jpg
scene herz herz "$data"/herz-jesus-p25/images/*.jpg
scene sceaux sceaux "$data"/sceaux-castle/*.JPG
scene graffiti graf "$data"/graffiti/img*.ppm
hotel() { for i in $(seq 0 "$1" 100); do echo "$data/cmu-hotel/hotel.seq$i.png"; done; }
scene hotel2 hotel $(hotel 2)
scene hotel10 hotel $(hotel 10)
mixed() {
	local dir=$out/scenes/$1
	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	for s in "$@"; do cp -P "$out/scenes/$s"/* "$dir/"; done
}
mixed mixed-64 fountain herz sceaux graffiti hotel10
mixed mixed-104 fountain herz sceaux graffiti hotel2

run() { # run NAME FOLDER FLAGS...
	local name=$1 dir=$2
	shift 2
	/usr/bin/time -f "%e %M" -o "$out/$name.time" "$cm" match "$dir" -out "$out/$name" -force \
		-max-dim 1536 -overlay-pairs none -cache "$out/cache" "$@" > "$out/$name.txt" 2> "$out/$name.log"
}
# Each scene alone, exhaustively: the strong pairs (hotel10's frames are
# hotel2's, whose run serves both).
for s in fountain herz sceaux graffiti hotel2; do
	[ -f "$out/exh-$s/report.json" ] || run "exh-$s" "$out/scenes/$s" -pairs exhaustive
done
for m in mixed-64 mixed-104; do
	run "ret-$m" "$out/scenes/$m" -pairs retrieval "$@"
done

python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
def pairs(name):
    return json.load(open(f"{out}/{name}/report.json"))["pairs"]
def key(p):
    return (min(p["image_a"], p["image_b"]), max(p["image_a"], p["image_b"]))
strong = set()
for s in ("fountain", "herz", "sceaux", "graffiti", "hotel2"):
    strong |= {key(p) for p in pairs(f"exh-{s}") if p.get("verified_matches", 0) > 0 and p["inliers"] >= 50}
scene = lambda name: name.split("_")[0]
print("| folder | images | strong pairs matched | strong pairs verified | pairs tried | pairs verified across scenes | wall |")
print("|---|---|---|---|---|---|---|")
for m in ("mixed-64", "mixed-104"):
    rep = json.load(open(f"{out}/ret-{m}/report.json"))
    names = [f["image"] for f in rep["features_per_image"]]
    n = len(names)
    ns = set(names)
    want = {p for p in strong if p[0] in ns and p[1] in ns}
    tried = {key(p) for p in rep["pairs"]}
    ver = {key(p) for p in rep["pairs"] if p.get("verified_matches", 0) > 0}
    vstrong = {key(p) for p in rep["pairs"] if p.get("verified_matches", 0) > 0 and p["inliers"] >= 50}
    across = sum(1 for a, b in ver if scene(a) != scene(b))
    wall = open(f"{out}/ret-{m}.time").read().split()[0]
    allp = n * (n - 1) // 2
    print(f"| {m} | {n} | {len(want & tried)} of {len(want)} ({len(want & tried)/max(1,len(want)):.3f}) "
          f"| {len(want & ver)} of {len(want)} ({len(want & ver)/max(1,len(want)):.3f}) "
          f"| {len(tried)} of {allp} ({100*len(tried)/allp:.1f}%) | {across} | {wall} s |")
    missed = sorted(want - tried)
    if missed:
        print(f"  {m} missed: " + ", ".join(f"{a}–{b}" for a, b in missed[:40]) + (" …" if len(missed) > 40 else ""))
PY
echo "outputs in $out"
