#!/usr/bin/env bash
# subset-scene.sh SCENE OUT N...
#
# Makes OUT, a scene of some photos of SCENE (laid out as
# ../shared/datasets/herz-jesus-p25: images/ and gt_cameras/NAME.camera),
# of links to the photos numbered N (0-based, in name order) and their
# ground-truth cameras, for scripts/sfm-side-by-side.sh. Example: every
# third photo of herz-jesus-p25, a wide-baseline scene:
#   scripts/subset-scene.sh ../shared/datasets/herz-jesus-p25 /tmp/hj-third $(seq 0 3 24)
set -euo pipefail
scene=${1:?usage: subset-scene.sh SCENE OUT N...}
out=${2:?usage: subset-scene.sh SCENE OUT N...}
shift 2
[ $# -gt 0 ] || { echo "subset-scene.sh: no photo numbers given" >&2; exit 2; }
scene=$(cd "$scene" && pwd)
mapfile -t names < <(ls "$scene/images")
# Check every number and camera first, so a bad one leaves no partial scene.
picked=()
for n in "$@"; do
	if ! [[ $n =~ ^[0-9]+$ ]] || [ "$n" -ge "${#names[@]}" ]; then
		echo "subset-scene.sh: photo $n: $scene/images has ${#names[@]} photos (0 to $((${#names[@]} - 1)))" >&2
		exit 2
	fi
	name=${names[$n]}
	[ -f "$scene/gt_cameras/$name.camera" ] || { echo "subset-scene.sh: $scene/gt_cameras/$name.camera: no such file" >&2; exit 1; }
	picked+=("$name")
done
mkdir -p "$out/images" "$out/gt_cameras"
for name in "${picked[@]}"; do
	ln -sfn "$scene/images/$name" "$out/images/$name"
	ln -sfn "$scene/gt_cameras/$name.camera" "$out/gt_cameras/$name.camera"
done
echo "$out: $# photos of $scene"
