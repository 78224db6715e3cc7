#!/usr/bin/env bash
# bench-paper.sh prints docs/benchmarks.md's CMU Hotel and Graffiti table:
# `clearmatch eval` on both datasets, both protocols, with F1 (precision /
# recall) of the input, the verified matches and CLEAR's tracks against the
# datasets' truth. Needs the binary (CLEARMATCH, default bin/clearmatch:
# `make build`) and the datasets ($CLEARMATCH_DATA, default
# ../shared/datasets).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${CLEARMATCH:-bin/clearmatch}
data=${CLEARMATCH_DATA:-../shared/datasets}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| dataset | protocol | input F1 (P / R) | verified F1 | CLEAR F1 (P / R) | consistent, distinct |"
echo "|---|---|---|---|---|---|"
for d in hotel graffiti; do
	"$bin" eval "$d" -data "$data" -out "$tmp/$d" >/dev/null 2>&1 || { echo "bench-paper.sh: clearmatch eval $d failed" >&2; exit 1; }
	python3 - "$tmp/$d/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for p in r["protocols"]:
    row = lambda x: "%.3f (%.3f / %.3f)" % (x["f1"], x["precision"], x["recall"])
    verified = "%.3f" % p["input"]["f1"] if p.get("verification") else "–"
    c = p["clear"]
    print("| %s | %s | %s | %s | %s | %s, %s |" % (r["dataset"], p["protocol"], row(p["ratio_matches"]), verified, row(c),
          str(c["cycle_consistent"]).lower(), str(c["distinct"]).lower()))
PY
done
