#!/usr/bin/env bash
# sfm-side-by-side.sh SCENE [OUTDIR] [-- MATCH_FLAGS...]
#
# Runs clearmatch -> colmap mapper and COLMAP 3.8's own CPU pipeline
# (feature_extractor + exhaustive_matcher + mapper) on SCENE/images, with
# the true intrinsics (from SCENE/gt_cameras, fixed in bundle adjustment)
# and without them (one SIMPLE_RADIAL camera: COLMAP's defaults for COLMAP
# alone; for clearmatch the camera its self-calibration exports, whose
# principal point the mapper keeps as it keeps COLMAP's at the centre), and
# prints one table: camera position and rotation errors against
# SCENE/gt_cameras (clearmatch eval-sfm: similarity on the camera centres),
# registered images, points, reprojection error, the share of the
# database's tracks of 3+ views with every observation within 2 px of the
# point triangulated from the true cameras (eval-sfm -db), wall time of each.
# SCENE is laid out as ../shared/datasets/fountain-p11 (images/,
# gt_cameras/NAME.camera in Strecha's format, for the full-resolution
# originals: K is scaled to the images' width). COLMAP_RUNS=3 runs COLMAP
# alone three times (its matcher is not deterministic) and adds the median
# row (median position error's run; median rotation error). Needs colmap,
# python3 and the clearmatch binary (CLEARMATCH, default bin/clearmatch:
# `make build`).
# K_REFINED=1 adds a setting "K+refine": each pipeline's calibrated
# database reconstructed again with the mapper's defaults, which refine the
# focal lengths from the true K (as colmap mapper runs unless told not to);
# clearmatch's with the camera `match -intrinsics` exports by default
# (SIMPLE_RADIAL), the calibrated run's PINHOLE rewritten.
# REFINE_PP=1 adds a third setting, "uncal+pp": each pipeline's
# uncalibrated database reconstructed again with the mapper refining the
# principal point (--Mapper.ba_refine_principal_point 1).
# PERTURB=N runs the mapper N more times on clearmatch's database with a
# share PERTURB_FRAC (0.03) of its verified matches dropped at random
# (seeds 1..N), and adds their median row: `colmap mapper` is
# deterministic on a database, and its result moves by several percent
# with small changes of the matches, so one run does not say on which
# side of COLMAP's own runs a scene lies. COLMAP_RUNS=0 runs clearmatch
# alone (to compare flags against COLMAP rows of an earlier run).
# GTBA=1 adds, for every calibrated database (clearmatch's and each of
# COLMAP's), a row "-gtba": the cameras set to the true ones, the points
# triangulated from them (colmap point_triangulator), then bundle
# adjustment of all of it with K fixed (colmap bundle_adjuster), scored the
# same way. It is where the database's matches pull the cameras from the
# truth, whatever path the mapper takes: a database whose -gtba error is
# far above COLMAP's own carries less (or biased) information; one whose
# mapper error alone is far above its -gtba error lost it on the mapper's
# way (initial pair, registration order). After the table, for each COLMAP
# run, the two -gtba models measured against each other (eval-sfm MODEL
# REFERENCE) and each adjustment's reprojection cost at the true cameras
# and at its end: when the two models lie much closer to each other than
# to the truth, and the truth costs far more than the adjustment's end,
# the rest of the error is the ground truth's (docs/benchmarks.md, and the
# commit messages of docs/sfm-accuracy.md in git).
# INIT_PAIRS=N adds, for each mapper database of the two settings
# (clearmatch's and each of COLMAP's runs), a row "-init": the median over
# N more mapper runs, each started (--Mapper.init_image_id1/2) from one of
# the N image pairs with the most verified matches (at least 100, the
# mapper's init_min_num_inliers) that the mapper can initialize from
# (asked first on a two-image copy of the database, which is fast),
# COLMAP's runs pooled; a run longer than INIT_TIMEOUT seconds (default
# 600; 0: no limit) is stopped and its pair passed over (on herz-jesus
# photos 0, 5, ..., 20 without K, the start from 0005 and 0010 stays in
# bundle adjustment for more than ten minutes in either database). With
# an even count, the median is the lower middle run. Which pair the
# mapper starts from moves its result more than which match set
# it is given (on fountain photos 0, 3, 6, 9 with K, COLMAP's own database
# gives 1.53 to 4.19 mm over its five such pairs), so one run a row says
# little; this row compares the match sets over the paths the mapper
# could take.
# FINAL_BA=1 adds, for each mapper model of the two settings (clearmatch's
# and each of COLMAP's runs; not the drops or uncal+pp), a row "+ba": the
# model once more through colmap bundle_adjuster, refining what the mapper
# refined. The mapper's last global refinement runs bundle adjustment,
# then drops the observations left more than 4 px off, and stops when
# those are fewer than 0.05% of all
# (--Mapper.ba_global_max_refinement_change): the cameras it writes were
# fitted with them. A handful of such observations on a weakly held camera
# can move it by centimetres; "+ba" is the mapper's model without that
# accident of where it stopped.
# OUR_FEATURES=1 adds, in both settings, a row "colmap-on-cm": COLMAP's
# own matcher (exhaustive_matcher, CPU) and mapper on a copy of
# clearmatch's database with its matches and two-view geometries taken
# out: the same keypoints (refined where clearmatch's tracks moved them),
# descriptors and camera, COLMAP's matching and verification. Beside
# "clearmatch" and "colmap" it tells whether a difference lies in the
# features or in the match set (with GTBA=1 its -gtba row too).
set -euo pipefail
scene=${1:?usage: sfm-side-by-side.sh SCENE [OUTDIR] [-- MATCH_FLAGS...]}
shift
out=$(mktemp -d)
if [ $# -gt 0 ] && [ "$1" != "--" ]; then out=$1; shift; fi
[ "${1:-}" = "--" ] && shift
extra=("$@")
cm=${CLEARMATCH:-bin/clearmatch}
runs=${COLMAP_RUNS:-1}
perturb=${PERTURB:-0}
frac=${PERTURB_FRAC:-0.03}
gtba=${GTBA:-0}
finalba=${FINAL_BA:-0}
initpairs=${INIT_PAIRS:-0}
inittimeout=${INIT_TIMEOUT:-600}
ourfeat=${OUR_FEATURES:-0}
krefined=${K_REFINED:-0}
for v in "K_REFINED=$krefined" "COLMAP_RUNS=$runs" "PERTURB=$perturb" "GTBA=$gtba" "FINAL_BA=$finalba" "INIT_PAIRS=$initpairs" "INIT_TIMEOUT=$inittimeout" "OUR_FEATURES=$ourfeat"; do
	[[ ${v#*=} =~ ^[0-9]+$ ]] || { echo "sfm-side-by-side.sh: $v: want a whole number ≥ 0" >&2; exit 2; }
done
[[ $frac =~ ^0?\.[0-9]+$ ]] || { echo "sfm-side-by-side.sh: PERTURB_FRAC=$frac: want a fraction in [0, 1), such as 0.03" >&2; exit 2; }
command -v "$cm" > /dev/null || { echo "sfm-side-by-side.sh: $cm: no clearmatch binary there (make build, or set CLEARMATCH)" >&2; exit 2; }
command -v colmap > /dev/null || { echo "sfm-side-by-side.sh: colmap: not on PATH (scripts/setup.sh installs it)" >&2; exit 2; }
export QT_QPA_PLATFORM=offscreen
images=$scene/images
gt=$scene/gt_cameras
for d in "$images" "$gt"; do
	[ -d "$d" ] || { echo "sfm-side-by-side.sh: $d: no such folder (SCENE holds images/ and gt_cameras/)" >&2; exit 2; }
done
mkdir -p "$out"

# The true K at the images' size (scripts/true-k.sh: centres at integers,
# as clearmatch -intrinsics takes it); COLMAP puts the first centre at 0.5.
read -r fx fy cx cy < <("$(dirname "$0")/true-k.sh" "$scene")
K="$fx,$fy,$cx,$cy"
Kc="$fx,$fy,$(python3 -c "print($cx+0.5)"),$(python3 -c "print($cy+0.5)")"
fixed=(--Mapper.ba_refine_focal_length 0 --Mapper.ba_refine_principal_point 0 --Mapper.ba_refine_extra_params 0)

secs() { python3 -c "print(f'{$2-$1:.1f}')"; }
now() { date +%s.%N; }
score() { # MODEL DATABASE -> "pos_median pos_max rot_median registered points reproj tracks_2px"
	local m
	m=$(ls -d "$1"/*/ 2>/dev/null | head -1) || true
	# No model (the mapper failed or kept none): infinite errors, so that
	# a failed COLMAP run sorts last for the median.
	if [ -z "$m" ]; then echo "inf inf inf 0 - - -"; return; fi
	"$cm" eval-sfm "$m" "$gt" -json -db "$2" | python3 -c "
import json,sys; r=json.load(sys.stdin); t=r['database_tracks']
print(f\"{r['position_error']['median']*1000:.2f} {r['position_error']['max']*1000:.2f} {r['rotation_error_deg']['median']:.3f} {r['registered']}/{r['images']} {r['points']} {r['mean_reprojection_error_px']:.3f} {t['precision_2px']:.3f}\")"
}

# median_rows SETTING PIPELINE ROW...: one row a run, and with several
# runs their median: the run of median position error, with the median
# rotation error of the runs.
median_rows() {
	local setting=$1 name=$2 k
	shift 2
	if [ $# = 1 ]; then
		rows+=("$setting $name $1")
		return
	fi
	local r=("$@")
	for k in "${!r[@]}"; do rows+=("$setting $name-run$((k + 1)) ${r[$k]}"); done
	median_only "$setting" "$name-median" "$@"
}

# median_only SETTING NAME ROW...: the median row alone, named NAME: the
# run of median position error, with the median rotation error of the
# runs (with an even count, the lower middle one).
median_only() {
	local setting=$1 name=$2 med rmed
	shift 2
	med=$(printf '%s\n' "$@" | sort -g -k1,1 | sed -n "$((($# + 1) / 2))p")
	rmed=$(printf '%s\n' "$@" | sort -g -k3,3 | sed -n "$((($# + 1) / 2))p" | cut -d' ' -f3)
	# shellcheck disable=SC2086
	set -- $med
	rows+=("$setting $name $1 $2 $rmed $4 $5 $6 $7 -")
}

# drop_matches SRC OUT SEED FRAC: a copy of database SRC with each
# verified match dropped with probability FRAC (Python's random, seeded).
drop_matches() {
	python3 - "$@" <<'PY'
import array, random, shutil, sqlite3, sys
src, out, seed, frac = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
shutil.copyfile(src, out)
rng = random.Random(seed)
db = sqlite3.connect(out)
for pid, data in db.execute('select pair_id, data from two_view_geometries where rows > 0 order by pair_id').fetchall():
    a = array.array('I')
    a.frombytes(data)
    keep = [k for k in range(len(a) // 2) if rng.random() >= frac]
    b = array.array('I', [a[i] for k in keep for i in (2 * k, 2 * k + 1)])
    db.execute('update two_view_geometries set rows = ?, data = ? where pair_id = ?', (len(keep), b.tobytes(), pid))
db.commit()
PY
}

# gt_ba DATABASE OUT: the true cameras (R, C of gt/NAME.camera; the
# database's own cameras, K fixed), points triangulated from them, then
# bundle adjustment; the model in OUT/ba/0 (as the mapper lays it out).
gt_ba() {
	rm -rf "$2"; mkdir -p "$2/gt" "$2/tri" "$2/ba/0"
	python3 - "$1" "$gt" "$2/gt" <<'PY'
import math, sqlite3, struct, sys
db, gt, out = sys.argv[1:]
con = sqlite3.connect(db)
models = {0: 'SIMPLE_PINHOLE', 1: 'PINHOLE', 2: 'SIMPLE_RADIAL', 3: 'RADIAL', 4: 'OPENCV', 6: 'FULL_OPENCV'}
with open(out + '/cameras.txt', 'w') as f:
    for cid, model, w, h, params in con.execute('select camera_id, model, width, height, params from cameras'):
        p = struct.unpack('<%dd' % (len(params) // 8), params)
        f.write('%d %s %d %d %s\n' % (cid, models[model], w, h, ' '.join(repr(x) for x in p)))
def quat(R):  # world-to-camera rotation matrix -> (w, x, y, z)
    t = R[0][0] + R[1][1] + R[2][2]
    if t > 0:
        s = 0.5 / math.sqrt(t + 1)
        return 0.25 / s, (R[2][1] - R[1][2]) * s, (R[0][2] - R[2][0]) * s, (R[1][0] - R[0][1]) * s
    i = max(range(3), key=lambda k: R[k][k])
    j, k = (i + 1) % 3, (i + 2) % 3
    s = 2 * math.sqrt(1 + R[i][i] - R[j][j] - R[k][k])
    q = [0.0] * 4
    q[0] = (R[k][j] - R[j][k]) / s
    q[1 + i] = 0.25 * s
    q[1 + j] = (R[j][i] + R[i][j]) / s
    q[1 + k] = (R[k][i] + R[i][k]) / s
    return tuple(q)
with open(out + '/images.txt', 'w') as f:
    for iid, name, cid in con.execute('select image_id, name, camera_id from images'):
        v = [float(x) for x in open('%s/%s.camera' % (gt, name)).read().split()]
        Rc = [v[12:15], v[15:18], v[18:21]]  # camera-to-world, as Strecha writes it
        R = [[Rc[c][r] for c in range(3)] for r in range(3)]
        C = v[21:24]
        t = [-sum(R[r][c] * C[c] for c in range(3)) for r in range(3)]
        f.write('%d %s %s %d %s\n\n' % (iid, ' '.join(repr(x) for x in quat(R)), ' '.join(repr(x) for x in t), cid, name))
open(out + '/points3D.txt', 'w').close()
PY
	if ! colmap point_triangulator --database_path "$1" --image_path "$images" --input_path "$2/gt" --output_path "$2/tri" > "$2/tri.log" 2>&1 ||
		! colmap bundle_adjuster --input_path "$2/tri" --output_path "$2/ba/0" --BundleAdjustment.refine_focal_length 0 \
			--BundleAdjustment.refine_principal_point 0 --BundleAdjustment.refine_extra_params 0 > "$2/ba.log" 2>&1; then
		rm -rf "$2/ba/0"
	fi
}
# score_gtba DATABASE OUT: gt_ba's model, scored as a row (no wall time).
score_gtba() {
	gt_ba "$1" "$2"
	echo "$(score "$2/ba" "$1") -"
}

# score_final_ba SPARSE DATABASE OUT: SPARSE's model through one more
# bundle adjustment (BAFLAGS), scored as a row (no wall time).
score_final_ba() {
	local m
	m=$(ls -d "$1"/*/ 2>/dev/null | head -1) || true
	rm -rf "$3"; mkdir -p "$3/0"
	if [ -z "$m" ] || ! colmap bundle_adjuster --input_path "$m" --output_path "$3/0" "${baflags[@]}" > "$3.log" 2>&1; then
		rm -rf "$3/0"
	fi
	echo "$(score "$3" "$2") -"
}

# init_pairs DATABASE: "ID1 ID2" for the image pairs of DATABASE with at
# least 100 verified matches, the most first (ties by pair id).
init_pairs() {
	python3 - "$1" <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
n = 2147483647  # COLMAP's pair_id = id1 * n + id2, id1 < id2
q = 'select pair_id from two_view_geometries where rows >= 100 order by rows desc, pair_id'
for (pid,) in con.execute(q):
    print(pid // n, pid % n)
PY
}

# init_startable DATABASE ID1 ID2 DIR: whether the mapper can start from
# the pair (its log says "Initialization failed" when not: too narrow a
# triangulation angle, too few inliers, ...). It asks the mapper on a copy
# of DATABASE holding only the two images and their pair: the start
# depends on nothing else, and the copy loads in a fraction of a second
# where the whole database takes 20-30 s on herz-jesus-p25.
init_startable() {
	rm -rf "$4"; mkdir -p "$4"
	python3 - "$1" "$4/two.db" "$2" "$3" <<'PY'
import shutil, sqlite3, sys
src, dst, i, j = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
shutil.copyfile(src, dst)
con = sqlite3.connect(dst)
for t in ('images', 'keypoints', 'descriptors'):
    con.execute('delete from %s where image_id not in (?, ?)' % t, (i, j))
pid = min(i, j) * 2147483647 + max(i, j)  # COLMAP's pair_id
for t in ('matches', 'two_view_geometries'):
    con.execute('delete from %s where pair_id != ?' % t, (pid,))
con.commit()
con.close()
PY
	colmap mapper --database_path "$4/two.db" --image_path "$images" --output_path "$4" "${mflags[@]}" \
		--Mapper.init_image_id1 "$2" --Mapper.init_image_id2 "$3" > "$4/mapper.log" 2>&1 || true
	local failed=0
	grep -q 'Initialization failed' "$4/mapper.log" && failed=1
	rm -rf "$4"
	[ $failed = 0 ]
}

# init_runs DATABASE OUT: one score row for each of the first INIT_PAIRS
# pairs of init_pairs that the mapper starts from (mflags as the
# setting's). A pair it cannot initialize from (init_startable) is one it
# would pass over by itself: skipped, and the next tried. On
# herz-jesus-p25 the 23 most matched pairs (neighbours) are all too
# narrow; the two-image check passes over them in about a second each.
init_runs() {
	local i j ok=0
	while read -r i j; do
		[ "$ok" -lt "$initpairs" ] || break
		init_startable "$1" "$i" "$j" "$2-check" || continue
		rm -rf "$2-$i-$j"; mkdir -p "$2-$i-$j"
		local rc=0
		timeout "$inittimeout" colmap mapper --database_path "$1" --image_path "$images" --output_path "$2-$i-$j" "${mflags[@]}" \
			--Mapper.init_image_id1 "$i" --Mapper.init_image_id2 "$j" > "$2-$i-$j.log" 2>&1 || rc=$?
		if [ "$rc" = 124 ]; then
			echo "sfm-side-by-side.sh: the mapper started from images $i and $j ran past INIT_TIMEOUT=${inittimeout}s; passed over" >&2
			rm -rf "$2-$i-$j"
			continue
		fi
		grep -q 'Initialization failed' "$2-$i-$j.log" && continue
		ok=$((ok + 1))
		score "$2-$i-$j" "$1"
	done < <(init_pairs "$1")
}

# remap SETTING SUFFIX CMDB [MAPPER_FLAGS...]: only the mapper again,
# with MAPPER_FLAGS, on clearmatch's database CMDB and each COLMAP run's
# of the setting in $d, as rows named SETTING (outputs *-sparse-SUFFIX).
remap() {
	local name=$1 sfx=$2 cmdb=$3 t1 t2 k
	shift 3
	mkdir -p "$d/cm-sparse-$sfx"
	t1=$(now)
	colmap mapper --database_path "$cmdb" --image_path "$images" --output_path "$d/cm-sparse-$sfx" "$@" > "$d/cm-mapper-$sfx.log" 2>&1 || true
	t2=$(now)
	rows+=("$name clearmatch $(score "$d/cm-sparse-$sfx" "$cmdb") 0+$(secs "$t1" "$t2")")
	local mrows=()
	for k in $(seq 1 "$runs"); do
		mkdir -p "$d/colmap-sparse-$sfx$k"
		t1=$(now)
		colmap mapper --database_path "$d/colmap$k.db" --image_path "$images" --output_path "$d/colmap-sparse-$sfx$k" "$@" > "$d/colmap-mapper-$sfx$k.log" 2>&1 || true
		t2=$(now)
		mrows+=("$(score "$d/colmap-sparse-$sfx$k" "$d/colmap$k.db") 0+$(secs "$t1" "$t2")")
	done
	if [ ${#mrows[@]} -gt 0 ]; then median_rows "$name" colmap "${mrows[@]}"; fi
}

rows=()
for setting in calibrated uncalibrated; do
	d=$out/$setting
	rm -rf "$d"; mkdir -p "$d/cm-sparse" "$d/colmap-sparse"
	if [ $setting = calibrated ]; then
		cmflags=(-intrinsics "$K" -camera-model PINHOLE); mflags=("${fixed[@]}")
		baflags=(--BundleAdjustment.refine_focal_length 0 --BundleAdjustment.refine_principal_point 0 --BundleAdjustment.refine_extra_params 0)
		xflags=(--ImageReader.camera_model PINHOLE --ImageReader.camera_params "$Kc")
	else
		cmflags=(); mflags=(); xflags=(--ImageReader.camera_model SIMPLE_RADIAL)
		baflags=() # bundle_adjuster's defaults refine what the mapper's do
	fi
	# clearmatch, then COLMAP's mapper on its database.
	t0=$(now)
	"$cm" match "$images" -out "$d/cm" -export colmap -overlay-pairs none -cache "" "${cmflags[@]}" "${extra[@]}" > "$d/cm.txt" 2> "$d/cm.log"
	t1=$(now)
	colmap mapper --database_path "$d/cm/colmap/database.db" --image_path "$images" --output_path "$d/cm-sparse" "${mflags[@]}" > "$d/cm-mapper.log" 2>&1 || true
	t2=$(now)
	rows+=("$setting clearmatch $(score "$d/cm-sparse" "$d/cm/colmap/database.db") $(secs "$t0" "$t1")+$(secs "$t1" "$t2")")
	if [ "$finalba" != 0 ]; then
		rows+=("$setting clearmatch+ba $(score_final_ba "$d/cm-sparse" "$d/cm/colmap/database.db" "$d/cm-ba")")
	fi
	if [ "$initpairs" != 0 ]; then
		mapfile -t irows < <(init_runs "$d/cm/colmap/database.db" "$d/cm-init")
		if [ ${#irows[@]} -gt 0 ]; then median_only "$setting" clearmatch-init "${irows[@]}"; fi
	fi
	if [ "$gtba" != 0 ] && [ $setting = calibrated ]; then
		rows+=("$setting clearmatch-gtba $(score_gtba "$d/cm/colmap/database.db" "$d/cm-gtba")")
	fi
	# OUR_FEATURES=1: COLMAP's matcher on clearmatch's features.
	if [ "$ourfeat" != 0 ]; then
		odb=$d/colmap-on-cm.db
		cp "$d/cm/colmap/database.db" "$odb"
		python3 - "$odb" <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
con.execute('delete from matches')
con.execute('delete from two_view_geometries')
con.commit()
PY
		mkdir -p "$d/colmap-on-cm-sparse"
		t0=$(now)
		colmap exhaustive_matcher --database_path "$odb" --SiftMatching.use_gpu 0 > "$d/colmap-on-cm-match.log" 2>&1
		t1=$(now)
		colmap mapper --database_path "$odb" --image_path "$images" --output_path "$d/colmap-on-cm-sparse" "${mflags[@]}" > "$d/colmap-on-cm-mapper.log" 2>&1 || true
		t2=$(now)
		rows+=("$setting colmap-on-cm $(score "$d/colmap-on-cm-sparse" "$odb") $(secs "$t0" "$t1")+$(secs "$t1" "$t2")")
		if [ "$gtba" != 0 ] && [ $setting = calibrated ]; then
			rows+=("$setting colmap-on-cm-gtba $(score_gtba "$odb" "$d/colmap-on-cm-gtba")")
		fi
	fi
	# PERTURB=N: the same database with 3% of its matches dropped, N seeds.
	drows=()
	for k in $(seq 1 "$perturb"); do
		ddb=$d/cm-drop$k.db
		drop_matches "$d/cm/colmap/database.db" "$ddb" "$k" "$frac"
		mkdir -p "$d/cm-sparse-drop$k"
		t1=$(now)
		colmap mapper --database_path "$ddb" --image_path "$images" --output_path "$d/cm-sparse-drop$k" "${mflags[@]}" > "$d/cm-mapper-drop$k.log" 2>&1 || true
		t2=$(now)
		drows+=("$(score "$d/cm-sparse-drop$k" "$ddb") 0+$(secs "$t1" "$t2")")
	done
	if [ ${#drows[@]} -gt 0 ]; then median_rows "$setting" cm-drop "${drows[@]}"; fi
	# COLMAP alone, COLMAP_RUNS times (its matcher is not deterministic:
	# the issue's protocol takes the median of three).
	crows=()
	for k in $(seq 1 "$runs"); do
		db=$d/colmap$k.db
		mkdir -p "$d/colmap-sparse$k"
		t0=$(now)
		colmap feature_extractor --database_path "$db" --image_path "$images" --ImageReader.single_camera 1 \
			--SiftExtraction.use_gpu 0 "${xflags[@]}" > "$d/colmap-extract$k.log" 2>&1
		colmap exhaustive_matcher --database_path "$db" --SiftMatching.use_gpu 0 > "$d/colmap-match$k.log" 2>&1
		t1=$(now)
		colmap mapper --database_path "$db" --image_path "$images" --output_path "$d/colmap-sparse$k" "${mflags[@]}" > "$d/colmap-mapper$k.log" 2>&1 || true
		t2=$(now)
		crows+=("$(score "$d/colmap-sparse$k" "$db") $(secs "$t0" "$t1")+$(secs "$t1" "$t2")")
	done
	if [ ${#crows[@]} -gt 0 ]; then median_rows "$setting" colmap "${crows[@]}"; fi
	if [ "$finalba" != 0 ]; then
		brows=()
		for k in $(seq 1 "$runs"); do brows+=("$(score_final_ba "$d/colmap-sparse$k" "$d/colmap$k.db" "$d/colmap-ba$k")"); done
		if [ ${#brows[@]} -gt 0 ]; then median_rows "$setting" colmap+ba "${brows[@]}"; fi
	fi
	if [ "$initpairs" != 0 ]; then
		irows=()
		for k in $(seq 1 "$runs"); do mapfile -t -O "${#irows[@]}" irows < <(init_runs "$d/colmap$k.db" "$d/colmap-init$k"); done
		if [ ${#irows[@]} -gt 0 ]; then median_only "$setting" colmap-init "${irows[@]}"; fi
	fi
	if [ "$gtba" != 0 ] && [ $setting = calibrated ]; then
		grows=()
		for k in $(seq 1 "$runs"); do grows+=("$(score_gtba "$d/colmap$k.db" "$d/colmap-gtba$k")"); done
		if [ ${#grows[@]} -gt 0 ]; then median_rows "$setting" colmap-gtba "${grows[@]}"; fi
	fi
	# K_REFINED=1: the same calibrated databases once more, with the
	# mapper's defaults, which refine the focal lengths (and any
	# distortion) from the true K they start at: what a user gets who
	# gives K to both pipelines and runs colmap mapper as it comes.
	# clearmatch's database there is what `match -intrinsics` writes
	# without -camera-model: the same matches, its camera SIMPLE_RADIAL
	# ((fx + fy)/2, cx, cy, k1 = 0), which the mapper refines with k1.
	if [ $setting = calibrated ] && [ "$krefined" != 0 ]; then
		python3 - "$d/cm/colmap/database.db" "$d/cm-default.db" <<'PY'
import shutil, sqlite3, struct, sys
shutil.copyfile(sys.argv[1], sys.argv[2])
db = sqlite3.connect(sys.argv[2])
for cid, model, params in db.execute("select camera_id, model, params from cameras").fetchall():
    if model != 1:  # PINHOLE, as this script's calibrated run exports
        sys.exit("camera %d: model %d, want PINHOLE" % (cid, model))
    fx, fy, cx, cy = struct.unpack("<4d", params)
    db.execute("update cameras set model = 2, params = ? where camera_id = ?", (struct.pack("<4d", (fx + fy) / 2, cx, cy, 0.0), cid))
db.commit()
PY
		remap K+refine kr "$d/cm-default.db"
	fi
	# REFINE_PP=1: the same uncalibrated databases once more, with the
	# mapper refining the principal point (COLMAP keeps it at the image
	# centre by default).
	if [ $setting = uncalibrated ] && [ "${REFINE_PP:-0}" = 1 ]; then remap uncal+pp pp "$d/cm/colmap/database.db" --Mapper.ba_refine_principal_point 1; fi
done

echo "scene $scene; K $K (clearmatch), $Kc (COLMAP); outputs in $out"
printf '%-13s %-18s %9s %9s %9s %8s %7s %7s %8s %s\n' setting pipeline "pos.med" "pos.max" "rot.med" images points "reproj" "tracks" "wall s (match+mapper)"
printf '%-13s %-18s %9s %9s %9s %8s %7s %7s %8s %s\n' "" "" "mm" "mm" "deg" "" "" "px" "<=2px" ""
for r in "${rows[@]}"; do
	# shellcheck disable=SC2086
	printf '%-13s %-18s %9s %9s %9s %8s %7s %7s %8s %s\n' $r
done
# GTBA=1: how far apart the adjustments from the truth end, and what the
# truth costs (colmap bundle_adjuster's cost, px) against where they end.
cost() { grep -h "$1 cost" "$2" 2>/dev/null | awk '{print $4}'; }
if [ "$gtba" != 0 ] && [ "$runs" -gt 0 ]; then
	d=$out/calibrated
	for k in $(seq 1 "$runs"); do
		a=$d/cm-gtba/ba/0 b=$d/colmap-gtba$k/ba/0
		[ -d "$a" ] && [ -d "$b" ] || continue
		apart=$("$cm" eval-sfm "$a" "$b" -unit m -json | python3 -c "import json,sys; r=json.load(sys.stdin); print('%.2f mm / %.4f deg' % (r['position_error']['median'] * 1000, r['rotation_error_deg']['median']))") || continue
		echo "gtba: clearmatch's and COLMAP run $k's apart by $apart (median); cost at the true cameras -> adjusted: clearmatch $(cost Initial "$d/cm-gtba/ba.log") -> $(cost Final "$d/cm-gtba/ba.log") px, COLMAP $(cost Initial "$d/colmap-gtba$k/ba.log") -> $(cost Final "$d/colmap-gtba$k/ba.log") px"
	done
fi
