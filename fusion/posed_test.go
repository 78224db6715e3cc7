package fusion

import (
	"context"
	"fmt"
	"math/bits"
	"testing"

	"github.com/clearmatch/clearmatch/localmap"
)

// graph builds a graph's bit sets from its edges.
func graph(n int, edges ...[2]int) []uint64 {
	adj := make([]uint64, n)
	for _, e := range edges {
		adj[e[0]] |= 1 << e[1]
		adj[e[1]] |= 1 << e[0]
	}
	return adj
}

func TestLargestCliques(t *testing.T) {
	for _, tc := range []struct {
		name string
		adj  []uint64
		want uint64
	}{
		{"no edge: every vertex a largest clique, nothing shared", graph(3), 0},
		{"one triangle and a pendant", graph(4, [2]int{0, 1}, [2]int{1, 2}, [2]int{0, 2}, [2]int{2, 3}), 0b0111},
		{"two triangles sharing an edge: the edge", graph(4, [2]int{0, 1}, [2]int{1, 2}, [2]int{0, 2}, [2]int{1, 3}, [2]int{0, 3}), 0b0011},
		{"two disjoint triangles: nothing", graph(6, [2]int{0, 1}, [2]int{1, 2}, [2]int{0, 2}, [2]int{3, 4}, [2]int{4, 5}, [2]int{3, 5}), 0},
		{"a four-clique beside a triangle", graph(7, [2]int{0, 1}, [2]int{0, 2}, [2]int{0, 3}, [2]int{1, 2}, [2]int{1, 3}, [2]int{2, 3},
			[2]int{4, 5}, [2]int{5, 6}, [2]int{4, 6}), 0b0001111},
	} {
		if got := largestCliques(tc.adj); got != tc.want {
			t.Errorf("%s: %b, want %b", tc.name, got, tc.want)
		}
	}
	full := make([]uint64, 64)
	for i := range full {
		full[i] = ^uint64(0) &^ (1 << i)
	}
	if got := largestCliques(full); bits.OnesCount64(got) != 64 {
		t.Errorf("the complete graph of 64: %d vertices", bits.OnesCount64(got))
	}
}

// threeShared are two maps of the same scene that share three landmarks
// (a, b, c), each map's frame at its robot pose, a mile from any other
// landmark layout: the search without poses needs five pairings, the
// pose gate three.
func threeShared(offset float64) *localmap.Set {
	world := map[string][2]float64{"a": {1, 1}, "b": {2.6, 1.4}, "c": {1.8, 3.1}, "d": {-1.5, 0.2}, "e": {4.4, 2.9}, "f": {0.2, -1.9}}
	poses := []localmap.Pose{{X: 0, Y: 0, Theta: 0.1}, {X: 0.8, Y: -0.3, Theta: 0.6}}
	names := [][]string{{"a", "b", "c", "d"}, {"a", "b", "c", "e", "f"}}
	s := &localmap.Set{}
	for k, p := range poses {
		m := localmap.Map{Name: fmt.Sprint(k)}
		for _, n := range names[k] {
			x, y := p.Inverse(world[n][0], world[n][1])
			m.Landmarks = append(m.Landmarks, localmap.Landmark{Name: n, X: x, Y: y, Truth: n})
		}
		s.Maps = append(s.Maps, m)
	}
	// The odometry's poses: the second is off by offset metres.
	s.Poses = []localmap.Pose{poses[0], {X: poses[1].X + offset, Y: poses[1].Y, Theta: poses[1].Theta}}
	return s
}

// TestAssociatePosed: with poses and a drift, three shared landmarks
// associate two maps; without them (or with poses that put the maps far
// from where they are, or no pairs to read the drift from) they do not,
// since five pairings are then needed.
func TestAssociatePosed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		offset float64
		drift  float64
		want   int
	}{
		{"poses right", 0, 0.02, 3},
		{"poses 0.1 m off, inside the gate", 0.1, 0.02, 3},
		{"poses 0.3 m off, a drift of 0.3 m/m allows", 0.3, 0.3, 3},
		{"poses 3 m off", 3, 0.02, 0},
		{"poses ignored", 0, -1, 0},
		{"drift to estimate from two maps: too few pairs, no gate", 0, 0, 0},
	} {
		s := threeShared(tc.offset)
		a, err := Associate(context.Background(), s, AssociateOptions{Tolerance: 0.1, Drift: tc.drift})
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Pairings) != tc.want {
			t.Errorf("%s: %d pairings %v, want %d", tc.name, len(a.Pairings), a.Pairings, tc.want)
		}
		for _, p := range a.Pairings {
			if s.Maps[p.I].Landmarks[p.A].Truth != s.Maps[p.J].Landmarks[p.B].Truth {
				t.Errorf("%s: wrong pairing %v", tc.name, p)
			}
		}
	}
}
