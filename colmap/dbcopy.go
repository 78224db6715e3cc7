package colmap

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"net/url"
	"os"
	"slices"
)

// GeometryCounts says what CopyWithGeometries did to two_view_geometries.
type GeometryCounts struct {
	// Kept counts the pairs whose row stayed as it was (same matches),
	// Changed those given new matches and geometry, Dropped the rows
	// taken out (pairs not given), Added the pairs the input had no row
	// for.
	Kept    int `json:"kept"`
	Changed int `json:"changed"`
	Dropped int `json:"dropped"`
	Added   int `json:"added"`
}

// CopyWithGeometries writes to dst (which must not exist) a copy of the
// database at src whose two_view_geometries hold exactly pairs (image
// indices into ids, the images' image_id): a pair given the matches its
// row holds keeps the row as it was; another gets its matches,
// configuration and F, E, H (NULL where zero; the rest of the row, such
// as qvec and tvec or COLMAP 4's cameras, as it was); a row of a pair not
// given is taken out. Every other table, and the schema whatever its
// version, is copied unchanged; src is only read. A failure removes dst.
func CopyWithGeometries(ctx context.Context, src, dst string, ids []int64, pairs []Pair) (c GeometryCounts, err error) {
	if _, err := os.Lstat(dst); err == nil {
		return c, fmt.Errorf("colmap: %s already exists", dst)
	}
	defer func() {
		if err != nil {
			os.Remove(dst)
			os.Remove(dst + "-journal")
		}
	}()
	in, err := sql.Open("sqlite", "file:"+(&url.URL{Path: src}).EscapedPath()+"?mode=ro")
	if err != nil {
		return c, fmt.Errorf("colmap: %s: %w", src, err)
	}
	defer in.Close()
	// VACUUM INTO copies what the database holds, a write-ahead log's
	// pages included, with its user_version, into a new file.
	if _, err := in.ExecContext(ctx, `VACUUM INTO ?`, dst); err != nil {
		return c, fmt.Errorf("colmap: copying %s: %w", src, err)
	}
	out, err := sql.Open("sqlite", dst)
	if err != nil {
		return c, fmt.Errorf("colmap: %s: %w", dst, err)
	}
	defer func() {
		if cerr := out.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("colmap: %s: %w", dst, cerr)
		}
	}()
	out.SetMaxOpenConns(1)
	tx, err := out.BeginTx(ctx, nil)
	if err != nil {
		return c, fmt.Errorf("colmap: %s: %w", dst, err)
	}
	defer tx.Rollback()
	if c, err = rewriteGeometries(ctx, tx, ids, pairs); err != nil {
		return c, fmt.Errorf("colmap: %s: %w", dst, err)
	}
	if err := tx.Commit(); err != nil {
		return c, fmt.Errorf("colmap: %s: %w", dst, err)
	}
	return c, nil
}

// rewriteGeometries makes two_view_geometries hold pairs (see
// CopyWithGeometries).
func rewriteGeometries(ctx context.Context, tx *sql.Tx, ids []int64, pairs []Pair) (c GeometryCounts, err error) {
	want := map[int64]*Pair{}
	for k := range pairs {
		p := &pairs[k]
		if p.I < 0 || p.I >= p.J || p.J >= len(ids) {
			return c, fmt.Errorf("pair (%d, %d) is not two of %d images in order", p.I, p.J, len(ids))
		}
		want[PairID(ids[p.I], ids[p.J])] = p
	}
	have := map[int64][]byte{}
	rows, err := tx.QueryContext(ctx, `SELECT pair_id, data FROM two_view_geometries WHERE rows > 0`)
	if err != nil {
		return c, err
	}
	for rows.Next() {
		var id int64
		var data []byte
		if err := rows.Scan(&id, &data); err != nil {
			rows.Close()
			return c, err
		}
		have[id] = data
	}
	if err := closeRows(rows); err != nil {
		return c, err
	}
	for _, id := range sortedKeys(have) {
		if want[id] == nil {
			if _, err := tx.ExecContext(ctx, `DELETE FROM two_view_geometries WHERE pair_id = ?`, id); err != nil {
				return c, err
			}
			c.Dropped++
		}
	}
	for _, id := range sortedKeys(want) {
		p := want[id]
		data := matchBlob(p.Matches, ids[p.I] > ids[p.J])
		old, ok := have[id]
		switch {
		case ok && sameMatches(old, data):
			c.Kept++
			continue
		case ok:
			c.Changed++
			_, err = tx.ExecContext(ctx, `UPDATE two_view_geometries SET rows = ?, cols = 2, data = ?, config = ?, F = ?, E = ?, H = ? WHERE pair_id = ?`,
				len(p.Matches), data, p.Config, matrixBlob(p.F), matrixBlob(p.E), matrixBlob(p.H), id)
		default:
			c.Added++
			_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO two_view_geometries (pair_id, rows, cols, data, config, F, E, H) VALUES (?, ?, 2, ?, ?, ?, ?, ?)`,
				id, len(p.Matches), data, p.Config, matrixBlob(p.F), matrixBlob(p.E), matrixBlob(p.H))
		}
		if err != nil {
			return c, err
		}
	}
	return c, nil
}

// sortedKeys are m's keys in increasing order: rows are written in one
// order, so that the same input gives the same file.
func sortedKeys[V any](m map[int64]V) []int64 {
	keys := make([]int64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// sameMatches reports whether two match blobs hold the same keypoint
// pairs in any order.
func sameMatches(a, b []byte) bool {
	if len(a) != len(b) || len(a)%8 != 0 {
		return false
	}
	rows := func(d []byte) []uint64 {
		v := make([]uint64, len(d)/8)
		for k := range v {
			v[k] = binary.LittleEndian.Uint64(d[8*k:])
		}
		slices.Sort(v)
		return v
	}
	return slices.Equal(rows(a), rows(b))
}

// matchBlob is a pair's matches as COLMAP stores them, the lower image_id
// first (swap: the pair's first image has the higher id).
func matchBlob(ms [][2]uint32, swap bool) []byte {
	data := make([]byte, 0, 8*len(ms))
	for _, m := range ms {
		a, b := m[0], m[1]
		if swap {
			a, b = b, a
		}
		data = binary.LittleEndian.AppendUint32(data, a)
		data = binary.LittleEndian.AppendUint32(data, b)
	}
	return data
}

// matrixBlob is a 3×3 matrix as a blob, nil (NULL) when it is zero: not
// estimated, as COLMAP 3.15 and later store it.
func matrixBlob(m [9]float64) []byte {
	if m == ([9]float64{}) {
		return nil
	}
	return float64Blob(m[:])
}

// MoveKeypoints sets, in the database at path, the position (the first
// two columns) of every image's keypoints to pos (image indices into ids,
// COLMAP's convention), leaving their other columns as they are; an
// image whose positions are unchanged keeps its row.
func MoveKeypoints(ctx context.Context, path string, ids []int64, pos [][][2]float32) (err error) {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return fmt.Errorf("colmap: %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("colmap: %s: %w", path, err)
	}
	defer tx.Rollback()
	for i, p := range pos {
		var n, cols int64
		var data []byte
		if err := tx.QueryRowContext(ctx, `SELECT rows, cols, data FROM keypoints WHERE image_id = ?`, ids[i]).Scan(&n, &cols, &data); err != nil {
			return fmt.Errorf("colmap: %s: keypoints of image_id %d: %w", path, ids[i], err)
		}
		if n != int64(len(p)) || int64(len(data)) != 4*n*cols {
			return fmt.Errorf("colmap: %s: image_id %d has %d keypoints, not %d", path, ids[i], n, len(p))
		}
		moved := slices.Clone(data)
		for k, xy := range p {
			o := 4 * cols * int64(k)
			binary.LittleEndian.PutUint32(moved[o:], math.Float32bits(xy[0]))
			binary.LittleEndian.PutUint32(moved[o+4:], math.Float32bits(xy[1]))
		}
		if slices.Equal(moved, data) {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE keypoints SET data = ? WHERE image_id = ?`, moved, ids[i]); err != nil {
			return fmt.Errorf("colmap: %s: %w", path, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("colmap: %s: %w", path, err)
	}
	return nil
}

// SetCamera sets, in the database at path, the parameters of the camera
// camera_id (in its model's order, COLMAP's convention) and whether its
// focal length is known.
func SetCamera(ctx context.Context, path string, id int64, params []float64, priorFocal bool) error {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return fmt.Errorf("colmap: %s: %w", path, err)
	}
	defer db.Close()
	prior := 0
	if priorFocal {
		prior = 1
	}
	res, err := db.ExecContext(ctx, `UPDATE cameras SET params = ?, prior_focal_length = ? WHERE camera_id = ?`, float64Blob(params), prior, id)
	if err != nil {
		return fmt.Errorf("colmap: %s: %w", path, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("colmap: %s: no camera %d", path, id)
	}
	return nil
}
