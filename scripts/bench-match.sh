#!/usr/bin/env bash
# bench-match.sh [OUTDIR]
#
# Times the default `clearmatch match -intrinsics K -export colmap` (the
# true K, scripts/true-k.sh; no cache) on scenes of the four sizes the
# COLMAP 4 comparison used (8, 10, 11 and 19 photos: the first 8, 10 and 19
# of herz-jesus-p25, and fountain-p11) and on the whole herz-jesus-p25,
# and prints per scene the wall time, each stage's seconds, the matcher's
# effective rate (2·n₁·n₂·128 FLOP a pair, what exact matching by float32
# products costs) against OpenBLAS's measured SGEMM peak at the same
# thread count (scripts/sgemm-peak.sh), and peak memory (max RSS).
# Needs python3, GNU time, gcc with libopenblas-dev and the clearmatch
# binary (CLEARMATCH, default bin/clearmatch). DATA defaults to
# ../shared/datasets.
set -euo pipefail
out=${1:-$(mktemp -d)}
cm=${CLEARMATCH:-bin/clearmatch}
data=${DATA:-../shared/datasets}
here=$(dirname "$0")
command -v "$cm" > /dev/null || { echo "bench-match.sh: $cm: no clearmatch binary (make build, or set CLEARMATCH)" >&2; exit 2; }
mkdir -p "$out"
threads=$(nproc)
peak=$("$here/sgemm-peak.sh" | awk -v t="$threads" '$2 == t"," && $4 == "default:" {print $(NF-1)}')
echo "OpenBLAS SGEMM peak, $threads threads: $peak GFLOP/s"
scenes=("hj8 $data/herz-jesus-p25 $(seq -s, 0 7)" "hj10 $data/herz-jesus-p25 $(seq -s, 0 9)"
	"fountain-p11 $data/fountain-p11 all" "hj19 $data/herz-jesus-p25 $(seq -s, 0 18)"
	"herz-jesus-p25 $data/herz-jesus-p25 all")
printf '| scene (photos) | wall s | extract / match / verify / refine / reproj / other s | match GFLOP/s (of SGEMM peak) | peak RSS MiB | matcher |\n|---|---|---|---|---|---|\n'
for row in "${scenes[@]}"; do
	read -r name scene pick <<< "$row"
	dir=$scene
	if [ "$pick" != all ]; then
		dir=$out/$name
		rm -rf "$dir"
		# shellcheck disable=SC2046
		"$here/subset-scene.sh" "$scene" "$dir" $(tr , ' ' <<< "$pick") > /dev/null
	fi
	read -r fx fy cx cy < <("$here/true-k.sh" "$dir")
	/usr/bin/time -f "%e %M" -o "$out/$name.time" "$cm" match "$dir/images" -out "$out/$name" -force -cache "" \
		-intrinsics "$fx,$fy,$cx,$cy" -export colmap -overlay-pairs none > /dev/null 2> "$out/$name.log"
	python3 - "$out/$name" "$out/$name.time" "$name" "$peak" <<'PY'
import json, sys
d, tf, name, peak = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4] or 0)
r = json.load(open(d + "/report.json"))
wall, rss = open(tf).read().split()[-2:]
n = {f["image"]: f["features"] for f in r["features_per_image"]}
flop = sum(2.0 * n[p["image_a"]] * n[p["image_b"]] * 128 for p in r["pairs"])
t = r["timing_s"]
main = ["extract", "match", "verify", "refine", "reproj"]
other = t["total"] - sum(t.get(k, 0) for k in main)
rate = flop / t["match"] / 1e9 if t.get("match") else 0
share = f" ({rate / peak:.1f}x)" if peak else ""
print(f"| {name} ({len(n)}) | {float(wall):.1f} | " + " / ".join(f"{t.get(k, 0):.1f}" for k in main) +
      f" / {other:.1f} | {rate:.0f}{share} | {int(rss) / 1024:.0f} | {r.get('matcher', '')} |")
PY
done
