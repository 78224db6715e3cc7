package pipeline

import (
	"slices"
	"testing"

	"github.com/clearmatch/clearmatch/clear"
)

// TestDropForeign: an observation leaves an item whose home (most
// observations, then the first observation's component) is another
// component of the association graph.
func TestDropForeign(t *testing.T) {
	// Three views of two observations: component A = {0, 2, 4}, B = {1, 3},
	// and 5 alone.
	p := &clear.Problem{ViewSizes: []int{2, 2, 2}, Associations: []clear.Association{{A: 0, B: 2}, {A: 2, B: 4}, {A: 1, B: 3}}}
	for _, tc := range []struct {
		name      string
		item, out []int
	}{
		{"one component per item", []int{0, 1, 0, 1, 0, 2}, []int{0, 1, 0, 1, 0, 2}},
		{"A's keypoint in B's track", []int{0, 1, 0, 1, 1, 2}, []int{0, 1, 0, 1, -1, 2}},
		{"a lone keypoint in A's track", []int{0, 1, 0, 1, 3, 0}, []int{0, 1, 0, 1, 3, -1}},
		{"a tie keeps the first observation's", []int{0, 1, 2, 0, 3, 4}, []int{0, 1, 2, -1, 3, 4}},
		{"a tie keeps the first observation's, B first", []int{1, 0, 0, 2, 3, 4}, []int{1, 0, -1, 2, 3, 4}},
		{"most observations win over the first", []int{1, 0, 0, 2, 0, 3}, []int{1, -1, 0, 2, 0, 3}},
		{"dropped stay dropped", []int{-1, 1, 0, 1, 0, -1}, []int{-1, 1, 0, 1, 0, -1}},
	} {
		in := slices.Clone(tc.item)
		out, n, err := dropForeign(p, tc.item)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for o := range out {
			if tc.out[o] < 0 && tc.item[o] >= 0 {
				want++
			}
		}
		if !slices.Equal(out, tc.out) || n != want || !slices.Equal(tc.item, in) {
			t.Errorf("%s: got %v (%d taken out), want %v (%d); input now %v", tc.name, out, n, tc.out, want, tc.item)
		}
	}
	// A lone first observation and two components of two: the lower label,
	// whatever the map order.
	q := &clear.Problem{ViewSizes: []int{1, 1, 1, 1, 1}, Associations: []clear.Association{{A: 1, B: 2}, {A: 3, B: 4}}}
	for range 20 {
		if out, n, _ := dropForeign(q, []int{0, 0, 0, 0, 0}); !slices.Equal(out, []int{-1, 0, 0, -1, -1}) || n != 3 {
			t.Fatalf("two components of two: got %v (%d taken out)", out, n)
		}
	}
	// An association inside one image joins nothing, as in CLEAR: 0 and 1
	// stay apart, so 1 leaves 0's item.
	r := &clear.Problem{ViewSizes: []int{2, 1}, Associations: []clear.Association{{A: 0, B: 1}, {A: 0, B: 2}}}
	if out, n, _ := dropForeign(r, []int{0, 0, 0}); !slices.Equal(out, []int{0, -1, 0}) || n != 1 {
		t.Errorf("an association inside one image: got %v (%d taken out)", out, n)
	}
	if _, _, err := dropForeign(&clear.Problem{ViewSizes: []int{1}, Associations: []clear.Association{{A: 0, B: 3}}}, []int{0}); err == nil {
		t.Error("an association past the observations: no error")
	}
}
