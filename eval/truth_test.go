package eval

import (
	"reflect"
	"testing"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/geom"
)

func identity(i, j int, x, y float64) (float64, float64, bool) { return x, y, true }

func TestHomographyGroundTruth(t *testing.T) {
	pts := [][]geom.Point{
		{{X: 0, Y: 0}, {X: 10, Y: 10}, {X: 20, Y: 20}},
		{{X: 0.5, Y: 0}, {X: 10, Y: 11.5}, {X: 50, Y: 50}},
		{{X: 0, Y: 0.5}, {X: 30, Y: 30}},
	}
	// Pairs (tol 2): 0–1: (0,0)~(0.5,0) d 0.5, (10,10)~(10,11.5) d 1.5;
	// 0–2: (0,0)~(0,0.5); 1–2: (0.5,0)~(0,0.5) d 0.71. Components:
	// {0:0, 1:0, 2:0} with 3 edges, a clique → item 0; {0:1, 1:1}, 1 edge →
	// item 1; the rest are singletons and dropped.
	got := HomographyGroundTruth(pts, identity, 2)
	if !reflect.DeepEqual(got.Keep, [][]int{{0, 1}, {0, 1}, {0}}) || !reflect.DeepEqual(got.Truth, []int{0, 1, 0, 1, 0}) || got.Items != 2 {
		t.Errorf("got %+v", got)
	}

	// A path a–b–c whose ends are 3 px apart is not a clique: all dropped.
	path := [][]geom.Point{{{X: 0, Y: 0}}, {{X: 1.5, Y: 0}}, {{X: 3, Y: 0}}}
	if got := HomographyGroundTruth(path, identity, 2); len(got.Truth) != 0 {
		t.Errorf("path kept: %+v", got)
	}

	// Greedy one-to-one with ties to the lower index: (0,0) and (2,0) are
	// both 1 px from (1,0); (0,0) wins, (2,0) is dropped.
	tie := [][]geom.Point{{{X: 0, Y: 0}, {X: 2, Y: 0}}, {{X: 1, Y: 0}}}
	if got := HomographyGroundTruth(tie, identity, 2); !reflect.DeepEqual(got.Keep, [][]int{{0}, {0}}) {
		t.Errorf("tie: %+v", got)
	}

	// Two features of one image in one component violate distinctness:
	// image 0 (0,0), image 1 (1.5,0), image 2 (0.2,0) and (1.6,0). 0–1 match
	// at 1.5 px, 0–2 takes (0.2,0) at 0.2 px, 1–2 takes (1.6,0) at 0.1 px:
	// the component {0:0, 1:0, 2:0, 2:1} holds two features of image 2.
	dup := [][]geom.Point{{{X: 0, Y: 0}}, {{X: 1.5, Y: 0}}, {{X: 0.2, Y: 0}, {X: 1.6, Y: 0}}}
	if got := HomographyGroundTruth(dup, identity, 2); len(got.Truth) != 0 {
		t.Errorf("two features of one image kept: %+v", got)
	}
}

func TestEvaluate(t *testing.T) {
	// Observations 0..5 in views 0,0,1,1,2,2. Truth items {0,2,4}, {1,3};
	// 5 has none. Input: {0,2},{2,4},{1,3} correct; {3,4},{1,5} wrong.
	truth := []int{0, 1, 0, 1, 0, -1}
	view := []int{0, 0, 1, 1, 2, 2}
	input := []clear.Pair{{A: 0, B: 2}, {A: 2, B: 4}, {A: 1, B: 3}, {A: 3, B: 4}, {A: 1, B: 5}}
	item := []int{0, 1, 0, 1, 0, 2} // a perfect answer
	r := Evaluate(truth, view, input, item, 2)
	// 4 is paired with 2 and 3, both of view 1: the block P_21 has two ones
	// in a row, so the input is not distinct.
	if r.Input.Returned != 5 || r.Input.Correct != 3 || r.Input.CycleConsistent || r.Input.Distinct {
		t.Errorf("input %+v", r.Input)
	}
	// The closure is one component of all six (15 pairs, 4 correct), which
	// holds 0 and 1 of view 0: not distinct; pruning drops it entirely.
	if r.Closure.Returned != 15 || r.Closure.Correct != 4 || r.Closure.Distinct {
		t.Errorf("closure %+v", r.Closure)
	}
	if r.PrunedClosure.Returned != 0 || r.PrunedClosure.Recall != 0 || !r.PrunedClosure.Distinct {
		t.Errorf("pruned closure %+v", r.PrunedClosure)
	}
	if r.Clear.Precision != 1 || r.Clear.Recall != 1 || !r.Clear.CycleConsistent || !r.Clear.Distinct {
		t.Errorf("clear %+v", r.Clear)
	}
	// Min track 3 keeps only item 0 ({0,2,4}): 3 pairs, recall 3/4.
	r = Evaluate(truth, view, input, item, 3)
	if r.ClearMinTrack.Returned != 3 || r.ClearMinTrack.Recall != 0.75 {
		t.Errorf("min track 3: %+v", r.ClearMinTrack)
	}
	// A non-distinct answer is reported as such.
	if r := Evaluate(truth, view, input, []int{0, 0, 1, 1, 2, 2}, 2); r.Clear.Distinct {
		t.Errorf("items {0,1} of view 0 reported distinct")
	}
}

func TestIsDistinct(t *testing.T) {
	view := []int{0, 0, 1, 1, 2}
	for _, c := range []struct {
		name  string
		pairs []clear.Pair
		want  bool
	}{
		{"empty", nil, true},
		{"a partial permutation", []clear.Pair{{A: 0, B: 2}, {A: 1, B: 3}, {A: 2, B: 4}}, true},
		{"inside a view", []clear.Pair{{A: 0, B: 1}}, false},
		{"two partners in one view", []clear.Pair{{A: 0, B: 2}, {A: 0, B: 3}}, false},
		{"two partners, as B", []clear.Pair{{A: 2, B: 4}, {A: 3, B: 4}}, false},
		{"partners in two views", []clear.Pair{{A: 0, B: 2}, {A: 0, B: 4}}, true},
	} {
		if got := IsDistinct(view, c.pairs); got != c.want {
			t.Errorf("%s: IsDistinct = %v, want %v", c.name, got, c.want)
		}
	}
}
