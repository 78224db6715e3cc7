package export

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/colmap"
	"github.com/clearmatch/clearmatch/geom"
)

// TestReadColmapMatches: what Write puts in a database comes back: names,
// widths, keypoints in OpenCV's pixel convention and each verified pair's
// matches, lower image first.
func TestReadColmapMatches(t *testing.T) {
	res, ms := colmapScene()
	pairs, _ := ColmapPairs(res, ms)
	cams := []ColmapCamera{{Camera: colmap.Camera{Model: "SIMPLE_RADIAL", Width: 640, Height: 480, Params: []float64{768, 320, 240, 0}}}}
	path := filepath.Join(t.TempDir(), "data base.db")
	if err := (&ColmapDatabase{Sets: res.Sets, Cameras: cams, CameraOf: []int{0, 0, 0}, Pairs: pairs}).Write(path); err != nil {
		t.Fatal(err)
	}
	cm, err := colmap.ReadMatches(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cm.Names, ",") != "a.jpg,b.jpg,c.jpg" || cm.Widths[2] != 640 {
		t.Fatalf("images %v, widths %v", cm.Names, cm.Widths)
	}
	for i, s := range res.Sets {
		for k, kp := range s.Keypoints {
			if got := cm.Points[i][k]; got != (geom.Point{X: float64(kp.X), Y: float64(kp.Y)}) {
				t.Errorf("image %d keypoint %d: %v, want (%v, %v)", i, k, got, kp.X, kp.Y)
			}
		}
	}
	if len(cm.Pairs) != len(pairs) {
		t.Fatalf("%d pairs, want %d", len(cm.Pairs), len(pairs))
	}
	for _, p := range pairs {
		got := cm.Pairs[[2]int{p.I, p.J}]
		if len(got) != len(p.Matches) {
			t.Fatalf("pair %d-%d: %v, want %v", p.I, p.J, got, p.Matches)
		}
		for k, m := range p.Matches {
			if got[k] != [2]int{int(m[0]), int(m[1])} {
				t.Errorf("pair %d-%d match %d: %v, want %v", p.I, p.J, k, got[k], m)
			}
		}
	}
}

// TestReadColmapMatchesErrors: a missing file, a folder, a file that is
// not a database and damaged blobs are one-line errors naming the file,
// and reading never creates a file.
func TestReadColmapMatchesErrors(t *testing.T) {
	res, ms := colmapScene()
	pairs, _ := ColmapPairs(res, ms)
	cams := []ColmapCamera{{Camera: colmap.Camera{Model: "PINHOLE", Width: 640, Height: 480, Params: []float64{768, 768, 320, 240}}}}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	if err := (&ColmapDatabase{Sets: res.Sets, Cameras: cams, CameraOf: []int{0, 0, 0}, Pairs: pairs}).Write(good); err != nil {
		t.Fatal(err)
	}
	damaged := func(name, query string, args ...any) string {
		b, err := os.ReadFile(good)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite", p)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(query, args...); err != nil {
			t.Fatal(err)
		}
		return p
	}
	junk := filepath.Join(dir, "junk.db")
	os.WriteFile(junk, []byte("not sqlite at all, but long enough to look like a header......"), 0o644)
	missing := filepath.Join(dir, "missing.db")
	for _, tc := range []struct{ name, path, want string }{
		{"missing", missing, "no such file"},
		{"folder", dir, "not a file"},
		{"junk", junk, "not a COLMAP database"},
		{"no images", damaged("noimages.db", `DELETE FROM images`), "no images"},
		{"short keypoints", damaged("kp.db", `UPDATE keypoints SET rows = rows + 1 WHERE image_id = 2`), `keypoints of "b.jpg"`},
		{"match out of range", damaged("m.db", `UPDATE two_view_geometries SET data = ? WHERE rows > 0`, []byte{9, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}), "out of the images'"},
		{"odd columns", damaged("c.db", `UPDATE keypoints SET cols = 5`), "want 2, 4 or 6 columns"},
	} {
		_, err := colmap.ReadMatches(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), filepath.Base(tc.path)) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line naming the file and %q", tc.name, err, tc.want)
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("reading a missing database created it")
	}
}
