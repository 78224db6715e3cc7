package export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/internal/testenv"
)

func testSets() []*features.Set {
	kp := func(x, y float32) features.Keypoint { return features.Keypoint{X: x, Y: y, Size: 4, Angle: 90} }
	return []*features.Set{
		{Image: "a,1.png", Keypoints: []features.Keypoint{kp(1, 2), kp(3, 4)}, Desc: make([]float32, 2*features.DescSize)},
		{Image: "b.png", Keypoints: []features.Keypoint{kp(5, 6)}, Desc: make([]float32, features.DescSize)},
		{Image: "c.png", Keypoints: []features.Keypoint{kp(7, 8), kp(9.123456, 10)}, Desc: make([]float32, 2*features.DescSize)},
	}
}

func TestBuildAndRoundTrip(t *testing.T) {
	sets := testSets()
	// Observations: a0 a1 | b0 | c0 c1. Items: {a1, b0, c1}, {a0, c0}.
	item := []int{1, 0, 0, 1, 0}
	tr, ms := Build(sets, item)
	if len(tr.Tracks) != 2 || tr.Tracks[0].ID != 0 || len(tr.Tracks[0].Observations) != 2 || len(tr.Tracks[1].Observations) != 3 {
		t.Fatalf("tracks %+v", tr.Tracks)
	}
	if got := tr.Tracks[1].Observations[2]; got.Image != "c.png" || got.Keypoint != 1 || got.X != 9.1235 {
		t.Errorf("observation %+v", got)
	}
	want := []Match{{0, 1, 1, 0}, {0, 0, 2, 0}, {0, 1, 2, 1}, {1, 0, 2, 1}} // by image pair, then keypoints
	if !reflect.DeepEqual(ms, want) {
		t.Errorf("matches %v, want %v", ms, want)
	}
	var b bytes.Buffer
	if err := WriteTracks(&b, tr); err != nil {
		t.Fatal(err)
	}
	back, err := ReadTracks(&b)
	if err != nil || !reflect.DeepEqual(back, tr) {
		t.Fatalf("tracks round trip: %v\n%+v\n%+v", err, back, tr)
	}
	b.Reset()
	if err := WriteMatchesCSV(&b, tr.Images, ms); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"a,1.png",1,b.png,0`) {
		t.Errorf("a name with a comma is not quoted:\n%s", b.String())
	}
	got, err := ReadMatchesCSV(&b, tr.Images)
	if err != nil || !reflect.DeepEqual(got, ms) {
		t.Fatalf("matches round trip: %v: %v", err, got)
	}
}

func TestReadErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"images":["a"],"tracks":[{"id":0,"observations":[{"image":"b"}]}]}`, "unknown image"},
		{`{"images":["a"],"tracks":[{"id":0,"observations":[{"image":"a"},{"image":"a"}]}]}`, "two observations"},
		{`{"images":[], "extra": 1}`, "unknown field"},
	} {
		if _, err := ReadTracks(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"x,y\n", "wrong number of fields"},
		{"a,b,c,d\n", "line 1"},
		{"image_a,kp_a,image_b,kp_b\na,0,z,1\n", "line 2"},
		{"image_a,kp_a,image_b,kp_b\na,-1,a,1\n", "line 2"},
	} {
		if _, err := ReadMatchesCSV(strings.NewReader(tc.in), []string{"a"}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestColmapText(t *testing.T) {
	sets := testSets()[1:]
	sets[0].Desc[3] = 300 // clamped to 255
	dir := t.TempDir()
	if left, err := WriteColmapText(dir, sets, []Match{{0, 0, 1, 1}}); err != nil || left != nil {
		t.Fatal(left, err)
	}
	f, _ := os.ReadFile(filepath.Join(dir, "features", "b.png.txt"))
	if !strings.HasPrefix(string(f), "1 128\n5.5000 6.5000 2.0000 1.570796 0 0 0 255 0") {
		t.Errorf("features file starts %q", string(f)[:60])
	}
	m, _ := os.ReadFile(filepath.Join(dir, "matches.txt"))
	if string(m) != "b.png c.png\n0 1\n" {
		t.Errorf("matches.txt %q", m)
	}
}

// TestColmapTextNames: COLMAP's text formats hold what they can express.
// A name with a space gets its features file but no line in matches.txt
// (whose "image_a image_b" lines cannot hold it), and is reported; a name
// with a line break, or one that is not a single file name, is refused
// before anything is written, and nothing lands outside dir.
func TestColmapTextNames(t *testing.T) {
	sets := testSets()
	sets[0].Image = "IMG 0001.jpg"
	dir := t.TempDir()
	left, err := WriteColmapText(dir, sets, []Match{{0, 0, 1, 0}, {0, 1, 2, 1}, {1, 0, 2, 0}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(left, []string{"IMG 0001.jpg"}) {
		t.Errorf("left out %q, want the spaced name", left)
	}
	for _, n := range []string{"IMG 0001.jpg", "b.png", "c.png"} {
		if _, err := os.Stat(filepath.Join(dir, "features", n+".txt")); err != nil {
			t.Error(err)
		}
	}
	if m, _ := os.ReadFile(filepath.Join(dir, "matches.txt")); string(m) != "b.png c.png\n0 0\n" {
		t.Errorf("matches.txt %q", m)
	}
	for _, bad := range []string{"bad\nname.png", "cr\rname.png", "../evil.png", "..", ".", "", "a/b.png", "nul\x00.png"} {
		sets := testSets()
		sets[1].Image = bad
		root := t.TempDir()
		dir := filepath.Join(root, "out", "colmap")
		_, err := WriteColmapText(dir, sets, nil)
		if err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want a one-line refusal", bad, err)
		}
		if names := dirNames(t, root); names != "" {
			t.Errorf("%q: wrote %s", bad, names)
		}
	}
}

func TestStage(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "out")
	s, err := NewStage(out, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("OUT exists before Publish: %v", err)
	}
	if filepath.Dir(s.Dir) != root {
		t.Errorf("stage %s is not beside OUT", s.Dir)
	}
	os.WriteFile(filepath.Join(s.Dir, "x.txt"), []byte("x"), 0o644)
	if err := s.Publish(); err != nil {
		t.Fatal(err)
	}
	if names := dirNames(t, out); names != "x.txt" {
		t.Errorf("after publish OUT holds %q", names)
	}
	if names := dirNames(t, root); names != "out" {
		t.Errorf("after publish the parent holds %q", names)
	}
	if _, err := NewStage(out, false); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("a non-empty folder without force: %v", err)
	}
	s2, err := NewStage(out, true)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(s2.Dir, "y.txt"), []byte("y"), 0o644)
	s2.Discard()
	if names := dirNames(t, out) + "|" + dirNames(t, root); names != "x.txt|out" {
		t.Errorf("a discarded stage changed things: %q", names)
	}
	s3, _ := NewStage(out, true)
	os.WriteFile(filepath.Join(s3.Dir, "x.txt"), []byte("new"), 0o644)
	if err := s3.Publish(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "x.txt")); string(b) != "new" {
		t.Errorf("-force publish kept %q", b)
	}
	file := filepath.Join(root, "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := NewStage(file, true); err == nil {
		t.Error("a file accepted as OUT")
	}
}

// TestStageCleansStale: what a killed run leaves (a stage of a dead
// process beside OUT, or an older version's stage inside OUT) neither
// blocks the next run nor stays.
func TestStageCleansStale(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "out")
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	stale := filepath.Join(root, fmt.Sprintf(".clearmatch-tmp-out-%d-123", dead.Process.Pid))
	live := filepath.Join(root, fmt.Sprintf(".clearmatch-tmp-out-%d-456", os.Getpid()))
	other := filepath.Join(root, ".clearmatch-tmp-else-1-789")
	for _, d := range []string{stale, live, other, filepath.Join(out, ".clearmatch-tmp-old")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s, err := NewStage(out, false)
	if err != nil {
		t.Fatalf("an old stage inside OUT blocked the run: %v", err)
	}
	defer s.Discard()
	for d, want := range map[string]bool{stale: false, live: true, other: true, filepath.Join(out, ".clearmatch-tmp-old"): false} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(d), err == nil, want)
		}
	}
}

func dirNames(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range es {
		n = append(n, e.Name())
	}
	return strings.Join(n, ",")
}

// TestWriteFileAtomicSpecialPaths: a symlink keeps being a symlink (its
// target gets the data), a FIFO and a device are written through, and a
// directory or a dangling link is refused, without leftovers.
func TestWriteFileAtomicSpecialPaths(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.txt")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target holds %q", b)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	got := make(chan []byte)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- b
	}()
	if err := WriteFileAtomic(fifo, []byte("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if b := <-got; string(b) != "through the pipe" {
		t.Errorf("the reader got %q", b)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", fi.Mode())
	}
	// A private null device (as root), so that a regression cannot replace
	// the machine's /dev/null.
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		if err := WriteFileAtomic(null, []byte("x")); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(null); err != nil || fi.Mode()&os.ModeDevice == 0 {
			t.Fatalf("the device was replaced: %v", fi.Mode())
		}
		os.Remove(null)
	}
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "nowhere", "x"), dangling)
	for _, p := range []string{dir, dangling} {
		if err := WriteFileAtomic(p, []byte("x")); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", p, err)
		}
	}
	if names := dirNames(t, dir); names != "dangling,fifo,link.txt,target.txt" {
		t.Errorf("leftovers: %s", names)
	}
}

// TestWriteFileAtomicToOwnStdout: `-out /dev/stdout` (and /dev/fd/1,
// /proc/self/fd/1, a link to them) writes to the process's standard output
// as the shell set it up: a redirected file keeps its inode and gets the
// data at its current offset (after what the shell's group wrote before),
// a pipe's reader gets the data, and nothing is created beside the file.
// A child process (this test binary, re-run) does the write, so that its
// standard output can be set.
func TestWriteFileAtomicToOwnStdout(t *testing.T) {
	if p := os.Getenv("CLEARMATCH_TEST_WRITE_TO"); p != "" {
		if err := WriteFileAtomic(p, []byte("data\n")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "out-link")
	os.Symlink("/dev/stdout", link)
	for _, path := range []string{"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", link} {
		child := func(stdout *os.File) *exec.Cmd {
			c := exec.Command(os.Args[0], "-test.run", "^TestWriteFileAtomicToOwnStdout$")
			c.Env = append(os.Environ(), "CLEARMATCH_TEST_WRITE_TO="+path)
			c.Stdout = stdout
			return c
		}
		// A redirected file, which already holds a header written through
		// the same file description.
		sub := filepath.Join(dir, "sub")
		os.RemoveAll(sub)
		os.Mkdir(sub, 0o755)
		result := filepath.Join(sub, "result.txt")
		f, err := os.Create(result)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("header\n")
		before, _ := f.Stat()
		c := child(f)
		var cerr bytes.Buffer
		c.Stderr = &cerr
		if err := c.Run(); err != nil {
			t.Errorf("%s into a file: %v %s", path, err, cerr.String())
		}
		f.Close()
		after, err := os.Stat(result)
		if err != nil || !os.SameFile(before, after) {
			t.Errorf("%s: the redirected file was replaced by another one", path)
		}
		if b, _ := os.ReadFile(result); string(b) != "header\ndata\n" {
			t.Errorf("%s: the redirected file holds %q, want the header, then the data", path, b)
		}
		if names := dirNames(t, sub); names != "result.txt" {
			t.Errorf("%s: beside the file: %s", path, names)
		}
		// A pipe.
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		c = child(w)
		cerr.Reset()
		c.Stderr = &cerr
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		w.Close()
		got, _ := io.ReadAll(r)
		r.Close()
		if err := c.Wait(); err != nil || string(got) != "data\n" {
			t.Errorf("%s into a pipe: %v %s; the reader got %q", path, err, cerr.String(), got)
		}
	}
}

// TestOrientationFrame: a phone's portrait photo is stored 80×40 with EXIF
// orientation 6. tracks.json and the overlays both use the frame a viewer
// shows (40×80), so the overlay's dot sits where tracks.json puts the
// keypoint, on the content it was detected on. Before, tracks.json held
// stored coordinates and the overlay was drawn unturned.
func TestOrientationFrame(t *testing.T) {
	dir := t.TempDir()
	img := image.NewGray(image.Rect(0, 0, 80, 40))
	var b bytes.Buffer
	jpeg.Encode(&b, img, nil)
	paths := []string{filepath.Join(dir, "portrait.jpg"), filepath.Join(dir, "plain.jpg")}
	os.WriteFile(paths[0], testenv.WithOrientation(b.Bytes(), 6), 0o644)
	os.WriteFile(paths[1], b.Bytes(), 0o644)
	kp := features.Keypoint{X: 70, Y: 5, Size: 4}
	sets := []*features.Set{
		{Image: "portrait.jpg", Width: 80, Height: 40, Orientation: 6, Keypoints: []features.Keypoint{kp}, Desc: make([]float32, features.DescSize)},
		{Image: "plain.jpg", Width: 80, Height: 40, Keypoints: []features.Keypoint{kp}, Desc: make([]float32, features.DescSize)},
	}
	tracks, _ := Build(sets, []int{0, 0})
	obs := tracks.Tracks[0].Observations
	// Stored (70, 5) of an 80×40 buffer turned 90° clockwise: (40-1-5, 70).
	if obs[0].X != 34 || obs[0].Y != 70 || obs[1].X != 70 || obs[1].Y != 5 {
		t.Errorf("tracks.json observations %+v, want portrait (34,70) and plain (70,5)", obs)
	}
	out := filepath.Join(dir, "overlays")
	ov := &Overlays{Paths: paths, Sets: sets, Item: []int{0, 0}}
	if err := ov.Write(context.Background(), out); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file   string
		w, h   int
		dx, dy int
	}{{"items_portrait_jpg.png", 40, 80, 34, 70}, {"items_plain_jpg.png", 80, 40, 70, 5}} {
		f, err := os.Open(filepath.Join(out, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		m, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if b := m.Bounds(); b.Dx() != tc.w || b.Dy() != tc.h {
			t.Errorf("%s is %d×%d, want %d×%d", tc.file, b.Dx(), b.Dy(), tc.w, tc.h)
			continue
		}
		// The dot is coloured; the black image around it is gray.
		if r, g, bl, _ := m.At(tc.dx, tc.dy).RGBA(); r == g && g == bl {
			t.Errorf("%s: no dot at (%d,%d)", tc.file, tc.dx, tc.dy)
		}
	}
}

// TestWriteTracksIsMarshalIndent: the streaming writer gives exactly what
// json.MarshalIndent gave.
func TestWriteTracksIsMarshalIndent(t *testing.T) {
	obs := []Observation{{Image: "a<b>.png", Keypoint: 3, X: 1.5, Y: 2.25}, {Image: "c&d", Keypoint: 0, X: -0, Y: 1e21}}
	for _, tc := range []*Tracks{
		{},
		{Images: []string{}, Tracks: []Track{}},
		{Images: []string{"a<b>.png", "c&d"}, Tracks: []Track{{ID: 0, Observations: obs}}},
		{Images: []string{"x"}, Tracks: []Track{{ID: 1, Observations: obs[:1]}, {ID: 2}, {ID: 3, Observations: []Observation{}}}},
		randomTracks(rand.New(rand.NewSource(1)), 500),
	} {
		tc.FormatVersion = TracksFormatVersion // WriteTracks always writes the current one
		want, err := json.MarshalIndent(tc, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteTracks(&b, tc); err != nil {
			t.Fatal(err)
		}
		if b.String() != string(want)+"\n" {
			t.Errorf("got\n%s\nwant\n%s", b.String(), want)
		}
	}
}

// randomTracks are n tracks over oddly named images (JSON's escapes,
// invalid UTF-8, names not in the list), with coordinates of every
// magnitude encoding/json writes in either of its forms.
func randomTracks(rng *rand.Rand, n int) *Tracks {
	names := []string{"a.png", "sp ace\t\"q\"\\", "<&>", "\u2028\u2029é", "\xff\xfe.jpg", "\x00\x1f"}
	t := &Tracks{Images: names[:4], Tracks: make([]Track, n)}
	for k := range t.Tracks {
		t.Tracks[k].ID = k*7 - 3
		for range rng.Intn(5) {
			x := []float64{0, math.Copysign(0, -1), 1e-6, 9.999e-7, 1e21, 9.99e20, -1e-300, 5e-324, math.MaxFloat64}
			coord := func() float64 {
				if rng.Intn(4) == 0 {
					return x[rng.Intn(len(x))]
				}
				return (rng.Float64() - 0.3) * math.Pow(10, float64(rng.Intn(50)-25))
			}
			t.Tracks[k].Observations = append(t.Tracks[k].Observations, Observation{
				Image: names[rng.Intn(len(names))], Keypoint: rng.Intn(1 << 20), X: coord(), Y: coord()})
		}
	}
	return t
}

// TestWriteTracksRefusesNaN: tracks.json cannot hold a NaN or an infinity,
// and the writer says so, as encoding/json did.
func TestWriteTracksRefusesNaN(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		tr := &Tracks{Images: []string{"a"}, Tracks: []Track{{Observations: []Observation{{Image: "a", X: 1, Y: v}}}}}
		_, want := json.Marshal(tr)
		err := WriteTracks(io.Discard, tr)
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("%v: got error %v, encoding/json's is %v", v, err, want)
		}
	}
}

func BenchmarkWriteTracks(b *testing.B) {
	tr := randomTracks(rand.New(rand.NewSource(2)), 20000)
	for _, tk := range tr.Tracks {
		for k := range tk.Observations {
			tk.Observations[k].X, tk.Observations[k].Y = 100+float64(k)*13.37, 700.25/float64(k+1)
		}
	}
	for b.Loop() {
		if err := WriteTracks(io.Discard, tr); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCheckOut: what NewStage refuses, CheckOut refuses, and it creates
// and removes nothing.
func TestCheckOut(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	full := filepath.Join(dir, "full")
	stale := filepath.Join(dir, "stale")
	for _, p := range []string{file, filepath.Join(full, "x")} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(stale, stagePrefix+"old"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		out   string
		force bool
		want  string // "" for no error
	}{
		{filepath.Join(dir, "new", "out"), false, ""},
		{file, true, "exists and is not a directory"},
		{full, false, "is not empty"},
		{full, true, ""},
		{stale, false, ""},
	}
	for _, c := range cases {
		err := CheckOut(c.out, c.force)
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckOut(%s, %v) = %v, want %q", c.out, c.force, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Errorf("CheckOut made the output's parent")
	}
	if _, err := os.Stat(filepath.Join(stale, stagePrefix+"old")); err != nil {
		t.Errorf("CheckOut removed a stale stage: %v", err)
	}
}

// TestFeaturesTextIsFmt: the features file's numbers are what fmt's %.4f
// and %.6f print, for ordinary, negative, tiny and non-finite values.
func TestFeaturesTextIsFmt(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	vals := []float32{0, -0.5, 1e-7, 3.14159265, 1023.99995, -1e9, inf, -inf, nan}
	s := &features.Set{Image: "a.png"}
	for k, v := range vals {
		s.Keypoints = append(s.Keypoints, features.Keypoint{X: v, Y: -v, Size: vals[(k+3)%len(vals)], Angle: vals[(k+5)%len(vals)]})
		for d := 0; d < features.DescSize; d++ {
			s.Desc = append(s.Desc, float32((k*37+d*11)%256))
		}
	}
	var want strings.Builder
	fmt.Fprintf(&want, "%d %d\n", s.Len(), features.DescSize)
	for i, k := range s.Keypoints {
		fmt.Fprintf(&want, "%.4f %.4f %.4f %.6f", k.X+0.5, k.Y+0.5, k.Size/2, float64(k.Angle)*math.Pi/180)
		for _, v := range s.Desc[i*features.DescSize : (i+1)*features.DescSize] {
			fmt.Fprintf(&want, " %d", int(v))
		}
		want.WriteByte('\n')
	}
	got, err := featuresText(s)
	if err != nil || string(got) != want.String() {
		t.Errorf("features text differs from fmt's (%v):\n%s\nwant\n%s", err, got, want.String())
	}
}
