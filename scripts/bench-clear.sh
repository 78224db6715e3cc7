#!/usr/bin/env bash
# bench-clear.sh prints docs/benchmarks.md's CLEAR table: one Solve (all
# steps) on the real problems of ../shared/testdata/problems and on the
# paper's synthetic model, from `go test -bench` over $COUNT runs (default
# 5), as the range of the per-run times.
#   scripts/bench-clear.sh            # from the repository root
set -euo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-5}
go test -run '^$' -bench 'BenchmarkRealProblems|BenchmarkSynthetic' -benchmem -count "$count" ./clear/ |
	awk -v count="$count" '
	/^Benchmark/ {
		name = $1; sub(/^Benchmark/, "", name); sub(/-[0-9]+$/, "", name)
		for (i = 2; i < NF; i++) {
			if ($(i+1) == "ns/op") t = $i / 1e6
			if ($(i+1) == "B/op") m = $i / 1e6
			if ($(i+1) == "largest") l = $i
			if ($(i+1) == "universe") u = $i
		}
		if (!(name in lo) || t < lo[name]) lo[name] = t
		if (!(name in hi) || t > hi[name]) hi[name] = t
		mem[name] = m; largest[name] = l; universe[name] = u
		if (!(name in seen)) { seen[name] = 1; order[++n] = name }
	}
	END {
		printf "| problem | largest component | universe | time (ms, %d runs) | memory/op (MB) |\n|---|---|---|---|---|\n", count
		for (k = 1; k <= n; k++) {
			s = order[k]
			printf "| %s | %d | %d | %.1f–%.1f | %.1f |\n", s, largest[s], universe[s], lo[s], hi[s], mem[s]
		}
	}'
