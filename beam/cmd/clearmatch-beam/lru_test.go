package main

import (
	"slices"
	"testing"
)

func TestLRU(t *testing.T) {
	for _, c := range []struct {
		name string
		ops  []string // "+k" puts k, "k" gets k
		want []string // keys held at the end
	}{
		{"under the bound", []string{"+a", "+b"}, []string{"a", "b"}},
		{"the least recent goes", []string{"+a", "+b", "+c"}, []string{"b", "c"}},
		{"a get keeps a key", []string{"+a", "+b", "a", "+c"}, []string{"a", "c"}},
		{"a put again keeps a key", []string{"+a", "+b", "+a", "+c"}, []string{"a", "c"}},
	} {
		l := newLRU[string, int](2)
		for k, op := range c.ops {
			if op[0] == '+' {
				l.put(op[1:], k)
			} else if _, ok := l.get(op); !ok {
				t.Fatalf("%s: %s is gone", c.name, op)
			}
		}
		var held []string
		for k := range l.vals {
			held = append(held, k)
		}
		slices.Sort(held)
		if !slices.Equal(held, c.want) {
			t.Errorf("%s: holds %v, want %v", c.name, held, c.want)
		}
	}
}
