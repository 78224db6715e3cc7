package datasets

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// manifest.txt lists every file of the two benchmarks with its size and
// SHA-256: "folder name size sha256" per line.
//
//go:embed manifest.txt
var manifestText string

// File is one file of a dataset.
type File struct {
	Name   string
	Size   int64
	SHA256 string
}

// Dataset describes a benchmark: its folder under the datasets root, its
// files and where it is published.
type Dataset struct {
	Name   string // hotel or graffiti
	Folder string // cmu-hotel or graffiti
	Files  []File
	// Source is the default download address: an archive (.tar.gz, .tgz,
	// .zip) or a folder URL (ending in /) that serves the files by name.
	// Empty when no default is known.
	Source string
}

// Datasets returns the known datasets, parsed from the embedded manifest.
func Datasets() map[string]*Dataset {
	ds := map[string]*Dataset{
		"hotel": {Name: "hotel", Folder: "cmu-hotel"},
		// The Oxford VGG affine covariant features benchmark.
		"graffiti": {Name: "graffiti", Folder: "graffiti", Source: "https://www.robots.ox.ac.uk/~vgg/research/affine/det_eval_files/graf.tar.gz"},
	}
	byFolder := map[string]*Dataset{}
	for _, d := range ds {
		byFolder[d.Folder] = d
	}
	sc := bufio.NewScanner(strings.NewReader(manifestText))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 {
			continue
		}
		size, _ := strconv.ParseInt(f[2], 10, 64)
		if d := byFolder[f[0]]; d != nil {
			d.Files = append(d.Files, File{Name: f[1], Size: size, SHA256: f[3]})
		}
	}
	return ds
}

// Problem is one file that failed verification.
type Problem struct {
	Path, Reason string
}

// Verify checks every file of d under root/d.Folder against the manifest.
func (d *Dataset) Verify(root string) []Problem {
	var out []Problem
	for _, f := range d.Files {
		p := filepath.Join(root, d.Folder, f.Name)
		if err := checkFile(p, f); err != nil {
			out = append(out, Problem{p, err.Error()})
		}
	}
	return out
}

func checkFile(p string, f File) error {
	fh, err := os.Open(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return errors.New("missing")
		}
		return err
	}
	defer fh.Close()
	h := sha256.New()
	n, err := io.Copy(h, fh)
	if err != nil {
		return err
	}
	if n != f.Size {
		return fmt.Errorf("size %d, want %d", n, f.Size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != f.SHA256 {
		return fmt.Errorf("SHA-256 %s, want %s", got[:16], f.SHA256[:16])
	}
	return nil
}

// Fetcher downloads datasets.
type Fetcher struct {
	Client *http.Client // nil: http.DefaultClient
	// Progress, if set, is told each file as it is done.
	Progress func(done, total int, name string)
}

// Fetch downloads d into root/d.Folder from source (d.Source when empty):
// a folder URL ending in / serving the files by name, or an archive. Files
// already present and correct are kept. Downloads resume from a .part file
// with an HTTP Range request, are checked against the manifest and renamed
// into place only when correct, so an interrupted or corrupt download never
// leaves a wrong file under its final name.
func (fe *Fetcher) Fetch(ctx context.Context, d *Dataset, root, source string) error {
	if source == "" {
		source = d.Source
	}
	if source == "" {
		return fmt.Errorf("%s: no known download address; give one with -from (a folder URL ending in / or an archive)", d.Name)
	}
	dir := filepath.Join(root, d.Folder)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var todo []File
	for _, f := range d.Files {
		if checkFile(filepath.Join(dir, f.Name), f) != nil {
			todo = append(todo, f)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	if strings.HasSuffix(source, "/") {
		for k, f := range todo {
			part := filepath.Join(dir, f.Name+".part")
			if err := fe.download(ctx, source+f.Name, part); err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
			if err := checkFile(part, f); err != nil {
				os.Remove(part)
				return fmt.Errorf("%s: downloaded file is wrong: %w", f.Name, err)
			}
			if err := os.Rename(part, filepath.Join(dir, f.Name)); err != nil {
				return err
			}
			if fe.Progress != nil {
				fe.Progress(k+1, len(todo), f.Name)
			}
		}
		return nil
	}
	archive := filepath.Join(dir, "."+path.Base(source)+".part")
	if err := fe.download(ctx, source, archive); err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	if err := extract(archive, dir, todo); err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	os.Remove(archive)
	if fe.Progress != nil {
		fe.Progress(len(todo), len(todo), path.Base(source))
	}
	return nil
}

// download fetches url into part, resuming what part already holds.
func (fe *Fetcher) download(ctx context.Context, url, part string) error {
	client := fe.Client
	if client == nil {
		client = http.DefaultClient
	}
	var have int64
	if fi, err := os.Stat(part); err == nil {
		have = fi.Size()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	flags := os.O_CREATE | os.O_WRONLY
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		flags |= os.O_APPEND
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		return nil // part is already complete
	case resp.StatusCode == http.StatusOK:
		flags |= os.O_TRUNC
	default:
		return fmt.Errorf("HTTP %s", resp.Status)
	}
	f, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, resp.Body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// canonicalName maps a name inside an archive to the dataset's name: the
// same, or with ".txt" added (the VGG archive calls the homographies H1to2p,
// without an ending).
func canonicalName(base string, want map[string]File) (string, bool) {
	if _, ok := want[base]; ok {
		return base, true
	}
	if _, ok := want[base+".txt"]; ok {
		return base + ".txt", true
	}
	return "", false
}

// extract writes the wanted files found in the archive (matched by base
// name) into dir, checked against the manifest.
func extract(archive, dir string, todo []File) error {
	want := map[string]File{}
	for _, f := range todo {
		want[f.Name] = f
	}
	found := map[string]bool{}
	put := func(name string, r io.Reader) error {
		n, ok := canonicalName(path.Base(name), want)
		if !ok || found[n] {
			return nil
		}
		f := want[n]
		part := filepath.Join(dir, n+".part")
		out, err := os.Create(part)
		if err != nil {
			return err
		}
		_, err = io.Copy(out, io.LimitReader(r, f.Size+1))
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = checkFile(part, f)
		}
		if err != nil {
			os.Remove(part)
			return fmt.Errorf("%s: %w", n, err)
		}
		found[n] = true
		return os.Rename(part, filepath.Join(dir, n))
	}
	data, err := os.ReadFile(archive)
	if err != nil {
		return err
	}
	if zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data))); err == nil {
		for _, zf := range zr.File {
			rc, err := zf.Open()
			if err != nil {
				return err
			}
			err = put(zf.Name, rc)
			rc.Close()
			if err != nil {
				return err
			}
		}
	} else {
		gz, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return errors.New("not a zip or tar.gz archive")
		}
		tr := tar.NewReader(gz)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			if h.Typeflag == tar.TypeReg {
				if err := put(h.Name, tr); err != nil {
					return err
				}
			}
		}
	}
	var missing []string
	for n := range want {
		if !found[n] {
			missing = append(missing, n)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		return fmt.Errorf("archive lacks %d files: %s", len(missing), strings.Join(missing, ", "))
	}
	return nil
}
