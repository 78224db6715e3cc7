package pipeline

import (
	"slices"
	"testing"

	"github.com/clearmatch/clearmatch/clear"
)

// TestUnionFind: union-find makes each component one item, numbered by
// first appearance.
func TestUnionFind(t *testing.T) {
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
}
