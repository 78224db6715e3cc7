#!/usr/bin/env bash
# bench-beam.sh N [OUTDIR] [-- MATCH_FLAGS...]
#
# clearmatch-beam (Prism, in-process) against clearmatch match on N
# synthetic strip views (clearmatch synth-photos, 1024x768), both with a
# cold cache and the same flags: wall time and peak memory (max RSS) of
# each process, the pipeline's counters, the largest state one of its
# bundles held and the bytes that travelled between its transforms beside
# the match graph the assembly holds (ratio-test and verified matches, 12
# bytes each), and whether tracks.json is byte for byte the same. Needs
# GNU time, bin/clearmatch (make build) and bin/clearmatch-beam (make
# build-beam).
set -euo pipefail
n=${1:?usage: bench-beam.sh N [OUTDIR] [-- MATCH_FLAGS...]}
shift
out=$(mktemp -d)
if [ $# -gt 0 ] && [ "$1" != "--" ]; then out=$1; shift; fi
[ "${1:-}" = "--" ] && shift
cm=${CLEARMATCH:-bin/clearmatch}
cmb=${CLEARMATCH_BEAM:-bin/clearmatch-beam}
mkdir -p "$out"
[ -d "$out/scene/images" ] || "$cm" synth-photos -views "$n" -out "$out/scene" -force 2> "$out/render.log"
rm -rf "$out/cache-match" "$out/cache-beam"
/usr/bin/time -f "%e %M" -o "$out/match.time" "$cm" match "$out/scene/images" -out "$out/match" -force \
	-overlay-pairs none -cache "$out/cache-match" "$@" > "$out/match.txt" 2> "$out/match.log"
/usr/bin/time -f "%e %M" -o "$out/beam.time" "$cmb" "$out/scene/images" -out "$out/beam" -force \
	-overlay-pairs none -cache "$out/cache-beam" "$@" > "$out/beam.txt" 2> "$out/beam.log"
read -r mw mr < "$out/match.time"
read -r bw br < "$out/beam.time"
same=differ
cmp -s "$out/match/tracks.json" "$out/beam/tracks.json" && same="byte-identical"
echo "views $n"
echo "  match:           $mw s, peak RSS $((mr / 1024)) MiB"
echo "  clearmatch-beam: $bw s, peak RSS $((br / 1024)) MiB ($(grep '^beam: [0-9]* images extracted' "$out/beam.log" | sed 's/^beam: //'))"
echo "  clearmatch-beam's pipeline: $(grep '^beam: largest bundle state' "$out/beam.log" | sed 's/^beam: //')"
echo "  clearmatch-beam's CLEAR: $(grep '^beam: CLEAR' "$out/beam.log" | sed 's/^beam: //')"
echo "  clearmatch-beam's refinement: $(grep '^beam: refinement' "$out/beam.log" | sed 's/^beam: //')"
python3 - "$out/beam/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
b = (r["ratio_matches"] + r["input_matches"]) * 12
print(f"  match graph: {r['ratio_matches']:,} ratio-test and {r['input_matches']:,} verified matches, {b / 2**20:.1f} MiB; "
      f"largest component {r['largest_component']:,} observations of {sum(f['features'] for f in r['features_per_image']):,}")
PY
echo "  tracks.json: $same"
echo "outputs in $out"
