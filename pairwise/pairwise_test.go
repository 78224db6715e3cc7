package pairwise

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// vecs builds 1-d "descriptors" so that distances are easy to reason about.
func vecs(v ...float32) []float32 { return v }

func TestRatioRule(t *testing.T) {
	// Query 0 at 0: nearest 1 (d²=1), second 1.3 (d²=1.69 > 1.5): accepted.
	// Query 1 at 10: nearest 11 (d²=1), second 8.8 (d²=1.44 < 1.5): rejected.
	a := vecs(0, 10)
	b := vecs(1, 1.3, 11, 8.8)
	got, err := matchPair(a, b, 1, BruteForce{}, DefaultRatio, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].A != 0 || got[0].B != 0 {
		t.Fatalf("matches %+v, want only 0→0", got)
	}
	if want := float32(math.Sqrt(1 / 1.69)); math.Abs(float64(got[0].Ratio-want)) > 1e-6 {
		t.Errorf("ratio %v, want %v", got[0].Ratio, want)
	}
	// A single candidate always passes (vl_ubcmatch's behaviour).
	if got, _ := matchPair(vecs(0, 5), vecs(3), 1, BruteForce{}, DefaultRatio, false); len(got) != 2 {
		t.Errorf("single candidate: %+v", got)
	}
	// Several queries may take the same train descriptor; Mutual keeps the
	// one that is also its nearest neighbour.
	a = vecs(0, 0.2)
	b = vecs(0.1, 5)
	if got, _ := matchPair(a, b, 1, BruteForce{}, DefaultRatio, false); len(got) != 2 {
		t.Errorf("not mutual: %+v, want 2 matches", got)
	}
	if got, _ := matchPair(a, b, 1, BruteForce{}, DefaultRatio, true); len(got) != 1 || got[0].A != 0 {
		t.Errorf("mutual: %+v, want 0→0 only", got)
	}
}

func TestBruteForceExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const dim = 16
	q := make([]float32, 20*dim)
	tr := make([]float32, 30*dim)
	for i := range q {
		q[i] = rng.Float32()
	}
	for i := range tr {
		tr[i] = rng.Float32()
	}
	nn, _ := BruteForce{}.Nearest2(q, tr, dim)
	for i, n := range nn {
		best, second := math.Inf(1), math.Inf(1)
		bi := -1
		for j := 0; j < 30; j++ {
			d := 0.0
			for k := 0; k < dim; k++ {
				x := float64(q[i*dim+k] - tr[j*dim+k])
				d += x * x
			}
			if d < best {
				second, best, bi = best, d, j
			} else if d < second {
				second = d
			}
		}
		if int(n.Best) != bi || math.Abs(float64(n.D1)-best) > 1e-5 || math.Abs(float64(n.D2)-second) > 1e-5 {
			t.Fatalf("query %d: %+v, want best %d (%v), second %v", i, n, bi, best, second)
		}
	}
}

func TestPairList(t *testing.T) {
	all, _ := Options{}.PairList(4)
	if len(all) != 6 || all[0] != [2]int{0, 1} || all[5] != [2]int{2, 3} {
		t.Errorf("all pairs %v", all)
	}
	win, _ := Options{Window: 1}.PairList(4)
	if len(win) != 3 || win[2] != [2]int{2, 3} {
		t.Errorf("window 1: %v", win)
	}
	list, _ := Options{Pairs: [][2]int{{3, 1}, {0, 2}, {1, 3}}}.PairList(4)
	if len(list) != 2 || list[0] != [2]int{0, 2} || list[1] != [2]int{1, 3} {
		t.Errorf("explicit: %v", list)
	}
	if _, err := (Options{Pairs: [][2]int{{0, 4}}}).PairList(4); err == nil {
		t.Error("pair out of range accepted")
	}
}

func TestMatchAllAndProblem(t *testing.T) {
	desc := [][]float32{vecs(0, 10), vecs(0.1, 10.1, 50), nil, vecs(10.05)}
	pairs, err := MatchAll(context.Background(), desc, 1, BruteForce{}, Options{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 6 || pairs[0].I != 0 || pairs[0].J != 1 || len(pairs[0].Matches) != 2 {
		t.Fatalf("pairs %+v", pairs)
	}
	p, err := Problem([]int{2, 3, 0, 1}, pairs, true)
	if err != nil {
		t.Fatal(err)
	}
	if p.NumObservations() != 6 || p.ViewSizes[3] != 1 {
		t.Fatalf("problem views %v", p.ViewSizes)
	}
	// Image 0's observation 1 (global 1) matched image 1's observation 1 (global 3).
	found := false
	for _, a := range p.Associations {
		if a.A == 1 && a.B == 3 {
			found = a.W > 0 && a.W <= 1
		}
	}
	if !found {
		t.Errorf("association 1–3 missing or badly weighted: %+v", p.Associations)
	}
	if _, err := MatchAll(context.Background(), desc, 1, BruteForce{}, Options{Ratio: 1.2}); err == nil || !strings.Contains(err.Error(), "ratio") {
		t.Errorf("ratio 1.2 accepted: %v", err)
	}
}

// mutualBF is BruteForce with the one-search cross-check of MutualMatcher,
// computed the slow way; short makes back one entry short.
type mutualBF struct{ short bool }

func (mutualBF) Nearest2(q, t []float32, dim int) ([]Neighbors, error) {
	return BruteForce{}.Nearest2(q, t, dim)
}

func (m mutualBF) Nearest2Mutual(q, t []float32, dim int) ([]Neighbors, []int32, error) {
	nn, _ := BruteForce{}.Nearest2(q, t, dim)
	bn, _ := BruteForce{}.Nearest2(t, q, dim)
	back := make([]int32, len(bn))
	for i, n := range bn {
		back[i] = n.Best
	}
	if m.short {
		back = back[1:]
	}
	return nn, back, nil
}

func TestMutualMatcherPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, b := make([]float32, 200*8), make([]float32, 150*8)
	for i := range a {
		a[i] = rng.Float32()
	}
	for i := range b {
		b[i] = rng.Float32()
	}
	for _, c := range []struct {
		name string
		m    Matcher
		err  bool
	}{{"two searches", BruteForce{}, false}, {"one search", mutualBF{}, false}, {"short back", mutualBF{short: true}, true}} {
		got, err := matchPair(a, b, 8, c.m, 0.9, true)
		if c.err {
			if err == nil {
				t.Errorf("%s: no error", c.name)
			}
			continue
		}
		want, _ := matchPair(a, b, 8, BruteForce{}, 0.9, true)
		plain, _ := matchPair(a, b, 8, BruteForce{}, 0.9, false)
		if err != nil || len(got) != len(want) || len(got) == 0 || len(got) >= len(plain) {
			t.Fatalf("%s: %d matches (%v), want %d of %d unchecked", c.name, len(got), err, len(want), len(plain))
		}
		for k := range want {
			if got[k] != want[k] {
				t.Fatalf("%s: match %d %+v, want %+v", c.name, k, got[k], want[k])
			}
		}
	}
}
