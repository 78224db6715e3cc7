package eval

import (
	"testing"

	"github.com/clearmatch/clearmatch/clear"
)

// A hand-made case over 6 observations in 3 views (0,1 | 2,3 | 4,5).
// Truth items: {0,2,4} and {1,3}; 5 belongs to no item.
// Ground-truth pairs: {0,2},{0,4},{2,4},{1,3} = 4.
func TestScoresHandMade(t *testing.T) {
	truth := []int{0, 1, 0, 1, 0, -1}
	input := []clear.Pair{{A: 0, B: 2}, {A: 2, B: 4}, {A: 1, B: 3}, {A: 3, B: 4}, {A: 1, B: 5}}
	// Input: 5 returned; correct {0,2},{2,4},{1,3} = 3.
	if got := ScorePairs(truth, input); got.Returned != 5 || got.Correct != 3 || got.GT != 4 {
		t.Errorf("input scores %+v, want 5 returned, 3 correct, 4 gt", got)
	}
	// Closure: {3,4} joins both items, {1,5} adds 5: one component
	// {0,1,2,3,4,5}: 15 pairs returned; correct are the 4 truth pairs.
	cl := Closure(6, input)
	s := ScoreGroups(truth, cl)
	if s.Returned != 15 || s.Correct != 4 || s.Precision != 4.0/15 || s.Recall != 1 {
		t.Errorf("closure scores %+v, want 15 returned, 4 correct", s)
	}
	// A consistent answer {0,2,4}, {1,3}, {5}: precision and recall 1.
	if s := ScoreGroups(truth, []int{0, 1, 0, 1, 0, 2}); s.Precision != 1 || s.Recall != 1 || s.F1 != 1 {
		t.Errorf("perfect scores %+v", s)
	}
	// Groups {0,2} and {4} ({1,3} lost): 1 returned, 1 correct; recall 1/4.
	if s := ScoreGroups(truth, []int{0, -1, 0, -1, 1, -1}); s.Returned != 1 || s.Correct != 1 || s.Recall != 0.25 {
		t.Errorf("partial scores %+v", s)
	}
}

func TestIsCycleConsistent(t *testing.T) {
	for _, tc := range []struct {
		pairs []clear.Pair
		want  bool
	}{
		{nil, true},
		{[]clear.Pair{{A: 0, B: 1}, {A: 1, B: 2}, {A: 0, B: 2}}, true},
		{[]clear.Pair{{A: 0, B: 1}, {A: 1, B: 2}}, false},                             // a path is not a clique
		{[]clear.Pair{{A: 0, B: 1}, {A: 1, B: 0}, {A: 2, B: 3}}, true},                // a repeated pair counts once
		{[]clear.Pair{{A: 0, B: 1}, {A: 1, B: 2}, {A: 2, B: 0}, {A: 3, B: 2}}, false}, // a pendant vertex
	} {
		if got := IsCycleConsistent(4, tc.pairs); got != tc.want {
			t.Errorf("IsCycleConsistent(%v) = %v, want %v", tc.pairs, got, tc.want)
		}
	}
}
