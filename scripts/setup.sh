#!/usr/bin/env bash
# setup.sh installs what clearmatch needs from the system and checks the Go
# toolchain. It is the one place that knows the system dependencies; the
# Makefile and docker/Dockerfile both follow it.
#
# System packages (Debian 12 / Ubuntu):
#   libopencv-dev  OpenCV 4.6 headers and libraries for gocv v0.31.0 (features/)
#   pkg-config     how gocv's cgo flags find OpenCV
#   libopenblas-dev  OpenBLAS, the optimized BLAS whose sgemm the matcher's
#                  products run on (features/nn.c)
#   colmap         COLMAP 3.8, the SfM engine the tests hand database.db to
#                  (a test dependency; clearmatch itself never runs it).
#                  Headless use needs QT_QPA_PLATFORM=offscreen.
# SETUP_NO_COLMAP=1 skips COLMAP (its test then skips outside CI).
set -euo pipefail

packages=()

have_opencv() {
	command -v pkg-config >/dev/null 2>&1 && pkg-config --exists opencv4
}

have_openblas() {
	command -v pkg-config >/dev/null 2>&1 && pkg-config --exists openblas
}

have_colmap() {
	[ "${SETUP_NO_COLMAP:-}" = 1 ] || command -v colmap >/dev/null 2>&1
}

if ! command -v go >/dev/null 2>&1; then
	echo "setup: Go is not installed; install Go 1.26 or newer (https://go.dev/dl/)" >&2
	exit 1
fi

have_opencv || packages+=(libopencv-dev pkg-config)
have_openblas || packages+=(libopenblas-dev pkg-config)
have_colmap || packages+=(colmap)
if [ ${#packages[@]} -eq 0 ]; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "setup: missing system packages: ${packages[*]}" >&2
	echo "setup: as root, run: apt-get update && apt-get install -y ${packages[*]}" >&2
	exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "setup: missing ${packages[*]} and this is not a Debian/Ubuntu system;" >&2
	echo "setup: install OpenCV 4.6 and OpenBLAS development files, pkg-config and COLMAP 3.8, then retry." >&2
	exit 1
fi

echo "setup: installing ${packages[*]}..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
if ! have_opencv; then
	echo "setup: installed ${packages[*]} but pkg-config still cannot find opencv4" >&2
	exit 1
fi
if ! have_openblas; then
	echo "setup: installed ${packages[*]} but pkg-config still cannot find openblas" >&2
	exit 1
fi
if ! have_colmap; then
	echo "setup: installed ${packages[*]} but colmap is still not on PATH" >&2
	exit 1
fi
echo "setup: OpenCV $(pkg-config --modversion opencv4) and $(command -v colmap || echo 'no COLMAP') ready" >&2
