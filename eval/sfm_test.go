package eval

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/colmap"
	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/geom"
)

// rotation returns the rotation of angle a (radians) about axis (x, y, z).
func rotation(a, x, y, z float64) [3][3]float64 {
	n := math.Sqrt(x*x + y*y + z*z)
	x, y, z = x/n, y/n, z/n
	c, s, t := math.Cos(a), math.Sin(a), 1-math.Cos(a)
	return [3][3]float64{
		{t*x*x + c, t*x*y - s*z, t*x*z + s*y},
		{t*x*y + s*z, t*y*y + c, t*y*z - s*x},
		{t*x*z - s*y, t*y*z + s*x, t*z*z + c},
	}
}

func mul3(a, b [3][3]float64) (c [3][3]float64) {
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 3; k++ {
				c[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return c
}

func transpose(a [3][3]float64) (t [3][3]float64) {
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			t[i][j] = a[j][i]
		}
	}
	return t
}

// quaternion returns COLMAP's (w, x, y, z) for a rotation matrix.
func quaternion(r [3][3]float64) [4]float64 {
	w := math.Sqrt(math.Max(0, 1+r[0][0]+r[1][1]+r[2][2])) / 2
	x := math.Copysign(math.Sqrt(math.Max(0, 1+r[0][0]-r[1][1]-r[2][2]))/2, r[2][1]-r[1][2])
	y := math.Copysign(math.Sqrt(math.Max(0, 1-r[0][0]+r[1][1]-r[2][2]))/2, r[0][2]-r[2][0])
	z := math.Copysign(math.Sqrt(math.Max(0, 1-r[0][0]-r[1][1]+r[2][2]))/2, r[1][0]-r[0][1])
	return [4]float64{w, x, y, z}
}

// sfmScene returns ground-truth cameras around a facade, and the same
// cameras in a model frame: x_model = (Rsᵀ (x_gt − T)) / S, so that the
// similarity (S, Rs, T) maps the model onto the ground truth.
func sfmScene(n int) (gt map[string]datasets.Camera, model map[string]geom.Pose, sim Similarity) {
	sim = Similarity{S: 3.7, R: rotation(1.1, 0.3, -1, 0.5), T: [3]float64{-2, 5, 0.5}}
	gt, model = map[string]datasets.Camera{}, map[string]geom.Pose{}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%04d.jpg", i)
		r := rotation(0.2+0.15*float64(i), 0.1, 1, 0.2*float64(i%3))
		c := [3]float64{float64(i) - 4, 0.3 * float64(i%2), 6 + 0.1*float64(i)}
		gt[name] = datasets.Camera{Pose: geom.Pose{R: r, C: c}}
		var d, mc [3]float64
		for k := 0; k < 3; k++ {
			d[k] = c[k] - sim.T[k]
		}
		for k := 0; k < 3; k++ {
			for j := 0; j < 3; j++ {
				mc[k] += sim.R[j][k] * d[j] / sim.S
			}
		}
		// World to camera in the model frame: R_gt·Rs.
		model[name] = geom.Pose{R: mul3(r, sim.R), C: mc}
	}
	return gt, model, sim
}

// translation returns COLMAP's t = −R·C.
func translation(c geom.Pose) [3]float64 {
	var t [3]float64
	for i := 0; i < 3; i++ {
		for k := 0; k < 3; k++ {
			t[i] -= c.R[i][k] * c.C[k]
		}
	}
	return t
}

// writeModelText writes cameras, images and points3D as COLMAP's text
// model: two points, of track lengths 2 and 3, errors 0.5 and 1.
func writeModelText(t *testing.T, dir string, cams map[string]geom.Pose, names []string) {
	var im strings.Builder
	im.WriteString("# Image list with two lines of data per image:\n")
	for i, n := range names {
		q, tr := quaternion(cams[n].R), translation(cams[n])
		fmt.Fprintf(&im, "%d %.17g %.17g %.17g %.17g %.17g %.17g %.17g 1 %s\n", i+1, q[0], q[1], q[2], q[3], tr[0], tr[1], tr[2], n)
		if i%2 == 0 {
			im.WriteString("10.5 20.5 -1 30 40 7\n")
		} else {
			im.WriteString("\n")
		}
	}
	os.WriteFile(filepath.Join(dir, "cameras.txt"), []byte("1 PINHOLE 100 80 90 90 50 40\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "images.txt"), []byte(im.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "points3D.txt"), []byte("# 3D point list\n7 1 2 3 255 0 0 0.5 1 1 2 0\n8 1 2 4 0 0 0 1 1 0 2 1 3 0\n"), 0o644)
}

// writeModelBinary writes the same model in COLMAP's binary format.
func writeModelBinary(t *testing.T, dir string, cams map[string]geom.Pose, names []string) {
	le := binary.LittleEndian
	var im bytes.Buffer
	binary.Write(&im, le, uint64(len(names)))
	for i, n := range names {
		q, tr := quaternion(cams[n].R), translation(cams[n])
		binary.Write(&im, le, int32(i+1))
		binary.Write(&im, le, [7]float64{q[0], q[1], q[2], q[3], tr[0], tr[1], tr[2]})
		binary.Write(&im, le, int32(1))
		im.WriteString(n + "\x00")
		binary.Write(&im, le, uint64(1))
		binary.Write(&im, le, [2]float64{10.5, 20.5})
		binary.Write(&im, le, int64(-1))
	}
	var pt bytes.Buffer
	binary.Write(&pt, le, uint64(2))
	for _, p := range []struct {
		e  float64
		tl int
	}{{0.5, 2}, {1, 3}} {
		binary.Write(&pt, le, uint64(7))
		binary.Write(&pt, le, [3]float64{1, 2, 3})
		pt.Write([]byte{1, 2, 3})
		binary.Write(&pt, le, p.e)
		binary.Write(&pt, le, uint64(p.tl))
		for k := 0; k < p.tl; k++ {
			binary.Write(&pt, le, [2]int32{int32(k + 1), 0})
		}
	}
	os.WriteFile(filepath.Join(dir, "images.bin"), im.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "points3D.bin"), pt.Bytes(), 0o644)
}

func TestUmeyama(t *testing.T) {
	gt, model, want := sfmScene(6)
	var src, dst [][3]float64
	for n := range gt {
		src, dst = append(src, model[n].C), append(dst, gt[n].C)
	}
	got, err := Umeyama(src, dst)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.S-want.S) > 1e-9 {
		t.Errorf("scale %v, want %v", got.S, want.S)
	}
	for i := 0; i < 3; i++ {
		if math.Abs(got.T[i]-want.T[i]) > 1e-9 {
			t.Errorf("translation %v, want %v", got.T, want.T)
		}
		for k := 0; k < 3; k++ {
			if math.Abs(got.R[i][k]-want.R[i][k]) > 1e-9 {
				t.Fatalf("rotation %v, want %v", got.R, want.R)
			}
		}
	}
	for _, tc := range []struct {
		name     string
		src, dst [][3]float64
	}{
		{"two points", src[:2], dst[:2]},
		{"one place", [][3]float64{{1, 1, 1}, {1, 1, 1}, {1, 1, 1}}, dst[:3]},
		{"one line", [][3]float64{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}}, dst[:3]},
	} {
		if _, err := Umeyama(tc.src, tc.dst); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// TestEvaluateSfM: a model that is the ground truth in another frame
// (scaled, turned, moved) has zero error, from text and binary files
// alike; a moved and a turned camera show their errors; an unregistered
// image is listed.
func TestEvaluateSfM(t *testing.T) {
	gt, model, _ := sfmScene(8)
	names := []string{"0000.jpg", "0001.jpg", "0002.jpg", "0003.jpg", "0004.jpg", "0005.jpg", "0006.jpg"} // 0007 missing
	for _, format := range []string{"text", "binary"} {
		dir := t.TempDir()
		if format == "text" {
			writeModelText(t, dir, model, names)
		} else {
			writeModelBinary(t, dir, model, names)
		}
		m, err := colmap.ReadModel(dir)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		r, err := EvaluateSfM(m, gt)
		if err != nil {
			t.Fatal(err)
		}
		if r.Registered != 7 || r.Images != 8 || len(r.Missing) != 1 || r.Missing[0] != "0007.jpg" {
			t.Errorf("%s: registered %d of %d, missing %v", format, r.Registered, r.Images, r.Missing)
		}
		if r.Position.Max > 1e-9 || r.Rotation.Max > 1e-5 || math.Abs(r.Scale-3.7) > 1e-9 {
			t.Errorf("%s: errors %+v %+v, scale %v; want zero and 3.7", format, r.Position, r.Rotation, r.Scale)
		}
		if r.Points != 2 || r.MeanTrackLength != 2.5 || r.MeanReprojection != 0.75 {
			t.Errorf("%s: points %d, track %v, reprojection %v; want 2, 2.5, 0.75", format, r.Points, r.MeanTrackLength, r.MeanReprojection)
		}
		// 7 registered: 21 pairs, none off (the model is a similarity of
		// the truth: scale, rotation and shift change no relative pose).
		if r.Pairs != 21 || r.RelativeRotation.Max > 1e-5 || r.RelativeDirection.Max > 1e-5 {
			t.Errorf("%s: %d pairs, relative rotation %+v, direction %+v; want 21 and zero", format, r.Pairs, r.RelativeRotation, r.RelativeDirection)
		}
	}
	// Turn every camera by the same 1.5° about its centre (a rotation of
	// the model's world, its centres kept): each is 1.5° off, all of it
	// shared, nothing left once the shared part is out, and no pair
	// moves.
	turned := map[string]geom.Pose{}
	for n, c := range model {
		c.R = mul3(c.R, rotation(1.5*math.Pi/180, 0.6, 0, 0.8))
		turned[n] = c
	}
	r, err := EvaluateSfM(&colmap.Model{Poses: turned}, gt)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Rotation.Median-1.5) > 1e-6 || math.Abs(r.Rotation.Max-1.5) > 1e-6 || math.Abs(r.RotationCommon-1.5) > 1e-6 ||
		r.RotationResidual.Max > 1e-6 || r.RelativeRotation.Max > 1e-6 || r.Position.Max > 1e-9 {
		t.Errorf("every camera turned 1.5°: rotation %+v, shared %v, the rest %+v, pairs %+v",
			r.Rotation, r.RotationCommon, r.RotationResidual, r.RelativeRotation)
	}
	// Turn one camera by 2° about its own axis: only its rotation error.
	c := model["0003.jpg"]
	c.R = mul3(rotation(2*math.Pi/180, 0, 0, 1), c.R)
	model["0003.jpg"] = c
	r, err = EvaluateSfM(&colmap.Model{Poses: model}, gt)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range r.PerImage {
		want := 0.0
		if e.Name == "0003.jpg" {
			want = 2
		}
		if math.Abs(e.Rotation-want) > 1e-6 || e.Position > 1e-9 {
			t.Errorf("%s: rotation %v (want %v), position %v", e.Name, e.Rotation, want, e.Position)
		}
	}
	// The 7 of 28 pairs with 0003 have a relative rotation 2° off: median
	// 0, mean 0.5, max 2. Their directions are off by at most 2° (only
	// those seen from 0003, the later camera of pairs 0000–0002 with it),
	// the others not at all.
	if r.Pairs != 28 || r.RelativeRotation.Median > 1e-6 || math.Abs(r.RelativeRotation.Mean-0.5) > 1e-6 ||
		math.Abs(r.RelativeRotation.Max-2) > 1e-6 {
		t.Errorf("one camera turned 2°: %d pairs, relative rotation %+v", r.Pairs, r.RelativeRotation)
	}
	if d := r.RelativeDirection; d.Median > 1e-6 || d.Max < 0.1 || d.Max > 2+1e-6 {
		t.Errorf("one camera turned 2°: relative direction %+v", d)
	}
	// Noise on every centre: the errors are of the noise's size, the
	// median at most the maximum. The cameras are drawn in name order, so
	// the noise is the same on every run (a map's order is not).
	rng := rand.New(rand.NewPCG(1, 2))
	all := make([]string, 0, len(model))
	for n := range model {
		all = append(all, n)
	}
	sort.Strings(all)
	clean := map[string][3]float64{}
	for _, n := range all {
		c := model[n]
		clean[n] = c.C
		for k := range c.C {
			c.C[k] += 0.01 * rng.NormFloat64()
		}
		model[n] = c
	}
	if r, err = EvaluateSfM(&colmap.Model{Poses: model}, gt); err != nil {
		t.Fatal(err)
	}
	if !(r.Position.Median > 0.001 && r.Position.Median <= r.Position.Max && r.Position.Max < 0.3) {
		t.Errorf("noise 0.01 (×3.7 in GT units): position errors %+v", r.Position)
	}
	// The rotations are exact, so a pair's direction error is the angle
	// between its clean baseline b and b + δ (δ the difference of the two
	// noises), at most asin(|δ|/|b|) whatever the frame.
	bound := 0.0
	for i, a := range all {
		for _, b := range all[i+1:] {
			var base, delta float64
			for k := 0; k < 3; k++ {
				base += sq(clean[b][k] - clean[a][k])
				delta += sq((model[b].C[k] - clean[b][k]) - (model[a].C[k] - clean[a][k]))
			}
			if x := math.Sqrt(delta / base); x >= 1 {
				t.Fatalf("%s–%s: noise %v over a baseline of %v", a, b, math.Sqrt(delta), math.Sqrt(base))
			} else {
				bound = math.Max(bound, math.Asin(x)*180/math.Pi)
			}
		}
	}
	if d := r.RelativeDirection; !(d.Median > 0.001 && d.Median <= d.Max && d.Max <= bound+1e-9) {
		t.Errorf("noise on the centres: relative direction %+v, max allowed %v°", d, bound)
	}
}

// TestRelativeErrors: camera c is turned 3° about y, a and b share a
// centre. Relative rotations: the 3 of 6 pairs with c are 3° off.
// Directions: a–b has none (5 of 6 pairs count); those seen from c (the
// later camera of a–c and b–c) are 3° off, the rest exact.
func TestRelativeErrors(t *testing.T) {
	id := [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	centres := map[string][3]float64{"a": {0, 0, 0}, "b": {0, 0, 0}, "c": {1, 0, 0}, "d": {0, 1, 0.5}}
	gt, model := map[string]datasets.Camera{}, map[string]geom.Pose{}
	for n, c := range centres {
		gt[n] = datasets.Camera{Pose: geom.Pose{R: id, C: c}}
		model[n] = geom.Pose{R: id, C: c}
	}
	model["c"] = geom.Pose{R: rotation(3*math.Pi/180, 0, 1, 0), C: centres["c"]}
	r, err := EvaluateSfM(&colmap.Model{Poses: model}, gt)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		what string
		got  Summary
		want Summary
	}{
		{"relative rotation", r.RelativeRotation, Summary{Median: 1.5, Mean: 1.5, Max: 3}},
		{"relative direction", r.RelativeDirection, Summary{Median: 0, Mean: 6.0 / 5, Max: 3}},
	} {
		if math.Abs(tc.got.Median-tc.want.Median) > 1e-9 || math.Abs(tc.got.Mean-tc.want.Mean) > 1e-9 || math.Abs(tc.got.Max-tc.want.Max) > 1e-9 {
			t.Errorf("%s %+v, want %+v", tc.what, tc.got, tc.want)
		}
	}
	if r.Pairs != 6 {
		t.Errorf("%d pairs, want 6", r.Pairs)
	}
}

// TestReadColmapModelErrors: damaged files are one-line errors naming the
// file (and the line, for text), never a panic or a huge allocation.
func TestReadColmapModelErrors(t *testing.T) {
	gt, model, _ := sfmScene(3)
	_ = gt
	names := []string{"0000.jpg", "0001.jpg", "0002.jpg"}
	good := t.TempDir()
	writeModelBinary(t, good, model, names)
	imgs, _ := os.ReadFile(filepath.Join(good, "images.bin"))
	pts, _ := os.ReadFile(filepath.Join(good, "points3D.bin"))
	huge := append([]byte(nil), imgs...)
	binary.LittleEndian.PutUint64(huge, 1<<60)
	for _, tc := range []struct {
		name, file string
		data       []byte
		want       string
	}{
		{"cut images", "images.bin", imgs[:len(imgs)-5], "images.bin: "},
		{"huge count", "images.bin", huge, "does not fit"},
		{"trailing bytes", "points3D.bin", append(append([]byte(nil), pts...), 1, 2), "bytes after the last entry"},
		{"cut points", "points3D.bin", pts[:30], "points3D.bin"},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "images.bin"), imgs, 0o644)
		os.WriteFile(filepath.Join(dir, "points3D.bin"), pts, 0o644)
		os.WriteFile(filepath.Join(dir, tc.file), tc.data, 0o644)
		if _, err := colmap.ReadModel(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	for _, tc := range []struct {
		name, images, want string
	}{
		{"few fields", "1 1 0 0 0 0 0 0 1\n\n", "images.txt: line 1: want IMAGE_ID"},
		{"bad number", "# c\n1 1 0 x 0 0 0 0 1 a.jpg\n\n", "images.txt: line 2: \"x\" is not a finite number"},
		{"zero quaternion", "1 0 0 0 0 0 0 0 1 a.jpg\n\n", "not a rotation"},
		{"twice", "1 1 0 0 0 0 0 0 1 a.jpg\n\n2 1 0 0 0 0 0 0 1 a.jpg\n\n", "line 3: image \"a.jpg\" appears twice"},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "images.txt"), []byte(tc.images), 0o644)
		os.WriteFile(filepath.Join(dir, "points3D.txt"), nil, 0o644)
		if _, err := colmap.ReadModel(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := colmap.ReadModel(t.TempDir()); err == nil || !strings.Contains(err.Error(), "images.txt") {
		t.Errorf("an empty folder: %v", err)
	}
}

// readsAndEvaluates is the fuzz tests' check of the model in dir:
// ReadColmapModel reads it or fails with an error naming file (the one
// the test wrote its input into), and a model read is measured against
// a truth of its own cameras, each turned and moved a little, where
// EvaluateSfM gives an error or finite figures, never a panic. The
// cameras are taken in name order, so that an input fails the same way
// twice.
func readsAndEvaluates(t *testing.T, dir, file string) {
	t.Helper()
	m, err := colmap.ReadModel(dir)
	if err != nil {
		if !strings.Contains(err.Error(), file) {
			t.Fatalf("error does not name %s: %v", file, err)
		}
		return
	}
	var names []string
	for n := range m.Poses {
		names = append(names, n)
	}
	sort.Strings(names)
	gt := map[string]datasets.Camera{}
	for i, n := range names {
		c := m.Poses[n]
		c.R = mul3(rotation(0.01, 1, 2, 3), c.R)
		c.C[0] += 0.01 * float64(i)
		c.C[1] += 0.02 * float64(i%2)
		gt[n] = datasets.Camera{Pose: c}
	}
	r, err := EvaluateSfM(m, gt)
	if err != nil {
		return
	}
	for _, v := range []float64{r.Position.Max, r.Rotation.Max, r.RotationCommon, r.RotationResidual.Max} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("figures not finite: %+v", r)
		}
	}
}

// FuzzReadColmapModel: any images.bin or images.txt content reads or
// fails with an error naming the file; never a panic.
func FuzzReadColmapModel(f *testing.F) {
	f.Add([]byte("1 1 0 0 0 0 0 0 1 a.jpg\n1 2 -1\n"), true)
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}, false)
	f.Add([]byte("1 1 0 0 0 0 0 0 1 a.jpg\n\n2 0.9 0.1 0 0 1 0 0 1 b.jpg\n\n3 1 0 0.2 0 0 1 0 1 c.jpg\n\n4 1 0 0 0 1 1 0.5 1 d.jpg\n\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, text bool) {
		dir := t.TempDir()
		name, pts := "images.bin", "points3D.bin"
		if text {
			name, pts = "images.txt", "points3D.txt"
		}
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
		if text {
			os.WriteFile(filepath.Join(dir, pts), nil, 0o644)
		} else {
			os.WriteFile(filepath.Join(dir, pts), make([]byte, 8), 0o644)
		}
		readsAndEvaluates(t, dir, name)
	})
}

// TestTrueFundamental: points projected by the true cameras (at half the
// ground truth's width) lie on the epipolar lines of the F it returns;
// a point moved 3 px off its line scores about 3 px; ScoreStages counts
// them and what a stage lost.
func TestTrueFundamental(t *testing.T) {
	k := [3][3]float64{{2759.48, 0, 1520.69}, {0, 2764.16, 1006.81}, {0, 0, 1}}
	ci := datasets.Camera{Pose: geom.Pose{R: rotation(0.1, 0, 1, 0), C: [3]float64{-1, 0, 0}}, K: k, Width: 3072, Height: 2048}
	cj := datasets.Camera{Pose: geom.Pose{R: rotation(-0.15, 0.1, 1, 0), C: [3]float64{1, 0.2, 0.1}}, K: k, Width: 3072, Height: 2048}
	f, err := TrueFundamental(ci, cj, 1536, 1536)
	if err != nil {
		t.Fatal(err)
	}
	project := func(c datasets.Camera, x [3]float64) geom.Point {
		var p [3]float64
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				p[a] += c.R[a][b] * (x[b] - c.C[b])
			}
		}
		// K at half size, pixel centres at integers.
		s := 0.5
		return geom.Point{X: (k[0][0]*p[0]/p[2]+k[0][2]+0.5)*s - 0.5, Y: (k[1][1]*p[1]/p[2]+k[1][2]+0.5)*s - 0.5}
	}
	var pi, pj []geom.Point
	for n := 0; n < 20; n++ {
		x := [3]float64{float64(n%5) - 2, float64(n/5) - 1.5, 8 + float64(n%3)}
		pi, pj = append(pi, project(ci, x)), append(pj, project(cj, x))
	}
	// Move match 0 by 3 px across its epipolar line (along the line's normal).
	l := [3]float64{f[0]*pi[0].X + f[1]*pi[0].Y + f[2], f[3]*pi[0].X + f[4]*pi[0].Y + f[5], f[6]*pi[0].X + f[7]*pi[0].Y + f[8]}
	n := math.Hypot(l[0], l[1])
	pj[0].X += 3 * l[0] / n
	pj[0].Y += 3 * l[1] / n
	all, most := [][2]int{}, [][2]int{}
	for m := 0; m < 20; m++ {
		all = append(all, [2]int{m, m})
		if m < 15 {
			most = append(most, [2]int{m, m})
		}
	}
	truth := func(i, j int) ([9]float64, bool) { return f, true }
	sc := ScoreStages([]StageMatches{{"all", map[[2]int][][2]int{{0, 1}: all}}, {"most", map[[2]int][][2]int{{0, 1}: most}}}, [][]geom.Point{pi, pj}, truth)
	if a := sc[0]; a.Matches != 20 || a.Within1 != 19 || a.Within2 != 19 || a.Within4 != 20 || a.MedianError > 1e-6 {
		t.Errorf("all: %+v", a)
	}
	if b := sc[1]; b.Matches != 15 || b.Within2 != 14 || b.Lost != 5 || b.Added != 0 {
		t.Errorf("most: %+v, want 15 matches, 14 right, 5 right ones lost", b)
	}
}

// writeCamerasBin writes cameras.bin (COLMAP's WriteCamerasBinary):
// each camera as id, model id, width, height, parameters.
func writeCamerasBin(t *testing.T, path string, cams []struct {
	id, model int32
	w, h      uint64
	p         []float64
}) {
	le := binary.LittleEndian
	var b bytes.Buffer
	binary.Write(&b, le, uint64(len(cams)))
	for _, c := range cams {
		binary.Write(&b, le, c.id)
		binary.Write(&b, le, c.model)
		binary.Write(&b, le, c.w)
		binary.Write(&b, le, c.h)
		binary.Write(&b, le, c.p)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReadColmapCameras: cameras.txt and cameras.bin give each image its
// camera's intrinsics (one focal length or two, whatever follows them);
// a damaged cameras file, or an image whose camera it lacks, is a
// one-line error naming the file.
func TestReadColmapCameras(t *testing.T) {
	_, model, _ := sfmScene(3)
	names := []string{"0000.jpg", "0001.jpg", "0002.jpg"}
	want := map[string]colmap.Intrinsics{
		"0000.jpg": {Model: "PINHOLE", Width: 100, Height: 80, Fx: 90, Fy: 90, Cx: 50, Cy: 40},
	}
	for _, format := range []string{"text", "binary"} {
		dir := t.TempDir()
		if format == "text" {
			writeModelText(t, dir, model, names) // one camera, PINHOLE 100 80 90 90 50 40
		} else {
			writeModelBinary(t, dir, model, names)
			writeCamerasBin(t, filepath.Join(dir, "cameras.bin"), []struct {
				id, model int32
				w, h      uint64
				p         []float64
			}{{1, 1, 100, 80, []float64{90, 90, 50, 40}}})
		}
		m, err := colmap.ReadModel(dir)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if len(m.Intrinsics) != 3 || m.Intrinsics["0002.jpg"] != want["0000.jpg"] {
			t.Errorf("%s: intrinsics %+v, want every image %+v", format, m.Intrinsics, want["0000.jpg"])
		}
	}
	// Without a cameras file the model still reads, with no intrinsics.
	dir := t.TempDir()
	writeModelBinary(t, dir, model, names)
	if m, err := colmap.ReadModel(dir); err != nil || m.Intrinsics != nil {
		t.Errorf("no cameras.bin: %v, intrinsics %v", err, m.Intrinsics)
	}

	images := "1 1 0 0 0 0 0 0 1 a.jpg\n\n2 1 0 0 0 0 0 0 2 b.jpg\n\n"
	for _, tc := range []struct {
		name, cameras, want string
		in                  map[string]colmap.Intrinsics
	}{
		{"models", "# c\n1 SIMPLE_RADIAL 1536 1024 1380 760.5 503.5 0.001\n2 OPENCV 768 512 690 691 380 252 0.1 0.01 0 0\n", "",
			map[string]colmap.Intrinsics{
				"a.jpg": {Model: "SIMPLE_RADIAL", Width: 1536, Height: 1024, Fx: 1380, Fy: 1380, Cx: 760.5, Cy: 503.5},
				"b.jpg": {Model: "OPENCV", Width: 768, Height: 512, Fx: 690, Fy: 691, Cx: 380, Cy: 252},
			}},
		{"unknown model", "1 PINHOLE 10 10 1 1 5 5\n2 FISHY 10 10 1 5 5\n", "cameras.txt: line 2: unknown camera model \"FISHY\"", nil},
		{"parameters", "1 PINHOLE 10 10 1 1 5 5\n2 PINHOLE 10 10 1 5 5\n", "line 2: camera 2: PINHOLE has 4 parameters, got 3", nil},
		{"size", "1 PINHOLE 10 0 1 1 5 5\n", "line 1: camera 1: image size 10×0 is not valid", nil},
		{"not a number", "1 PINHOLE 10 10 1 1 nan 5\n", "line 1: \"nan\" is not a finite number", nil},
		{"id", "x PINHOLE 10 10 1 1 5 5\n", "line 1: camera id \"x\" is not an integer", nil},
		{"twice", "1 PINHOLE 10 10 1 1 5 5\n1 PINHOLE 10 10 1 1 5 5\n", "line 2: camera 1 appears twice", nil},
		{"missing camera", "1 PINHOLE 10 10 1 1 5 5\n", "cameras.txt: image \"b.jpg\" has camera 2, which is not in it", nil},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "cameras.txt"), []byte(tc.cameras), 0o644)
		os.WriteFile(filepath.Join(dir, "images.txt"), []byte(images), 0o644)
		os.WriteFile(filepath.Join(dir, "points3D.txt"), nil, 0o644)
		m, err := colmap.ReadModel(dir)
		if tc.want == "" {
			if err != nil || len(m.Intrinsics) != len(tc.in) || m.Intrinsics["a.jpg"] != tc.in["a.jpg"] || m.Intrinsics["b.jpg"] != tc.in["b.jpg"] {
				t.Errorf("%s: %v, %+v; want %+v", tc.name, err, m, tc.in)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}

	// Binary: a cut file, an unknown model id, a count past the file.
	good := t.TempDir()
	writeModelBinary(t, good, model, names)
	type cam = struct {
		id, model int32
		w, h      uint64
		p         []float64
	}
	for _, tc := range []struct {
		name string
		cams []cam
		cut  int
		want string
	}{
		{"cut", []cam{{1, 2, 100, 80, []float64{90, 50, 40, 0}}}, 4, "cameras.bin: byte"},
		{"model id", []cam{{1, 11, 100, 80, []float64{90, 50, 40, 0}}}, 0, "cameras.bin: camera 1: unknown camera model id 11"},
		{"missing", []cam{{2, 2, 100, 80, []float64{90, 50, 40, 0}}}, 0, "image \"0000.jpg\" has camera 1, which is not in it"},
	} {
		dir := t.TempDir()
		for _, f := range []string{"images.bin", "points3D.bin"} {
			data, _ := os.ReadFile(filepath.Join(good, f))
			os.WriteFile(filepath.Join(dir, f), data, 0o644)
		}
		path := filepath.Join(dir, "cameras.bin")
		writeCamerasBin(t, path, tc.cams)
		if tc.cut > 0 {
			data, _ := os.ReadFile(path)
			os.WriteFile(path, data[:len(data)-tc.cut], 0o644)
		}
		if _, err := colmap.ReadModel(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	huge := t.TempDir()
	for _, f := range []string{"images.bin", "points3D.bin"} {
		data, _ := os.ReadFile(filepath.Join(good, f))
		os.WriteFile(filepath.Join(huge, f), data, 0o644)
	}
	os.WriteFile(filepath.Join(huge, "cameras.bin"), []byte{0, 0, 0, 0, 0, 0, 0, 16}, 0o644)
	if _, err := colmap.ReadModel(huge); err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Errorf("huge count: %v", err)
	}
}

// TestIntrinsicsError: the model's cameras against the true K scaled to
// their size, in COLMAP's pixel convention (c_colmap = (c + 0.5)·s).
func TestIntrinsicsError(t *testing.T) {
	gt, model, _ := sfmScene(4)
	k := [3][3]float64{{2760, 0, 1520.69}, {0, 2764, 1006.81}, {0, 0, 1}}
	for n, c := range gt {
		c.K, c.Width, c.Height = k, 3072, 2048
		gt[n] = c
	}
	// At half size the true camera is f (1380 + 1382)/2, principal point
	// (760.595, 503.655).
	ppx, ppy := (1520.69+0.5)/2, (1006.81+0.5)/2
	in := map[string]colmap.Intrinsics{
		// Exact.
		"0000.jpg": {Width: 1536, Height: 1024, Fx: 1380, Fy: 1382, Cx: ppx, Cy: ppy},
		// Focal 1% long, principal point 3 px right and 4 px down.
		"0001.jpg": {Width: 1536, Height: 1024, Fx: 1380 * 1.01, Fy: 1382 * 1.01, Cx: ppx + 3, Cy: ppy + 4},
		// The principal point at the centre, COLMAP's default.
		"0002.jpg": {Width: 1536, Height: 1024, Fx: 1381, Fy: 1381, Cx: 768, Cy: 512},
		// A crop: not the truth's image scaled, so left out.
		"0003.jpg": {Width: 1536, Height: 900, Fx: 1, Fy: 1, Cx: 1, Cy: 1},
	}
	r, err := EvaluateSfM(&colmap.Model{Poses: model, Intrinsics: in}, gt)
	if err != nil {
		t.Fatal(err)
	}
	centre := math.Hypot(768-ppx, 512-ppy)
	e := r.Intrinsics
	if e == nil || e.Images != 3 {
		t.Fatalf("intrinsics %+v, want 3 images", e)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if !near(e.Focal.Max, 1) || !near(e.Focal.Median, 0) {
		t.Errorf("focal error %+v, want median 0, max 1%%", e.Focal)
	}
	if !near(e.PrincipalPoint.Median, 5) || !near(e.PrincipalPoint.Max, centre) || !near(e.PrincipalPoint.Mean, (5+centre)/3) {
		t.Errorf("principal point error %+v, want median 5, max %v", e.PrincipalPoint, centre)
	}
	if !near(e.Centre.Median, centre) || !near(e.Centre.Max, centre) || math.Abs(centre-11.157) > 0.001 {
		t.Errorf("centre offset %+v, want %v (11.157)", e.Centre, centre)
	}
	// No cameras file: no intrinsics in the report.
	if r, _ := EvaluateSfM(&colmap.Model{Poses: model}, gt); r.Intrinsics != nil {
		t.Errorf("a model without cameras: %+v", r.Intrinsics)
	}
}

// FuzzReadColmapCameras: any cameras.txt or cameras.bin content reads or
// fails with an error naming the file; never a panic.
func FuzzReadColmapCameras(f *testing.F) {
	f.Add([]byte("1 SIMPLE_RADIAL 1536 1024 1380 760.5 503.5 0.001\n"), true)
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0}, false)
	f.Fuzz(func(t *testing.T, data []byte, text bool) {
		dir := t.TempDir()
		name := "cameras.bin"
		if text {
			name = "cameras.txt"
			os.WriteFile(filepath.Join(dir, "images.txt"), []byte("1 1 0 0 0 0 0 0 1 a.jpg\n\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "points3D.txt"), nil, 0o644)
		} else {
			os.WriteFile(filepath.Join(dir, "images.bin"), make([]byte, 8), 0o644)
			os.WriteFile(filepath.Join(dir, "points3D.bin"), make([]byte, 8), 0o644)
		}
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
		readsAndEvaluates(t, dir, name)
	})
}
