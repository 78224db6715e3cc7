package main

import (
	"reflect"
	"testing"
)

func TestPairGroups(t *testing.T) {
	for _, c := range []struct {
		name  string
		pairs [][2]int
		max   int
		want  [][][2]int
	}{
		{"none", nil, 8, nil},
		{"one image's pairs", [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}}, 3, [][][2]int{{{0, 1}, {0, 2}}, {{0, 3}, {0, 4}}}},
		{"images shared across pairs", [][2]int{{0, 1}, {1, 2}, {0, 2}, {2, 3}}, 3, [][][2]int{{{0, 1}, {1, 2}, {0, 2}}, {{2, 3}}}},
		{"a pair wider than the bound", [][2]int{{0, 1}, {2, 3}}, 1, [][][2]int{{{0, 1}}, {{2, 3}}}},
	} {
		if got := pairGroups(c.pairs, c.max); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestChainGroups(t *testing.T) {
	for _, c := range []struct {
		name string
		b    chainBatch
		max  int
		want [][]int
	}{
		{"none", chainBatch{}, 8, nil},
		// 0–2 via 1 and 0–3 via 1 read 4 images; 4–5 via 1 adds 2 more.
		{"shared hubs", chainBatch{Pairs: [][2]int{{0, 2}, {0, 3}, {4, 5}}, Hubs: [][]int{{1}, {1}, {1}}}, 5, [][]int{{0, 1}, {2}}},
		{"a hub listed by both ends", chainBatch{Pairs: [][2]int{{0, 2}, {1, 3}}, Hubs: [][]int{{1, 3}, {0, 2}}}, 4, [][]int{{0, 1}}},
		{"wider than the bound", chainBatch{Pairs: [][2]int{{0, 4}, {1, 5}}, Hubs: [][]int{{2, 3}, nil}}, 2, [][]int{{0}, {1}}},
	} {
		if got := chainGroups(c.b, c.max); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestHubsOf(t *testing.T) {
	results := []pairResult{
		{I: 0, J: 1, Model: 2}, {I: 1, J: 2, Model: 2}, {I: 0, J: 3, Model: 2}, {I: 2, J: 3, Model: 2},
		{I: 0, J: 4, Model: 2}, {I: 2, J: 4}, // 2–4 was rejected: 4 is no hub of 0–2
	}
	got := hubsOf([][2]int{{0, 2}, {1, 3}, {1, 4}}, results)
	want := [][]int{{1, 3}, {0, 2}, {0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("hubsOf = %v, want %v", got, want)
	}
}
