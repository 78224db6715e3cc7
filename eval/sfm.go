package eval

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/clearmatch/clearmatch/geom"
	"gonum.org/v1/gonum/mat"
)

// SfM evaluation: a reconstruction's cameras against ground-truth cameras,
// the accepted protocol of Strecha et al.'s benchmark as openMVG's
// SfM_quality_evaluation runs it: a similarity fitted on the camera centres,
// then position error (in the ground truth's units) and rotation error (in
// degrees) of every camera, with median, mean and maximum.

// Camera is one camera's pose: R maps world to camera coordinates (x_cam =
// R x_world + t), C is its centre in the world (C = −Rᵀ t).
type Camera struct {
	R [3][3]float64
	C [3]float64
	// K and Width, Height: the intrinsics (pixels, as the ground truth
	// gives them) and the image size they are for; zero in a Model.
	K             [3][3]float64
	Width, Height int
}

// Model is the part of a COLMAP reconstruction the evaluation reads.
type Model struct {
	// Cameras maps image names to their registered poses.
	Cameras map[string]Camera
	// Intrinsics maps image names to their camera's intrinsics, when the
	// model has a cameras file.
	Intrinsics map[string]Intrinsics
	// Points is the number of 3D points; Observations the sum of their
	// track lengths; ErrorSum the sum of their mean reprojection errors
	// (pixels), as COLMAP's model_analyzer averages them.
	Points, Observations int
	ErrorSum             float64
}

// Intrinsics is a reconstructed camera's pinhole part in COLMAP's pixel
// convention (the first pixel's centre at 0.5, 0.5): focal lengths and
// principal point in pixels of a Width × Height image. Models with one
// focal length have Fx = Fy; distortion is left out.
type Intrinsics struct {
	Model          string
	Width, Height  int
	Fx, Fy, Cx, Cy float64
}

// colmapCameraModels are COLMAP's camera models by id: name, number of
// parameters, and whether they start f, cx, cy (one focal length) rather
// than fx, fy, cx, cy.
var colmapCameraModels = []struct {
	name   string
	params int
	single bool
}{
	{"SIMPLE_PINHOLE", 3, true}, {"PINHOLE", 4, false}, {"SIMPLE_RADIAL", 4, true},
	{"RADIAL", 5, true}, {"OPENCV", 8, false}, {"OPENCV_FISHEYE", 8, false},
	{"FULL_OPENCV", 12, false}, {"FOV", 5, false}, {"SIMPLE_RADIAL_FISHEYE", 4, true},
	{"RADIAL_FISHEYE", 5, true}, {"THIN_PRISM_FISHEYE", 12, false},
}

// newIntrinsics checks a camera's size and parameters against its model
// (an index into colmapCameraModels).
func newIntrinsics(model int, w, h uint64, p []float64) (Intrinsics, error) {
	cm := colmapCameraModels[model]
	if len(p) != cm.params {
		return Intrinsics{}, fmt.Errorf("%s has %d parameters, got %d", cm.name, cm.params, len(p))
	}
	if w == 0 || h == 0 || w > 1<<20 || h > 1<<20 {
		return Intrinsics{}, fmt.Errorf("image size %d×%d is not valid", w, h)
	}
	in := Intrinsics{Model: cm.name, Width: int(w), Height: int(h)}
	if cm.single {
		in.Fx, in.Fy, in.Cx, in.Cy = p[0], p[0], p[1], p[2]
	} else {
		in.Fx, in.Fy, in.Cx, in.Cy = p[0], p[1], p[2], p[3]
	}
	for _, v := range []float64{in.Fx, in.Fy, in.Cx, in.Cy} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Intrinsics{}, fmt.Errorf("parameter %g is not finite", v)
		}
	}
	return in, nil
}

// HasColmapModel tells whether dir holds a COLMAP sparse model: its images
// file, binary or text (what ReadColmapModel needs first).
func HasColmapModel(dir string) bool {
	for _, name := range []string{"images.bin", "images.txt"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// ReadColmapModel reads a COLMAP sparse model folder: images and points3D,
// and cameras when present (for Intrinsics), binary (.bin) when images
// and points3D are, else text (.txt). Errors name the file and, for
// text, the line.
func ReadColmapModel(dir string) (*Model, error) {
	m := &Model{Cameras: map[string]Camera{}}
	path := func(name string) string { return filepath.Join(dir, name) }
	exists := func(name string) bool {
		_, err := os.Stat(path(name))
		return err == nil
	}
	if !HasColmapModel(dir) {
		return nil, fmt.Errorf("%s: no COLMAP model here (images.bin or images.txt)", dir)
	}
	// One format for the three files: binary when images and points3D
	// are, as colmap mapper writes them.
	ext, readCams, readImages, readPoints := ".txt", readCamerasText, readImagesText, readPointsText
	if exists("images.bin") && exists("points3D.bin") {
		ext, readCams, readImages, readPoints = ".bin", readCamerasBin, readImagesBin, readPointsBin
	}
	var cams map[int64]Intrinsics
	camsFile := path("cameras" + ext)
	if exists("cameras" + ext) {
		var err error
		if cams, err = readCams(camsFile); err != nil {
			return nil, err
		}
	}
	camOf := map[string]int64{}
	if err := readImages(path("images"+ext), m, camOf); err != nil {
		return nil, err
	}
	if err := readPoints(path("points3D"+ext), m); err != nil {
		return nil, err
	}
	if cams != nil {
		m.Intrinsics = map[string]Intrinsics{}
		names := make([]string, 0, len(camOf))
		for n := range camOf {
			names = append(names, n)
		}
		sort.Strings(names) // the first unknown camera by name, every run
		for _, n := range names {
			in, ok := cams[camOf[n]]
			if !ok {
				return nil, fmt.Errorf("%s: image %q has camera %d, which is not in it", camsFile, n, camOf[n])
			}
			m.Intrinsics[n] = in
		}
	}
	return m, nil
}

// readCamerasText reads cameras.txt: "CAMERA_ID MODEL WIDTH HEIGHT
// PARAMS[]".
func readCamerasText(path string) (map[int64]Intrinsics, error) {
	out := map[int64]Intrinsics{}
	err := textLines(path, func(n int, f []string) error {
		if f == nil {
			return nil
		}
		if len(f) < 4 {
			return fmt.Errorf("want CAMERA_ID MODEL WIDTH HEIGHT PARAMS, got %d fields", len(f))
		}
		id, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return fmt.Errorf("camera id %q is not an integer", f[0])
		}
		model := -1
		for i, c := range colmapCameraModels {
			if c.name == f[1] {
				model = i
			}
		}
		if model < 0 {
			return fmt.Errorf("unknown camera model %q", f[1])
		}
		w, errW := strconv.ParseUint(f[2], 10, 64)
		h, errH := strconv.ParseUint(f[3], 10, 64)
		if errW != nil || errH != nil {
			return fmt.Errorf("image size %q×%q is not two integers", f[2], f[3])
		}
		p, err := parseFloats(f[4:])
		if err != nil {
			return err
		}
		in, err := newIntrinsics(model, w, h, p)
		if err != nil {
			return fmt.Errorf("camera %d: %w", id, err)
		}
		if _, dup := out[id]; dup {
			return fmt.Errorf("camera %d appears twice", id)
		}
		out[id] = in
		return nil
	})
	return out, err
}

// readCamerasBin reads cameras.bin (COLMAP's WriteCamerasBinary).
func readCamerasBin(path string) (map[int64]Intrinsics, error) {
	b, err := newBinReader(path)
	if err != nil {
		return nil, err
	}
	out := map[int64]Intrinsics{}
	n := b.count(4 + 4 + 8 + 8)
	for i := 0; i < n && b.err == nil; i++ {
		var id, model int32
		b.read(&id)
		b.read(&model)
		w, h := b.u64(), b.u64()
		if b.err != nil {
			break
		}
		if model < 0 || int(model) >= len(colmapCameraModels) {
			return nil, fmt.Errorf("%s: camera %d: unknown camera model id %d", path, id, model)
		}
		p := make([]float64, colmapCameraModels[model].params)
		b.read(p)
		if b.err != nil {
			break
		}
		in, err := newIntrinsics(int(model), w, h, p)
		if err != nil {
			return nil, fmt.Errorf("%s: camera %d: %w", path, id, err)
		}
		if _, dup := out[int64(id)]; dup {
			return nil, fmt.Errorf("%s: camera %d appears twice", path, id)
		}
		out[int64(id)] = in
	}
	return out, b.done()
}

// poseFromQT turns COLMAP's quaternion (w, x, y, z) and translation into a
// Camera; the quaternion is normalized, and a zero one is an error.
func poseFromQT(q [4]float64, t [3]float64) (Camera, error) {
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if !(n > 1e-12) || math.IsInf(n, 0) {
		return Camera{}, fmt.Errorf("quaternion %v is not a rotation", q)
	}
	for _, v := range t {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Camera{}, fmt.Errorf("translation %v is not finite", t)
		}
	}
	w, x, y, z := q[0]/n, q[1]/n, q[2]/n, q[3]/n
	r := [3][3]float64{
		{1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y)},
		{2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x)},
		{2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y)},
	}
	var c [3]float64
	for i := 0; i < 3; i++ {
		for k := 0; k < 3; k++ {
			c[i] -= r[k][i] * t[k]
		}
	}
	return Camera{R: r, C: c}, nil
}

// textLines calls fn with each line of a text file, its 1-based number
// and its fields (nil for a blank or comment line, which images.txt's
// empty 2D-point lines need to see); fn's error is returned as "path:
// line N: err".
func textLines(path string, fn func(n int, f []string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			if err := fn(n, nil); err != nil {
				return fmt.Errorf("%s: line %d: %w", path, n, err)
			}
			continue
		}
		if err := fn(n, strings.Fields(line)); err != nil {
			return fmt.Errorf("%s: line %d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: line %d: %w", path, n+1, err)
	}
	return nil
}

func parseFloats(f []string) ([]float64, error) {
	v := make([]float64, len(f))
	for i, s := range f {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%q is not a finite number", s)
		}
		v[i] = x
	}
	return v, nil
}

// readImagesText reads images.txt: per image a line "IMAGE_ID QW QX QY QZ
// TX TY TZ CAMERA_ID NAME" and a line of its 2D points (which may be
// empty, and is skipped).
func readImagesText(path string, m *Model, camOf map[string]int64) error {
	pointsLine := false
	return textLines(path, func(n int, f []string) error {
		if pointsLine {
			pointsLine = false
			return nil
		}
		if f == nil {
			return nil
		}
		if len(f) < 10 {
			return fmt.Errorf("want IMAGE_ID QW QX QY QZ TX TY TZ CAMERA_ID NAME, got %d fields", len(f))
		}
		v, err := parseFloats(f[1:8])
		if err != nil {
			return err
		}
		cam, err := strconv.ParseInt(f[8], 10, 64)
		if err != nil {
			return fmt.Errorf("camera id %q is not an integer", f[8])
		}
		// The name is the rest of the line (COLMAP writes it unquoted).
		name := strings.Join(f[9:], " ")
		camOf[name] = cam
		return m.addImage(name, [4]float64{v[0], v[1], v[2], v[3]}, [3]float64{v[4], v[5], v[6]}, func() { pointsLine = true })
	})
}

func (m *Model) addImage(name string, q [4]float64, t [3]float64, after func()) error {
	cam, err := poseFromQT(q, t)
	if err != nil {
		return fmt.Errorf("image %q: %w", name, err)
	}
	if _, dup := m.Cameras[name]; dup {
		return fmt.Errorf("image %q appears twice", name)
	}
	m.Cameras[name] = cam
	if after != nil {
		after()
	}
	return nil
}

// readPointsText reads points3D.txt: "POINT3D_ID X Y Z R G B ERROR TRACK[]"
// with TRACK as (IMAGE_ID, POINT2D_IDX) pairs.
func readPointsText(path string, m *Model) error {
	return textLines(path, func(n int, f []string) error {
		if f == nil {
			return nil
		}
		if len(f) < 8 || (len(f)-8)%2 != 0 {
			return fmt.Errorf("want POINT3D_ID X Y Z R G B ERROR and (IMAGE_ID, POINT2D_IDX) pairs, got %d fields", len(f))
		}
		e, err := parseFloats(f[7:8])
		if err != nil {
			return err
		}
		m.Points++
		m.Observations += (len(f) - 8) / 2
		m.ErrorSum += e[0]
		return nil
	})
}

// binReader reads little-endian values and remembers the first error,
// naming the file and the byte offset.
type binReader struct {
	path string
	r    *bytes.Reader
	size int64
	err  error
}

func newBinReader(path string) (*binReader, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &binReader{path: path, r: bytes.NewReader(data), size: int64(len(data))}, nil
}

func (b *binReader) read(v any) {
	if b.err != nil {
		return
	}
	off := b.size - int64(b.r.Len())
	if err := binary.Read(b.r, binary.LittleEndian, v); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = errors.New("file ends early")
		}
		b.err = fmt.Errorf("%s: byte %d: %w", b.path, off, err)
	}
}

func (b *binReader) u64() uint64 { var v uint64; b.read(&v); return v }

// count reads a count and checks that the rest of the file can hold that
// many entries of at least minSize bytes each (so a damaged count is an
// error, not an allocation).
func (b *binReader) count(minSize int64) int {
	n := b.u64()
	if b.err == nil && (n > uint64(b.r.Len())/uint64(minSize)) {
		b.err = fmt.Errorf("%s: a count of %d entries does not fit in the file", b.path, n)
		return 0
	}
	return int(n)
}

func (b *binReader) cstring() string {
	var s []byte
	for b.err == nil {
		c, err := b.r.ReadByte()
		if err != nil {
			b.err = fmt.Errorf("%s: a name is not terminated", b.path)
			break
		}
		if c == 0 {
			break
		}
		s = append(s, c)
	}
	return string(s)
}

func (b *binReader) done() error {
	if b.err == nil && b.r.Len() != 0 {
		return fmt.Errorf("%s: %d bytes after the last entry", b.path, b.r.Len())
	}
	return b.err
}

// readImagesBin reads images.bin (COLMAP's WriteImagesBinary).
func readImagesBin(path string, m *Model, camOf map[string]int64) error {
	b, err := newBinReader(path)
	if err != nil {
		return err
	}
	n := b.count(4 + 7*8 + 4 + 1 + 8)
	for i := 0; i < n && b.err == nil; i++ {
		var id, camID int32
		var qt [7]float64
		b.read(&id)
		b.read(&qt)
		b.read(&camID)
		name := b.cstring()
		np := b.count(24)
		if b.err == nil {
			b.r.Seek(int64(np)*24, io.SeekCurrent)
		}
		if b.err == nil {
			camOf[name] = int64(camID)
			if err := m.addImage(name, [4]float64{qt[0], qt[1], qt[2], qt[3]}, [3]float64{qt[4], qt[5], qt[6]}, nil); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
	}
	return b.done()
}

// readPointsBin reads points3D.bin (COLMAP's WritePoints3DBinary).
func readPointsBin(path string, m *Model) error {
	b, err := newBinReader(path)
	if err != nil {
		return err
	}
	n := b.count(8 + 24 + 3 + 8 + 8)
	for i := 0; i < n && b.err == nil; i++ {
		var id uint64
		var xyz [3]float64
		var rgb [3]uint8
		var e float64
		b.read(&id)
		b.read(&xyz)
		b.read(&rgb)
		b.read(&e)
		tl := b.count(8)
		if b.err == nil {
			b.r.Seek(int64(tl)*8, io.SeekCurrent)
			m.Points++
			m.Observations += tl
			m.ErrorSum += e
		}
	}
	return b.done()
}

// ReadStrechaCameras reads a folder of ground-truth cameras in Strecha's
// format, NAME.camera for image NAME: K (3 rows), a row of zeros, R (3
// rows, camera to world), the centre C (1 row), "width height". Errors
// name the file.
func ReadStrechaCameras(dir string) (map[string]Camera, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]Camera{}
	for _, e := range es {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".camera") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		v, err := parseFloats(strings.Fields(string(data)))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(v) != 26 {
			return nil, fmt.Errorf("%s: %d numbers, want 26 (K, zeros, R, C, width height)", path, len(v))
		}
		var c Camera
		for i := 0; i < 3; i++ {
			for k := 0; k < 3; k++ {
				c.R[i][k] = v[12+3*k+i] // world to camera: the transpose
			}
			c.C[i] = v[21+i]
		}
		for i := 0; i < 3; i++ {
			for k := 0; k < 3; k++ {
				c.K[i][k] = v[3*i+k]
			}
		}
		c.Width, c.Height = int(v[24]), int(v[25])
		if c.K[0][0] <= 0 || c.K[1][1] <= 0 || c.K[2][2] != 1 || c.Width <= 0 || c.Height <= 0 || float64(c.Width) != v[24] || float64(c.Height) != v[25] {
			return nil, fmt.Errorf("%s: K (fx, fy > 0, last row 0 0 1) or the size %g×%g is not valid", path, v[24], v[25])
		}
		if d := geom.Det3(flat3(c.R)); math.Abs(d-1) > 1e-3 {
			return nil, fmt.Errorf("%s: R is not a rotation (determinant %g)", path, d)
		}
		out[strings.TrimSuffix(e.Name(), ".camera")] = c
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no .camera files", dir)
	}
	return out, nil
}

// Similarity maps x to S·R·x + T.
type Similarity struct {
	S float64
	R [3][3]float64
	T [3]float64
}

// Apply maps a point.
func (s Similarity) Apply(x [3]float64) [3]float64 {
	var y [3]float64
	for i := 0; i < 3; i++ {
		y[i] = s.T[i]
		for k := 0; k < 3; k++ {
			y[i] += s.S * s.R[i][k] * x[k]
		}
	}
	return y
}

// umeyamaRotation returns U·diag(sgn)·Vᵀ from the SVD U·Σ·Vᵀ of a 3×3
// matrix, sgn (1, 1, ±1) making it a rotation: the rotation nearest to
// the matrix (or, for a covariance, the one that best maps one set onto
// the other).
func umeyamaRotation(u, v *mat.Dense) (r [3][3]float64, sgn [3]float64) {
	sgn = [3]float64{1, 1, 1}
	if mat.Det(u)*mat.Det(v) < 0 {
		sgn[2] = -1
	}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 3; k++ {
				r[i][j] += u.At(i, k) * sgn[k] * v.At(j, k)
			}
		}
	}
	return r, sgn
}

// Umeyama fits the similarity that maps src onto dst with the least sum of
// squared distances (Umeyama, "Least-squares estimation of transformation
// parameters between two point patterns", IEEE PAMI 1991): closed form, so
// it is the least-squares optimum the refinement of openMVG's evaluation
// converges to. It needs at least three points not on one line.
func Umeyama(src, dst [][3]float64) (Similarity, error) {
	n := len(src)
	if n != len(dst) || n < 3 {
		return Similarity{}, fmt.Errorf("a similarity needs at least 3 matched cameras, have %d", min(n, len(dst)))
	}
	var ms, md [3]float64
	for i := range src {
		for k := 0; k < 3; k++ {
			ms[k] += src[i][k] / float64(n)
			md[k] += dst[i][k] / float64(n)
		}
	}
	cov := mat.NewDense(3, 3, nil)
	varS := 0.0
	for i := range src {
		for r := 0; r < 3; r++ {
			a := dst[i][r] - md[r]
			for c := 0; c < 3; c++ {
				cov.Set(r, c, cov.At(r, c)+a*(src[i][c]-ms[c])/float64(n))
			}
			d := src[i][r] - ms[r]
			varS += d * d / float64(n)
		}
	}
	var svd mat.SVD
	if !svd.Factorize(cov, mat.SVDFull) || !(varS > 0) {
		return Similarity{}, errors.New("the cameras' centres are degenerate (all in one place)")
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	d := svd.Values(nil)
	if d[1] <= 1e-12*d[0] {
		return Similarity{}, errors.New("the cameras' centres are degenerate (on one line)")
	}
	var s Similarity
	var sgn [3]float64
	s.R, sgn = umeyamaRotation(&u, &v)
	trace := 0.0
	for k := 0; k < 3; k++ {
		trace += d[k] * sgn[k]
	}
	s.S = trace / varS
	m := s.Apply(ms)
	for k := 0; k < 3; k++ {
		s.T[k] = md[k] - m[k]
	}
	return s, nil
}

// SfMReport is the evaluation of one reconstruction against ground truth.
type SfMReport struct {
	Images     int `json:"images"`     // ground-truth cameras
	Registered int `json:"registered"` // of them, in the model
	// Missing lists ground-truth images the model did not register.
	Missing []string `json:"missing,omitempty"`
	// Position errors after the similarity, in the ground truth's units;
	// rotation errors in degrees.
	Position Summary `json:"position_error"`
	Rotation Summary `json:"rotation_error_deg"`
	// The rotation errors split in two: the part every camera shares
	// (the chordal mean of their errors in the truth's frame, its angle)
	// and each camera's error once that part is taken out. The shared
	// part is mostly the similarity's own error about the axes its
	// centres leave weakly determined (cameras along a facade: the
	// rotation about that line, set by the centres' small spread off it
	// and their position errors there); the rest is the model's.
	RotationCommon   float64 `json:"rotation_common_deg"`
	RotationResidual Summary `json:"rotation_residual_deg"`
	// Alignment-free errors over every pair (i, j), i before j by name,
	// of registered images: the angle between the model's and the
	// truth's relative rotation R_j·R_iᵀ, and between their directions
	// from camera j to camera i in camera j's frame, R_j·(C_i − C_j), the
	// relative pose's translation up to scale (degrees). They do not
	// depend on the similarity, which a nearly collinear or coplanar set
	// of centres leaves ill-determined about the line or plane.
	Pairs             int     `json:"pairs"`
	RelativeRotation  Summary `json:"relative_rotation_error_deg"`
	RelativeDirection Summary `json:"relative_direction_error_deg"`
	// Per image, sorted by name.
	PerImage []ImageError `json:"per_image"`
	Scale    float64      `json:"scale"` // the similarity's scale
	// Spread is the median distance of the ground truth's camera centres
	// (every one, registered or not) from their centroid, in its units:
	// the scene's size, which gives errors in a reconstruction's
	// arbitrary unit a scale.
	Spread float64 `json:"spread"`
	// From the model: points, mean track length, mean reprojection error
	// (pixels, the mean over points, as COLMAP's model_analyzer).
	Points           int     `json:"points"`
	MeanTrackLength  float64 `json:"mean_track_length"`
	MeanReprojection float64 `json:"mean_reprojection_error_px"`
	// Intrinsics compares the model's cameras with the true ones, when
	// the model has a cameras file and some registered image's true K
	// (with its size) can be compared; nil otherwise, as against another
	// model, whose Cameras carry no K.
	Intrinsics *IntrinsicsError `json:"intrinsics,omitempty"`
}

// IntrinsicsError compares each registered image's camera with its true
// K, scaled to the camera's image size (Strecha's K counts pixel centres
// from 0, COLMAP's from 0.5: c_colmap = (c + 0.5)·s). Images whose size
// is not the truth's scaled alike in x and y (within 1%: a crop) are left
// out.
type IntrinsicsError struct {
	Images int `json:"images"` // images compared
	// Focal is the error of the mean of fx and fy, in percent of the
	// true one.
	Focal Summary `json:"focal_error_pct"`
	// PrincipalPoint is the distance of the model's principal point
	// from the true one, in the model's pixels.
	PrincipalPoint Summary `json:"principal_point_error_px"`
	// Centre is the image centre's distance from the true principal
	// point: the error of assuming the principal point at the centre, as
	// COLMAP does unless told to refine it.
	Centre Summary `json:"centre_offset_px"`
}

// Summary is the median, mean and maximum of a set of errors.
type Summary struct {
	Median float64 `json:"median"`
	Mean   float64 `json:"mean"`
	Max    float64 `json:"max"`
}

// ImageError is one camera's errors.
type ImageError struct {
	Name     string  `json:"name"`
	Position float64 `json:"position_error"`
	Rotation float64 `json:"rotation_error_deg"`
}

func summarize(v []float64) Summary {
	if len(v) == 0 {
		return Summary{}
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Summary{Median: med, Mean: sum / float64(len(s)), Max: s[len(s)-1]}
}

// EvaluateSfM aligns the model's camera centres to the ground truth's (by
// image name) with Umeyama's similarity and measures every registered
// camera's position and rotation error, then the alignment-free relative
// rotation and direction errors of every pair of registered images.
func EvaluateSfM(m *Model, gt map[string]Camera) (*SfMReport, error) {
	var names []string
	for n := range gt {
		names = append(names, n)
	}
	sort.Strings(names)
	r := &SfMReport{Images: len(gt), Points: m.Points}
	var src, dst [][3]float64
	var reg []string
	for _, n := range names {
		c, ok := m.Cameras[n]
		if !ok {
			r.Missing = append(r.Missing, n)
			continue
		}
		reg = append(reg, n)
		src = append(src, c.C)
		dst = append(dst, gt[n].C)
	}
	r.Registered = len(reg)
	if m.Points > 0 {
		r.MeanTrackLength = float64(m.Observations) / float64(m.Points)
		r.MeanReprojection = m.ErrorSum / float64(m.Points)
	}
	if len(reg) == 0 {
		return nil, errors.New("no image of the ground truth is in the model (names must match: NAME.camera for image NAME)")
	}
	sim, err := Umeyama(src, dst)
	if err != nil {
		return nil, err
	}
	r.Scale = sim.S
	var centroid [3]float64
	for _, n := range names {
		for k := range centroid {
			centroid[k] += gt[n].C[k] / float64(len(names))
		}
	}
	dist := make([]float64, len(names))
	for i, n := range names {
		c := gt[n].C
		dist[i] = math.Sqrt(sq(c[0]-centroid[0]) + sq(c[1]-centroid[1]) + sq(c[2]-centroid[2]))
	}
	r.Spread = summarize(dist).Median
	var pos, rot []float64
	for i, n := range reg {
		p := sim.Apply(src[i])
		d := math.Sqrt(sq(p[0]-dst[i][0]) + sq(p[1]-dst[i][1]) + sq(p[2]-dst[i][2]))
		// The model's rotation in the ground truth's world: R_m·Rsᵀ; its
		// error against R_gt is the angle of R_m·Rsᵀ·R_gtᵀ.
		e := geom.Mul3(geom.Mul3(flat(m.Cameras[n].R), geom.Transpose3(flat(sim.R))), geom.Transpose3(flat(gt[n].R)))
		ang := geom.RotationAngle(e)
		pos, rot = append(pos, d), append(rot, ang)
		r.PerImage = append(r.PerImage, ImageError{Name: n, Position: d, Rotation: ang})
	}
	r.Position, r.Rotation = summarize(pos), summarize(rot)
	r.RotationCommon, r.RotationResidual = splitRotation(m, gt, reg, sim)
	var relRot, relDir []float64
	for i, a := range reg {
		for _, b := range reg[i+1:] {
			ma, mb, ga, gb := m.Cameras[a], m.Cameras[b], gt[a], gt[b]
			// (R_b·R_aᵀ)·(G_b·G_aᵀ)ᵀ
			mr := geom.Mul3(flat(mb.R), geom.Transpose3(flat(ma.R)))
			gr := geom.Mul3(flat(gb.R), geom.Transpose3(flat(ga.R)))
			relRot = append(relRot, geom.RotationAngle(geom.Mul3(mr, geom.Transpose3(gr))))
			// Coincident centres have no direction: such a pair counts
			// in the rotations only.
			if ang, ok := vectorAngle(direction(mb, ma.C), direction(gb, ga.C)); ok {
				relDir = append(relDir, ang)
			}
		}
	}
	r.Pairs = len(relRot)
	r.RelativeRotation, r.RelativeDirection = summarize(relRot), summarize(relDir)
	if m.Intrinsics != nil {
		if in := intrinsicsError(m, gt, reg); in.Images > 0 {
			r.Intrinsics = in
		}
	}
	return r, nil
}

// splitRotation returns the angle of the rotation the registered
// cameras' errors share and the summary of each one's error without it.
// Camera i's error in the truth's world frame is W_i = G_iᵀ·R_i·Rsᵀ (the
// same angle as its rotation error); their shared part is the rotation
// nearest to ΣW_i (the chordal L2 mean), Q, and the rest is W_i·Qᵀ.
func splitRotation(m *Model, gt map[string]Camera, reg []string, sim Similarity) (float64, Summary) {
	w := make([][9]float64, len(reg))
	sum := mat.NewDense(3, 3, nil)
	for i, n := range reg {
		w[i] = geom.Mul3(geom.Transpose3(flat(gt[n].R)), geom.Mul3(flat(m.Cameras[n].R), geom.Transpose3(flat(sim.R))))
		for k := 0; k < 9; k++ {
			sum.Set(k/3, k%3, sum.At(k/3, k%3)+w[i][k])
		}
	}
	var svd mat.SVD
	if len(reg) == 0 || !svd.Factorize(sum, mat.SVDFull) {
		return 0, Summary{}
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	qr, _ := umeyamaRotation(&u, &v)
	q := flat(qr)
	rest := make([]float64, len(reg))
	for i := range w {
		rest[i] = geom.RotationAngle(geom.Mul3(w[i], geom.Transpose3(q)))
	}
	return geom.RotationAngle(q), summarize(rest)
}

// intrinsicsError compares the intrinsics of the registered images reg.
func intrinsicsError(m *Model, gt map[string]Camera, reg []string) *IntrinsicsError {
	var focal, pp, centre []float64
	for _, n := range reg {
		in, ok := m.Intrinsics[n]
		g := gt[n]
		if !ok || g.Width <= 0 || g.Height <= 0 {
			continue
		}
		sx, sy := float64(in.Width)/float64(g.Width), float64(in.Height)/float64(g.Height)
		if math.Abs(sx/sy-1) > 0.01 {
			continue
		}
		fx, fy := g.K[0][0]*sx, g.K[1][1]*sy
		cx, cy := (g.K[0][2]+0.5)*sx, (g.K[1][2]+0.5)*sy
		focal = append(focal, 100*math.Abs((in.Fx+in.Fy)/(fx+fy)-1))
		pp = append(pp, math.Hypot(in.Cx-cx, in.Cy-cy))
		centre = append(centre, math.Hypot(float64(in.Width)/2-cx, float64(in.Height)/2-cy))
	}
	return &IntrinsicsError{Images: len(focal), Focal: summarize(focal), PrincipalPoint: summarize(pp), Centre: summarize(centre)}
}

// direction is c − cam.C in cam's frame: cam.R·(c − cam.C).
func direction(cam Camera, c [3]float64) [3]float64 {
	d := [3]float64{c[0] - cam.C[0], c[1] - cam.C[1], c[2] - cam.C[2]}
	var v [3]float64
	for k := 0; k < 3; k++ {
		v[k] = cam.R[k][0]*d[0] + cam.R[k][1]*d[1] + cam.R[k][2]*d[2]
	}
	return v
}

// vectorAngle is the angle between a and b in degrees; ok is false when
// either is zero.
func vectorAngle(a, b [3]float64) (float64, bool) {
	na := math.Sqrt(sq(a[0]) + sq(a[1]) + sq(a[2]))
	nb := math.Sqrt(sq(b[0]) + sq(b[1]) + sq(b[2]))
	if na == 0 || nb == 0 {
		return 0, false
	}
	cross := [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
	sin := math.Sqrt(sq(cross[0])+sq(cross[1])+sq(cross[2])) / (na * nb)
	cos := (a[0]*b[0] + a[1]*b[1] + a[2]*b[2]) / (na * nb)
	return math.Atan2(sin, cos) * 180 / math.Pi, true
}

func sq(x float64) float64 { return x * x }

// flat is a 3×3 matrix row-major, as pairwise's Mul3 and Transpose3 take it.
func flat(a [3][3]float64) [9]float64 {
	return [9]float64{a[0][0], a[0][1], a[0][2], a[1][0], a[1][1], a[1][2], a[2][0], a[2][1], a[2][2]}
}

// flat3 is a row-major copy of a.
func flat3(a [3][3]float64) [9]float64 {
	return [9]float64{a[0][0], a[0][1], a[0][2], a[1][0], a[1][1], a[1][2], a[2][0], a[2][1], a[2][2]}
}
