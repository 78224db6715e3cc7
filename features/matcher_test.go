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
		// Past one block of query rows and one chunk of train rows.
		{name: "rootsift many", q: descriptors(r, 700, DescSize, "root"), t: descriptors(r, 1300, DescSize, "root"), dim: DescSize},
		{name: "sift many", q: descriptors(r, 90, DescSize, "sift"), t: descriptors(r, 1100, DescSize, "sift"), dim: DescSize},
		{name: "near ties many", q: root[:100*DescSize], t: nearTies(r, root[:100*DescSize], 1500, DescSize), dim: DescSize},
		{name: "sparse dim 20", q: sparse(r, descriptors(r, 300, 20, "uniform")), t: sparse(r, descriptors(r, 600, 20, "uniform")), dim: 20},
		{name: "all zero", q: make([]float32, 40*DescSize), t: make([]float32, 600*DescSize), dim: DescSize},
	}
	for _, c := range cases {
		for _, k := range blasKernels {
			t.Run(c.name+"/"+k.name, func(t *testing.T) {
				int8Mode = k.mode
				defer func() { int8Mode = 0 }()
				checkBLASMatcher(t, BLASMatcher{Tile: c.tile, Float32: k.float32}, c.q, c.t, c.dim)
			})
		}
	}
}

// blasKernels are the BLAS matcher's ways to its candidates: float32
// products, and 8-bit ones with the best kernel and without AMX (each
// falls back to the next where the processor lacks it).
var blasKernels = []struct {
	name    string
	float32 bool
	mode    _Ctype_int
}{{"float32", true, 0}, {"int8", false, 0}, {"int8 no AMX", false, 1}}

// sparse zeroes most values, so that many rows share distances.
func sparse(r *rand.Rand, d []float32) []float32 {
	for i := range d {
		if r.IntN(4) > 0 {
			d[i] = 0
		}
	}
	return d
}

// checkBLASMatcher: m's answers in both directions are brute force's,
// bit for bit.
func checkBLASMatcher(t *testing.T, m BLASMatcher, q, tr []float32, dim int) {
	t.Helper()
	want, err := pairwise.BruteForce{}.Nearest2(q, tr, dim)
	if err != nil {
		t.Fatal(err)
	}
	wantBack, _ := pairwise.BruteForce{}.Nearest2(tr, q, dim)
	got, err := m.Nearest2(q, tr, dim)
	if err != nil {
		t.Fatal(err)
	}
	got2, back, err := m.Nearest2Mutual(q, tr, dim)
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
