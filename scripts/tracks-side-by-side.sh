#!/usr/bin/env bash
# tracks-side-by-side.sh SCENE [OUTDIR]
#
# COLMAP 3.8's own CPU pipeline (feature_extractor + exhaustive_matcher, as
# scripts/sfm-side-by-side.sh runs it) on SCENE/images, with the true K
# (PINHOLE, fixed in bundle adjustment) and without (one SIMPLE_RADIAL
# camera, COLMAP's defaults); then `colmap mapper` on that database as it
# is, and on the database `clearmatch tracks` writes from it. Prints one
# table: camera position and rotation errors against SCENE/gt_cameras
# (clearmatch eval-sfm), registered images, points, mean track length,
# reprojection error, the conflicts of the tracks the mapper is given
# (pairs of observations of one image in one union-find track, as
# report.json's input/output conflicts count them) and the wall time of
# tracks and of the mapper. REUSE=1 keeps OUTDIR's COLMAP databases and
# their mapper models from an earlier run (COLMAP's matcher is not
# deterministic; reuse compares tracks flags on the same database).
# TRACKS_FLAGS are passed to clearmatch tracks. VARIANTS adds rows for
# the same databases with other tracks flags: "NAME:FLAGS;NAME:FLAGS"
# (a variant whose name starts with "cal-" or "uncal-" runs in that
# setting only). Needs colmap, python3 and the clearmatch binary
# (CLEARMATCH, default bin/clearmatch).
set -euo pipefail
scene=${1:?usage: tracks-side-by-side.sh SCENE [OUTDIR]}
out=${2:-$(mktemp -d)}
cm=${CLEARMATCH:-bin/clearmatch}
reuse=${REUSE:-0}
read -r -a tflags <<< "${TRACKS_FLAGS:-}"
command -v "$cm" > /dev/null || { echo "tracks-side-by-side.sh: $cm: no clearmatch binary there (make build, or set CLEARMATCH)" >&2; exit 2; }
command -v colmap > /dev/null || { echo "tracks-side-by-side.sh: colmap: not on PATH (scripts/setup.sh installs it)" >&2; exit 2; }
export QT_QPA_PLATFORM=offscreen
images=$scene/images gt=$scene/gt_cameras
for d in "$images" "$gt"; do
	[ -d "$d" ] || { echo "tracks-side-by-side.sh: $d: no such folder (SCENE holds images/ and gt_cameras/)" >&2; exit 2; }
done
mkdir -p "$out"
read -r fx fy cx cy < <("$(dirname "$0")/true-k.sh" "$scene")
Kc="$fx,$fy,$(python3 -c "print($cx+0.5)"),$(python3 -c "print($cy+0.5)")"
fixed=(--Mapper.ba_refine_focal_length 0 --Mapper.ba_refine_principal_point 0 --Mapper.ba_refine_extra_params 0)
secs() { python3 -c "print(f'{$2-$1:.1f}')"; }
now() { date +%s.%N; }
score() { CLEARMATCH=$cm "$(dirname "$0")/sfm-row.sh" "$1" "$gt"; } # MODEL PARENT -> a row (scripts/sfm-row.sh)
rows=()
for setting in calibrated uncalibrated; do
	d=$out/$setting
	mkdir -p "$d"
	if [ $setting = calibrated ]; then
		mflags=("${fixed[@]}"); xflags=(--ImageReader.camera_model PINHOLE --ImageReader.camera_params "$Kc")
	else
		mflags=(); xflags=(--ImageReader.camera_model SIMPLE_RADIAL)
	fi
	if [ "$reuse" = 0 ] || [ ! -f "$d/colmap.db" ] || [ ! -f "$d/colmap-mapper.time" ]; then
		rm -rf "$d/colmap.db" "$d/colmap-sparse"; mkdir -p "$d/colmap-sparse"
		colmap feature_extractor --database_path "$d/colmap.db" --image_path "$images" --ImageReader.single_camera 1 \
			--SiftExtraction.use_gpu 0 "${xflags[@]}" > "$d/colmap-extract.log" 2>&1
		colmap exhaustive_matcher --database_path "$d/colmap.db" --SiftMatching.use_gpu 0 > "$d/colmap-match.log" 2>&1
		t1=$(now)
		colmap mapper --database_path "$d/colmap.db" --image_path "$images" --output_path "$d/colmap-sparse" "${mflags[@]}" > "$d/colmap-mapper.log" 2>&1 || true
		secs "$t1" "$(now)" > "$d/colmap-mapper.time"
	fi
	if "$cm" help 2>&1 | grep -q '^ *tracks '; then
		first=1
		IFS=';' read -r -a variants <<< "default:${VARIANTS:+;$VARIANTS}"
		for v in "${variants[@]}"; do
			name=${v%%:*}
			read -r -a vflags <<< "${v#*:}"
			case $name in cal-*) [ $setting = calibrated ] || continue ;; uncal-*) [ $setting = uncalibrated ] || continue ;; esac
			t=$d/tracks-$name
			rm -rf "$t" "$t-sparse"; mkdir -p "$t-sparse"
			t0=$(now)
			"$cm" tracks "$d/colmap.db" -out "$t" "${tflags[@]}" "${vflags[@]}" > "$t.txt" 2> "$t.log"
			t1=$(now)
			colmap mapper --database_path "$t/colmap/database.db" --image_path "$images" --output_path "$t-sparse" "${mflags[@]}" > "$t-mapper.log" 2>&1 || true
			t2=$(now)
			conf=$(python3 -c "import json; r=json.load(open('$t/report.json')); c=r['database']['conflicts']; print(c['input'], c['output'])")
			if [ $first = 1 ]; then
				rows+=("$setting colmap $(score "$d/colmap-sparse") ${conf% *} -+$(cat "$d/colmap-mapper.time")")
				first=0
			fi
			label=+tracks
			[ "$name" = default ] || label=+tracks:$name
			rows+=("$setting $label $(score "$t-sparse") ${conf#* } $(secs "$t0" "$t1")+$(secs "$t1" "$t2")")
		done
	else
		rows+=("$setting colmap $(score "$d/colmap-sparse") - -+$(cat "$d/colmap-mapper.time")")
	fi
done
echo "scene $scene; K $Kc (COLMAP's convention); outputs in $out"
printf '%-13s %-22s %8s %8s %7s %7s %6s %7s %9s %s\n' setting pipeline pos.med rot.med images points track reproj conflicts "wall s (tracks+mapper)"
printf '%-13s %-22s %8s %8s %7s %7s %6s %7s %9s %s\n' "" "" mm deg "" "" length px "" ""
for r in "${rows[@]}"; do
	# shellcheck disable=SC2086
	printf '%-13s %-22s %8s %8s %7s %7s %6s %7s %9s %s\n' $r
done
