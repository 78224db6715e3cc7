package retrieval_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/retrieval"
)

// Six images of two scenes (descriptors drawn around each scene's own
// points): each image's two most similar images are those of its scene.
func Example() {
	r := rand.New(rand.NewPCG(1, 2))
	const dim = 8
	var desc [][]float32
	for scene := 0; scene < 2; scene++ {
		points := make([]float32, 10*dim)
		for i := range points {
			points[i] = r.Float32()
		}
		for img := 0; img < 3; img++ {
			d := make([]float32, 100*dim)
			for k := 0; k < 100; k++ {
				p := r.IntN(10)
				for j := 0; j < dim; j++ {
					d[k*dim+j] = points[p*dim+j] + 0.02*float32(r.NormFloat64())
				}
			}
			desc = append(desc, d)
		}
	}
	x, err := retrieval.Build(context.Background(), desc, dim, pairwise.BruteForce{}, retrieval.Options{Words: 8})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(retrieval.Pairs(x.Neighbors(2, 0.15)))
	// Output: [[0 1] [0 2] [1 2] [3 4] [3 5] [4 5]]
}

// Each image with the next one, and with those 2 and 4 ahead.
func ExampleSequential() {
	fmt.Println(retrieval.Sequential(5, 1))
	// Output: [[0 1] [0 2] [0 4] [1 2] [1 3] [2 3] [2 4] [3 4]]
}

func ExampleNumbered() {
	fmt.Println(retrieval.Numbered([]string{"IMG_0007.JPG", "IMG_0008.JPG", "IMG_0010.JPG"}))
	fmt.Println(retrieval.Numbered([]string{"north.jpg", "south.jpg", "west.jpg"}))
	// Output:
	// true
	// false
}

// Ranking images 0 and 1 against the others a block at a time, as a
// worker does that cannot hold every code: the result is Neighbors'.
func ExampleRanking() {
	codes := [][]float32{{1, 0, 0}, {0.6, 0.8, 0}, {0.8, 0.6, 0}, {0, 0, 1}, {0, 1, 0}}
	r := retrieval.NewRanking(0, codes[0:2], 2)
	r.Add(3, codes[3:5])
	r.Add(0, codes[0:3])
	fmt.Println(r.Neighbors(0))
	x := &retrieval.Index{Codes: codes}
	fmt.Println(x.Neighbors(2, 0)[:2])
	// Output:
	// [[2 1] [2 4]]
	// [[2 1] [2 4]]
}
