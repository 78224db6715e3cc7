//go:build cgo

package features

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/clearmatch/clearmatch/pairwise"
)

// descriptors makes n rows of dim floats of the given kind.
func descriptors(r *rand.Rand, n, dim int, kind string) []float32 {
	d := make([]float32, n*dim)
	for i := range d {
		switch kind {
		case "sift": // SIFT-like: non-negative integers below 256
			d[i] = float32(r.IntN(40))
		case "signed":
			d[i] = float32(r.NormFloat64() * 1e3)
		default:
			d[i] = r.Float32()
		}
	}
	if kind == "root" {
		RootSIFT(d)
	}
	return d
}

// nearTies makes train rows that are the query rows moved by tiny steps,
// so that many candidates lie within rounding of each other, plus exact
// duplicates (ties the lower index must win).
func nearTies(r *rand.Rand, q []float32, n, dim int) []float32 {
	nq := len(q) / dim
	t := make([]float32, 0, n*dim)
	for len(t) < n*dim {
		row := append([]float32(nil), q[r.IntN(nq)*dim:][:dim]...)
		if r.IntN(3) > 0 {
			row[r.IntN(dim)] += float32(r.IntN(3)-1) * 1e-4
		}
		t = append(t, row...)
	}
	return t
}

func TestBLASMatcherEqualsBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	root := descriptors(r, 300, DescSize, "root")
	cases := []struct {
		name   string
		q, t   []float32
		dim    int
		tile   int
		single bool
	}{
		{name: "rootsift", q: root[:200*DescSize], t: root[100*DescSize:], dim: DescSize},
		{name: "rootsift tile 7", q: root[:200*DescSize], t: root[150*DescSize:], dim: DescSize, tile: 7},
		{name: "sift integers", q: descriptors(r, 150, DescSize, "sift"), t: descriptors(r, 170, DescSize, "sift"), dim: DescSize, tile: 64},
		{name: "signed large", q: descriptors(r, 50, 5, "signed"), t: descriptors(r, 60, 5, "signed"), dim: 5},
		{name: "dim 130", q: descriptors(r, 40, 130, "uniform"), t: descriptors(r, 33, 130, "uniform"), dim: 130, tile: 1},
		{name: "one train row", q: descriptors(r, 20, 8, "uniform"), t: descriptors(r, 1, 8, "uniform"), dim: 8},
		{name: "one query row", q: descriptors(r, 1, 8, "uniform"), t: descriptors(r, 30, 8, "uniform"), dim: 8},
		{name: "near ties and duplicates", q: root[:60*DescSize], t: nearTies(r, root[:60*DescSize], 400, DescSize), dim: DescSize, tile: 16},
		{name: "near ties as queries", q: nearTies(r, root[:60*DescSize], 400, DescSize), t: root[:60*DescSize], dim: DescSize, tile: 16},
		{name: "integer duplicates", q: descriptors(r, 80, 4, "sift")[:80*4], t: nearTies(r, descriptors(r, 10, 4, "sift"), 90, 4), dim: 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, err := pairwise.BruteForce{}.Nearest2(c.q, c.t, c.dim)
			if err != nil {
				t.Fatal(err)
			}
			wantBack, _ := pairwise.BruteForce{}.Nearest2(c.t, c.q, c.dim)
			m := BLASMatcher{Tile: c.tile}
			got, err := m.Nearest2(c.q, c.t, c.dim)
			if err != nil {
				t.Fatal(err)
			}
			got2, back, err := m.Nearest2Mutual(c.q, c.t, c.dim)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				for _, g := range [][]pairwise.Neighbors{got, got2} {
					if !sameNeighbors(g[i], want[i]) {
						t.Fatalf("query %d: got %+v, brute force %+v", i, g[i], want[i])
					}
				}
			}
			for j := range wantBack {
				if back[j] != wantBack[j].Best {
					t.Fatalf("train %d: nearest query %d, brute force %d", j, back[j], wantBack[j].Best)
				}
			}
		})
	}
}

func sameNeighbors(a, b pairwise.Neighbors) bool {
	return a.Best == b.Best && a.Second == b.Second &&
		math.Float32bits(a.D1) == math.Float32bits(b.D1) && math.Float32bits(a.D2) == math.Float32bits(b.D2)
}

func TestBLASMatcherEmptyAndBad(t *testing.T) {
	m := BLASMatcher{}
	nn, back, err := m.Nearest2Mutual(make([]float32, 8), nil, 4)
	if err != nil || len(nn) != 2 || nn[0].Best != -1 || len(back) != 0 {
		t.Fatalf("empty train: %+v %v %v", nn, back, err)
	}
	if _, err := m.Nearest2(make([]float32, 7), make([]float32, 8), 4); err == nil {
		t.Fatal("7 floats in rows of 4: no error")
	}
	if _, err := (BLASMatcher{Tile: -1}).Nearest2(make([]float32, 8), make([]float32, 8), 4); err == nil {
		t.Fatal("negative tile: no error")
	}
}

// TestBLASMatcherGraffiti: on real SIFT descriptors, the matches of the
// pipeline (ratio test, one direction and mutual) are those of the
// pure-Go brute force.
func TestBLASMatcherGraffiti(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	sets := graffitiSets(t, "img1.ppm", "img3.ppm")
	a, b := sets[0].Desc[:min(3000, sets[0].Len())*DescSize], sets[1].Desc[:min(3000, sets[1].Len())*DescSize]
	RootSIFT(a)
	RootSIFT(b)
	desc := [][]float32{a, b}
	for _, mutual := range []bool{false, true} {
		opts := pairwise.Options{Mutual: mutual}
		want, err := pairwise.MatchAll(t.Context(), desc, DescSize, pairwise.BruteForce{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pairwise.MatchAll(t.Context(), desc, DescSize, BLASMatcher{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(got[0].Matches) != len(want[0].Matches) || len(want[0].Matches) < 100 {
			t.Fatalf("mutual %v: %d matches, brute force %d", mutual, len(got[0].Matches), len(want[0].Matches))
		}
		for k := range want[0].Matches {
			if got[0].Matches[k] != want[0].Matches[k] {
				t.Fatalf("mutual %v: match %d is %+v, brute force %+v", mutual, k, got[0].Matches[k], want[0].Matches[k])
			}
		}
	}
}
