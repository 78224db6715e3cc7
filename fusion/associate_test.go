package fusion

import (
	"context"
	"testing"

	"github.com/clearmatch/clearmatch/localmap"
)

// simulated is a simulated run's local maps (window seconds each) with
// their truth.
func simulated(t testing.TB, seed uint64, window float64) *localmap.Set {
	t.Helper()
	l, err := localmap.Simulate(localmap.SimConfig{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	s, err := localmap.FromLog(l, localmap.LogOptions{Motion: localmap.Unicycle{}, Window: window})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAssociateSimulated: the pairings of simulated 20 s maps are right
// (same true landmark) and find most of the landmarks two maps share.
func TestAssociateSimulated(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		s := simulated(t, seed, 20)
		a, err := Associate(context.Background(), s, AssociateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		right := 0
		for _, p := range a.Pairings {
			if s.Maps[p.I].Landmarks[p.A].Truth == s.Maps[p.J].Landmarks[p.B].Truth {
				right++
			}
		}
		shared := 0
		for i := range s.Maps {
			for j := i + 1; j < len(s.Maps); j++ {
				in := map[string]bool{}
				for _, l := range s.Maps[i].Landmarks {
					in[l.Truth] = true
				}
				for _, l := range s.Maps[j].Landmarks {
					if in[l.Truth] {
						shared++
					}
				}
			}
		}
		prec, rec := float64(right)/float64(len(a.Pairings)), float64(right)/float64(shared)
		t.Logf("seed %d: tolerance %.2f m, %d pairings of %d map pairs, precision %.4f, recall %.3f (%d shared)", seed, a.Tolerance, len(a.Pairings), len(a.Motions), prec, rec, shared)
		if prec < 0.99 || rec < 0.5 {
			t.Errorf("seed %d: precision %.4f, recall %.3f", seed, prec, rec)
		}
	}
}
