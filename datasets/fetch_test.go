package datasets

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clearmatch/clearmatch/internal/testenv"
)

func sharedDatasets(t *testing.T) string {
	testenv.Require(t, filepath.Join(testenv.DataDir(), "graffiti"))
	return testenv.DataDir()
}

func TestManifest(t *testing.T) {
	ds := Datasets()
	if n := len(ds["hotel"].Files); n != 2*HotelFrames {
		t.Errorf("hotel manifest has %d files, want %d", n, 2*HotelFrames)
	}
	if n := len(ds["graffiti"].Files); n != 11 {
		t.Errorf("graffiti manifest has %d files, want 11", n)
	}
	root := sharedDatasets(t)
	for _, d := range ds {
		if p := d.Verify(root); len(p) != 0 {
			t.Errorf("%s: the shared copy fails verification: %v", d.Name, p[0])
		}
	}
}

// TestFetchFolder serves the shared copy over a local HTTP server (which
// honours Range requests) and fetches Graffiti file by file, resuming one
// half-downloaded file; a corrupt server file is refused.
func TestFetchFolder(t *testing.T) {
	src := sharedDatasets(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(src)))
	defer srv.Close()
	root := t.TempDir()
	d := Datasets()["graffiti"]
	// A partial download of img1.ppm: the first 1000 bytes.
	os.MkdirAll(filepath.Join(root, "graffiti"), 0o755)
	img1, _ := os.ReadFile(filepath.Join(src, "graffiti", "img1.ppm"))
	os.WriteFile(filepath.Join(root, "graffiti", "img1.ppm.part"), img1[:1000], 0o644)
	done := 0
	fe := &Fetcher{Progress: func(n, total int, name string) { done = n }}
	if err := fe.Fetch(context.Background(), d, root, srv.URL+"/graffiti/"); err != nil {
		t.Fatal(err)
	}
	if p := d.Verify(root); len(p) != 0 || done != 11 {
		t.Fatalf("after fetch: %v (%d files)", p, done)
	}
	// A second fetch has nothing to do.
	if err := fe.Fetch(context.Background(), d, root, "http://127.0.0.1:1/unused/"); err != nil {
		t.Errorf("complete copy fetched again: %v", err)
	}

	// A server with a wrong file: the download is refused, nothing stays.
	bad := t.TempDir()
	os.MkdirAll(filepath.Join(bad, "graffiti"), 0o755)
	for _, f := range d.Files {
		b, _ := os.ReadFile(filepath.Join(src, "graffiti", f.Name))
		if f.Name == "H1to3p.txt" {
			b = bytes.Replace(b, []byte("1"), []byte("2"), 1)
		}
		os.WriteFile(filepath.Join(bad, "graffiti", f.Name), b, 0o644)
	}
	srv2 := httptest.NewServer(http.FileServer(http.Dir(bad)))
	defer srv2.Close()
	root2 := t.TempDir()
	err := fe.Fetch(context.Background(), d, root2, srv2.URL+"/graffiti/")
	if err == nil || !strings.Contains(err.Error(), "H1to3p.txt: downloaded file is wrong") {
		t.Fatalf("corrupt download: %v", err)
	}
	for _, n := range []string{"H1to3p.txt", "H1to3p.txt.part"} {
		if _, err := os.Stat(filepath.Join(root2, "graffiti", n)); err == nil {
			t.Errorf("%s left behind", n)
		}
	}
}

// TestFetchArchive serves a tar.gz laid out like the VGG archive (the
// homographies without an ending) and fetches it.
func TestFetchArchive(t *testing.T) {
	src := sharedDatasets(t)
	d := Datasets()["graffiti"]
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range d.Files {
		b, _ := os.ReadFile(filepath.Join(src, "graffiti", f.Name))
		name := "graf/" + strings.TrimSuffix(f.Name, ".txt")
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg})
		tw.Write(b)
	}
	tw.Close()
	gz.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "graf.tar.gz", fixedTime, bytes.NewReader(buf.Bytes()))
	}))
	defer srv.Close()
	root := t.TempDir()
	if err := (&Fetcher{}).Fetch(context.Background(), d, root, srv.URL+"/graf.tar.gz"); err != nil {
		t.Fatal(err)
	}
	if p := d.Verify(root); len(p) != 0 {
		t.Fatalf("after archive fetch: %v", p)
	}
	if err := (&Fetcher{}).Fetch(context.Background(), Datasets()["hotel"], root, ""); err == nil || !strings.Contains(err.Error(), "-from") {
		t.Errorf("hotel without a source: %v", err)
	}
}

var fixedTime = mustTime()

func mustTime() (t time.Time) { return time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC) }
