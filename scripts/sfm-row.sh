#!/usr/bin/env bash
# sfm-row.sh SPARSE GT: one table row for the first model in SPARSE (as
# colmap mapper lays its output out), scored by clearmatch eval-sfm
# against the Strecha-format cameras in GT: "pos_median_mm rot_median_deg
# registered/images points mean_track_length reproj_px"; "inf inf 0 - - -"
# when the mapper wrote no model (so that a failed run sorts last).
# CLEARMATCH is the binary (default bin/clearmatch). Used by
# sfm-attribution.sh and tracks-side-by-side.sh.
set -euo pipefail
sparse=${1:?usage: sfm-row.sh SPARSE GT} gt=${2:?usage: sfm-row.sh SPARSE GT}
m=$(ls -d "$sparse"/*/ 2>/dev/null | head -1) || true
if [ -z "$m" ]; then echo "inf inf 0 - - -"; exit 0; fi
"${CLEARMATCH:-bin/clearmatch}" eval-sfm "$m" "$gt" -json | python3 -c "
import json,sys; r=json.load(sys.stdin)
print(f\"{r['position_error']['median']*1000:.2f} {r['rotation_error_deg']['median']:.3f} {r['registered']}/{r['images']} {r['points']} {r['mean_track_length']:.2f} {r['mean_reprojection_error_px']:.3f}\")"
