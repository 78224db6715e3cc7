package pipeline

import (
	"slices"
	"testing"

	"github.com/clearmatch/clearmatch/clear"
)

// TestUnionFindAndKeepConsistent: union-find makes each component one
// item; keepConsistent does so only for components without two
// observations of one view, and keeps CLEAR's items in the others.
func TestUnionFindAndKeepConsistent(t *testing.T) {
	// Views of 2 observations: 0,1 | 2,3 | 4,5; a chain {0, 2, 4} and a
	// triangle {1, 3, 5}, both consistent.
	p := &clear.Problem{ViewSizes: []int{2, 2, 2}, Associations: []clear.Association{
		{A: 0, B: 2}, {A: 2, B: 4}, // a chain through three views: consistent
		{A: 1, B: 3}, {A: 3, B: 5}, {A: 5, B: 1}, // a triangle
	}}
	uf, err := unionFind(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 0, 1, 0, 1}; !slices.Equal(uf.Item, want) || uf.Items != 2 {
		t.Errorf("union-find items %v (%d), want %v", uf.Item, uf.Items, want)
	}
	// CLEAR split the chain (say); both components are consistent, so
	// both become one track each.
	res := &clear.Result{Item: []int{0, 1, 2, 1, 0, 1}}
	if err := keepConsistent(p, res); err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 0, 1, 0, 1}; !slices.Equal(res.Item, want) {
		t.Errorf("consistent components: %v, want %v", res.Item, want)
	}
	// Link 2 to 5: one component with two observations of each view, where
	// CLEAR's items stay.
	p = &clear.Problem{ViewSizes: p.ViewSizes, Associations: append(slices.Clone(p.Associations), clear.Association{A: 2, B: 5})}
	res = &clear.Result{Item: []int{0, 1, 0, 1, 2, 1}}
	if err := keepConsistent(p, res); err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 0, 1, 2, 1}; !slices.Equal(res.Item, want) || res.Items != 3 {
		t.Errorf("a conflicting component: %v (%d), want CLEAR's %v", res.Item, res.Items, want)
	}
}
