package fusion

import (
	"testing"

	"github.com/clearmatch/clearmatch/localmap"
)

// TestScoreUndefined: precision and F1 are nil, not 0, when a method
// associates no pair; recall is then 0.
func TestScoreUndefined(t *testing.T) {
	s := &localmap.Set{Maps: []localmap.Map{
		{Name: "a", Landmarks: []localmap.Landmark{{Name: "1", Truth: "t1"}, {Name: "2", X: 3, Truth: "t2"}}},
		{Name: "b", Landmarks: []localmap.Landmark{{Name: "1", Truth: "t1"}, {Name: "2", X: 3, Truth: "t2"}}},
	}}
	for _, tc := range []struct {
		name      string
		cluster   []int
		precision *float64
		recall    float64
	}{
		{"no pair", []int{0, 1, 2, 3}, nil, 0},
		{"every observation dropped", []int{-1, -1, -1, -1}, nil, 0},
		{"one right pair", []int{0, 1, 0, 2}, ptr(1), 0.5},
		{"one wrong pair", []int{0, 1, 1, 2}, ptr(0), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := Score(s, &Result{Cluster: tc.cluster, Clusters: 3}, DefaultDNDistance)
			if (sc.Precision == nil) != (tc.precision == nil) || sc.Precision != nil && *sc.Precision != *tc.precision {
				t.Errorf("precision %v, want %v", show(sc.Precision), show(tc.precision))
			}
			if (sc.F1 == nil) != (tc.precision == nil) {
				t.Errorf("F1 %v with precision %v", show(sc.F1), show(tc.precision))
			}
			if sc.Recall == nil || *sc.Recall != tc.recall {
				t.Errorf("recall %v, want %v", show(sc.Recall), tc.recall)
			}
		})
	}
}

func ptr(v float64) *float64 { return &v }

func show(v *float64) any {
	if v == nil {
		return "nil"
	}
	return *v
}
