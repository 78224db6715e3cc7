package retrieval

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/clearmatch/clearmatch/pairwise"
)

func TestSequential(t *testing.T) {
	cases := []struct {
		n, overlap int
		want       [][2]int
	}{
		{1, 3, nil},
		{3, 1, [][2]int{{0, 1}, {0, 2}, {1, 2}}},
		{4, 1, [][2]int{{0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 3}}},
		{6, 2, [][2]int{{0, 1}, {0, 2}, {0, 4}, {1, 2}, {1, 3}, {1, 5}, {2, 3}, {2, 4}, {3, 4}, {3, 5}, {4, 5}}},
	}
	for _, c := range cases {
		if got := Sequential(c.n, c.overlap); !slices.Equal(got, c.want) {
			t.Errorf("Sequential(%d, %d) = %v, want %v", c.n, c.overlap, got, c.want)
		}
	}
}

func TestNumbered(t *testing.T) {
	cases := []struct {
		names []string
		want  bool
	}{
		{[]string{"f001.jpg", "f002.jpg", "f010.jpg"}, true},
		{[]string{"IMG_0001.JPG", "IMG_0002.JPG", "IMG_0003.JPG"}, true},
		{[]string{"a1.png", "b2.png", "c3.png"}, false},
		{[]string{"f1.jpg", "f2.jpg", "g.jpg"}, false},
		{[]string{"f3.jpg", "f2.jpg", "f4.jpg"}, false},
		{[]string{"f1.jpg", "f2.jpg"}, false},
	}
	for _, c := range cases {
		if got := Numbered(c.names); got != c.want {
			t.Errorf("Numbered(%v) = %v", c.names, got)
		}
	}
}

func TestComplete(t *testing.T) {
	// 0-1, 1-2, 2-3 verified; 0-2 already tried: completion proposes 1-3
	// and, through 1-2 and 0-1... nothing else new.
	verified := [][2]int{{0, 1}, {1, 2}, {2, 3}}
	tried := map[[2]int]bool{{0, 1}: true, {1, 2}: true, {2, 3}: true, {0, 2}: true}
	sim := func(i, j int) float64 { return -float64(i + j) }
	all := func(i, j int) bool { return true }
	if got := Complete(4, verified, tried, 5, sim, all); !slices.Equal(got, [][2]int{{1, 3}}) {
		t.Errorf("Complete = %v, want [1 3]", got)
	}
	none := func(i, j int) bool { return false }
	if got := Complete(4, verified, tried, 5, sim, none); len(got) != 0 {
		t.Errorf("Complete with no pair kept = %v", got)
	}
	// A star: every leaf could propose the other leaves; k = 1 keeps each
	// leaf's most similar (here the lowest index sum).
	star := [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}}
	tr := map[[2]int]bool{{0, 1}: true, {0, 2}: true, {0, 3}: true, {0, 4}: true}
	// Leaf 1 proposes 2, leaf 2 proposes 1, leaves 3 and 4 propose 1.
	if got := Complete(5, star, tr, 1, sim, all); !slices.Equal(got, [][2]int{{1, 2}, {1, 3}, {1, 4}}) {
		t.Errorf("star, k 1: %v, want [1 2] [1 3] [1 4]", got)
	}
}

// scenes makes n images of descriptors drawn around scene-specific
// centres: images of one scene share their centres.
func scenes(r *rand.Rand, perScene []int, dim, rows int) ([][]float32, []int) {
	var desc [][]float32
	var label []int
	for s, n := range perScene {
		centres := make([]float32, 20*dim)
		for i := range centres {
			centres[i] = r.Float32()
		}
		for k := 0; k < n; k++ {
			d := make([]float32, rows*dim)
			for i := 0; i < rows; i++ {
				c := r.IntN(20)
				for j := 0; j < dim; j++ {
					d[i*dim+j] = centres[c*dim+j] + 0.05*float32(r.NormFloat64())
				}
			}
			desc = append(desc, d)
			label = append(label, s)
		}
	}
	return desc, label
}

func TestBuildSeparatesScenes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	desc, label := scenes(r, []int{5, 4, 6}, 16, 200)
	desc = append(desc, nil) // an image without descriptors
	label = append(label, -1)
	x1, err := Build(context.Background(), desc, 16, pairwise.BruteForce{}, Options{Words: 16, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	x4, err := Build(context.Background(), desc, 16, pairwise.BruteForce{}, Options{Words: 16, Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	for i := range x1.Codes {
		if !slices.Equal(x1.Codes[i], x4.Codes[i]) {
			t.Fatalf("image %d: codes differ between 1 and 4 workers", i)
		}
	}
	nb := x1.Neighbors(3, 0.15)
	for i, ns := range nb[:len(nb)-1] {
		if len(ns) == 0 {
			t.Errorf("image %d has no neighbours", i)
		}
		for _, j := range ns {
			if label[j] != label[i] {
				t.Errorf("image %d (scene %d): neighbour %d of scene %d; similarities %v", i, label[i], j, label[j], ns)
			}
		}
	}
	if got := x1.Neighbors(100, 0); len(got[0]) != len(desc)-1 {
		t.Errorf("k beyond the image count: %d neighbours", len(got[0]))
	}
	for _, p := range Pairs(x1.Neighbors(3, 0.15)) {
		if p[0] >= p[1] {
			t.Fatalf("pair %v not I < J", p)
		}
	}
}

func TestBuildErrors(t *testing.T) {
	ctx := context.Background()
	m := pairwise.BruteForce{}
	if _, err := Build(ctx, [][]float32{nil, nil}, 4, m, Options{}); err == nil {
		t.Error("no descriptors: no error")
	}
	if _, err := Build(ctx, [][]float32{make([]float32, 7)}, 4, m, Options{}); err == nil {
		t.Error("7 floats in rows of 4: no error")
	}
	if _, err := Build(ctx, [][]float32{make([]float32, 8)}, 4, m, Options{Words: -1}); err == nil {
		t.Error("negative words: no error")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	r := rand.New(rand.NewPCG(1, 1))
	desc, _ := scenes(r, []int{3}, 8, 100)
	if _, err := Build(cancelled, desc, 8, m, Options{}); err == nil {
		t.Error("cancelled: no error")
	}
}

// BenchmarkBuild: vocabulary and codes for 50 images of 2000 descriptors
// (pure-Go assignment; the pipeline's BLAS matcher is faster).
func BenchmarkBuild(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	desc, _ := scenes(r, []int{25, 25}, 128, 2000)
	for i := 0; i < b.N; i++ {
		if _, err := Build(context.Background(), desc, 128, pairwise.BruteForce{}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
