#!/usr/bin/env bash
# true-k.sh SCENE: prints "fx fy cx cy", the ground-truth K of SCENE's first
# photo (SCENE/images and SCENE/gt_cameras/NAME.camera, Strecha's format) at
# the photo's own size: scaled by width, and the pixel-centre convention
# moved by (s - 1)/2 (centres at integers, as clearmatch -intrinsics takes
# it; COLMAP's are 0.5 more). Needs python3.
set -euo pipefail
scene=${1:?usage: true-k.sh SCENE}
first=$(ls "$scene/images" | head -1)
[ -n "$first" ] || { echo "true-k.sh: $scene/images: no photos" >&2; exit 2; }
[ -f "$scene/gt_cameras/$first.camera" ] || { echo "true-k.sh: $scene/gt_cameras/$first.camera: no such file" >&2; exit 2; }
python3 - "$scene/images/$first" "$scene/gt_cameras/$first.camera" <<'PY'
import struct, sys
def image_size(p):
    d = open(p, 'rb').read()
    if d[:8] == b'\x89PNG\r\n\x1a\n':
        return struct.unpack('>II', d[16:24])
    if d[:2] != b'\xff\xd8':
        sys.exit(p + ': neither JPEG nor PNG')
    i = 2
    while i + 9 <= len(d):
        m, l = d[i + 1], struct.unpack('>H', d[i + 2:i + 4])[0]
        if m in (0xC0, 0xC1, 0xC2):
            h, w = struct.unpack('>HH', d[i + 5:i + 9])
            return w, h
        i += 2 + l
    sys.exit('no JPEG frame header in ' + p)
w, _ = image_size(sys.argv[1])
v = open(sys.argv[2]).read().split()
if len(v) < 26:
    sys.exit(sys.argv[2] + ': want 26 numbers (K, distortion, R, t, width height)')
K = [float(x) for x in v[:9]]
s = w / float(v[24])
print(K[0] * s, K[4] * s, (K[2] + 0.5) * s - 0.5, (K[5] + 0.5) * s - 0.5)
PY
