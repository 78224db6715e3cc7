package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDatasetsFetchVerify(t *testing.T) {
	src := dataDirForTest(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(src)))
	defer srv.Close()
	root := t.TempDir()
	code, stdout, stderr := runCmd(t, "", "datasets", "fetch", "graffiti", "-to", root, "-from", srv.URL+"/graffiti/")
	if code != 0 || !strings.Contains(stdout, "11 files") {
		t.Fatalf("fetch: exit %d, %q, %q", code, stdout, stderr)
	}
	if code, stdout, _ := runCmd(t, "", "datasets", "verify", root); code != 0 || !strings.Contains(stdout, "graffiti: 11 files OK") {
		t.Errorf("verify: exit %d, %q", code, stdout)
	}
	// A damaged copy fails verification, naming the file.
	p := filepath.Join(root, "graffiti", "img4.ppm")
	b, _ := os.ReadFile(p)
	b[100] ^= 1
	os.WriteFile(p, b, 0o644)
	if code, stdout, _ := runCmd(t, "", "datasets", "verify", root); code != 1 || !strings.Contains(stdout, "img4.ppm: SHA-256") {
		t.Errorf("damaged copy: exit %d, %q", code, stdout)
	}
	// The shared copy verifies.
	if code, stdout, _ := runCmd(t, "", "datasets", "verify", src); code != 0 || !strings.Contains(stdout, "hotel: 202 files OK") {
		t.Errorf("shared copy: exit %d, %q", code, stdout)
	}
	for _, args := range [][]string{{"datasets", "fetch", "books", "-to", root}, {"datasets", "fetch", "hotel"}, {"datasets"}} {
		if code, _, _ := runCmd(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
