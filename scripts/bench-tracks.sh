#!/usr/bin/env bash
# bench-tracks.sh [IMAGES [KEYPOINTS [WINDOW [OUTDIR]]]]
#
# Times `clearmatch tracks` on a synthetic COLMAP database at a large
# project's scale (scripts/synth-database: IMAGES photos of a strip,
# default 1000, KEYPOINTS each, default 8000, each paired with the next
# WINDOW, default 20: about IMAGES × WINDOW verified pairs, with no
# descriptors and no stored geometry, as hloc writes them). Prints the
# database's size, tracks' wall time and peak memory (max RSS), its time
# per step (report.json's timing_s) and what it read and wrote. Needs go
# and python3 and the clearmatch binary (CLEARMATCH, default
# bin/clearmatch).
set -euo pipefail
n=${1:-1000} kps=${2:-8000} window=${3:-20}
out=${4:-$(mktemp -d)}
cm=${CLEARMATCH:-bin/clearmatch}
command -v "$cm" > /dev/null || { echo "bench-tracks.sh: $cm: no clearmatch binary there (make build, or set CLEARMATCH)" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/synth.db" "$out/tracks"
(cd "$(dirname "$0")/.." && CGO_ENABLED=0 go run ./scripts/synth-database -images "$n" -keypoints "$kps" -window "$window" -out "$out/synth.db")
/usr/bin/time -f "%e %M" -o "$out/tracks.time" "$cm" tracks "$out/synth.db" -out "$out/tracks" > "$out/tracks.txt" 2> "$out/tracks.log"
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
wall, rss = open(f"{out}/tracks.time").read().split()
r = json.load(open(f"{out}/tracks/report.json"))
d = r["database"]
print(f"database: {r['images']} images, {d['input_pairs']} pairs, {d['input_matches']} matches, {os.path.getsize(out + '/synth.db') / 2**20:.0f} MiB")
print(f"tracks: wall {wall} s, peak RSS {int(rss) / 1024:.0f} MiB; {r['tracks']} tracks; {d['output_pairs']} pairs, {d['output_matches']} matches written; conflicts {d['conflicts']['input']} in, {d['conflicts']['output']} out")
print("seconds by step: " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(r["timing_s"].items()) if v >= 0.05))
PY
