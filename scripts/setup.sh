#!/usr/bin/env bash
# setup.sh installs what clearmatch needs from the system and checks the Go
# toolchain. It is the one place that knows the system dependencies; the
# Makefile and docker/Dockerfile both follow it.
#
# System packages (Debian 12 / Ubuntu):
#   libopencv-dev  OpenCV 4.6 headers and libraries for gocv v0.31.0 (features/)
#   pkg-config     how gocv's cgo flags find OpenCV
set -euo pipefail

packages=(libopencv-dev pkg-config)

have_opencv() {
	command -v pkg-config >/dev/null 2>&1 && pkg-config --exists opencv4
}

if ! command -v go >/dev/null 2>&1; then
	echo "setup: Go is not installed; install Go 1.24 or newer (https://go.dev/dl/)" >&2
	exit 1
fi

if have_opencv; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "setup: OpenCV 4 (pkg-config opencv4) is missing." >&2
	echo "setup: as root, run: apt-get update && apt-get install -y ${packages[*]}" >&2
	exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "setup: OpenCV 4 is missing and this is not a Debian/Ubuntu system;" >&2
	echo "setup: install OpenCV 4.6 development files and pkg-config, then retry." >&2
	exit 1
fi

echo "setup: installing ${packages[*]} (OpenCV for gocv)..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
if ! have_opencv; then
	echo "setup: installed ${packages[*]} but pkg-config still cannot find opencv4" >&2
	exit 1
fi
echo "setup: OpenCV $(pkg-config --modversion opencv4) ready" >&2
