package tracks

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
)

// completeScene is three views of random points: cameras looking down +z
// from the given centres, each point's descriptor the same in every view
// up to noise.
type completeScene struct {
	views    *Views
	verified []pairwise.Verified
	item     []int
}

// completeDim is how many of the 128 descriptor values the scene sets
// (the rest are 0 in every view).
const completeDim = 8

// yawRotation is the rotation by a radians about y.
func yawRotation(a float64) [9]float64 {
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
	s := &completeScene{views: &Views{Sets: make([]*features.Set, 3), Threshold: 3}}
	for v := range s.views.Sets {
		s.views.Sets[v] = &features.Set{Image: string(rune('a' + v))}
	}
	var rs [3][9]float64
	var ts [3][3]float64
	for v := range 3 {
		rs[v] = yawRotation(yaw[v])
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
			set := s.views.Sets[v]
			set.Keypoints = append(set.Keypoints, features.Keypoint{X: float32(f*y[0]/y[2] + cx), Y: float32(f*y[1]/y[2] + cy)})
			d := make([]float32, features.DescSize)
			for k := range completeDim {
				noise := 0.0
				if v == 2 {
					noise = descNoise / math.Sqrt(completeDim)
				}
				d[k] = base[p][k] + float32(noise)
			}
			set.Desc = append(set.Desc, d...)
		}
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
	matches := make([]pairwise.Match, 40) // only their number counts here
	for _, p := range [][2]int{{0, 1}, {0, 2}, {1, 2}} {
		s.verified = append(s.verified, pairwise.Verified{I: p[0], J: p[1], Model: pairwise.Fundamental, Matrix: fund(p[0], p[1]), F: fund(p[0], p[1]), Matches: matches})
	}
	s.item = make([]int, 3*n)
	for p := range n {
		s.item[p], s.item[n+p], s.item[2*n+p] = p, p, -1
	}
	return s
}

// run completes the scene's tracks, checking the progress reported.
func (s *completeScene) run(t *testing.T, o CompleteOptions) ([]int, int, error) {
	type counter struct{ done, total, calls int }
	counters := map[string]*counter{StageComplete: {}, StageCompletePairs: {}}
	s.views.Progress = func(stage string, done, total int) {
		c := counters[stage]
		if done < c.done || done > total || c.calls > 0 && total != c.total {
			t.Errorf("%s progress %d/%d after %d/%d", stage, done, total, c.done, c.total)
		}
		c.done, c.total, c.calls = done, total, c.calls+1
	}
	in := Tracks{Item: s.item, Solved: s.item, Keypoints: s.views.Sets, Pairs: s.verified}
	out, added, err := Complete(context.Background(), s.views, in, o)
	if err == nil {
		for stage, c := range counters {
			if c.calls == 0 || c.done != c.total {
				t.Errorf("%s progress ended at %d/%d after %d calls", stage, c.done, c.total, c.calls)
			}
		}
	}
	return out.Item, added, err
}

func TestComplete(t *testing.T) {
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
			s.verified[2].Model = pairwise.Homography
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
			out, added, err := s.run(t, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(s.item, before) {
				t.Error("Complete changed its input")
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

// TestCompleteErrors: bad options, unreadable descriptors and a cancelled
// context are errors.
func TestCompleteErrors(t *testing.T) {
	s := newCompleteScene(5, [3][3]float64{{0, 0, 0}, {2, 0, 0}, {1, 0, -3}}, [3]float64{}, 0)
	in := Tracks{Item: s.item, Solved: s.item, Keypoints: s.views.Sets, Pairs: s.verified}
	for _, c := range []struct {
		name string
		opts CompleteOptions
		want string
	}{
		{"negative threshold", CompleteOptions{Threshold: -1}, "threshold"},
		{"right angle", CompleteOptions{MinAngle: 90}, "angle"},
		{"one line", CompleteOptions{MinLines: 1}, "lines"},
		{"NaN distance", CompleteOptions{MaxDistance: math.NaN()}, "distance"},
		{"negative pair matches", CompleteOptions{MinPairMatches: -1}, "pair matches"},
	} {
		if _, _, err := Complete(context.Background(), s.views, in, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want one naming %q", c.name, err, c.want)
		}
	}
	short := *s.views.Sets[2]
	short.Desc = short.Desc[:3]
	broken := *s.views
	broken.Sets = []*features.Set{s.views.Sets[0], s.views.Sets[1], &short}
	if _, _, err := Complete(context.Background(), &broken, in, CompleteOptions{}); err == nil || !strings.Contains(err.Error(), "descriptor values") {
		t.Errorf("short descriptors: err %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Complete(ctx, s.views, in, CompleteOptions{}); err != context.Canceled {
		t.Errorf("cancelled: err %v", err)
	}
}
