package fusion

import (
	"math"
	"testing"
)

// TestStepByLandmarks: eliminating the maps gives the step eliminating
// the landmarks gives (the same normal equations), with and without
// odometry, damped or not, and the cost rule picks the banded step only
// for many maps and few landmarks.
func TestStepByLandmarks(t *testing.T) {
	for _, tc := range []struct {
		maps, marks int
		odometry    bool
		lambda      float64
		banded      bool // eliminatesMaps' choice
	}{
		{24, 60, true, 1e-4, false},
		{24, 60, true, 0, false},
		{200, 12, true, 1e-3, true},
		{120, 20, false, 1e-2, true},
	} {
		g, _, _ := circleGraph(tc.maps, tc.marks, tc.odometry)
		maps := make([]int, len(g.Poses))
		for k := range maps {
			maps[k] = k
		}
		p := newLMProblem(g, maps, kernel{gm: 3, mu: 1})
		k, got := p.bandwidth()
		if got != tc.banded {
			t.Errorf("%d maps, %d landmarks: eliminates the maps %v, want %v", tc.maps, tc.marks, got, tc.banded)
		}
		dense, denseMarks, ok1 := p.stepByMaps(p.assemble(), tc.lambda)
		band, bandMarks, ok2 := p.stepByLandmarks(p.assembleBanded(k), k, tc.lambda)
		if !ok1 || !ok2 {
			t.Fatalf("%d maps, %d landmarks: steps ok %v, %v", tc.maps, tc.marks, ok1, ok2)
		}
		moved := 0.0
		for m := range dense {
			moved = max(moved, math.Hypot(dense[m].X-p.poses[m].X, dense[m].Y-p.poses[m].Y))
			if d := math.Hypot(dense[m].X-band[m].X, dense[m].Y-band[m].Y) + math.Abs(dense[m].Theta-band[m].Theta); d > 1e-9 {
				t.Fatalf("%d maps, %d landmarks, λ %g: map %d at %+v and %+v", tc.maps, tc.marks, tc.lambda, m, dense[m], band[m])
			}
		}
		for l := range denseMarks {
			if d := math.Hypot(denseMarks[l][0]-bandMarks[l][0], denseMarks[l][1]-bandMarks[l][1]); d > 1e-9 {
				t.Fatalf("%d maps, %d landmarks, λ %g: landmark %d at %v and %v", tc.maps, tc.marks, tc.lambda, l, denseMarks[l], bandMarks[l])
			}
		}
		if moved < 1e-3 {
			t.Fatalf("%d maps, %d landmarks: the step moved nothing (%g m)", tc.maps, tc.marks, moved)
		}
	}
}
