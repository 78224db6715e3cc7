#!/usr/bin/env bash
# test.sh: the body of `make test` (the Makefile passes GO, TESTFLAGS and
# PURE). The core's vet comes first: it compiles what both modules share
# (the standard library, gocv, sqlite), once. Then the Beam module's vet
# and tests (`make test-beam`) run beside the core's tests: test runs and
# Beam's Prism jobs leave a core idle part of the time, and each fills the
# other's gaps. Beam's output is held and printed after the core's, so
# that neither log is interleaved. The exit status is the first failure's.
set -uo pipefail
go=${GO:-go}
"$go" vet ./... || exit
beamlog=$(mktemp)
trap 'rm -f "$beamlog"' EXIT
make --no-print-directory test-beam >"$beamlog" 2>&1 &
beam=$!
core() {
	local pkgs
	pkgs=$(GO=$go scripts/cgo-test-packages.sh $PURE) || return
	# shellcheck disable=SC2086 # word splitting is wanted for the flags and packages
	"$go" test $TESTFLAGS $pkgs || return
	make --no-print-directory test-pure
}
core
status=$?
wait "$beam"
beamstatus=$?
echo "== the Beam module (make test-beam) =="
cat "$beamlog"
if [ "$status" -ne 0 ]; then
	exit "$status"
fi
exit "$beamstatus"
