package export

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"image"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/calib"
	"github.com/clearmatch/clearmatch/colmap"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/pipeline"
)

func TestColmapPairID(t *testing.T) {
	for _, c := range []struct{ a, b, want int64 }{
		{1, 2, 2147483649},
		{2, 1, 2147483649},
		{3, 11, 3*2147483647 + 11},
		{2147483646, 2147483647 - 1, 2147483646*2147483647 + 2147483646},
	} {
		if got := ColmapPairID(c.a, c.b); got != c.want {
			t.Errorf("ColmapPairID(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// colmapScene is three images with two verified pairs: 0-1 under a
// homography (x_b = 2 x_a + (10, 5)) and 1-2 under an F whose epipolar
// lines are rows y_c = 2 y_b; pair 0-2 was not verified. Neither model is
// invariant to COLMAP's half-pixel shift, so a missed conversion shows.
func colmapScene() (*pipeline.Result, []Match) {
	mk := func(name string, pts [][2]float32) *features.Set {
		s := &features.Set{Image: name, Width: 640, Height: 480}
		for k, p := range pts {
			s.Keypoints = append(s.Keypoints, features.Keypoint{X: p[0], Y: p[1], Size: 4, Angle: 90})
			d := make([]float32, features.DescSize)
			d[k%features.DescSize] = 300 // clamps to 255
			d[(k+1)%features.DescSize] = 7.6
			s.Desc = append(s.Desc, d...)
		}
		return s
	}
	a := mk("a.jpg", [][2]float32{{100, 100}, {200, 50}, {300, 300}})
	b := mk("b.jpg", [][2]float32{{210, 205}, {410, 105}, {50, 50}})
	c := mk("c.jpg", [][2]float32{{400, 410}, {20, 210}, {60, 90}})
	fx := [9]float64{0, 0, 0, 0, 0, -1, 0, 2, 0} // x_cᵀ F x_b = 2 y_b - y_c
	res := &pipeline.Result{
		Scene:   &pipeline.Scene{Sets: []*features.Set{a, b, c}, Scale: []float64{1, 1, 1}},
		Matched: &pipeline.Matched{PixelThreshold: 3},
		Verified: []pairwise.Verified{
			{I: 0, J: 1, Model: pairwise.Homography, Matrix: [9]float64{2, 0, 10, 0, 2, 5, 0, 0, 1}},
			{I: 0, J: 2, Model: pairwise.NoModel},
			{I: 1, J: 2, Model: pairwise.Fundamental, Matrix: fx, F: fx},
		},
	}
	ms := []Match{
		{0, 0, 1, 0}, {0, 1, 1, 1}, {0, 2, 1, 2}, // the last is off H
		{0, 0, 2, 0},                             // pair 0-2: not verified
		{1, 0, 2, 0}, {1, 1, 2, 1}, {1, 2, 2, 2}, // the last is off its row
	}
	return res, ms
}

func TestColmapPairsKeepTrackMatchesOnGeometry(t *testing.T) {
	res, ms := colmapScene()
	pairs, dropped := ColmapPairs(res, ms)
	if len(pairs) != 2 || dropped != 3 {
		t.Fatalf("got %d pairs, %d dropped; want 2 and 3", len(pairs), dropped)
	}
	want := [][][2]uint32{{{0, 0}, {1, 1}}, {{0, 0}, {1, 1}}}
	for k, p := range pairs {
		if len(p.Matches) != len(want[k]) || p.Matches[0] != want[k][0] || p.Matches[1] != want[k][1] {
			t.Errorf("pair %d-%d: matches %v, want %v", p.I, p.J, p.Matches, want[k])
		}
	}
	if pairs[0].Model != pairwise.Homography || pairs[0].H[2] != 10 || pairs[1].F != res.Verified[2].F {
		t.Errorf("models not carried: %+v", pairs)
	}
}

func TestColmapDatabaseLayout(t *testing.T) {
	res, ms := colmapScene()
	pairs, _ := ColmapPairs(res, ms)
	cams := []ColmapCamera{{Camera: colmap.Camera{Model: "SIMPLE_RADIAL", Width: 640, Height: 480, Params: []float64{768, 320, 240, 0}}}}
	path := filepath.Join(t.TempDir(), "database.db")
	d := ColmapDatabase{Sets: res.Sets, Cameras: cams, CameraOf: []int{0, 0, 0}, Pairs: pairs}
	if err := d.Write(path); err != nil {
		t.Fatal(err)
	}
	if err := d.Write(path); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("second Write over the file: %v, want a refusal", err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var version int
	if err := db.QueryRow("PRAGMA user_version").Scan(&version); err != nil || version != 3800 {
		t.Errorf("user_version %d (%v), want 3800", version, err)
	}
	var model, w, h, prior int
	var params []byte
	if err := db.QueryRow("SELECT model, width, height, params, prior_focal_length FROM cameras WHERE camera_id = 1").Scan(&model, &w, &h, &params, &prior); err != nil {
		t.Fatal(err)
	}
	if model != 2 || w != 640 || h != 480 || len(params) != 32 || f64(params, 0) != 768 || f64(params, 2) != 240 {
		t.Errorf("camera: model %d %dx%d params %d bytes", model, w, h, len(params))
	}
	rows, err := db.Query("SELECT image_id, name, camera_id FROM images ORDER BY image_id")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var id, cam int
		var name string
		rows.Scan(&id, &name, &cam)
		if id != len(names)+1 || cam != 1 {
			t.Errorf("image %s: id %d camera %d", name, id, cam)
		}
		names = append(names, name)
	}
	if strings.Join(names, ",") != "a.jpg,b.jpg,c.jpg" {
		t.Errorf("images %v", names)
	}
	var r, c int
	var data []byte
	if err := db.QueryRow("SELECT rows, cols, data FROM keypoints WHERE image_id = 2").Scan(&r, &c, &data); err != nil {
		t.Fatal(err)
	}
	// b's keypoint 0 at (210, 205), scale 2, orientation 90°: COLMAP's
	// affine shape is [[s cos, -s sin], [s sin, s cos]].
	if r != 3 || c != 6 || len(data) != 3*6*4 {
		t.Fatalf("keypoints %d×%d, %d bytes", r, c, len(data))
	}
	got := []float32{f32(data, 0), f32(data, 1), f32(data, 2), f32(data, 3), f32(data, 4), f32(data, 5)}
	wantKp := []float32{210.5, 205.5, 0, -2, 2, 0}
	for k := range got {
		if math.Abs(float64(got[k]-wantKp[k])) > 1e-6 {
			t.Errorf("keypoint row %v, want %v", got, wantKp)
			break
		}
	}
	if err := db.QueryRow("SELECT rows, cols, data FROM descriptors WHERE image_id = 1").Scan(&r, &c, &data); err != nil {
		t.Fatal(err)
	}
	if r != 3 || c != 128 || len(data) != 3*128 || data[0] != 255 || data[1] != 8 || data[128+1] != 255 {
		t.Errorf("descriptors %d×%d, %d bytes, first %v", r, c, len(data), data[:3])
	}
	n := 0
	q, err := db.Query("SELECT pair_id, rows, cols, data, config, F, E, H, qvec, tvec FROM two_view_geometries ORDER BY pair_id")
	if err != nil {
		t.Fatal(err)
	}
	for q.Next() {
		var id int64
		var config int
		var F, E, H, qv, tv []byte
		if err := q.Scan(&id, &r, &c, &data, &config, &F, &E, &H, &qv, &tv); err != nil {
			t.Fatal(err)
		}
		p := pairs[n]
		if id != ColmapPairID(int64(p.I+1), int64(p.J+1)) || r != 2 || c != 2 || len(data) != 16 || len(F) != 72 || len(E) != 72 || len(H) != 72 || len(qv) != 32 || len(tv) != 24 {
			t.Errorf("pair %d: id %d, %d×%d, blobs %d %d %d %d %d %d", n, id, r, c, len(data), len(F), len(E), len(H), len(qv), len(tv))
		}
		if binary.LittleEndian.Uint32(data[8:]) != 1 || binary.LittleEndian.Uint32(data[12:]) != 1 {
			t.Errorf("pair %d: second match %v", n, data[8:])
		}
		a, b := res.Sets[p.I].Keypoints[1], res.Sets[p.J].Keypoints[1]
		xa := [3]float64{float64(a.X) + 0.5, float64(a.Y) + 0.5, 1}
		xb := [3]float64{float64(b.X) + 0.5, float64(b.Y) + 0.5, 1}
		switch n {
		case 0: // H in COLMAP pixels still maps the match exactly.
			if config != 6 {
				t.Errorf("H pair config %d, want 6 (PLANAR_OR_PANORAMIC)", config)
			}
			m := mat9(H)
			w := m[6]*xa[0] + m[7]*xa[1] + m[8]
			if math.Abs((m[0]*xa[0]+m[1]*xa[1]+m[2])/w-xb[0]) > 1e-9 || math.Abs((m[3]*xa[0]+m[4]*xa[1]+m[5])/w-xb[1]) > 1e-9 {
				t.Errorf("H in COLMAP pixels does not map %v to %v: %v", xa, xb, m)
			}
		case 1: // F in COLMAP pixels: x_bᵀ F x_a = 0, and row-major.
			if config != 3 {
				t.Errorf("F pair config %d, want 3 (UNCALIBRATED)", config)
			}
			m := mat9(F)
			if m[5] != -1 || m[7] != 2 {
				t.Errorf("F not row-major: %v", m)
			}
			e := 0.0
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					e += xb[i] * m[3*i+j] * xa[j]
				}
			}
			if math.Abs(e) > 1e-9 {
				t.Errorf("x_bᵀ F x_a = %g in COLMAP pixels", e)
			}
		}
		n++
	}
	if n != 2 {
		t.Errorf("%d two-view geometries, want 2", n)
	}
	var mrows int
	if err := db.QueryRow("SELECT sum(rows) FROM matches").Scan(&mrows); err != nil || mrows != 4 {
		t.Errorf("matches table holds %d rows (%v), want the 4 inliers", mrows, err)
	}
	if _, err := os.Stat(path + "-journal"); err == nil {
		t.Error("a journal was left beside the database")
	}
}

func TestColmapDatabaseRefusesBadInput(t *testing.T) {
	res, ms := colmapScene()
	pairs, _ := ColmapPairs(res, ms)
	cams := []ColmapCamera{{Camera: colmap.Camera{Model: "SIMPLE_RADIAL", Width: 640, Height: 480, Params: []float64{768, 320, 240, 0}}}}
	for name, d := range map[string]ColmapDatabase{
		"camera index": {Sets: res.Sets, Cameras: cams, CameraOf: []int{0, 1, 0}, Pairs: pairs},
		"camera count": {Sets: res.Sets, Cameras: cams, CameraOf: []int{0}, Pairs: pairs},
		"pair order":   {Sets: res.Sets, Cameras: cams, CameraOf: []int{0, 0, 0}, Pairs: []ColmapPair{{I: 1, J: 0, Model: pairwise.Homography}}},
		"keypoint":     {Sets: res.Sets, Cameras: cams, CameraOf: []int{0, 0, 0}, Pairs: []ColmapPair{{I: 0, J: 1, Model: pairwise.Homography, Matches: [][2]uint32{{7, 0}}}}},
		"model":        {Sets: res.Sets, Cameras: []ColmapCamera{{Camera: colmap.Camera{Model: "FISHEYE?"}}}, CameraOf: []int{0, 0, 0}},
	} {
		path := filepath.Join(t.TempDir(), "database.db")
		if err := d.Write(path); err == nil {
			t.Errorf("%s: no error", name)
		}
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%s: a partial database was left", name)
		}
	}
}

func TestColmapCameras(t *testing.T) {
	dir := t.TempDir()
	// A JPEG whose EXIF gives 5.85 mm at 800 px per mm of focal plane
	// (sensor 4 mm wide for a 3200 px wide original), seen here at
	// 320×240, so f = 5.85 mm · 800 px/mm · 320/3200.
	exifJPEG := writeExifJPEG(t, filepath.Join(dir, "exif.jpg"), 320, 240, exifTags{focalMM: 5.85, planeRes: 800, planeUnit: 4, pixelX: 3200, f35: 35})
	only35 := writeExifJPEG(t, filepath.Join(dir, "f35.jpg"), 320, 240, exifTags{focalMM: 5.85, f35: 35})
	plain := filepath.Join(dir, "plain.jpg")
	writeJPEG(t, plain, 320, 240, nil)
	sets := []*features.Set{{Image: "exif.jpg", Width: 320, Height: 240}, {Image: "f35.jpg", Width: 320, Height: 240}, {Image: "plain.jpg", Width: 320, Height: 240}, {Image: "plain2.jpg", Width: 320, Height: 240}}
	images := []pipeline.Image{{Path: exifJPEG}, {Path: only35}, {Path: plain}, {Path: filepath.Join(dir, "missing.jpg")}}

	wantF := []float64{5.85 * 800 * 320 / 3200, 35 * 400 / math.Hypot(36, 24), 1.2 * 320, 1.2 * 320}
	wantSrc := []string{"exif", "exif-35mm", "default", "default"}
	for i := range images {
		f, src := FocalPrior(images[i].Path, 320, 240)
		if math.Abs(f-wantF[i]) > 1e-9 || src != wantSrc[i] {
			t.Errorf("image %d: focal %v from %s, want %v from %s", i, f, src, wantF[i], wantSrc[i])
		}
	}
	tests := []struct {
		name     string
		opts     CameraOptions
		cams     int
		camOf    []int
		params0  []float64
		priorCam []bool
	}{
		{"shared by prior", CameraOptions{}, 3, []int{0, 1, 2, 2}, []float64{wantF[0], 160, 120, 0}, []bool{true, true, false}},
		{"per image", CameraOptions{PerImage: true, Model: "PINHOLE"}, 4, []int{0, 1, 2, 3}, []float64{wantF[0], wantF[0], 160, 120}, []bool{true, true, false, false}},
		{"intrinsics", CameraOptions{Model: "OPENCV", Intrinsics: geom.Intrinsics{Fx: 300, Fy: 310, Cx: 159.5, Cy: 119.5}}, 1, []int{0, 0, 0, 0}, []float64{300, 310, 160, 120, 0, 0, 0, 0}, []bool{true}},
		{"simple pinhole", CameraOptions{Model: "SIMPLE_PINHOLE", Intrinsics: geom.Intrinsics{Fx: 300, Fy: 310, Cx: 159.5, Cy: 119.5}}, 1, []int{0, 0, 0, 0}, []float64{305, 160, 120}, []bool{true}},
	}
	// Self-calibration starts every camera at its estimate, accepted, when
	// the images share one size and focal prior.
	sc := &calib.Result{Accepted: true, Camera: calib.SimpleRadial{Focal: 400, Cx: 158.5, Cy: 121.5, K1: -0.01}}
	for _, tc := range []struct {
		name   string
		images []pipeline.Image
		sets   []*features.Set
		opts   CameraOptions
		params []float64
		src    string
	}{
		{"self-calibration", images[2:], sets[2:], CameraOptions{SelfCalibration: sc}, []float64{400, 159, 122, -0.01}, "self-calibration"},
		{"self-calibration, OPENCV", images[2:], sets[2:], CameraOptions{Model: "OPENCV", SelfCalibration: sc}, []float64{400, 400, 159, 122, -0.01, 0, 0, 0}, "self-calibration"},
		{"self-calibration, PINHOLE", images[2:], sets[2:], CameraOptions{Model: "PINHOLE", SelfCalibration: sc}, []float64{400, 400, 159, 122}, "self-calibration"},
		{"not accepted", images[2:], sets[2:], CameraOptions{SelfCalibration: &calib.Result{Camera: sc.Camera}}, []float64{384, 160, 120, 0}, "default"},
		{"focal priors differ", images, sets, CameraOptions{SelfCalibration: sc}, []float64{wantF[0], 160, 120, 0}, "exif"},
		{"intrinsics given", images[2:], sets[2:], CameraOptions{Model: "PINHOLE", Intrinsics: geom.Intrinsics{Fx: 300, Fy: 310, Cx: 159.5, Cy: 119.5}, SelfCalibration: sc}, []float64{300, 310, 160, 120}, "intrinsics"},
	} {
		cams, _, err := ColmapCameras(tc.images, tc.sets, tc.opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(cams[0].Params) != len(tc.params) || cams[0].Source != tc.src || cams[0].PriorFocal != (tc.src != "default") {
			t.Errorf("%s: camera %+v, want params %v from %s", tc.name, cams[0], tc.params, tc.src)
			continue
		}
		for k, v := range tc.params {
			if math.Abs(cams[0].Params[k]-v) > 1e-9 {
				t.Errorf("%s: params %v, want %v", tc.name, cams[0].Params, tc.params)
				break
			}
		}
	}
	for _, tc := range tests {
		cams, camOf, err := ColmapCameras(images, sets, tc.opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(cams) != tc.cams || len(camOf) != len(tc.camOf) {
			t.Fatalf("%s: %d cameras, camOf %v", tc.name, len(cams), camOf)
		}
		for i := range camOf {
			if camOf[i] != tc.camOf[i] {
				t.Errorf("%s: camOf %v, want %v", tc.name, camOf, tc.camOf)
				break
			}
		}
		for k, v := range tc.params0 {
			if math.Abs(cams[0].Params[k]-v) > 1e-9 {
				t.Errorf("%s: params %v, want %v", tc.name, cams[0].Params, tc.params0)
				break
			}
		}
		for c, p := range tc.priorCam {
			if cams[c].PriorFocal != p {
				t.Errorf("%s: camera %d prior %v, want %v", tc.name, c, cams[c].PriorFocal, p)
			}
		}
	}
	if _, _, err := ColmapCameras(images, sets, CameraOptions{Model: "FISHEYE"}); err == nil {
		t.Error("unknown model accepted")
	}
}

func TestFocalPriorSurvivesDamagedExif(t *testing.T) {
	dir := t.TempDir()
	good := writeExifJPEG(t, filepath.Join(dir, "g.jpg"), 64, 48, exifTags{focalMM: 5, f35: 35})
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	// Cut the EXIF block's offsets to garbage at every byte of the block.
	for k := 12; k < 120 && k < len(b); k++ {
		bad := bytes.Clone(b)
		bad[k] ^= 0xff
		p := filepath.Join(dir, "bad.jpg")
		os.WriteFile(p, bad, 0o644)
		if f, _ := FocalPrior(p, 64, 48); !(f > 0) {
			t.Fatalf("byte %d: focal %v", k, f)
		}
	}
}

func f32(b []byte, i int) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
}

func f64(b []byte, i int) float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
}

func mat9(b []byte) [9]float64 {
	var m [9]float64
	for i := range m {
		m[i] = f64(b, i)
	}
	return m
}

type exifTags struct {
	focalMM, planeRes float64
	planeUnit, pixelX int
	f35               int
}

// writeExifJPEG writes a w×h JPEG with an APP1 EXIF block holding the
// given tags (zero ones left out) and returns its path.
func writeExifJPEG(t *testing.T, path string, w, h int, tags exifTags) string {
	t.Helper()
	le := binary.LittleEndian
	type entry struct {
		tag, typ uint16
		val      []byte // SHORT: 2 bytes inline; RATIONAL: 8 bytes out of line
	}
	rat := func(v float64) []byte {
		b := le.AppendUint32(nil, uint32(math.Round(v*1000)))
		return le.AppendUint32(b, 1000)
	}
	short := func(v int) []byte { return le.AppendUint16(nil, uint16(v)) }
	var ex []entry
	if tags.focalMM > 0 {
		ex = append(ex, entry{0x920a, 5, rat(tags.focalMM)})
	}
	if tags.pixelX > 0 {
		ex = append(ex, entry{0xa002, 3, short(tags.pixelX)})
	}
	if tags.planeRes > 0 {
		ex = append(ex, entry{0xa20e, 5, rat(tags.planeRes)})
	}
	if tags.planeUnit > 0 {
		ex = append(ex, entry{0xa210, 3, short(tags.planeUnit)})
	}
	if tags.f35 > 0 {
		ex = append(ex, entry{0xa405, 3, short(tags.f35)})
	}
	// TIFF header (8) + IFD0 with one entry, the Exif IFD pointer (2+12+4),
	// then the Exif IFD and its out-of-line rationals.
	tiff := []byte("II*\x00")
	tiff = le.AppendUint32(tiff, 8)
	tiff = le.AppendUint16(tiff, 1)
	exifOff := uint32(8 + 2 + 12 + 4)
	tiff = le.AppendUint16(tiff, 0x8769)
	tiff = le.AppendUint16(tiff, 4)
	tiff = le.AppendUint32(tiff, 1)
	tiff = le.AppendUint32(tiff, exifOff)
	tiff = le.AppendUint32(tiff, 0)
	data := exifOff + 2 + 12*uint32(len(ex)) + 4
	var extra []byte
	tiff = le.AppendUint16(tiff, uint16(len(ex)))
	for _, e := range ex {
		tiff = le.AppendUint16(tiff, e.tag)
		tiff = le.AppendUint16(tiff, e.typ)
		tiff = le.AppendUint32(tiff, 1)
		if e.typ == 3 {
			tiff = append(tiff, e.val...)
			tiff = append(tiff, 0, 0)
		} else {
			tiff = le.AppendUint32(tiff, data+uint32(len(extra)))
			extra = append(extra, e.val...)
		}
	}
	tiff = le.AppendUint32(tiff, 0)
	tiff = append(tiff, extra...)
	app1 := append([]byte("Exif\x00\x00"), tiff...)
	writeJPEG(t, path, w, h, app1)
	return path
}

// writeJPEG writes a grey w×h JPEG, with app1 (if any) as its APP1 segment.
func writeJPEG(t *testing.T, path string, w, h int, app1 []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h)), nil); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	out := append([]byte{}, b[:2]...) // SOI
	if app1 != nil {
		out = append(out, 0xff, 0xe1)
		out = binary.BigEndian.AppendUint16(out, uint16(len(app1)+2))
		out = append(out, app1...)
	}
	out = append(out, b[2:]...)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}
