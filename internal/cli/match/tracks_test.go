package match

import (
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/colmap"
	"github.com/clearmatch/clearmatch/internal/testenv"
)

// unionFindDatabase writes, with match, a COLMAP database of Graffiti
// (400 px) whose tracks are union-find's, so that they hold conflicts.
func unionFindDatabase(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "uf")
	args := []string{"match", filepath.Join(dataDirForTest(t), "graffiti"), "-out", out, "-cache", "", "-max-dim", "400", "-export", "colmap",
		"-union-find", "-complete=false", "-refine=false", "-weak-pairs", "0", "-self-calibrate=false", "-reproj-filter", "0"}
	if code, _, stderr := runCmd(t, "", args...); code != 0 {
		t.Fatalf("clearmatch %v: exit %d\n%s", args, code, stderr)
	}
	return filepath.Join(out, "colmap", "database.db")
}

func fileSum(t *testing.T, path string) [32]byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// TestTracksDatabase: tracks reads a database whose union-find tracks
// conflict and writes one whose tracks do not, with tracks.json and
// report.json, and never writes its input.
func TestTracksDatabase(t *testing.T) {
	db := unionFindDatabase(t)
	before := fileSum(t, db)
	out := filepath.Join(t.TempDir(), "tracks")
	code, stdout, stderr := runCmd(t, "", "tracks", db, "-out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if fileSum(t, db) != before {
		t.Error("tracks wrote its input")
	}
	var rep struct {
		Tracks   int
		Database tracksDatabase
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	d := rep.Database
	if d.Conflicts.Input == 0 || d.Conflicts.Output != 0 || d.OutputPairs == 0 || d.Matches != "two_view_geometries" || rep.Tracks == 0 {
		t.Errorf("report %+v, %d tracks", d, rep.Tracks)
	}
	schema := testenv.ReadJSON(t, filepath.Join("..", "..", "..", "docs", "schema", "report.schema.json"))
	var errs []string
	testenv.ValidateJSON(schema.(map[string]any), schema.(map[string]any), testenv.ReadJSON(t, filepath.Join(out, "report.json")), "report.json", &errs)
	for _, e := range errs {
		t.Error(e)
	}
	s, err := colmap.ReadScene(filepath.Join(out, "colmap", "database.db"), colmap.Verified)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Pairs) != d.OutputPairs {
		t.Errorf("the database holds %d pairs, the report says %d", len(s.Pairs), d.OutputPairs)
	}
	if !strings.Contains(stdout, "0 conflicts") {
		t.Errorf("summary:\n%s", stdout)
	}
	for _, f := range []string{"tracks.json", "matches.csv"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	// Union-find over the same database keeps its conflicts: the flag
	// compares the two.
	uf := filepath.Join(t.TempDir(), "uf")
	if code, _, stderr := runCmd(t, "", "tracks", db, "-out", uf, "-union-find", "-weak-pairs", "0", "-self-calibrate=false", "-reproj-filter", "0"); code != 0 {
		t.Fatalf("-union-find: exit %d\n%s", code, stderr)
	}
	if b, err = os.ReadFile(filepath.Join(uf, "report.json")); err != nil || json.Unmarshal(b, &rep) != nil || rep.Database.Conflicts.Output == 0 {
		t.Errorf("-union-find: %d conflicts written (%v)", rep.Database.Conflicts.Output, err)
	}
}

// TestTracksRefuses: bad input is one line naming the file and what is
// wrong, and nothing is written.
func TestTracksRefuses(t *testing.T) {
	good := unionFindDatabase(t)
	edit := func(q string) string {
		p := filepath.Join(t.TempDir(), "database.db")
		b, err := os.ReadFile(good)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(p, b, 0o644)
		db, err := sql.Open("sqlite", p)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
		return p
	}
	text := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(text, []byte("hello\n"), 0o644)
	for _, tc := range []struct {
		name, db, want string
		code           int
		flags          []string
	}{
		{"not a database", text, "not a COLMAP database", 1, nil},
		{"no such file", filepath.Join(t.TempDir(), "none.db"), "no such file", 1, nil},
		{"no keypoints", edit(`DELETE FROM keypoints`), "no keypoints", 1, nil},
		{"no verified pair", edit(`DELETE FROM two_view_geometries`), "no image pair has matches in two_view_geometries", 1, nil},
		{"keypoint out of range", edit(`UPDATE two_view_geometries SET data = X'FFFFFF0000000000', rows = 1 WHERE pair_id = 2147483649`), "out of the images", 1, nil},
		{"unknown schema", edit(`PRAGMA user_version = 9000000`), "schema version 9000000", 1, nil},
		{"bad table", good, "-matches \"all\"", 2, []string{"-matches", "all"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			code, _, stderr := runCmd(t, "", append([]string{"tracks", tc.db, "-out", out}, tc.flags...)...)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if code != tc.code || len(lines) != 1 || !strings.Contains(stderr, tc.want) || (tc.code == 1 && !strings.Contains(stderr, tc.db)) {
				t.Errorf("exit %d, stderr %q; want exit %d, one line naming the file and %q", code, stderr, tc.code, tc.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s was written", out)
			}
		})
	}
}
