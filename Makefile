# The README's two commands are `make demo` and `make test`; both start with
# `setup`, which installs missing system packages (see scripts/setup.sh).
GO      ?= go
BIN     := bin/clearmatch
DEMOOUT ?= demo-out

.PHONY: all setup setup-test build build-beam test test-pure test-beam demo bench clean

all: build

# setup: OpenCV for building and running clearmatch; setup-test adds COLMAP,
# which only the tests run (the database.db hand-off test).
setup:
	@SETUP_NO_COLMAP=1 ./scripts/setup.sh

setup-test:
	@./scripts/setup.sh

# -buildvcs=auto stamps the source revision that `clearmatch version` prints
# (a GOFLAGS of -buildvcs=false would drop it).
build: setup
	$(GO) build -buildvcs=auto -o $(BIN) ./cmd/clearmatch

# build-beam: clearmatch-beam, the pipeline on Apache Beam (docs/scale.md).
# It is a module of its own (beam/go.mod): Beam's dependencies stay out of
# clearmatch's build.
build-beam: setup
	cd beam && $(GO) build -buildvcs=auto -o ../bin/clearmatch-beam ./cmd/clearmatch-beam

# test: vet and every test. Dataset tests read $$CLEARMATCH_DATA (default
# ../shared/datasets); under CI a missing dataset is a failure, not a skip.
# The longest package is internal/cli (the commands): it builds the binary once and runs
# it end to end, the README's quickstart and COLMAP's mapper included. The
# 20-minute timeout leaves room for a cold build cache (the cgo build of
# gocv) on a slow machine; docs/benchmarks.md has the suite's time.
# -vet=off: each module's `go vet` runs first with every analyzer; go test's
# own vet would run a subset of them again over every dependency.
TESTFLAGS ?= -count=1 -timeout 20m -vet=off
# The cgo run below skips PURE's packages that never reach OpenCV: they
# behave the same without cgo and test-pure tests them once
# (scripts/cgo-test-packages.sh). Every build of the suite, the binaries
# the tests build and the Beam module's included, takes gocv's MatProfile
# variant, so that gocv's cgo build happens once; package features' tests
# then fail if a Mat is left open (features/matprofile_test.go).
# The Beam module's tests run beside the core's (scripts/test.sh), its
# output printed after theirs.
test: export GOFLAGS := $(GOFLAGS) -tags=matprofile
test: setup-test
	GO="$(GO)" TESTFLAGS="$(TESTFLAGS)" PURE="$(PURE)" scripts/test.sh

# test-beam: the Beam module's vet and tests (clearmatch-beam on Prism
# writes match's tracks.json byte for byte).
test-beam:
	cd beam && $(GO) vet ./... && $(GO) test $(TESTFLAGS) ./...

# test-pure: the cgo-free binary builds, and the packages that must stay free of
# cgo (clear, eval, datasets, pairwise, calib, export, pipeline, imagefile, retrieval, refine, geom, tracks, colmap, localmap, fusion, benchmark,
# multiway, compare) build and pass with
# CGO_ENABLED=0.
PURE := $(patsubst %,./%/...,$(wildcard clear eval datasets pairwise calib export pipeline imagefile retrieval refine multiway compare geom tracks colmap localmap fusion benchmark))
test-pure:
	CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/clearmatch
	CGO_ENABLED=0 $(GO) build $(PURE)
	CGO_ENABLED=0 $(GO) test $(TESTFLAGS) $(PURE)

demo: build
	./$(BIN) demo -out $(DEMOOUT) -force

bench: setup
	$(GO) test -run '^$$' -bench . -benchmem ./clear/ ./features/

clean:
	rm -rf bin $(DEMOOUT)
