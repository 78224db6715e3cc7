#!/usr/bin/env bash
# scale-bench.sh N [OUTDIR] [-- MATCH_FLAGS...]
#
# The scale benchmark: renders N synthetic views of a long textured strip
# (clearmatch synth-photos, 1024x768, shuffled names so the order says
# nothing), runs the default `clearmatch match -export colmap` on them with
# a cold cache, and prints wall time per stage, pairs considered, matched
# and verified per source, peak memory (max RSS), and the recall of the
# true overlapping pairs (overlap >= 0.25, from the known homographies)
# among the matched and the verified pairs. With EXHAUSTIVE=1 it also runs
# -pairs exhaustive on the cached features and reports which share of the
# pairs exhaustive matching verifies with >= 50 inliers the default found.
# Needs python3, GNU time and the clearmatch binary (CLEARMATCH, default
# bin/clearmatch: `make build`).
set -euo pipefail
n=${1:?usage: scale-bench.sh N [OUTDIR] [-- MATCH_FLAGS...]}
shift
out=$(mktemp -d)
if [ $# -gt 0 ] && [ "$1" != "--" ]; then out=$1; shift; fi
[ "${1:-}" = "--" ] && shift
cm=${CLEARMATCH:-bin/clearmatch}
mkdir -p "$out"
t0=$(date +%s.%N)
"$cm" synth-photos -views "$n" -out "$out/scene" -force 2> "$out/render.log"
t1=$(date +%s.%N)
rm -rf "$out/cache"
/usr/bin/time -f "%e %M" -o "$out/match.time" "$cm" match "$out/scene/images" -out "$out/match" -force \
	-export colmap -overlay-pairs none -cache "$out/cache" "$@" > "$out/match.txt" 2> "$out/match.log"
if [ "${EXHAUSTIVE:-}" = 1 ]; then
	/usr/bin/time -f "%e %M" -o "$out/exh.time" "$cm" match "$out/scene/images" -out "$out/exh" -force \
		-pairs exhaustive -overlay-pairs none -cache "$out/cache" "$@" > "$out/exh.txt" 2> "$out/exh.log"
fi
python3 - "$out" "$n" "$(python3 -c "print(f'{$t1-$t0:.1f}')")" <<'PY'
import json, os, sys
out, n, render = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rep = json.load(open(f"{out}/match/report.json"))
wall, rss = open(f"{out}/match.time").read().split()
true = set()
for line in open(f"{out}/scene/true_pairs.txt"):
    if line.startswith("#"):
        continue
    a, b, _ = line.split()
    true.add((min(a, b), max(a, b)))
matched, verified = set(), {}
for p in rep["pairs"]:
    k = (min(p["image_a"], p["image_b"]), max(p["image_a"], p["image_b"]))
    matched.add(k)
    if p.get("verified_matches", 0) > 0:
        verified[k] = p["inliers"]
t = rep["timing_s"]
print(f"views {n}: rendered in {render} s; match wall {wall} s, peak RSS {int(rss)/1024:.0f} MiB")
print("  stages: " + ", ".join(f"{k} {t[k]:.1f} s" for k in ("extract", "select", "match", "verify", "solve")))
ps = rep["pair_selection"]
print(f"  pairs ({ps['mode']}): " + "; ".join(f"{s}: {c['considered']} considered, {c['matched']} matched, {c['verified']} verified" for s, c in sorted(ps["sources"].items())))
print(f"  true pairs {len(true)}: {len(true & matched)/max(1,len(true)):.4f} matched, {len(true & set(verified))/max(1,len(true)):.4f} verified; verified pairs not true: {len(set(verified) - true)}")
print(f"  tracks {rep['tracks']}, features {sum(f['features'] for f in rep['features_per_image'])}")
if os.path.exists(f"{out}/exh/report.json"):
    ex = json.load(open(f"{out}/exh/report.json"))
    ewall, erss = open(f"{out}/exh.time").read().split()
    strong = {(min(p["image_a"], p["image_b"]), max(p["image_a"], p["image_b"])) for p in ex["pairs"] if p.get("verified_matches", 0) > 0 and p["inliers"] >= 50}
    print(f"  exhaustive: {len(ex['pairs'])} pairs in {ewall} s (features cached), {len(strong)} verified with >= 50 inliers; the default matched {len(strong & matched)/max(1,len(strong)):.4f} of them")
PY
echo "outputs in $out"
