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
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	r := &dbReader{path: path, cm: &Matches{Pairs: map[[2]int][][2]int{}}, index: map[int64]int{}}
	if !st.Mode().IsRegular() {
		return nil, r.fail("not a file")
	}
	// Read-only, so that a wrong path never leaves an empty database.
	if r.db, err = sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro"); err != nil {
		return nil, r.fail("%v", err)
	}
	defer r.db.Close()
	for _, step := range []func() error{r.images, r.keypoints, r.matches} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return r.cm, nil
}

// dbReader is one ReadMatches call: the database, what is read so far,
// and each image_id's index.
type dbReader struct {
	path  string
	db    *sql.DB
	cm    *Matches
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

// images reads the images in image_id order with their cameras' widths.
func (r *dbReader) images() error {
	widths := map[int64]int{}
	if err := r.each("cameras", `SELECT camera_id, width FROM cameras`, func(scan func(...any) error) error {
		var id int64
		var w int
		if err := scan(&id, &w); err != nil {
			return err
		}
		widths[id] = w
		return nil
	}); err != nil {
		return err
	}
	if err := r.each("images", `SELECT image_id, name, camera_id FROM images ORDER BY image_id`, func(scan func(...any) error) error {
		var id, cam int64
		var name string
		if err := scan(&id, &name, &cam); err != nil {
			return err
		}
		w, ok := widths[cam]
		if !ok || w <= 0 {
			return r.fail("image %q: camera %d is missing or has no width", name, cam)
		}
		r.index[id] = len(r.cm.Names)
		r.cm.Names = append(r.cm.Names, name)
		r.cm.Widths = append(r.cm.Widths, w)
		return nil
	}); err != nil {
		return err
	}
	if len(r.cm.Names) == 0 {
		return r.fail("no images")
	}
	return nil
}

// keypoints reads every image's keypoints.
func (r *dbReader) keypoints() error {
	r.cm.Points = make([][]geom.Point, len(r.cm.Names))
	return r.each("keypoints", `SELECT image_id, rows, cols, data FROM keypoints`, func(scan func(...any) error) error {
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
		if r.cm.Points[i], err = decodeKeypoints(n, cols, data); err != nil {
			return r.fail("keypoints of %q: %v", r.cm.Names[i], err)
		}
		return nil
	})
}

// matches reads the verified matches of two_view_geometries, lower image
// first.
func (r *dbReader) matches() error {
	return r.each("two_view_geometries", `SELECT pair_id, rows, cols, data FROM two_view_geometries WHERE rows > 0`, func(scan func(...any) error) error {
		var pid, n, cols int64
		var data []byte
		if err := scan(&pid, &n, &cols, &data); err != nil {
			return err
		}
		i, ok1 := r.index[pid/pairScale]
		j, ok2 := r.index[pid%pairScale]
		if !ok1 || !ok2 || i == j {
			return r.fail("two_view_geometries: pair_id %d is not two of its images", pid)
		}
		ms, err := decodeMatches(n, cols, data, len(r.cm.Points[i]), len(r.cm.Points[j]))
		if err != nil {
			return r.fail("matches of %q and %q: %v", r.cm.Names[i], r.cm.Names[j], err)
		}
		if i > j {
			i, j = j, i
			for k := range ms {
				ms[k][0], ms[k][1] = ms[k][1], ms[k][0]
			}
		}
		r.cm.Pairs[[2]int{i, j}] = ms
		return nil
	})
}

func closeRows(rows *sql.Rows) error {
	err := rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return err
}

// decodeKeypoints reads n keypoints of cols floats (2, 4 or 6: x, y
// first, COLMAP's pixel convention) from a keypoints blob.
func decodeKeypoints(n, cols int64, data []byte) ([]geom.Point, error) {
	if n < 0 || (cols != 2 && cols != 4 && cols != 6) {
		return nil, fmt.Errorf("%d rows of %d columns: want 2, 4 or 6 columns", n, cols)
	}
	if n > int64(len(data)) || int64(len(data)) != 4*n*cols { // n first: 4·n·cols must not overflow
		return nil, fmt.Errorf("%d rows of %d floats in %d bytes", n, cols, len(data))
	}
	pts := make([]geom.Point, n)
	for k := range pts {
		o := 4 * cols * int64(k)
		x := math.Float32frombits(binary.LittleEndian.Uint32(data[o:]))
		y := math.Float32frombits(binary.LittleEndian.Uint32(data[o+4:]))
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) || math.IsNaN(float64(y)) || math.IsInf(float64(y), 0) {
			return nil, fmt.Errorf("keypoint %d is not finite", k)
		}
		pts[k] = geom.Point{X: float64(x) - 0.5, Y: float64(y) - 0.5}
	}
	return pts, nil
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
	sort.Slice(ms, func(x, y int) bool {
		if ms[x][0] != ms[y][0] {
			return ms[x][0] < ms[y][0]
		}
		return ms[x][1] < ms[y][1]
	})
	return ms, nil
}
