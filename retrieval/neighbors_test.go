package retrieval

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/clearmatch/clearmatch/pairwise"
)

// randomCodes makes n unit-free codes of dim floats, some of them equal so
// that ties in similarity occur.
func randomCodes(r *rand.Rand, n, dim int) [][]float32 {
	codes := make([][]float32, n)
	for i := range codes {
		if i > 0 && i%7 == 0 {
			codes[i] = codes[i-1] // a tie: the lower index goes first
			continue
		}
		codes[i] = make([]float32, dim)
		for j := range codes[i] {
			codes[i][j] = float32(r.NormFloat64())
		}
	}
	return codes
}

// bruteNeighbors ranks every other image of one row at once.
func bruteNeighbors(codes [][]float32, i, k int, rel float64) []int {
	var t []scored
	for j, c := range codes {
		if j != i {
			t = append(t, scored{similarity32(codes[i], c), j})
		}
	}
	slices.SortFunc(t, scored.before)
	t = t[:min(k, len(t))]
	for rel > 0 && len(t) > 0 && float64(t[len(t)-1].sim) < rel*float64(t[0].sim) {
		t = t[:len(t)-1]
	}
	var out []int
	for _, s := range t {
		out = append(out, s.j)
	}
	return out
}

func TestRankingDoesNotDependOnBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	codes := randomCodes(r, 300, 200) // 200: a last block of 8 components
	x := &Index{Codes: codes}
	for _, tc := range []struct {
		k   int
		rel float64
	}{{5, 0}, {25, 0.15}, {400, 0}, {3, 0.9}} {
		got := x.Neighbors(tc.k, tc.rel)
		for i := range codes {
			if want := bruteNeighbors(codes, i, tc.k, tc.rel); !slices.Equal(got[i], want) {
				t.Fatalf("k %d rel %v: image %d: Neighbors %v, ranked at once %v", tc.k, tc.rel, i, got[i], want)
			}
		}
		// Rows 10-29 against blocks of 37 in reverse order.
		rk := NewRanking(10, codes[10:30], tc.k)
		for lo := 296; lo >= 0; lo -= 37 {
			lo := max(lo, 0)
			rk.Add(lo, codes[lo:min(lo+37, 300)])
		}
		for a, ns := range rk.Neighbors(tc.rel) {
			if !slices.Equal(ns, got[10+a]) {
				t.Fatalf("k %d rel %v: image %d: blocks of 37 in reverse give %v, Neighbors %v", tc.k, tc.rel, 10+a, ns, got[10+a])
			}
		}
	}
}

func TestSampleFileSameVocabulary(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	desc, _ := scenes(r, []int{40, 30}, 16, 300) // 21000 rows: three chunks
	rows := make([]int, len(desc))
	for i, d := range desc {
		rows[i] = len(d) / 16
	}
	get := func(i int) ([]float32, error) { return desc[i], nil }
	o := Options{Words: 16, Workers: 1}
	mem, err := Train(context.Background(), rows, get, 16, pairwise.BruteForce{}, o)
	if err != nil {
		t.Fatal(err)
	}
	o.SampleFile = filepath.Join(t.TempDir(), "sample")
	file, err := Train(context.Background(), rows, get, 16, pairwise.BruteForce{}, o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(mem.Centers, file.Centers) {
		t.Error("the vocabulary trained from a sample file differs from the one in memory")
	}
	if _, err := os.Stat(o.SampleFile); !os.IsNotExist(err) {
		t.Errorf("the sample file is left behind: %v", err)
	}
	o.SampleFile = filepath.Join(t.TempDir(), "no-such-dir", "sample")
	if _, err := Train(context.Background(), rows, get, 16, pairwise.BruteForce{}, o); err == nil {
		t.Error("an unwritable sample file is not an error")
	}
}
