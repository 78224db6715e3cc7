package export

import (
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"

	// A pure-Go SQLite (the C library transpiled to Go): database.db is
	// written without cgo, so export stays buildable with CGO_ENABLED=0.
	_ "modernc.org/sqlite"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/pipeline"
)

// colmapPairScale is COLMAP's kMaxNumImages: pair_id = id1·2147483647 + id2
// with id1 < id2 (image ids start at 1).
const colmapPairScale = 2147483647

// ColmapPairID is COLMAP's pair_id of two image ids (order-free).
func ColmapPairID(id1, id2 int64) int64 {
	if id1 > id2 {
		id1, id2 = id2, id1
	}
	return id1*colmapPairScale + id2
}

// COLMAP 3.8's two-view configurations (TwoViewGeometry::ConfigurationType).
const (
	colmapCalibrated        = 2
	colmapUncalibrated      = 3
	colmapPlanarOrPanoramic = 6
)

// colmapSchemaVersion is the user_version COLMAP 3.8 stamps on a database.
const colmapSchemaVersion = 3800

// colmapSchema is COLMAP 3.8's database schema, as `colmap
// database_creator` makes it.
var colmapSchema = []string{
	`CREATE TABLE cameras (camera_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, model INTEGER NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL, params BLOB, prior_focal_length INTEGER NOT NULL)`,
	`CREATE TABLE images (image_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, name TEXT NOT NULL UNIQUE, camera_id INTEGER NOT NULL, prior_qw REAL, prior_qx REAL, prior_qy REAL, prior_qz REAL, prior_tx REAL, prior_ty REAL, prior_tz REAL, CONSTRAINT image_id_check CHECK(image_id >= 0 and image_id < 2147483647), FOREIGN KEY(camera_id) REFERENCES cameras(camera_id))`,
	`CREATE UNIQUE INDEX index_name ON images(name)`,
	`CREATE TABLE keypoints (image_id INTEGER PRIMARY KEY NOT NULL, rows INTEGER NOT NULL, cols INTEGER NOT NULL, data BLOB, FOREIGN KEY(image_id) REFERENCES images(image_id) ON DELETE CASCADE)`,
	`CREATE TABLE descriptors (image_id INTEGER PRIMARY KEY NOT NULL, rows INTEGER NOT NULL, cols INTEGER NOT NULL, data BLOB, FOREIGN KEY(image_id) REFERENCES images(image_id) ON DELETE CASCADE)`,
	`CREATE TABLE matches (pair_id INTEGER PRIMARY KEY NOT NULL, rows INTEGER NOT NULL, cols INTEGER NOT NULL, data BLOB)`,
	`CREATE TABLE two_view_geometries (pair_id INTEGER PRIMARY KEY NOT NULL, rows INTEGER NOT NULL, cols INTEGER NOT NULL, data BLOB, config INTEGER NOT NULL, F BLOB, E BLOB, H BLOB, qvec BLOB, tvec BLOB)`,
}

// ColmapPair is one verified image pair as COLMAP's two_view_geometries
// holds it.
type ColmapPair struct {
	I, J  int                // image indices, I < J
	Model pairwise.ModelKind // Homography, Fundamental or Essential
	// Planar: a homography explains the pair nearly as well as F or E
	// (COLMAP's PLANAR_OR_PANORAMIC); H is then set beside F and E.
	Planar bool
	// F, E and H map I to J in clearmatch's pixel convention (pixel
	// centres at integers); zero when not estimated.
	F, E, H [9]float64
	// Matches are keypoint index pairs (I's, J's): the track-consistent
	// matches that fit the pair's model.
	Matches [][2]uint32
}

// ColmapPairs restricts the tracks' matches ms to verified geometry: for
// every verified pair of res, the matches between its two images that fit
// its model within res.Threshold. Pairs that were not verified get none
// (their tracks still join through other pairs). dropped counts matches
// left out: those of unverified pairs and those off the model.
func ColmapPairs(res *pipeline.Result, ms []Match) (pairs []ColmapPair, dropped int) {
	byPair := map[[2]int][][2]int{}
	for _, m := range ms {
		a, ka, b, kb := m.A, m.KpA, m.B, m.KpB
		if a > b {
			a, ka, b, kb = b, kb, a, ka
		}
		byPair[[2]int{a, b}] = append(byPair[[2]int{a, b}], [2]int{ka, kb})
	}
	kept, sets := 0, res.Output()
	for k := range res.Verified {
		v := &res.Verified[k]
		if v.Model == pairwise.NoModel {
			continue
		}
		lo, hi := min(v.I, v.J), max(v.I, v.J)
		p := ColmapPair{I: lo, J: hi, Model: v.Model}
		// The model maps v.I to v.J; COLMAP's pair runs from the lower id.
		mat, f, h, planar := v.Matrix, v.F, v.H, v.Planar
		if v.Model == pairwise.Homography {
			h, planar = v.Matrix, true
		}
		if v.I > v.J {
			mat, f = geom.Transpose3(mat), geom.Transpose3(f)
			if planar {
				var ok bool
				if h, ok = geom.Inverse3(h); !ok {
					continue // verification never keeps a singular H
				}
			}
		}
		p.Planar, p.H = planar, h // h is zero unless planar
		switch v.Model {
		case pairwise.Essential:
			p.E, p.F = mat, f
		case pairwise.Fundamental:
			p.F = mat
		}
		thr := res.Threshold(v.I, v.J)
		for _, kk := range byPair[[2]int{lo, hi}] {
			a, b := keypointPoint(sets[lo], kk[0]), keypointPoint(sets[hi], kk[1])
			if v.I > v.J {
				a, b = b, a
			}
			if v.Agrees(a, b, thr) {
				p.Matches = append(p.Matches, [2]uint32{uint32(kk[0]), uint32(kk[1])})
			}
		}
		kept += len(p.Matches)
		if len(p.Matches) > 0 {
			pairs = append(pairs, p)
		}
	}
	return pairs, len(ms) - kept
}

func keypointPoint(s *features.Set, k int) geom.Point {
	return geom.Point{X: float64(s.Keypoints[k].X), Y: float64(s.Keypoints[k].Y)}
}

// toColmapPixels re-expresses a matrix for COLMAP's pixel convention
// (x_colmap = x + 0.5): T maps COLMAP's pixels to ours, so H' = T⁻¹ H T
// and F' = Tᵀ F T. E works on normalized coordinates and is unchanged.
var (
	colmapT    = [9]float64{1, 0, -0.5, 0, 1, -0.5, 0, 0, 1}
	colmapTinv = [9]float64{1, 0, 0.5, 0, 1, 0.5, 0, 0, 1}
)

func colmapH(h [9]float64) [9]float64 { return geom.Mul3(colmapTinv, geom.Mul3(h, colmapT)) }
func colmapF(f [9]float64) [9]float64 {
	return geom.Mul3(geom.Transpose3(colmapT), geom.Mul3(f, colmapT))
}

// ColmapDatabase is everything COLMAP's database.db holds for a run.
type ColmapDatabase struct {
	Sets     []*features.Set
	Cameras  []ColmapCamera
	CameraOf []int // camera index of each image
	Pairs    []ColmapPair
}

// Write creates the database at path (which must not exist) in COLMAP
// 3.8's schema: image i gets image_id i+1 and camera c camera_id c+1;
// keypoints are float32 rows x, y, a11, a12, a21, a22 with the first
// pixel's centre at 0.5 (COLMAP's convention); descriptors are uint8 rows
// of 128; matches and two_view_geometries hold each pair's matches as
// uint32 rows, from the lower image id to the higher, with the pair's
// configuration and row-major F, E, H. A failed write removes the file.
func (d *ColmapDatabase) Write(path string) (err error) {
	if len(d.CameraOf) != len(d.Sets) {
		return errors.New("colmap: one camera per image is needed")
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("colmap: %s already exists", path)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return fmt.Errorf("colmap: %s: %w", path, err)
	}
	defer func() {
		if cerr := db.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("colmap: %s: %w", path, cerr)
		}
		if err != nil {
			os.Remove(path)
			os.Remove(path + "-journal")
		}
	}()
	db.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA journal_mode=MEMORY", "PRAGMA synchronous=OFF", "PRAGMA foreign_keys=ON"} {
		if _, err := db.Exec(q); err != nil {
			return fmt.Errorf("colmap: %s: %w", path, err)
		}
	}
	tx, err := db.Begin()
	if err != nil {
		return fmt.Errorf("colmap: %s: %w", path, err)
	}
	defer tx.Rollback()
	if err := d.fill(tx); err != nil {
		return fmt.Errorf("colmap: %s: %w", path, err)
	}
	if _, err := tx.Exec(fmt.Sprintf("PRAGMA user_version=%d", colmapSchemaVersion)); err != nil {
		return fmt.Errorf("colmap: %s: %w", path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("colmap: %s: %w", path, err)
	}
	return nil
}

func (d *ColmapDatabase) fill(tx *sql.Tx) error {
	for _, q := range colmapSchema {
		if _, err := tx.Exec(q); err != nil {
			return err
		}
	}
	for c, cam := range d.Cameras {
		id, ok := ColmapModelID(cam.Model)
		if !ok {
			return fmt.Errorf("unknown camera model %q", cam.Model)
		}
		prior := 0
		if cam.PriorFocal {
			prior = 1
		}
		if _, err := tx.Exec(`INSERT INTO cameras VALUES (?, ?, ?, ?, ?, ?)`,
			c+1, id, cam.Width, cam.Height, float64Blob(cam.Params), prior); err != nil {
			return err
		}
	}
	for i, s := range d.Sets {
		c := d.CameraOf[i]
		if c < 0 || c >= len(d.Cameras) {
			return fmt.Errorf("image %s: no camera %d", s.Image, c)
		}
		if _, err := tx.Exec(`INSERT INTO images (image_id, name, camera_id) VALUES (?, ?, ?)`, i+1, s.Image, c+1); err != nil {
			return fmt.Errorf("image %q: %w", s.Image, err)
		}
		kp := make([]float32, 0, 6*s.Len())
		for _, k := range s.Keypoints {
			scale, ori := float64(k.Size)/2, float64(k.Angle)*math.Pi/180
			sn, cs := math.Sincos(ori)
			kp = append(kp, k.X+0.5, k.Y+0.5,
				float32(scale*cs), float32(-scale*sn), float32(scale*sn), float32(scale*cs))
		}
		if _, err := tx.Exec(`INSERT INTO keypoints VALUES (?, ?, ?, ?)`, i+1, s.Len(), 6, float32Blob(kp)); err != nil {
			return err
		}
		desc, err := s.DescriptorBytes()
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT INTO descriptors VALUES (?, ?, ?, ?)`, i+1, s.Len(), features.DescSize, desc); err != nil {
			return err
		}
	}
	for _, p := range d.Pairs {
		if p.I >= p.J || p.J >= len(d.Sets) || p.I < 0 {
			return fmt.Errorf("pair (%d, %d) is not two images in order", p.I, p.J)
		}
		id := ColmapPairID(int64(p.I+1), int64(p.J+1))
		data := make([]byte, 0, 8*len(p.Matches))
		for _, m := range p.Matches {
			if int(m[0]) >= d.Sets[p.I].Len() || int(m[1]) >= d.Sets[p.J].Len() {
				return fmt.Errorf("pair (%s, %s): keypoint pair %v out of range", d.Sets[p.I].Image, d.Sets[p.J].Image, m)
			}
			data = binary.LittleEndian.AppendUint32(data, m[0])
			data = binary.LittleEndian.AppendUint32(data, m[1])
		}
		if _, err := tx.Exec(`INSERT INTO matches VALUES (?, ?, ?, ?)`, id, len(p.Matches), 2, data); err != nil {
			return err
		}
		var config int
		var f, e, h [9]float64
		switch p.Model {
		case pairwise.Homography:
			config, h = colmapPlanarOrPanoramic, colmapH(p.H)
		case pairwise.Essential:
			config, e, f = colmapCalibrated, p.E, colmapF(p.F)
		case pairwise.Fundamental:
			config, f = colmapUncalibrated, colmapF(p.F)
		default:
			return fmt.Errorf("pair (%s, %s): no model", d.Sets[p.I].Image, d.Sets[p.J].Image)
		}
		if p.Planar && p.Model != pairwise.Homography {
			config, h = colmapPlanarOrPanoramic, colmapH(p.H)
		}
		if _, err := tx.Exec(`INSERT INTO two_view_geometries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, len(p.Matches), 2, data, config, float64Blob(f[:]), float64Blob(e[:]), float64Blob(h[:]),
			float64Blob([]float64{1, 0, 0, 0}), float64Blob([]float64{0, 0, 0})); err != nil {
			return err
		}
	}
	return nil
}

func float64Blob(v []float64) []byte {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

func float32Blob(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}
