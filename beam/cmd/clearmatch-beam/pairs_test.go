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
