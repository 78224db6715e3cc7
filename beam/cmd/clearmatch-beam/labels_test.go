package main

import (
	"reflect"
	"testing"
)

func TestGroupEdgeFiles(t *testing.T) {
	span := func(lo, hi int) []int {
		var s []int
		for i := lo; i < hi; i++ {
			s = append(s, i)
		}
		return s
	}
	for _, c := range []struct {
		name  string
		files []edgeFile
		want  []edgeGroup
	}{
		{"none", nil, nil},
		{"ordered by name, images merged", []edgeFile{{"0-2-3", []int{2, 3}}, {"0-0-1", []int{0, 1, 2}}},
			[]edgeGroup{{Names: []string{"0-0-1", "0-2-3"}, Images: []int{0, 1, 2, 3}}}},
		{"a new group past the bound", []edgeFile{{"a", span(0, 40)}, {"b", span(30, 64)}, {"c", span(60, 70)}},
			[]edgeGroup{{Names: []string{"a", "b"}, Images: span(0, 64)}, {Names: []string{"c"}, Images: span(60, 70)}}},
		{"a file wider than the bound", []edgeFile{{"a", span(0, 2)}, {"b", span(0, 80)}},
			[]edgeGroup{{Names: []string{"a"}, Images: span(0, 2)}, {Names: []string{"b"}, Images: span(0, 80)}}},
	} {
		if got := groupEdgeFiles(c.files); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestUnionFindKeepsLeastLabel: a set's least label is its members'
// least, whatever the order of the unions.
func TestUnionFindKeepsLeastLabel(t *testing.T) {
	u := newUnionFind([]int64{9, 4, 7, 1, 8})
	u.union(0, 2)
	u.union(4, 0)
	u.union(1, 3)
	for k, want := range []int64{7, 1, 7, 1, 7} {
		if got := u.least[u.find(int32(k))]; got != want {
			t.Errorf("node %d: least %d, want %d", k, got, want)
		}
	}
	obs, ends := nodes([]edge{{A: 12, B: 5}, {A: 5, B: 40}})
	if !reflect.DeepEqual(obs, []int64{5, 12, 40}) || !reflect.DeepEqual(ends, [][2]int32{{1, 0}, {0, 2}}) {
		t.Errorf("nodes: %v %v", obs, ends)
	}
}
