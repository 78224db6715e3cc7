#!/usr/bin/env bash
# sfm-attribution.sh SCENE [OUTDIR]
#
# Where clearmatch's cameras come from: `clearmatch match -export colmap`
# on SCENE/images in several variants, each through `colmap mapper` and
# scored by `clearmatch eval-sfm` against SCENE/gt_cameras, with the true K
# (PINHOLE, fixed in bundle adjustment, as scripts/sfm-side-by-side.sh
# runs it) and without (the camera clearmatch exports, refined by the
# mapper). Variants: the defaults; union-find tracks (what COLMAP builds
# from the same verified matches) and CLEAR's tracks, both with no track
# stage; and the defaults with each track stage off in turn. Every
# variant shares one feature and pair cache, so all see the same
# features and verified matches. One table, one line per variant:
# position and rotation error, registered images, points, mean track
# length, reprojection error. The mapper is deterministic on a database,
# but moves by several percent with small changes of it: a difference of
# a few percent is noise (docs/benchmarks.md). Needs colmap, python3 and
# the clearmatch binary (CLEARMATCH, default bin/clearmatch).
set -euo pipefail
scene=${1:?usage: sfm-attribution.sh SCENE [OUTDIR]}
out=${2:-$(mktemp -d)}
cm=${CLEARMATCH:-bin/clearmatch}
command -v "$cm" > /dev/null || { echo "sfm-attribution.sh: $cm: no clearmatch binary there (make build, or set CLEARMATCH)" >&2; exit 2; }
command -v colmap > /dev/null || { echo "sfm-attribution.sh: colmap: not on PATH (scripts/setup.sh installs it)" >&2; exit 2; }
export QT_QPA_PLATFORM=offscreen
images=$scene/images gt=$scene/gt_cameras
for d in "$images" "$gt"; do
	[ -d "$d" ] || { echo "sfm-attribution.sh: $d: no such folder (SCENE holds images/ and gt_cameras/)" >&2; exit 2; }
done
mkdir -p "$out"
read -r fx fy cx cy < <("$(dirname "$0")/true-k.sh" "$scene")
fixed=(--Mapper.ba_refine_focal_length 0 --Mapper.ba_refine_principal_point 0 --Mapper.ba_refine_extra_params 0)
nostages=(-complete=false -refine=false -weak-pairs 0 -rotation-loops 0 -self-calibrate=false -reproj-filter 0)
variants=(
	"default|"
	"union-find,no-stages|-union-find ${nostages[*]}"
	"clear,no-stages|${nostages[*]}"
	"no-complete|-complete=false"
	"no-refine|-refine=false"
	"no-weak-pairs|-weak-pairs 0"
	"no-rotation-loops|-rotation-loops 0"
	"no-self-calibrate|-self-calibrate=false"
	"no-reproj-filter|-reproj-filter 0"
)
score() { CLEARMATCH=$cm "$(dirname "$0")/sfm-row.sh" "$1" "$gt"; } # MODEL PARENT -> a row (scripts/sfm-row.sh)
rows=()
for setting in calibrated uncalibrated; do
	if [ $setting = calibrated ]; then
		cmflags=(-intrinsics "$fx,$fy,$cx,$cy" -camera-model PINHOLE); mflags=("${fixed[@]}")
	else
		cmflags=(); mflags=()
	fi
	for v in "${variants[@]}"; do
		name=${v%%|*}
		read -r -a vflags <<< "${v#*|}"
		# A stage that does not run in this setting has no variant.
		[ $setting = calibrated ] && [ "$name" = no-self-calibrate ] && continue
		[ $setting = uncalibrated ] && [ "$name" = no-rotation-loops ] && continue
		d=$out/$setting/$name
		rm -rf "$d"; mkdir -p "$d/sparse"
		"$cm" match "$images" -out "$d/cm" -export colmap -overlay-pairs none -cache "$out/cache" "${cmflags[@]}" "${vflags[@]}" > "$d/cm.txt" 2> "$d/cm.log"
		colmap mapper --database_path "$d/cm/colmap/database.db" --image_path "$images" --output_path "$d/sparse" "${mflags[@]}" > "$d/mapper.log" 2>&1 || true
		rows+=("$setting $name $(score "$d/sparse")")
	done
done
echo "scene $scene; outputs in $out"
printf '%-13s %-22s %8s %8s %7s %7s %6s %7s\n' setting variant pos.med rot.med images points track reproj
printf '%-13s %-22s %8s %8s %7s %7s %6s %7s\n' "" "" mm deg "" "" length px
for r in "${rows[@]}"; do
	# shellcheck disable=SC2086
	printf '%-13s %-22s %8s %8s %7s %7s %6s %7s\n' $r
done
