package eval

import (
	"math"
	"testing"

	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/geom"
)

// TestScoreTracks: tracks chained from three views' matches, scored under
// the true cameras. A keypoint moved 3 px along its epipolar line in the
// second view keeps a Sampson distance of 0 from the first (ScoreStages
// counts the match right) but leaves its track's point off: the track is
// counted within 4 px, not 2. A chain with two keypoints of one image is
// conflicting; a track through an image without ground truth, or of two
// views, is left out.
func TestScoreTracks(t *testing.T) {
	k := [3][3]float64{{2759.48, 0, 1520.69}, {0, 2764.16, 1006.81}, {0, 0, 1}}
	cams := []datasets.Camera{
		{Pose: geom.Pose{R: rotation(0.1, 0, 1, 0), C: [3]float64{-1, 0, 0}}, K: k, Width: 3072, Height: 2048},
		{Pose: geom.Pose{R: rotation(-0.05, 0.1, 1, 0), C: [3]float64{0.2, 0.3, 0.1}}, K: k, Width: 3072, Height: 2048},
		{Pose: geom.Pose{R: rotation(-0.15, 0, 1, 0), C: [3]float64{1.2, -0.1, 0}}, K: k, Width: 3072, Height: 2048},
	}
	ps := make([][12]float64, 3)
	for i, c := range cams {
		p, err := TrueProjection(c, 1536)
		if err != nil {
			t.Fatal(err)
		}
		ps[i] = p
	}
	project := func(i int, x [3]float64) geom.Point {
		p := ps[i]
		var h [3]float64
		for a := 0; a < 3; a++ {
			h[a] = p[4*a]*x[0] + p[4*a+1]*x[1] + p[4*a+2]*x[2] + p[4*a+3]
		}
		return geom.Point{X: h[0] / h[2], Y: h[1] / h[2]}
	}
	const n = 10
	points := make([][]geom.Point, 3)
	for m := 0; m < n; m++ {
		x := [3]float64{float64(m%5) - 2, float64(m/5) - 0.5, 8 + float64(m%3)}
		for i := range points {
			points[i] = append(points[i], project(i, x))
		}
	}
	// Keypoint 0 of view 1 moved 3 px along the epipolar line of view 0's.
	f01, err := TrueFundamental(cams[0], cams[1], 1536, 1536)
	if err != nil {
		t.Fatal(err)
	}
	q := points[0][0]
	l := [2]float64{f01[0]*q.X + f01[1]*q.Y + f01[2], f01[3]*q.X + f01[4]*q.Y + f01[5]}
	ln := math.Hypot(l[0], l[1])
	points[1][0].X += 3 * -l[1] / ln
	points[1][0].Y += 3 * l[0] / ln
	chain := func(pairs ...[2]int) map[[2]int][][2]int {
		out := map[[2]int][][2]int{}
		for _, p := range pairs {
			for m := 0; m < n; m++ {
				out[p] = append(out[p], [2]int{m, m})
			}
		}
		return out
	}
	conflict := chain([2]int{0, 1}, [2]int{1, 2})
	conflict[[2]int{0, 2}] = append(conflict[[2]int{0, 2}], [2]int{5, 6}) // joins tracks 5 and 6
	twoView := chain([2]int{0, 1})
	proj := func(i int) ([12]float64, bool) { return ps[i], true }
	noThird := func(i int) ([12]float64, bool) { return ps[i], i != 2 }
	tests := []struct {
		name  string
		pairs map[[2]int][][2]int
		proj  func(int) ([12]float64, bool)
		want  TrackScore
	}{
		{"three views", chain([2]int{0, 1}, [2]int{1, 2}, [2]int{0, 2}), proj,
			TrackScore{Tracks: n, Observations: 3 * n, Within1: n - 1, Within2: n - 1, Within4: n}},
		{"a chain", chain([2]int{0, 1}, [2]int{1, 2}), proj,
			TrackScore{Tracks: n, Observations: 3 * n, Within1: n - 1, Within2: n - 1, Within4: n}},
		{"two in one image", conflict, proj,
			TrackScore{Tracks: n - 2, Observations: 3 * (n - 2), Within1: n - 3, Within2: n - 3, Within4: n - 2, Conflicting: 1}},
		{"two views", twoView, proj, TrackScore{}},
		{"no ground truth in view 2", chain([2]int{0, 1}, [2]int{1, 2}), noThird, TrackScore{}},
	}
	for _, tc := range tests {
		got := ScoreTracks([]StageMatches{{tc.name, tc.pairs}}, points, tc.proj)[0]
		want := tc.want
		want.Stage = tc.name
		if want.Tracks > 0 {
			want.Precision = float64(want.Within2) / float64(want.Tracks)
		}
		if got != want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, want)
		}
	}
	// The moved match still scores right by Sampson distance.
	truth := func(i, j int) ([9]float64, bool) { return f01, i == 0 && j == 1 }
	if s := ScoreStages([]StageMatches{{"pair", twoView}}, points, truth)[0]; s.Within1 != n {
		t.Errorf("Sampson: %+v, want all %d within 1 px", s, n)
	}
	if _, err := TrueProjection(datasets.Camera{K: k}, 1536); err == nil {
		t.Error("a camera without its image size gave a projection")
	}
}
