package colmap

import (
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"net/url"
	"os"
	"sort"

	"github.com/clearmatch/clearmatch/geom"
)

// Matches is what an SfM engine builds its tracks from in a COLMAP
// database: each image's keypoints and, per image pair, the verified
// matches of two_view_geometries (whatever wrote the database: clearmatch
// or COLMAP's own matcher).
type Matches struct {
	// Names and Widths of the images, in image_id order; Points their
	// keypoints in OpenCV's convention (pixel centres at integers: COLMAP's
	// coordinates less 0.5).
	Names  []string
	Widths []int
	Points [][]geom.Point
	// Pairs maps image indices (i < j) to keypoint index pairs (in i, in j).
	Pairs map[[2]int][][2]int
}

// ReadMatches reads a COLMAP database (read-only). A file that is
// not one, or holds keypoints or matches that do not fit their images,
// is an error naming the file and what is wrong.
func ReadMatches(path string) (*Matches, error) {
	s, err := ReadScene(path, Verified)
	if err != nil {
		return nil, err
	}
	cm := &Matches{Names: s.Names, Widths: make([]int, len(s.Names)), Points: make([][]geom.Point, len(s.Names)), Pairs: map[[2]int][][2]int{}}
	for i := range s.Names {
		cm.Widths[i] = s.Cameras[s.CameraOf[i]].Width
		cm.Points[i] = s.Points(i)
	}
	for _, p := range s.Pairs {
		cm.Pairs[[2]int{p.I, p.J}] = p.Matches
	}
	return cm, nil
}

// A MatchTable is the table of a database whose image pairs ReadScene
// reads.
type MatchTable string

const (
	// Verified is two_view_geometries: each pair's inliers of its
	// two-view geometry, what the mapper builds tracks from.
	Verified MatchTable = "two_view_geometries"
	// Raw is matches: each pair's matches before verification.
	Raw MatchTable = "matches"
)

// Scene is what a COLMAP database says of its images: cameras,
// keypoints, and the matches of image pairs in one table.
type Scene struct {
	// Version is the database's user_version: 0 (written without one),
	// 3.x's as COLMAP 3.8 stamps it (3800), or MAJOR·10⁶ + MINOR·10⁴ + …
	Version int
	// IDs and Names are the images' image_id and name, in image_id
	// order; CameraOf[i] is image i's index into Cameras.
	IDs      []int64
	Names    []string
	CameraOf []int
	// Cameras in camera_id order; CameraIDs their camera_id.
	Cameras   []Camera
	CameraIDs []int64
	// Keypoints of each image in COLMAP's convention (first pixel's
	// centre at 0.5); the affine shape is zero where the database stores
	// positions alone (two columns).
	Keypoints [][]Keypoint
	// Pairs are the image pairs with matches in the table read, sorted by
	// (I, J), I < J: keypoint index pairs (I's, J's), sorted.
	Pairs []ScenePair
}

// ScenePair is one image pair's matches in a Scene.
type ScenePair struct {
	I, J    int
	Matches [][2]int
}

// SharedCamera returns the index into Cameras of the camera every image
// shares, false when the images have more than one.
func (s *Scene) SharedCamera() (int, bool) {
	for _, c := range s.CameraOf {
		if c != s.CameraOf[0] {
			return 0, false
		}
	}
	return s.CameraOf[0], len(s.CameraOf) > 0
}

// Points returns image i's keypoint positions in OpenCV's convention
// (pixel centres at integers).
func (s *Scene) Points(i int) []geom.Point {
	pts := make([]geom.Point, len(s.Keypoints[i]))
	for k, kp := range s.Keypoints[i] {
		pts[k] = geom.Point{X: float64(kp.X) - 0.5, Y: float64(kp.Y) - 0.5}
	}
	return pts
}

// newestVersion is the newest schema ReadScene knows: COLMAP 4's
// user_version is 4·10⁶ + …; 5·10⁶ and beyond is a COLMAP it has not
// seen.
const newestVersion = 5_000_000 - 1

// ReadScene reads a COLMAP database (read-only) of COLMAP 3.x or 4.x, or
// one another tool (hloc) wrote in their schema: every image with its
// camera and keypoints (two, four or six columns), and the pairs of
// table. A file that is not such a database, a newer schema, no
// keypoints at all, or keypoints or matches that do not fit their images
// is an error naming the file and what is wrong.
func ReadScene(path string, table MatchTable) (*Scene, error) {
	if table != Verified && table != Raw {
		return nil, fmt.Errorf("colmap: no match table %q", table)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	r := &dbReader{path: path, s: &Scene{}, index: map[int64]int{}}
	if !st.Mode().IsRegular() {
		return nil, r.fail("not a file")
	}
	// Read-only, so that a wrong path never leaves an empty database.
	if r.db, err = sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro"); err != nil {
		return nil, r.fail("%v", err)
	}
	defer r.db.Close()
	for _, step := range []func() error{r.version, r.cameras, r.images, r.keypoints, func() error { return r.pairs(table) }} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return r.s, nil
}

// dbReader is one ReadScene call: the database, what is read so far,
// and each image_id's index.
type dbReader struct {
	path  string
	db    *sql.DB
	s     *Scene
	index map[int64]int
}

func (r *dbReader) fail(format string, a ...any) error {
	return fmt.Errorf("%s: %s", r.path, fmt.Sprintf(format, a...))
}

// each runs query and calls row on every result: a query that fails means
// the file is no COLMAP database; a row that does not scan names the
// table.
func (r *dbReader) each(table, query string, row func(scan func(dest ...any) error) error) error {
	rows, err := r.db.Query(query)
	if err != nil {
		return r.fail("not a COLMAP database (%v)", err)
	}
	defer rows.Close()
	scan := func(dest ...any) error {
		if err := rows.Scan(dest...); err != nil {
			return r.fail("%s: %v", table, err)
		}
		return nil
	}
	for rows.Next() {
		if err := row(scan); err != nil {
			return err
		}
	}
	if err := closeRows(rows); err != nil {
		return r.fail("%s: %v", table, err)
	}
	return nil
}

// version reads user_version and refuses a schema newer than COLMAP 4.
func (r *dbReader) version() error {
	if err := r.each("user_version", `PRAGMA user_version`, func(scan func(...any) error) error {
		return scan(&r.s.Version)
	}); err != nil {
		return err
	}
	if v := r.s.Version; v < 0 || v > newestVersion {
		return r.fail("schema version %d is not COLMAP 3.x or 4.x's", v)
	}
	return nil
}

// cameras reads the cameras in camera_id order.
func (r *dbReader) cameras() error {
	return r.each("cameras", `SELECT camera_id, model, width, height, params, prior_focal_length FROM cameras ORDER BY camera_id`, func(scan func(...any) error) error {
		var id, model, w, h, prior int64
		var params []byte
		if err := scan(&id, &model, &w, &h, &params, &prior); err != nil {
			return err
		}
		if model < 0 || model >= int64(len(models)) {
			return r.fail("camera %d: model %d is not one COLMAP knows", id, model)
		}
		p, err := float64s(params)
		if err != nil {
			return r.fail("camera %d: params: %v", id, err)
		}
		if _, err := newIntrinsics(int(model), uint64(max(w, 0)), uint64(max(h, 0)), p); err != nil {
			return r.fail("camera %d: %v", id, err)
		}
		r.s.Cameras = append(r.s.Cameras, Camera{Model: models[model].name, Width: int(w), Height: int(h), Params: p, PriorFocal: prior != 0})
		r.s.CameraIDs = append(r.s.CameraIDs, id)
		return nil
	})
}

// images reads the images in image_id order.
func (r *dbReader) images() error {
	camera := map[int64]int{}
	for c, id := range r.s.CameraIDs {
		camera[id] = c
	}
	if err := r.each("images", `SELECT image_id, name, camera_id FROM images ORDER BY image_id`, func(scan func(...any) error) error {
		var id, cam int64
		var name string
		if err := scan(&id, &name, &cam); err != nil {
			return err
		}
		c, ok := camera[cam]
		if !ok {
			return r.fail("image %q: camera %d is missing", name, cam)
		}
		r.index[id] = len(r.s.Names)
		r.s.IDs = append(r.s.IDs, id)
		r.s.Names = append(r.s.Names, name)
		r.s.CameraOf = append(r.s.CameraOf, c)
		return nil
	}); err != nil {
		return err
	}
	if len(r.s.Names) == 0 {
		return r.fail("no images")
	}
	return nil
}

// keypoints reads every image's keypoints.
func (r *dbReader) keypoints() error {
	r.s.Keypoints = make([][]Keypoint, len(r.s.Names))
	rows := 0
	if err := r.each("keypoints", `SELECT image_id, rows, cols, data FROM keypoints`, func(scan func(...any) error) error {
		var id, n, cols int64
		var data []byte
		if err := scan(&id, &n, &cols, &data); err != nil {
			return err
		}
		i, ok := r.index[id]
		if !ok {
			return r.fail("keypoints of image_id %d, which is not in images", id)
		}
		var err error
		if r.s.Keypoints[i], err = decodeKeypoints(n, cols, data); err != nil {
			return r.fail("keypoints of %q: %v", r.s.Names[i], err)
		}
		rows++
		return nil
	}); err != nil {
		return err
	}
	if rows == 0 {
		return r.fail("no keypoints (the keypoints table is empty)")
	}
	return nil
}

// pairs reads the pairs with matches in table, lower image first.
func (r *dbReader) pairs(table MatchTable) error {
	err := r.each(string(table), `SELECT pair_id, rows, cols, data FROM `+string(table)+` WHERE rows > 0`, func(scan func(...any) error) error {
		var pid, n, cols int64
		var data []byte
		if err := scan(&pid, &n, &cols, &data); err != nil {
			return err
		}
		i, ok1 := r.index[pid/pairScale]
		j, ok2 := r.index[pid%pairScale]
		if !ok1 || !ok2 || i == j {
			return r.fail("%s: pair_id %d is not two of its images", table, pid)
		}
		ms, err := decodeMatches(n, cols, data, len(r.s.Keypoints[i]), len(r.s.Keypoints[j]))
		if err != nil {
			return r.fail("%s: matches of %q and %q: %v", table, r.s.Names[i], r.s.Names[j], err)
		}
		if i > j {
			i, j = j, i
			for k := range ms {
				ms[k][0], ms[k][1] = ms[k][1], ms[k][0]
			}
			sortMatches(ms)
		}
		r.s.Pairs = append(r.s.Pairs, ScenePair{I: i, J: j, Matches: ms})
		return nil
	})
	sort.Slice(r.s.Pairs, func(a, b int) bool {
		pa, pb := r.s.Pairs[a], r.s.Pairs[b]
		return pa.I < pb.I || pa.I == pb.I && pa.J < pb.J
	})
	return err
}

func closeRows(rows *sql.Rows) error {
	err := rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return err
}

// float64s decodes a blob of little-endian doubles.
func float64s(b []byte) ([]float64, error) {
	if len(b)%8 != 0 {
		return nil, fmt.Errorf("%d bytes is not a whole number of doubles", len(b))
	}
	v := make([]float64, len(b)/8)
	for k := range v {
		v[k] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*k:]))
	}
	return v, nil
}

// decodeKeypoints reads n keypoints of cols floats from a keypoints blob:
// x, y (COLMAP's pixel convention), then nothing (2), scale and
// orientation in radians (4), or the affine shape a11, a12, a21, a22 (6).
func decodeKeypoints(n, cols int64, data []byte) ([]Keypoint, error) {
	if n < 0 || (cols != 2 && cols != 4 && cols != 6) {
		return nil, fmt.Errorf("%d rows of %d columns: want 2, 4 or 6 columns", n, cols)
	}
	if n > int64(len(data)) || int64(len(data)) != 4*n*cols { // n first: 4·n·cols must not overflow
		return nil, fmt.Errorf("%d rows of %d floats in %d bytes", n, cols, len(data))
	}
	kps := make([]Keypoint, n)
	row := make([]float32, cols)
	for k := range kps {
		for c := range row {
			row[c] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*(cols*int64(k)+int64(c)):]))
			if f := float64(row[c]); math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("keypoint %d is not finite", k)
			}
		}
		kp := Keypoint{X: row[0], Y: row[1]}
		switch cols {
		case 4:
			sn, cs := math.Sincos(float64(row[3]))
			s := float64(row[2])
			kp.A11, kp.A12, kp.A21, kp.A22 = float32(s*cs), float32(-s*sn), float32(s*sn), float32(s*cs)
		case 6:
			kp.A11, kp.A12, kp.A21, kp.A22 = row[2], row[3], row[4], row[5]
		}
		kps[k] = kp
	}
	return kps, nil
}

// decodeMatches reads n matches (two uint32 keypoint indices) of a pair
// whose images have na and nb keypoints, sorted.
func decodeMatches(n, cols int64, data []byte, na, nb int) ([][2]int, error) {
	if n < 0 || cols != 2 {
		return nil, fmt.Errorf("%d rows of %d columns: want 2 columns", n, cols)
	}
	if n > int64(len(data)) || int64(len(data)) != 8*n {
		return nil, fmt.Errorf("%d matches in %d bytes", n, len(data))
	}
	ms := make([][2]int, n)
	for k := range ms {
		a := binary.LittleEndian.Uint32(data[8*k:])
		b := binary.LittleEndian.Uint32(data[8*k+4:])
		if int64(a) >= int64(na) || int64(b) >= int64(nb) {
			return nil, fmt.Errorf("match %d (%d, %d) is out of the images' %d and %d keypoints", k, a, b, na, nb)
		}
		ms[k] = [2]int{int(a), int(b)}
	}
	sortMatches(ms)
	return ms, nil
}

func sortMatches(ms [][2]int) {
	sort.Slice(ms, func(x, y int) bool {
		if ms[x][0] != ms[y][0] {
			return ms[x][0] < ms[y][0]
		}
		return ms[x][1] < ms[y][1]
	})
}
