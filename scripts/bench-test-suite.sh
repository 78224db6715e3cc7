#!/bin/bash
# bench-test-suite.sh: "The test suite" of docs/benchmarks.md — `make test`
# as CI runs it: a fresh clone of HEAD beside this one (the tests find
# ../shared/datasets from it), an empty build cache, CI=true (a missing
# dataset fails). The module cache is the machine's (warm once the modules
# are downloaded). Prints the wall time, the CPU it used, the peak RSS and
# each package's test time, longest first.
# Usage: scripts/bench-test-suite.sh
set -euo pipefail
here=$(git rev-parse --show-toplevel)
clone=$(mktemp -d "$(dirname "$here")/clearmatch-suite.XXXXXX")
cache=$(mktemp -d)
trap 'rm -rf "$clone" "$cache"' EXIT
git clone -q "$here" "$clone"
cd "$clone"
echo "## make test at $(git rev-parse --short HEAD), $(nproc) cores"
status=0
GOCACHE=$cache CI=true /usr/bin/time -f 'wall %e s, user %U s, system %S s, peak RSS %M KB' -o "$cache/time" make test > "$cache/log" 2>&1 || status=$?
cat "$cache/time"
echo "## packages, longest first (seconds)"
awk '$1 == "ok" {t = $3; sub(/s$/, "", t); print t, $2}' "$cache/log" | sort -rn | head -12
if [ "$status" -ne 0 ]; then
	tail -40 "$cache/log"
	echo "bench-test-suite.sh: make test failed (exit $status)" >&2
	exit "$status"
fi
