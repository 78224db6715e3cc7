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
