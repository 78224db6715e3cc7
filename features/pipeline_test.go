//go:build cgo

package features

import (
	"context"
	"testing"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/pairwise"
)

func graffitiSets(tb testing.TB, names ...string) []*Set {
	var sets []*Set
	for _, n := range names {
		s, err := Extract(n, readData(tb, "graffiti/"+n), Options{})
		if err != nil {
			tb.Fatal(err)
		}
		sets = append(sets, s)
	}
	return sets
}

// The OpenCV matcher and the exact pure-Go matcher find the same nearest
// neighbours (up to float rounding on near-ties) and so the same matches.
func TestCVMatcherAgreesWithBruteForce(t *testing.T) {
	sets := graffitiSets(t, "img1.ppm", "img2.ppm")
	cv, err := CVMatcher{}.Nearest2(sets[0].Desc, sets[1].Desc, DescSize)
	if err != nil {
		t.Fatal(err)
	}
	bf, _ := pairwise.BruteForce{}.Nearest2(sets[0].Desc, sets[1].Desc, DescSize)
	differ := 0
	for i := range cv {
		if cv[i].Best != bf[i].Best {
			differ++
		}
		if d := cv[i].D1 - bf[i].D1; d > 1e-2*bf[i].D1+1 || d < -1e-2*bf[i].D1-1 {
			t.Fatalf("query %d: distance %v (OpenCV) vs %v (Go)", i, cv[i].D1, bf[i].D1)
		}
	}
	if differ > len(cv)/1000 {
		t.Errorf("%d of %d nearest neighbours differ", differ, len(cv))
	}
}

// TestHotelProtocol runs the paper's Hotel protocol: one descriptor per
// labelled landmark (σ = 10, computed orientation), all 5050 pairs, ratio
// rule 1.5 on squared distances; the input precision against the ground
// truth (same landmark line) is about 0.92 in the paper (VLFeat).
func TestHotelProtocol(t *testing.T) {
	if testing.Short() {
		t.Skip("all 5050 Hotel pairs")
	}
	frames := hotelFrames(t)
	desc := make([][]float32, len(frames))
	counts := make([]int, len(frames))
	for k, f := range frames {
		s := hotelDescriptors(t, f)
		desc[k], counts[k] = s.Desc, s.Len()
	}
	pairs, err := pairwise.MatchAll(context.Background(), desc, DescSize, CVMatcher{}, pairwise.Options{})
	if err != nil {
		t.Fatal(err)
	}
	correct, total := 0, 0
	for _, p := range pairs {
		for _, m := range p.Matches {
			total++
			if m.A == m.B { // same line number = same landmark
				correct++
			}
		}
	}
	prec := float64(correct) / float64(total)
	prob, err := pairwise.Problem(counts, pairs, false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := clear.Solve(prob, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Hotel input: %d matches, %d correct, precision %.3f; %d components, largest %d; CLEAR universe %d",
		total, correct, prec, r.Components, r.LargestComponent, r.UniverseSize)
	if len(pairs) != 5050 || prec < 0.85 {
		t.Errorf("%d pairs, precision %.3f; want 5050 pairs and precision near the paper's 0.92", len(pairs), prec)
	}
}
