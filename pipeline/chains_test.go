package pipeline

import (
	"slices"
	"testing"

	"github.com/clearmatch/clearmatch/pairwise"
)

// verified is a verified pair (i, j) with matches given as A, B, A, B, ….
func verified(i, j int, ab ...int) pairwise.Verified {
	v := pairwise.Verified{I: i, J: j, Model: pairwise.Fundamental}
	for k := 0; k+1 < len(ab); k += 2 {
		v.Matches = append(v.Matches, pairwise.Match{A: int32(ab[k]), B: int32(ab[k+1])})
	}
	v.Inliers = len(v.Matches)
	return v
}

func TestChainSupport(t *testing.T) {
	rejected := verified(1, 2, 7, 9, 8, 3)
	rejected.Model = pairwise.NoModel
	for _, tc := range []struct {
		name  string
		vs    []pairwise.Verified
		pairs [][2]int
		want  []int
	}{
		{"one hub", []pairwise.Verified{verified(0, 1, 5, 7, 6, 8, 2, 11), verified(1, 2, 7, 9, 8, 3, 10, 4)},
			[][2]int{{0, 2}}, []int{2}},
		// The hub's features pair up whatever order the matches are in.
		{"unsorted hub features", []pairwise.Verified{verified(0, 1, 6, 8, 5, 7), verified(1, 2, 8, 3, 7, 9)},
			[][2]int{{0, 2}}, []int{2}},
		// Image 0 is below both ends: its matches' A side is the hub's.
		{"hub below", []pairwise.Verified{verified(0, 1, 4, 5), verified(0, 2, 4, 6, 9, 9)},
			[][2]int{{1, 2}}, []int{1}},
		// Both hubs chain (5, 9); hub 3 adds (6, 1): the union is 2.
		{"hubs share a chain", []pairwise.Verified{verified(0, 1, 5, 7), verified(1, 2, 7, 9),
			verified(0, 3, 5, 0, 6, 1), verified(2, 3, 9, 0, 1, 1)},
			[][2]int{{0, 2}}, []int{2}},
		{"rejected pair is no link", []pairwise.Verified{verified(0, 1, 5, 7, 6, 8), rejected},
			[][2]int{{0, 2}}, []int{0}},
		{"no common neighbour", []pairwise.Verified{verified(0, 1, 5, 7), verified(2, 3, 7, 9)},
			[][2]int{{0, 2}, {1, 3}}, []int{0, 0}},
		{"several pairs", []pairwise.Verified{verified(0, 1, 5, 7, 6, 8), verified(1, 2, 7, 9, 8, 3), verified(1, 3, 8, 2)},
			[][2]int{{0, 2}, {0, 3}, {2, 3}}, []int{2, 1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ChainSupport(tc.vs, tc.pairs); !slices.Equal(got, tc.want) {
				t.Errorf("ChainSupport = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestChained(t *testing.T) {
	r := &pairRun{Matched: &Matched{Verified: []pairwise.Verified{verified(0, 1, 5, 7, 6, 8), verified(1, 2, 7, 9, 8, 3), verified(1, 3, 8, 2)}}}
	batch := [][2]int{{0, 2}, {0, 3}, {2, 3}}
	for _, tc := range []struct {
		min       int
		kept      [][2]int
		triedMore [][2]int
	}{
		{0, batch, nil},
		{1, batch, nil},
		{2, [][2]int{{0, 2}}, [][2]int{{0, 3}, {2, 3}}},
		{3, nil, batch},
	} {
		tried := map[[2]int]bool{}
		kept := r.chained(slices.Clone(batch), tried, tc.min)
		if !slices.Equal(kept, tc.kept) {
			t.Errorf("min %d: kept %v, want %v", tc.min, kept, tc.kept)
		}
		if len(tried) != len(tc.triedMore) {
			t.Errorf("min %d: tried %v, want %v", tc.min, tried, tc.triedMore)
		}
		for _, p := range tc.triedMore {
			if !tried[p] {
				t.Errorf("min %d: %v not marked tried", tc.min, p)
			}
		}
	}
}
