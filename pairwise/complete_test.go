package pairwise

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/geom"
)

// completeScene is three views of random points: cameras looking down +z
// from the given centres, each point's descriptor the same in every view
// up to noise.
type completeScene struct {
	views    []View
	verified []Verified
	desc     [][]float32
	item     []int
	off      []int
}

const completeDim = 8

func rotY(a float64) [9]float64 {
	c, s := math.Cos(a), math.Sin(a)
	return [9]float64{c, 0, s, 0, 1, 0, -s, 0, c}
}

// newCompleteScene puts n points in front of cameras at centres, turned by
// yaw (radians) about y. Views 0 and 1 hold every point, in one track each;
// view 2 holds them as free keypoints (in order), each with a descriptor
// distance of about descNoise from the track's.
func newCompleteScene(n int, centres [3][3]float64, yaw [3]float64, descNoise float64) *completeScene {
	rng := rand.New(rand.NewPCG(1, 2))
	const f, cx, cy = 800.0, 640.0, 480.0
	kk := [9]float64{f, 0, cx, 0, f, cy, 0, 0, 1}
	s := &completeScene{views: make([]View, 3), desc: make([][]float32, 3)}
	var rs [3][9]float64
	var ts [3][3]float64
	for v := range 3 {
		rs[v] = rotY(yaw[v])
		c := centres[v]
		for r := range 3 { // t = −R C
			ts[v][r] = -(rs[v][3*r]*c[0] + rs[v][3*r+1]*c[1] + rs[v][3*r+2]*c[2])
		}
	}
	base := make([][]float32, n)
	for p := range n {
		x := [3]float64{rng.Float64()*8 - 4, rng.Float64()*6 - 3, 10 + rng.Float64()*6}
		base[p] = make([]float32, completeDim)
		for d := range base[p] {
			base[p][d] = float32(rng.Float64() * 1000)
		}
		for v := range 3 {
			var y [3]float64
			for r := range 3 {
				y[r] = rs[v][3*r]*x[0] + rs[v][3*r+1]*x[1] + rs[v][3*r+2]*x[2] + ts[v][r]
			}
			s.views[v].Points = append(s.views[v].Points, geom.Point{X: f*y[0]/y[2] + cx, Y: f*y[1]/y[2] + cy})
			for d := range completeDim {
				noise := 0.0
				if v == 2 {
					noise = descNoise / math.Sqrt(completeDim)
				}
				s.desc[v] = append(s.desc[v], base[p][d]+float32(noise))
			}
		}
	}
	for v := range s.views {
		s.views[v].PixelScale = 1
	}
	kinv, _ := geom.Inverse3(kk)
	fund := func(a, c int) [9]float64 { // x_cᵀ F x_a = 0
		rel := geom.Mul3(rs[c], geom.Transpose3(rs[a]))
		var t [3]float64
		for r := range 3 {
			t[r] = ts[c][r] - (rel[3*r]*ts[a][0] + rel[3*r+1]*ts[a][1] + rel[3*r+2]*ts[a][2])
		}
		tx := [9]float64{0, -t[2], t[1], t[2], 0, -t[0], -t[1], t[0], 0}
		return geom.Mul3(geom.Transpose3(kinv), geom.Mul3(geom.Mul3(tx, rel), kinv))
	}
	matches := make([]Match, 40) // only their number counts here
	for _, p := range [][2]int{{0, 1}, {0, 2}, {1, 2}} {
		s.verified = append(s.verified, Verified{I: p[0], J: p[1], Model: Fundamental, Matrix: fund(p[0], p[1]), F: fund(p[0], p[1]), Matches: matches})
	}
	s.off = []int{0, n, 2 * n, 3 * n}
	s.item = make([]int, 3*n)
	for p := range n {
		s.item[p], s.item[n+p], s.item[2*n+p] = p, p, -1
	}
	return s
}

func (s *completeScene) run(o CompleteOptions) ([]int, int, error) {
	o.Descriptors = func(i int) ([]float32, error) { return s.desc[i], nil }
	return CompleteTracks(context.Background(), s.views, completeDim, s.verified, s.item, s.off, o)
}

// runRows is run reading descriptors by rows, checking the rows asked
// for and the progress reported.
func (s *completeScene) runRows(t *testing.T, o CompleteOptions) ([]int, int, error) {
	o.DescriptorRows = func(i int, rows []int) ([]float32, error) {
		var out []float32
		for k, r := range rows {
			if r < 0 || r >= len(s.views[i].Points) || k > 0 && r <= rows[k-1] {
				t.Fatalf("image %d: rows %v: want distinct points in order", i, rows)
			}
			out = append(out, s.desc[i][r*completeDim:(r+1)*completeDim]...)
		}
		return out, nil
	}
	type counter struct{ done, total, calls int }
	var tracks, pairs counter
	check := func(name string, c *counter) func(done, total int) {
		return func(done, total int) {
			if done < c.done || done > total || c.calls > 0 && total != c.total {
				t.Errorf("%s progress %d/%d after %d/%d", name, done, total, c.done, c.total)
			}
			c.done, c.total, c.calls = done, total, c.calls+1
		}
	}
	o.Progress, o.PairProgress = check("track", &tracks), check("pair", &pairs)
	out, added, err := CompleteTracks(context.Background(), s.views, completeDim, s.verified, s.item, s.off, o)
	if err == nil {
		for _, c := range []counter{tracks, pairs} {
			if c.calls == 0 || c.done != c.total {
				t.Errorf("progress ended at %d/%d after %d calls", c.done, c.total, c.calls)
			}
		}
		if pairs.calls > 0 && tracks.calls > 0 && added > 0 && pairs.total == 0 {
			t.Error("observations added with no image pair compared")
		}
	}
	return out, added, err
}

func TestCompleteTracks(t *testing.T) {
	spread := [3][3]float64{{0, 0, 0}, {3, 0, 0}, {1, 3, -1}}
	yaw := [3]float64{0, -0.1, 0}
	inLine := [3][3]float64{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}}
	cases := []struct {
		name    string
		centres [3][3]float64
		noise   float64
		edit    func(*completeScene)
		opts    CompleteOptions
		want    int // observations added, each to its own point's track
	}{
		{name: "third view joins every track", centres: spread, noise: 50, want: 30},
		{name: "descriptors too far", centres: spread, noise: 600, want: 0},
		{name: "cameras in a line: parallel epipolar lines", centres: inLine, noise: 50, want: 0},
		{name: "keypoints in a track stay", centres: spread, noise: 50, want: 20, edit: func(s *completeScene) {
			for p := range 5 { // ten of view 2's keypoints in tracks already
				s.item[2*30+p], s.item[2*30+5+p] = 100+p, 100+p
			}
		}},
		{name: "a pair of few matches gives no line", centres: spread, noise: 50, want: 0, edit: func(s *completeScene) {
			s.verified[1].Matches = s.verified[1].Matches[:10]
		}},
		{name: "few matches allowed by MinPairMatches", centres: spread, noise: 50, want: 30, opts: CompleteOptions{MinPairMatches: 10}, edit: func(s *completeScene) {
			s.verified[1].Matches = s.verified[1].Matches[:10]
		}},
		{name: "homography pairs give no line", centres: spread, noise: 50, want: 0, edit: func(s *completeScene) {
			s.verified[2].Model = Homography
		}},
		{name: "three lines required", centres: spread, noise: 50, want: 0, opts: CompleteOptions{MinLines: 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newCompleteScene(30, c.centres, yaw, c.noise)
			if c.edit != nil {
				c.edit(s)
			}
			before := slices.Clone(s.item)
			out, added, err := s.run(c.opts)
			if err != nil {
				t.Fatal(err)
			}
			rows, addedRows, err := s.runRows(t, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rows, out) || addedRows != added {
				t.Errorf("DescriptorRows added %d, Descriptors %d; tracks differ: %v", addedRows, added, !slices.Equal(rows, out))
			}
			if !slices.Equal(s.item, before) {
				t.Error("CompleteTracks changed its input")
			}
			if added != c.want {
				t.Errorf("added %d observations, want %d", added, c.want)
			}
			n := 30
			got := 0
			for p := range n {
				g := 2*n + p
				if out[g] == before[g] {
					continue
				}
				got++
				if out[g] != out[p] || out[g] != out[n+p] {
					t.Errorf("view 2's point %d joined track %d, want its own point's %d", p, out[g], out[p])
				}
			}
			if got != added {
				t.Errorf("%d observations changed, %d reported", got, added)
			}
		})
	}
}

func TestCompleteTracksErrors(t *testing.T) {
	s := newCompleteScene(5, [3][3]float64{{0, 0, 0}, {2, 0, 0}, {1, 0, -3}}, [3]float64{}, 0)
	desc := func(i int) ([]float32, error) { return s.desc[i], nil }
	cases := []struct {
		name string
		off  []int
		opts CompleteOptions
		want string
	}{
		{"negative threshold", s.off, CompleteOptions{Threshold: -1, Descriptors: desc}, "threshold"},
		{"right angle", s.off, CompleteOptions{MinAngle: 90, Descriptors: desc}, "angle"},
		{"one line", s.off, CompleteOptions{MinLines: 1, Descriptors: desc}, "lines"},
		{"NaN distance", s.off, CompleteOptions{MaxDistance: math.NaN(), Descriptors: desc}, "distance"},
		{"negative pair matches", s.off, CompleteOptions{MinPairMatches: -1, Descriptors: desc}, "pair matches"},
		{"no descriptors", s.off, CompleteOptions{}, "Descriptors"},
		{"offsets", []int{0, 5, 10}, CompleteOptions{Descriptors: desc}, "offsets"},
		{"short descriptors", s.off, CompleteOptions{Descriptors: func(i int) ([]float32, error) { return s.desc[i][:3], nil }}, "descriptors of images"},
		{"short rows", s.off, CompleteOptions{DescriptorRows: func(i int, rows []int) ([]float32, error) { return s.desc[i][:3], nil }}, "descriptors of images"},
		{"rows fail", s.off, CompleteOptions{DescriptorRows: func(i int, rows []int) ([]float32, error) { return nil, errors.New("disk gone") }}, "disk gone"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := CompleteTracks(context.Background(), s.views, completeDim, s.verified, s.item, c.off, c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want one naming %q", err, c.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := CompleteTracks(ctx, s.views, completeDim, s.verified, s.item, s.off, CompleteOptions{Descriptors: desc}); err != context.Canceled {
		t.Errorf("cancelled: err %v", err)
	}
}
