package colmap

import (
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"os"

	// A pure-Go SQLite (the C library transpiled to Go): database.db is
	// written without cgo.
	_ "modernc.org/sqlite"
)

// pairScale is COLMAP's kMaxNumImages: pair_id = id1·2147483647 + id2
// with id1 < id2 (image ids start at 1).
const pairScale = 2147483647

// PairID is COLMAP's pair_id of two image ids (order-free).
func PairID(id1, id2 int64) int64 {
	if id1 > id2 {
		id1, id2 = id2, id1
	}
	return id1*pairScale + id2
}

// COLMAP 3.8's two-view configurations (TwoViewGeometry::ConfigurationType)
// that a Pair can have.
const (
	Calibrated        = 2
	Uncalibrated      = 3
	PlanarOrPanoramic = 6
)

// schemaVersion is the user_version COLMAP 3.8 stamps on a database.
const schemaVersion = 3800

// schema is COLMAP 3.8's database schema, as `colmap database_creator`
// makes it.
var schema = []string{
	`CREATE TABLE cameras (camera_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, model INTEGER NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL, params BLOB, prior_focal_length INTEGER NOT NULL)`,
	`CREATE TABLE images (image_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, name TEXT NOT NULL UNIQUE, camera_id INTEGER NOT NULL, prior_qw REAL, prior_qx REAL, prior_qy REAL, prior_qz REAL, prior_tx REAL, prior_ty REAL, prior_tz REAL, CONSTRAINT image_id_check CHECK(image_id >= 0 and image_id < 2147483647), FOREIGN KEY(camera_id) REFERENCES cameras(camera_id))`,
	`CREATE UNIQUE INDEX index_name ON images(name)`,
	`CREATE TABLE keypoints (image_id INTEGER PRIMARY KEY NOT NULL, rows INTEGER NOT NULL, cols INTEGER NOT NULL, data BLOB, FOREIGN KEY(image_id) REFERENCES images(image_id) ON DELETE CASCADE)`,
	`CREATE TABLE descriptors (image_id INTEGER PRIMARY KEY NOT NULL, rows INTEGER NOT NULL, cols INTEGER NOT NULL, data BLOB, FOREIGN KEY(image_id) REFERENCES images(image_id) ON DELETE CASCADE)`,
	`CREATE TABLE matches (pair_id INTEGER PRIMARY KEY NOT NULL, rows INTEGER NOT NULL, cols INTEGER NOT NULL, data BLOB)`,
	`CREATE TABLE two_view_geometries (pair_id INTEGER PRIMARY KEY NOT NULL, rows INTEGER NOT NULL, cols INTEGER NOT NULL, data BLOB, config INTEGER NOT NULL, F BLOB, E BLOB, H BLOB, qvec BLOB, tvec BLOB)`,
}

// Keypoint is one row of the keypoints table: the position (first
// pixel's centre at 0.5) and the affine shape [a11 a12; a21 a22]
// (scale times the rotation by the orientation).
type Keypoint struct{ X, Y, A11, A12, A21, A22 float32 }

// DescriptorSize is the length of a SIFT descriptor row, bytes.
const DescriptorSize = 128

// Image is one row of the images table and its features.
type Image struct {
	Name string
	// Camera is the index of its camera in Database.Cameras.
	Camera int
	// Features returns its keypoints and descriptors (DescriptorSize
	// bytes per keypoint, or nil for none), called once when the image is
	// written, so a large folder's are never all in memory at once.
	Features func() ([]Keypoint, []byte, error)
}

// Pair is one verified image pair: its matches (keypoint index pairs,
// image I's first) and its two-view geometry.
type Pair struct {
	I, J int // image indices, I < J
	// Config is Calibrated, Uncalibrated or PlanarOrPanoramic; F, E and
	// H map I to J in COLMAP's pixel convention (zero when not
	// estimated).
	Config  int
	F, E, H [9]float64
	Matches [][2]uint32
}

// Database is everything database.db holds.
type Database struct {
	Cameras []Camera
	Images  []Image
	Pairs   []Pair
}

// Write creates the database at path (which must not exist) in COLMAP
// 3.8's schema: image i gets image_id i+1 and camera c camera_id c+1;
// keypoints are float32 rows of six, descriptors uint8 rows of 128;
// matches and two_view_geometries hold each pair's matches as uint32
// rows, lower image id first, with the configuration and row-major F, E,
// H. A failed write removes the file.
func (d *Database) Write(path string) (err error) {
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
	if _, err := tx.Exec(fmt.Sprintf("PRAGMA user_version=%d", schemaVersion)); err != nil {
		return fmt.Errorf("colmap: %s: %w", path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("colmap: %s: %w", path, err)
	}
	return nil
}

// fill writes the schema and every table in one transaction.
func (d *Database) fill(tx *sql.Tx) error {
	for _, q := range schema {
		if _, err := tx.Exec(q); err != nil {
			return err
		}
	}
	if err := d.writeCameras(tx); err != nil {
		return err
	}
	counts, err := d.writeImages(tx)
	if err != nil {
		return err
	}
	return d.writePairs(tx, counts)
}

func (d *Database) writeCameras(tx *sql.Tx) error {
	for c, cam := range d.Cameras {
		id, ok := ModelID(cam.Model)
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
	return nil
}

// writeImages writes the images, keypoints and descriptors tables and
// returns each image's number of keypoints.
func (d *Database) writeImages(tx *sql.Tx) ([]int, error) {
	counts := make([]int, len(d.Images))
	for i, im := range d.Images {
		if im.Camera < 0 || im.Camera >= len(d.Cameras) {
			return nil, fmt.Errorf("image %s: no camera %d", im.Name, im.Camera)
		}
		if _, err := tx.Exec(`INSERT INTO images (image_id, name, camera_id) VALUES (?, ?, ?)`, i+1, im.Name, im.Camera+1); err != nil {
			return nil, fmt.Errorf("image %q: %w", im.Name, err)
		}
		kps, desc, err := im.Features()
		if err != nil {
			return nil, err
		}
		if desc != nil && len(desc) != DescriptorSize*len(kps) {
			return nil, fmt.Errorf("image %s: %d descriptor bytes for %d keypoints", im.Name, len(desc), len(kps))
		}
		kp := make([]float32, 0, 6*len(kps))
		for _, k := range kps {
			kp = append(kp, k.X, k.Y, k.A11, k.A12, k.A21, k.A22)
		}
		if _, err := tx.Exec(`INSERT INTO keypoints VALUES (?, ?, ?, ?)`, i+1, len(kps), 6, float32Blob(kp)); err != nil {
			return nil, err
		}
		if desc == nil {
			counts[i] = len(kps)
			continue // no descriptors, as hloc's databases
		}
		if _, err := tx.Exec(`INSERT INTO descriptors VALUES (?, ?, ?, ?)`, i+1, len(kps), DescriptorSize, desc); err != nil {
			return nil, err
		}
		counts[i] = len(kps)
	}
	return counts, nil
}

// writePairs writes the matches and two_view_geometries tables.
func (d *Database) writePairs(tx *sql.Tx, counts []int) error {
	for _, p := range d.Pairs {
		if p.I >= p.J || p.J >= len(d.Images) || p.I < 0 {
			return fmt.Errorf("pair (%d, %d) is not two images in order", p.I, p.J)
		}
		id := PairID(int64(p.I+1), int64(p.J+1))
		data := make([]byte, 0, 8*len(p.Matches))
		for _, m := range p.Matches {
			if int(m[0]) >= counts[p.I] || int(m[1]) >= counts[p.J] {
				return fmt.Errorf("pair (%s, %s): keypoint pair %v out of range", d.Images[p.I].Name, d.Images[p.J].Name, m)
			}
			data = binary.LittleEndian.AppendUint32(data, m[0])
			data = binary.LittleEndian.AppendUint32(data, m[1])
		}
		if _, err := tx.Exec(`INSERT INTO matches VALUES (?, ?, ?, ?)`, id, len(p.Matches), 2, data); err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT INTO two_view_geometries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, len(p.Matches), 2, data, p.Config, float64Blob(p.F[:]), float64Blob(p.E[:]), float64Blob(p.H[:]),
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
