//go:build cgo

package features

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/internal/testenv"

	"github.com/clearmatch/clearmatch/datasets"
)

func dataDir(tb testing.TB) string { return testenv.DataDir() }

// hotelFrames loads the Hotel benchmark from the shared data.
func hotelFrames(t *testing.T) []datasets.HotelFrame {
	t.Helper()
	frames, err := datasets.LoadHotel(testenv.Require(t, filepath.Join(dataDir(t), "cmu-hotel")))
	if err != nil {
		t.Fatal(err)
	}
	return frames
}

// hotelDescriptors computes frame f's descriptors at its labelled
// landmarks, as the Hotel protocol does (σ = 10, computed orientation).
func hotelDescriptors(t *testing.T, f datasets.HotelFrame) *Set {
	t.Helper()
	data, err := os.ReadFile(f.Image)
	if err != nil {
		t.Fatal(err)
	}
	pts := make([]geom.Point, len(f.Landmarks))
	for i, p := range f.Landmarks {
		pts[i] = geom.Point{X: p.X, Y: p.Y}
	}
	s, err := ExtractAt(filepath.Base(f.Image), data, pts, 10, false)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func readData(tb testing.TB, rel string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(dataDir(tb), rel))
	if err != nil {
		testenv.Missing(tb, err)
	}
	return b
}

func checkSet(t *testing.T, s *Set) {
	t.Helper()
	if len(s.Desc) != len(s.Keypoints)*DescSize {
		t.Fatalf("%d descriptor floats for %d keypoints", len(s.Desc), len(s.Keypoints))
	}
	for i, k := range s.Keypoints {
		if k.X < -0.5 || k.Y < -0.5 || k.X > float32(s.Width)-0.5 || k.Y > float32(s.Height)-0.5 || k.Size <= 0 {
			t.Fatalf("keypoint %d %+v outside the %dx%d image", i, k, s.Width, s.Height)
		}
	}
	for i, v := range s.Desc {
		if v < 0 || math.IsNaN(float64(v)) {
			t.Fatalf("descriptor value %d is %v", i, v)
		}
	}
}

func TestExtractGraffiti(t *testing.T) {
	data := readData(t, "graffiti/img1.ppm")
	s, err := Extract("img1.ppm", data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Width != 800 || s.Height != 640 || s.Len() < 1000 {
		t.Fatalf("%dx%d image with %d features; want 800x640 and thousands", s.Width, s.Height, s.Len())
	}
	checkSet(t, s)
	t.Logf("img1.ppm: %d SIFT features", s.Len())

	lim, err := Extract("img1.ppm", data, Options{MaxFeatures: 500})
	if err != nil || lim.Len() != 500 {
		t.Fatalf("MaxFeatures 500: %d features, %v", lim.Len(), err)
	}
	small, err := Extract("img1.ppm", data, Options{MaxDim: 400})
	if err != nil {
		t.Fatal(err)
	}
	checkSet(t, small)
	if small.Width != 800 || small.Len() == 0 || small.Len() >= s.Len() {
		t.Fatalf("MaxDim 400: %dx%d, %d features (full: %d)", small.Width, small.Height, small.Len(), s.Len())
	}
	root, err := Extract("img1.ppm", data, Options{RootSIFT: true})
	if err != nil || root.Len() != s.Len() {
		t.Fatal(err)
	}
}

func TestExtractAtHotel(t *testing.T) {
	frames := hotelFrames(t)
	for _, f := range []datasets.HotelFrame{frames[0], frames[50], frames[100]} {
		s := hotelDescriptors(t, f)
		if s.Len() != 30 {
			t.Fatalf("%s: %d descriptors, want 30", f.Image, s.Len())
		}
		checkSet(t, s)
		for i, k := range s.Keypoints {
			if float64(k.X) != f.Landmarks[i].X || float64(k.Y) != f.Landmarks[i].Y || k.Size != 20 || k.Angle < 0 || k.Angle >= 360 {
				t.Fatalf("keypoint %d %+v does not sit at landmark %v with size 20", i, k, f.Landmarks[i])
			}
		}
	}
	if _, err := ExtractAt("x.png", readData(t, "cmu-hotel/hotel.seq0.png"), []geom.Point{{X: -1, Y: 5}}, 10, false); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("point outside the image: %v", err)
	}
}

// badFolder writes a folder with a good image, a corrupt PNG, a zero-byte
// file and a text file named .jpg.
func badFolder(t *testing.T) (dir string, names []string) {
	dir = t.TempDir()
	img := image.NewGray(image.Rect(0, 0, 64, 64))
	for y := 0; y < 64; y++ {
		for x := 0; x < 64; x++ {
			img.SetGray(x, y, color.Gray{uint8((x*x + 3*y*x + y*y) % 251)})
		}
	}
	var good bytes.Buffer
	png.Encode(&good, img)
	corrupt := append([]byte(nil), good.Bytes()[:40]...)
	corrupt = append(corrupt, bytes.Repeat([]byte{0xde, 0xad}, 100)...)
	files := map[string][]byte{
		"good.png":    good.Bytes(),
		"corrupt.png": corrupt,
		"empty.png":   nil,
		"notes.jpg":   []byte("this is not an image\n"),
	}
	names = []string{"corrupt.png", "empty.png", "good.png", "notes.jpg"}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, names
}

func TestBadFiles(t *testing.T) {
	dir, names := badFolder(t)
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = filepath.Join(dir, n)
	}
	cache := filepath.Join(t.TempDir(), "cache")
	e := &Extractor{CacheDir: cache, Workers: 2}
	sets, errs, _ := e.ExtractFiles(context.Background(), paths, names)
	for i, n := range names {
		if n == "good.png" {
			if errs[i] != nil || sets[i] == nil || sets[i].Width != 64 {
				t.Errorf("good.png: %v", errs[i])
			}
			continue
		}
		if errs[i] == nil || !errors.Is(errs[i], ErrDecode) || !strings.Contains(errs[i].Error(), n) {
			t.Errorf("%s: error %v, want ErrDecode naming the file", n, errs[i])
		}
	}
	// Only the good image is cached, and no temporary file is left.
	entries, _ := os.ReadDir(cache)
	if len(entries) != 1 || !strings.HasSuffix(entries[0].Name(), ".feat") {
		t.Errorf("cache holds %v", entries)
	}
}

func TestExtractFilesCacheAndWorkers(t *testing.T) {
	var paths, names []string
	for _, n := range []string{"img1.ppm", "img2.ppm", "img3.ppm"} {
		readData(t, "graffiti/"+n)
		paths = append(paths, filepath.Join(dataDir(t), "graffiti", n))
		names = append(names, n)
	}
	cache := t.TempDir()
	one := &Extractor{Workers: 1, CacheDir: cache}
	s1, errs, st := one.ExtractFiles(context.Background(), paths, names)
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if st.Extracted != 3 || st.CacheHits != 0 {
		t.Fatalf("first run: %+v", st)
	}
	two := &Extractor{Workers: 2, CacheDir: cache}
	s2, _, st := two.ExtractFiles(context.Background(), paths, names)
	if st.CacheHits != 3 {
		t.Fatalf("second run: %+v, want 3 cache hits", st)
	}
	noCache := &Extractor{Workers: 2}
	s3, _, _ := noCache.ExtractFiles(context.Background(), paths, names)
	for i := range s1 {
		for _, s := range []*Set{s2[i], s3[i]} {
			if s.Image != names[i] || len(s.Keypoints) != len(s1[i].Keypoints) || !slices.Equal(s.Desc, s1[i].Desc) {
				t.Fatalf("%s differs between runs (cache or workers)", names[i])
			}
		}
	}
	// A corrupt cache file is recomputed, not trusted.
	data, _ := os.ReadFile(paths[0])
	key := CacheKey(data, Options{}.Params())
	f := filepath.Join(cache, key+".feat")
	b, _ := os.ReadFile(f)
	b[len(b)/2] ^= 1
	os.WriteFile(f, b, 0o644)
	_, _, st = one.ExtractFiles(context.Background(), paths, names)
	if st.Extracted != 1 || st.CacheHits != 2 {
		t.Fatalf("after corrupting one cache file: %+v", st)
	}
	if _, ok := (Cache{Dir: cache}).Load(key); !ok {
		t.Error("corrupt cache file was not rewritten")
	}
}

func TestFolderFiles(t *testing.T) {
	dir, _ := badFolder(t)
	os.WriteFile(filepath.Join(dir, "readme.txt"), []byte("x"), 0o644)
	files, err := ImageFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if names := baseNames(files); names != "corrupt.png empty.png good.png notes.jpg" {
		t.Fatalf("ImageFiles: %v", names)
	}
	// A flat image has no features but takes part.
	flat := image.NewGray(image.Rect(0, 0, 50, 40))
	var b bytes.Buffer
	png.Encode(&b, flat)
	os.WriteFile(filepath.Join(dir, "flat.png"), b.Bytes(), 0o644)
	s, err := Extract("flat.png", b.Bytes(), Options{})
	if err != nil || s.Len() != 0 || s.Width != 50 {
		t.Fatalf("flat image: %+v, %v", s, err)
	}
}

// TestExtractUnbiased: a Gaussian blob is found where it is, to a few
// hundredths of a pixel, at small and large scales and when downscaled.
// OpenCV 4.6 alone puts it a quarter pixel right of and below (0.23–0.27).
func TestExtractUnbiased(t *testing.T) {
	tests := []struct {
		x, y, sigma float64
		w, maxDim   int
	}{
		{100, 80, 4, 200, 0},
		{100.5, 80.5, 4, 200, 0},
		{63.3, 41.7, 4, 200, 0},
		{100, 80, 14, 200, 0},
		{200.5, 160.5, 8, 400, 200}, // detected at half size
	}
	for _, tc := range tests {
		h := tc.w * 4 / 5
		img := image.NewGray(image.Rect(0, 0, tc.w, h))
		for y := 0; y < h; y++ {
			for x := 0; x < tc.w; x++ {
				d := (float64(x)-tc.x)*(float64(x)-tc.x) + (float64(y)-tc.y)*(float64(y)-tc.y)
				img.SetGray(x, y, color.Gray{uint8(30 + 200*math.Exp(-d/(2*tc.sigma*tc.sigma)))})
			}
		}
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		s, err := Extract("blob.png", b.Bytes(), Options{MaxDim: tc.maxDim})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, k := range s.Keypoints {
			dx, dy := float64(k.X)-tc.x, float64(k.Y)-tc.y
			if math.Hypot(dx, dy) > 3 {
				continue
			}
			found = true
			tol := 0.05
			if tc.maxDim > 0 {
				tol = 0.1 // a quarter pixel of bias would be half a pixel here
			}
			if math.Abs(dx) > tol || math.Abs(dy) > tol {
				t.Errorf("blob at (%v, %v) σ %v: keypoint at (%.3f, %.3f)", tc.x, tc.y, tc.sigma, k.X, k.Y)
			}
		}
		if !found {
			t.Errorf("blob at (%v, %v) σ %v not detected", tc.x, tc.y, tc.sigma)
		}
	}
}

// TestUnusableCacheDegrades: a cache directory that cannot be created (a
// file stands in its place) costs the cache, with one error in Stats, and
// no image.
func TestUnusableCacheDegrades(t *testing.T) {
	dir, _ := badFolder(t)
	good := filepath.Join(dir, "good.png")
	blocker := filepath.Join(t.TempDir(), "cache")
	os.WriteFile(blocker, []byte("a file, not a folder"), 0o644)
	for _, cacheDir := range []string{blocker, filepath.Join(blocker, "sub")} {
		ex := Extractor{CacheDir: cacheDir}
		sets, errs, st := ex.ExtractFiles(context.Background(), []string{good, good}, []string{"a", "b"})
		if errs[0] != nil || errs[1] != nil || sets[0] == nil || st.Extracted != 2 {
			t.Errorf("cache %s: images failed: %v", cacheDir, errs)
		}
		if st.CacheError == nil || !strings.Contains(st.CacheError.Error(), cacheDir) {
			t.Errorf("cache %s: CacheError %v", cacheDir, st.CacheError)
		}
	}
}

// TestExtractExtremeShapes: strips and single pixels, with and without
// downscaling, give a Set or an error, never an OpenCV abort.
func TestExtractExtremeShapes(t *testing.T) {
	for _, sz := range [][2]int{{1, 1}, {1, 10000}, {10000, 1}, {2, 7000}, {3, 3}} {
		img := image.NewGray(image.Rect(0, 0, sz[0], sz[1]))
		for i := range img.Pix {
			img.Pix[i] = uint8(i * 37)
		}
		var b bytes.Buffer
		png.Encode(&b, img)
		for _, maxDim := range []int{0, 3200, 16} {
			if s, err := Extract("strip.png", b.Bytes(), Options{MaxDim: maxDim}); err == nil && (s.Width != sz[0] || s.Height != sz[1]) {
				t.Errorf("%v at max-dim %d: size %dx%d", sz, maxDim, s.Width, s.Height)
			}
		}
	}
}

// TestExtractRecordsOrientation: a phone's portrait JPEG (EXIF orientation
// 6) is detected in its stored pixels, and its Set records the orientation,
// on a cache hit too, so that outputs can show the viewer's frame.
func TestExtractRecordsOrientation(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 160, 96))
	for y := 0; y < 96; y++ {
		for x := 0; x < 160; x++ {
			img.Pix[y*160+x] = uint8((x*x + 3*y*y + x*y) % 251)
		}
	}
	var b bytes.Buffer
	jpeg.Encode(&b, img, &jpeg.Options{Quality: 95})
	dir := t.TempDir()
	path := filepath.Join(dir, "portrait.jpg")
	os.WriteFile(path, testenv.WithOrientation(b.Bytes(), 6), 0o644)
	ex := &Extractor{Workers: 1, CacheDir: t.TempDir()}
	for run := 0; run < 2; run++ {
		sets, errs, st := ex.ExtractFiles(context.Background(), []string{path}, []string{"portrait.jpg"})
		if errs[0] != nil {
			t.Fatal(errs[0])
		}
		s := sets[0]
		if s.Orientation != 6 || s.Width != 160 || s.Height != 96 || s.Len() == 0 {
			t.Errorf("run %d (%+v): orientation %d, %d×%d, %d features; want 6, the stored 160×96, some", run, st, s.Orientation, s.Width, s.Height, s.Len())
			continue
		}
		if x, y := s.DisplayPoint(0); x < 0 || x > 95 || y < 0 || y > 159 || y != float64(s.Keypoints[0].X) {
			t.Errorf("run %d: keypoint (%v,%v) shown at (%v,%v), outside the portrait 96×160 frame", run, s.Keypoints[0].X, s.Keypoints[0].Y, x, y)
		}
	}
}
