package fusion

import (
	"context"
	"math"
	"testing"
)

// TestEstimatePoses: the poses the association gives a simulated run's
// maps, all placed in one group, move from each map to the next as the
// odometry does (which drifts little over 3 s): within half a metre and
// 0.02 rad.
func TestEstimatePoses(t *testing.T) {
	s := simulated(t, 8, 3)
	a, err := Associate(context.Background(), s, AssociateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	poses, groups := EstimatePoses(s, a)
	worst, worstTheta := 0.0, 0.0
	for k := 1; k < len(poses); k++ {
		got, want := poses[k-1].Between(poses[k]), s.Poses[k-1].Between(s.Poses[k])
		worst = max(worst, math.Hypot(got.X-want.X, got.Y-want.Y))
		worstTheta = max(worstTheta, math.Abs(math.Remainder(got.Theta-want.Theta, 2*math.Pi)))
	}
	t.Logf("%d maps in %d groups; from map to map, worst %.2f m, %.4f rad off the odometry", len(poses), groups, worst, worstTheta)
	if groups != 1 || worst > 0.5 || worstTheta > 0.02 {
		t.Errorf("%d groups, worst %.2f m, %.4f rad", groups, worst, worstTheta)
	}
}
