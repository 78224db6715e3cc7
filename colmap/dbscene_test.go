package colmap

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTestDatabase writes a 3.8 database of three images of 4 keypoints
// and the pairs (0,1), (0,2), (1,2).
func writeTestDatabase(t *testing.T) string {
	t.Helper()
	feats := func() ([]Keypoint, []byte, error) {
		kps := make([]Keypoint, 4)
		for k := range kps {
			kps[k] = Keypoint{X: float32(k) + 0.5, Y: 1.5, A11: 3, A21: 0, A12: 0, A22: 3}
		}
		return kps, make([]byte, DescriptorSize*4), nil
	}
	db := Database{
		Cameras: []Camera{{Model: "PINHOLE", Width: 64, Height: 48, Params: []float64{70, 71, 32, 24}, PriorFocal: true}},
		Images:  []Image{{Name: "a.jpg", Features: feats}, {Name: "b.jpg", Features: feats}, {Name: "c.jpg", Features: feats}},
		Pairs: []Pair{
			{I: 0, J: 1, Config: Uncalibrated, F: [9]float64{1}, Matches: [][2]uint32{{0, 0}, {1, 1}}},
			{I: 0, J: 2, Config: Uncalibrated, F: [9]float64{2}, Matches: [][2]uint32{{0, 0}}},
			{I: 1, J: 2, Config: Uncalibrated, F: [9]float64{3}, Matches: [][2]uint32{{1, 2}, {0, 0}}},
		},
	}
	path := filepath.Join(t.TempDir(), "database.db")
	if err := db.Write(path); err != nil {
		t.Fatal(err)
	}
	return path
}

func sum(t *testing.T, path string) [32]byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func TestReadScene(t *testing.T) {
	path := writeTestDatabase(t)
	s, err := ReadScene(path, Verified)
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != schemaVersion || len(s.Names) != 3 || len(s.Cameras) != 1 || !s.Cameras[0].PriorFocal || s.CameraOf[2] != 0 {
		t.Fatalf("scene %+v", s)
	}
	if kp := s.Keypoints[1][3]; kp.X != 3.5 || kp.A11 != 3 {
		t.Errorf("keypoint %+v", kp)
	}
	if len(s.Pairs) != 3 || s.Pairs[2].I != 1 || s.Pairs[2].Matches[0] != [2]int{0, 0} || s.Pairs[2].Matches[1] != [2]int{1, 2} {
		t.Errorf("pairs %+v", s.Pairs)
	}
	if in, ok := s.Cameras[0].Pinhole(); !ok || in.Fy != 71 || in.Cx != 32 {
		t.Errorf("pinhole %+v %v", in, ok)
	}
}

// TestReadSceneRefuses: what is not a database ReadScene can read is an
// error naming the file and what is wrong.
func TestReadSceneRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, sql, want string
	}{
		{"newer schema", `PRAGMA user_version = 5000000`, "schema version 5000000"},
		{"no keypoints", `DELETE FROM keypoints`, "no keypoints"},
		{"keypoint out of range", `UPDATE two_view_geometries SET data = X'0900000000000000' , rows = 1 WHERE pair_id = 2147483649`, "out of the images"},
		{"unknown model", `UPDATE cameras SET model = 99`, "model 99"},
		{"wrong params", `UPDATE cameras SET params = X'00'`, "params"},
		{"no images", `DELETE FROM images`, "no images"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeTestDatabase(t)
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(tc.sql); err != nil {
				t.Fatal(err)
			}
			db.Close()
			_, err = ReadScene(path, Verified)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v, want an error naming %s and %q", err, path, tc.want)
			}
		})
	}
	text := filepath.Join(t.TempDir(), "notes.db")
	os.WriteFile(text, []byte("not a database\n"), 0o644)
	if _, err := ReadScene(text, Verified); err == nil || !strings.Contains(err.Error(), text) {
		t.Errorf("a text file: %v", err)
	}
}

// TestCopyWithGeometries: the copy holds the pairs given, keeps a pair's
// row when its matches are the same, keeps the other tables and columns,
// and never writes the input.
func TestCopyWithGeometries(t *testing.T) {
	src := writeTestDatabase(t)
	// COLMAP 4's extra columns and schema version come through the copy.
	db, err := sql.Open("sqlite", src)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`ALTER TABLE two_view_geometries ADD COLUMN camera1 BLOB`, `UPDATE two_view_geometries SET camera1 = X'2A'`, `PRAGMA user_version = 4010100`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	before := sum(t, src)
	dst := filepath.Join(t.TempDir(), "out.db")
	ids := []int64{1, 2, 3}
	c, err := CopyWithGeometries(context.Background(), src, dst, ids, []Pair{
		{I: 0, J: 1, Config: Calibrated, E: [9]float64{5}, Matches: [][2]uint32{{1, 1}, {0, 0}}}, // the same matches, reordered
		{I: 1, J: 2, Config: Calibrated, E: [9]float64{6}, Matches: [][2]uint32{{1, 2}}},         // one left
	})
	if err != nil {
		t.Fatal(err)
	}
	if c != (GeometryCounts{Kept: 1, Changed: 1, Dropped: 1}) {
		t.Errorf("counts %+v", c)
	}
	if sum(t, src) != before {
		t.Error("the input changed")
	}
	s, err := ReadScene(dst, Verified)
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != 4010100 || len(s.Pairs) != 2 || len(s.Pairs[1].Matches) != 1 || len(s.Keypoints[2]) != 4 {
		t.Errorf("copy: version %d, pairs %+v", s.Version, s.Pairs)
	}
	out, err := sql.Open("sqlite", dst)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var config int
	var f, e, cam []byte
	if err := out.QueryRow(`SELECT config, F, E, camera1 FROM two_view_geometries WHERE pair_id = ?`, PairID(2, 3)).Scan(&config, &f, &e, &cam); err != nil {
		t.Fatal(err)
	}
	if config != Calibrated || f != nil || len(e) != 72 || string(cam) != "*" {
		t.Errorf("changed row: config %d, F %v, E %d bytes, camera1 %q", config, f, len(e), cam)
	}
	if err := out.QueryRow(`SELECT config, F FROM two_view_geometries WHERE pair_id = ?`, PairID(1, 2)).Scan(&config, &f); err != nil || config != Uncalibrated {
		t.Errorf("kept row: config %d, %v", config, err)
	}
	if _, err := CopyWithGeometries(context.Background(), src, dst, ids, nil); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("over an existing file: %v", err)
	}
	if err := MoveKeypoints(context.Background(), dst, ids, [][][2]float32{{{9, 9}, {1.5, 1.5}, {2.5, 1.5}, {3.5, 1.5}}, {{0.5, 1.5}, {1.5, 1.5}, {2.5, 1.5}, {3.5, 1.5}}, {{0.5, 1.5}, {1.5, 1.5}, {2.5, 1.5}, {3.5, 1.5}}}); err != nil {
		t.Fatal(err)
	}
	if s, err = ReadScene(dst, Verified); err != nil || s.Keypoints[0][0].X != 9 || s.Keypoints[0][0].A11 != 3 {
		t.Errorf("moved keypoint %+v, %v", s.Keypoints[0][0], err)
	}
}

// TestCopyWithGeometriesCancelled: a cancelled copy leaves no file.
func TestCopyWithGeometriesCancelled(t *testing.T) {
	src := writeTestDatabase(t)
	dst := filepath.Join(t.TempDir(), "out.db")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := CopyWithGeometries(ctx, src, dst, []int64{1, 2, 3}, nil); err == nil {
		t.Error("a cancelled copy succeeded")
	}
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Errorf("a cancelled copy left %s (%v)", dst, err)
	}
}

// colmap4Schema is COLMAP 4's database schema as database_sqlite.cc
// creates it: rigs and frames, typed descriptors, cameras in
// two_view_geometries.
var colmap4Schema = []string{
	`CREATE TABLE rigs (rig_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, ref_sensor_id INTEGER NOT NULL, ref_sensor_type INTEGER NOT NULL)`,
	`CREATE TABLE rig_sensors (rig_id INTEGER NOT NULL, sensor_id INTEGER NOT NULL, sensor_type INTEGER NOT NULL, sensor_from_rig BLOB, FOREIGN KEY(rig_id) REFERENCES rigs(rig_id) ON DELETE CASCADE)`,
	`CREATE TABLE cameras (camera_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, model INTEGER NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL, params BLOB, prior_focal_length INTEGER NOT NULL)`,
	`CREATE TABLE frames (frame_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, rig_id INTEGER NOT NULL, FOREIGN KEY(rig_id) REFERENCES rigs(rig_id) ON DELETE CASCADE)`,
	`CREATE TABLE frame_data (frame_id INTEGER NOT NULL, data_id INTEGER NOT NULL, sensor_id INTEGER NOT NULL, sensor_type INTEGER NOT NULL, FOREIGN KEY(frame_id) REFERENCES frames(frame_id) ON DELETE CASCADE)`,
	`CREATE TABLE images (image_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, name TEXT NOT NULL UNIQUE, camera_id INTEGER NOT NULL, CONSTRAINT image_id_check CHECK(image_id >= 0 and image_id < 2147483647), FOREIGN KEY(camera_id) REFERENCES cameras(camera_id))`,
	`CREATE TABLE pose_priors (pose_prior_id INTEGER PRIMARY KEY NOT NULL, corr_data_id INTEGER NOT NULL, corr_sensor_id INTEGER NOT NULL, corr_sensor_type INTEGER NOT NULL, position BLOB, position_covariance BLOB, gravity BLOB, coordinate_system INTEGER NOT NULL)`,
	`CREATE TABLE keypoints (image_id INTEGER PRIMARY KEY NOT NULL, rows INTEGER NOT NULL, cols INTEGER NOT NULL, data BLOB, FOREIGN KEY(image_id) REFERENCES images(image_id) ON DELETE CASCADE)`,
	`CREATE TABLE descriptors (image_id INTEGER PRIMARY KEY NOT NULL, type INTEGER NOT NULL, rows INTEGER NOT NULL, cols INTEGER NOT NULL, data BLOB, FOREIGN KEY(image_id) REFERENCES images(image_id) ON DELETE CASCADE)`,
	`CREATE TABLE matches (pair_id INTEGER PRIMARY KEY NOT NULL, rows INTEGER NOT NULL, cols INTEGER NOT NULL, data BLOB)`,
	`CREATE TABLE two_view_geometries (pair_id INTEGER PRIMARY KEY NOT NULL, rows INTEGER NOT NULL, cols INTEGER NOT NULL, data BLOB, config INTEGER NOT NULL, F BLOB, E BLOB, H BLOB, qvec BLOB, tvec BLOB, camera1 BLOB, camera2 BLOB)`,
	`PRAGMA user_version = 4010100`,
}

// TestColmap4Database: a database in COLMAP 4's schema, with ALIKED-like
// keypoints of four columns (x, y, scale, orientation), image ids that do
// not start at 1, a pair stored higher id first in no row order, and no
// geometry (as hloc stores none), is read, and its copy keeps the rest.
func TestColmap4Database(t *testing.T) {
	path := filepath.Join(t.TempDir(), "colmap4.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	kp4 := float32Blob([]float32{10.5, 20.5, 2, 0, 30.5, 40.5, 4, 1.5707964})
	for _, q := range append(colmap4Schema,
		`INSERT INTO rigs VALUES (1, 1, 0)`,
		`INSERT INTO cameras VALUES (1, 2, 640, 480, X'`+hexDoubles(500, 320, 240, 0)+`', 0)`,
		`INSERT INTO images VALUES (7, 'a.jpg', 1), (9, 'b.jpg', 1)`,
		`INSERT INTO frames VALUES (1, 1), (2, 1)`,
		`INSERT INTO frame_data VALUES (1, 7, 1, 0), (2, 9, 1, 0)`,
	) {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, id := range []int{7, 9} {
		if _, err := db.Exec(`INSERT INTO keypoints VALUES (?, 2, 4, ?)`, id, kp4); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO descriptors VALUES (?, 3, 2, 128, ?)`, id, make([]byte, 2*128*4)); err != nil {
			t.Fatal(err)
		}
	}
	// (a.jpg 1, b.jpg 0) and (a.jpg 0, b.jpg 1), lower image id first.
	if _, err := db.Exec(`INSERT INTO two_view_geometries (pair_id, rows, cols, data, config, camera1) VALUES (?, 2, 2, X'0100000000000000' || X'0000000001000000', 2, X'07')`, PairID(7, 9)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := ReadScene(path, Verified)
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != 4010100 || s.IDs[1] != 9 || len(s.Pairs) != 1 || s.Pairs[0].Matches[0] != [2]int{0, 1} || s.Pairs[0].Matches[1] != [2]int{1, 0} {
		t.Fatalf("scene: version %d, ids %v, pairs %+v", s.Version, s.IDs, s.Pairs)
	}
	if kp := s.Keypoints[0][1]; kp.X != 30.5 || kp.A11 > 1e-6 || kp.A21 != 4 {
		t.Errorf("a four-column keypoint (scale 4, orientation π/2): %+v", kp)
	}
	dst := filepath.Join(t.TempDir(), "out.db")
	c, err := CopyWithGeometries(context.Background(), path, dst, s.IDs, []Pair{{I: 0, J: 1, Config: Calibrated, E: [9]float64{1}, Matches: [][2]uint32{{0, 1}}}})
	if err != nil || c.Changed != 1 {
		t.Fatalf("copy: %+v, %v", c, err)
	}
	out, err := sql.Open("sqlite", dst)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var frames, typ int
	var cam1 []byte
	if err := out.QueryRow(`SELECT (SELECT COUNT(*) FROM frame_data), (SELECT type FROM descriptors WHERE image_id = 9), (SELECT camera1 FROM two_view_geometries)`).Scan(&frames, &typ, &cam1); err != nil {
		t.Fatal(err)
	}
	if frames != 2 || typ != 3 || string(cam1) != "\x07" {
		t.Errorf("the copy lost COLMAP 4's tables: %d frame rows, descriptor type %d, camera1 %q", frames, typ, cam1)
	}
}

func hexDoubles(v ...float64) string { return hexBytes(float64Blob(v)) }

// hexBytes is b as an SQL blob literal's digits.
func hexBytes(b []byte) string {
	const digits = "0123456789ABCDEF"
	out := make([]byte, 0, 2*len(b))
	for _, x := range b {
		out = append(out, digits[x>>4], digits[x&15])
	}
	return string(out)
}

// TestHlocDatabase: hloc's databases have no user_version, keypoints of
// two columns and identity matrices for F, E and H.
func TestHlocDatabase(t *testing.T) {
	path := writeTestDatabase(t)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`PRAGMA user_version = 0`, `UPDATE keypoints SET cols = 2, data = X'` + hexFloats(0.5, 1.5, 1.5, 1.5, 2.5, 1.5, 3.5, 1.5) + `'`,
		`UPDATE two_view_geometries SET config = 2, F = X'` + hexDoubles(1, 0, 0, 0, 1, 0, 0, 0, 1) + `'`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, err := ReadScene(path, Verified)
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != 0 || s.Keypoints[2][3] != (Keypoint{X: 3.5, Y: 1.5}) || len(s.Pairs) != 3 {
		t.Errorf("version %d, keypoint %+v, %d pairs", s.Version, s.Keypoints[2][3], len(s.Pairs))
	}
}

func hexFloats(v ...float32) string { return hexBytes(float32Blob(v)) }
