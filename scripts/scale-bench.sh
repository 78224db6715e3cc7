#!/usr/bin/env bash
# scale-bench.sh N [OUTDIR] [-- MATCH_FLAGS...]
#
# The scale benchmark: renders N synthetic views of a long textured strip
# (clearmatch synth-photos, 1024x768, shuffled names so the order says
# nothing), runs the default `clearmatch match -export colmap` on them with
# a cold cache, and prints wall time per stage, pairs considered, matched
# and verified per source, peak memory (max RSS), and the recall of the
# true overlapping pairs (overlap >= 0.25, from the known homographies)
# among the matched and the verified pairs, and the tracks' accuracy: the
# share of observation pairs that the strip's homographies (views.txt) map
# within 4 px of each other, the share of tracks all of whose pairs do, and
# the longest track (a true one spans a few views). With EXHAUSTIVE=1 it also runs
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
# Track accuracy against the strip's homographies: an observation pair is
# right when the first maps within 4 px of the second.
def inv3(h):
    a, b, c, d, e, f, g, k, m = h
    A, B, C = e*m - f*k, -(d*m - f*g), d*k - e*g
    det = a*A + b*B + c*C
    return [A/det, -(b*m - c*k)/det, (b*f - c*e)/det, B/det, (a*m - c*g)/det, -(a*f - c*d)/det, C/det, -(a*k - b*g)/det, (a*e - b*d)/det]
def apply(h, x, y):
    w = h[6]*x + h[7]*y + h[8]
    return (h[0]*x + h[1]*y + h[2]) / w, (h[3]*x + h[4]*y + h[5]) / w, w
to_strip = {}
for line in open(f"{out}/scene/views.txt"):
    if not line.startswith("#"):
        f = line.split()
        to_strip[f[0]] = [float(v) for v in f[1:]]
from_strip = {k: inv3(h) for k, h in to_strip.items()}
right = wrong = pure = longest = 0
for tr in json.load(open(f"{out}/match/tracks.json"))["tracks"]:
    obs = tr["observations"]
    longest = max(longest, len(obs))
    plane = [apply(to_strip[o["image"]], o["x"], o["y"]) for o in obs]
    ok = True
    for a in range(len(obs)):
        for b in range(len(obs)):
            if a == b:
                continue
            x, y, _ = apply(from_strip[obs[b]["image"]], plane[a][0], plane[a][1])
            if (x - obs[b]["x"])**2 + (y - obs[b]["y"])**2 <= 16:
                right += 1
            else:
                wrong += 1
                ok = False
    pure += ok
print(f"  track accuracy: {right/max(1,right+wrong):.4f} of ordered observation pairs within 4 px of the true homography ({wrong} not), {pure/max(1,rep['tracks']):.4f} of tracks all within; longest track {longest} views")
if os.path.exists(f"{out}/exh/report.json"):
    ex = json.load(open(f"{out}/exh/report.json"))
    ewall, erss = open(f"{out}/exh.time").read().split()
    strong = {(min(p["image_a"], p["image_b"]), max(p["image_a"], p["image_b"])) for p in ex["pairs"] if p.get("verified_matches", 0) > 0 and p["inliers"] >= 50}
    print(f"  exhaustive: {len(ex['pairs'])} pairs in {ewall} s (features cached), {len(strong)} verified with >= 50 inliers; the default matched {len(strong & matched)/max(1,len(strong)):.4f} of them")
PY
echo "outputs in $out"
