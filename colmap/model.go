package colmap

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
	"github.com/clearmatch/clearmatch/internal/numbers"
)

// Model is the part of a COLMAP reconstruction the evaluation reads.
type Model struct {
	// Poses maps image names to their registered poses.
	Poses map[string]geom.Pose
	// Intrinsics maps image names to their camera's intrinsics, when the
	// model has a cameras file.
	Intrinsics map[string]Intrinsics
	// Points is the number of 3D points; Observations the sum of their
	// track lengths; ErrorSum the sum of their mean reprojection errors
	// (pixels), as COLMAP's model_analyzer averages them.
	Points, Observations int
	ErrorSum             float64
}

// HasModel tells whether dir holds a COLMAP sparse model: its images
// file, binary or text (what ReadModel needs first).
func HasModel(dir string) bool {
	for _, name := range []string{"images.bin", "images.txt"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// ReadModel reads a COLMAP sparse model folder: images and points3D,
// and cameras when present (for Intrinsics), binary (.bin) when images
// and points3D are, else text (.txt). Errors name the file and, for
// text, the line.
func ReadModel(dir string) (*Model, error) {
	m := &Model{Poses: map[string]geom.Pose{}}
	path := func(name string) string { return filepath.Join(dir, name) }
	exists := func(name string) bool {
		_, err := os.Stat(path(name))
		return err == nil
	}
	if !HasModel(dir) {
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
		for i, c := range models {
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
		p, err := numbers.Floats(f[4:])
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
		if model < 0 || int(model) >= len(models) {
			return nil, fmt.Errorf("%s: camera %d: unknown camera model id %d", path, id, model)
		}
		p := make([]float64, models[model].params)
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
// pose; the quaternion is normalized, and a zero one is an error.
func poseFromQT(q [4]float64, t [3]float64) (geom.Pose, error) {
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if !(n > 1e-12) || math.IsInf(n, 0) {
		return geom.Pose{}, fmt.Errorf("quaternion %v is not a rotation", q)
	}
	for _, v := range t {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return geom.Pose{}, fmt.Errorf("translation %v is not finite", t)
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
	return geom.Pose{R: r, C: c}, nil
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
		v, err := numbers.Floats(f[1:8])
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
	if _, dup := m.Poses[name]; dup {
		return fmt.Errorf("image %q appears twice", name)
	}
	m.Poses[name] = cam
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
		e, err := numbers.Floats(f[7:8])
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
