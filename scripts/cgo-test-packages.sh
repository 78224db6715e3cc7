#!/usr/bin/env bash
# cgo-test-packages.sh PURE_PATTERN...
#
# Prints the packages `make test` tests with cgo: every package of the
# module except those matched by the patterns (the cgo-free packages,
# Makefile's PURE) that do not reach gocv, even through their tests. Those
# behave the same without cgo and are tested once, by `make test-pure`.
set -euo pipefail
go=${GO:-go}
pure=$(CGO_ENABLED=0 "$go" list "$@")
opencv=$("$go" list -test -f '{{.ImportPath}}{{range .Deps}}{{if eq . "gocv.io/x/gocv"}} gocv{{end}}{{end}}' ./... |
	awk '$NF == "gocv" {print $1}' | sed 's/\.test$//; s/_test$//' | sort -u)
all=$("$go" list ./...)
for p in $all; do
	if grep -qxF "$p" <<<"$pure" && ! grep -qxF "$p" <<<"$opencv"; then
		continue
	fi
	echo "$p"
done
