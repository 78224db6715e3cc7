package fusion

import (
	"testing"

	"github.com/clearmatch/clearmatch/localmap"
)

// TestVerifyLong: only the pairings of gated map pairs LongGatedMaps or
// more apart in one robot's order are long; VerifyLong keeps those whose
// landmarks the poses put within the radius.
func TestVerifyLong(t *testing.T) {
	// Two robots of LongGatedMaps+2 maps each, every map at the origin
	// but robot b's last map, moved 1 m; each map holds one landmark at
	// (1, 0).
	n := LongGatedMaps + 2
	s := &localmap.Set{}
	for r, name := range []string{"a", "b"} {
		for k := 0; k < n; k++ {
			s.Maps = append(s.Maps, localmap.Map{Landmarks: []localmap.Landmark{{X: 1}}})
			s.Poses = append(s.Poses, localmap.Pose{})
			s.Robots = append(s.Robots, name)
		}
		if r == 1 {
			s.Poses[len(s.Poses)-1].X = 1
		}
	}
	last := 2*n - 1
	pairing := func(i, j int) Pairing { return Pairing{I: i, J: j} }
	a := &Association{Pairings: []Pairing{
		pairing(0, 1),                 // gated, near
		pairing(0, LongGatedMaps),     // gated, long
		pairing(1, LongGatedMaps+1),   // long, not gated (tracking or the search made it)
		pairing(n, last),              // gated, long, 1 m apart at the poses
		pairing(LongGatedMaps, n),     // gated, across robots
		pairing(n+1, n+LongGatedMaps), // gated, one short of long
		pairing(n+2, last),            // gated, one short of long, from the other end
		pairing(n, n+LongGatedMaps),   // gated, long
	}, Gated: map[[2]int]bool{}}
	for _, q := range a.Pairings {
		if q.I != 1 {
			a.Gated[[2]int{q.I, q.J}] = true
		}
	}
	if got := LongPairings(s, a); got != 3 {
		t.Errorf("LongPairings = %d, want 3", got)
	}
	want := func(name string, got *Association, keep ...int) {
		t.Helper()
		var w []Pairing
		for _, k := range keep {
			w = append(w, a.Pairings[k])
		}
		if len(got.Pairings) != len(w) {
			t.Fatalf("%s: %v, want %v", name, got.Pairings, w)
		}
		for k := range w {
			if got.Pairings[k] != w[k] {
				t.Fatalf("%s: %v, want %v", name, got.Pairings, w)
			}
		}
	}
	want("WithoutLong", WithoutLong(s, a), 0, 2, 4, 5, 6)
	want("VerifyLong within 0.5 m", VerifyLong(s, a, s.Poses, 0.5), 0, 1, 2, 4, 5, 6, 7)
	want("VerifyLong within 1.5 m", VerifyLong(s, a, s.Poses, 1.5), 0, 1, 2, 3, 4, 5, 6, 7)
	if len(a.Pairings) != 8 {
		t.Errorf("the association changed: %d pairings", len(a.Pairings))
	}
}
