// Package retrieval chooses which image pairs to match in a large,
// unordered folder: a visual vocabulary trained on the images' own
// descriptors (nothing downloaded), one VLAD vector per image, and each
// image's most similar images by the vectors' dot product.
//
// VLAD (Jégou et al., "Aggregating local descriptors into a compact image
// representation", CVPR 2010), with the normalizations of Arandjelović and
// Zisserman ("All about VLAD", CVPR 2013): each word's residual sum is
// L2-normalized (intra-normalization), then every component is
// square-rooted keeping its sign, then the whole vector is L2-normalized.
// It was chosen over a vocabulary tree with a TF-IDF inverted file because
// it needs only a small vocabulary (64 words by default, trained in a second
// on a sample), its similarity is one matrix product, and on the mixed real
// folder of docs/decisions.md it separates the scenes as cleanly.
//
// The package is pure Go; descriptor-to-word assignment goes through a
// pairwise.Matcher, so the pipeline's BLAS matcher makes it fast where cgo
// is available and pairwise.BruteForce serves without it.
package retrieval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/clearmatch/clearmatch/internal/pool"
	"github.com/clearmatch/clearmatch/pairwise"
)

// DefaultSample is the default bound on the vocabulary's training sample,
// in descriptors: with Dim 128, 32 MiB of floats.
const DefaultSample = 65536

// Options configure Build. The zero value is the default.
type Options struct {
	// Words is the vocabulary size; 0 means 64. It shrinks to an eighth
	// of the training sample when the images have few descriptors.
	Words int
	// Sample bounds the descriptors the vocabulary is trained on, taken
	// evenly from every image; 0 means DefaultSample.
	Sample int
	// Iterations of k-means; 0 means 10.
	Iterations int
	// Seed seeds k-means++; 0 means 1. The same seed gives the same
	// vocabulary, codes and neighbours on any number of cores.
	Seed uint64
	// Workers bounds the images encoded at once; 0 means GOMAXPROCS.
	Workers int
	// SampleFile, when set, is a file to keep the training sample in
	// (created, and removed after training), so that training holds a
	// chunk of it at a time instead of up to Sample rows.
	SampleFile string
}

func (o Options) withDefaults() Options {
	if o.Words == 0 {
		o.Words = 64
	}
	if o.Sample == 0 {
		o.Sample = DefaultSample
	}
	if o.Iterations == 0 {
		o.Iterations = 10
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

// Index holds the vocabulary and one VLAD code per image.
type Index struct {
	Dim   int
	Words int
	// Centers are the words, Words rows of Dim floats.
	Centers []float32
	// SampleRows is how many descriptors the words were trained on.
	SampleRows int
	// Codes are the images' VLAD vectors (Words·Dim floats, unit norm;
	// all zero for an image without descriptors).
	Codes [][]float32
}

// Build trains a vocabulary on a sample of desc (desc[i] holds image i's
// descriptors, row-major, dim floats each) and encodes every image.
func Build(ctx context.Context, desc [][]float32, dim int, m pairwise.Matcher, opts Options) (*Index, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("retrieval: descriptor size %d", dim)
	}
	rows := make([]int, len(desc))
	for i, d := range desc {
		if len(d)%dim != 0 {
			return nil, fmt.Errorf("retrieval: image %d has %d floats, not rows of %d", i, len(d), dim)
		}
		rows[i] = len(d) / dim
	}
	return BuildFunc(ctx, rows, func(i int) ([]float32, error) { return desc[i], nil }, dim, m, opts)
}

// BuildFunc is Build for images of rows[i] descriptors each, got from
// get(i) when needed (once for the sample, once to encode the image), so
// that a caller need not hold every image's descriptors as floats at
// once. get's slices are not modified.
func BuildFunc(ctx context.Context, rows []int, get func(i int) ([]float32, error), dim int, m pairwise.Matcher, opts Options) (*Index, error) {
	x, err := Train(ctx, rows, get, dim, m, opts)
	if err != nil {
		return nil, err
	}
	get = checked(get, rows, dim)
	x.Codes = make([][]float32, len(rows))
	err = pool.ForEach(ctx, len(rows), opts.withDefaults().Workers, nil, func(i int) error {
		d, err := get(i)
		if err == nil {
			x.Codes[i], err = x.Encode(d, m)
		}
		if err != nil {
			return fmt.Errorf("retrieval: image %d: %w", i, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return x, nil
}

// Train is BuildFunc's first half: it trains the vocabulary and returns
// an Index without codes, for Encode to fill image by image. With
// opts.SampleFile the sample is kept in that file, not in memory; the
// vocabulary is the same.
func Train(ctx context.Context, rows []int, get func(i int) ([]float32, error), dim int, m pairwise.Matcher, opts Options) (*Index, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("retrieval: descriptor size %d", dim)
	}
	if opts.Words < 0 || opts.Sample < 0 || opts.Iterations < 0 || opts.Workers < 0 {
		return nil, errors.New("retrieval: negative option")
	}
	o := opts.withDefaults()
	s, err := gatherSample(rows, checked(get, rows, dim), dim, o)
	if err != nil {
		return nil, err
	}
	defer s.close()
	ns := s.len()
	if ns == 0 {
		return nil, errors.New("retrieval: the images have no descriptors")
	}
	x := &Index{Dim: dim, Words: min(o.Words, max(1, ns/8)), SampleRows: ns}
	if x.Centers, err = kmeans(ctx, s, dim, x.Words, o.Iterations, o.Seed, m); err != nil {
		return nil, err
	}
	return x, nil
}

// gatherSample takes the training rows evenly from every image, at most
// o.Sample in all, in image order.
func gatherSample(rows []int, get func(i int) ([]float32, error), dim int, o Options) (sample, error) {
	var s sample = &memSample{dim: dim}
	if o.SampleFile != "" {
		var err error
		if s, err = newFileSample(o.SampleFile, dim); err != nil {
			return nil, err
		}
	}
	total := 0
	for _, r := range rows {
		total += r
	}
	for i := range rows {
		take := rows[i]
		if total > o.Sample {
			take = int(int64(rows[i]) * int64(o.Sample) / int64(total))
		}
		if take == 0 {
			continue
		}
		d, err := get(i)
		if err != nil {
			s.close()
			return nil, fmt.Errorf("retrieval: image %d: %w", i, err)
		}
		for k := 0; k < take; k++ {
			r := int(int64(k) * int64(rows[i]) / int64(take))
			if err := s.add(d[r*dim : (r+1)*dim]); err != nil {
				s.close()
				return nil, err
			}
		}
	}
	return s, nil
}

// checked wraps get so that an image whose descriptors are not rows[i]
// rows of dim floats is an error.
func checked(get func(int) ([]float32, error), rows []int, dim int) func(int) ([]float32, error) {
	return func(i int) ([]float32, error) {
		d, err := get(i)
		if err == nil && len(d) != rows[i]*dim {
			err = fmt.Errorf("%d floats for %d descriptors of %d", len(d), rows[i], dim)
		}
		return d, err
	}
}

// kmeans clusters the sample's rows into k centres: k-means++ seeding
// from seed, then Lloyd iterations with the assignment by m. An empty
// cluster takes the row farthest from its centre. It reads the sample in
// chunks of ChunkRows, always the same ones, so the centres do not
// depend on where the sample is kept.
func kmeans(ctx context.Context, s sample, dim, k, iters int, seed uint64, m pairwise.Matcher) ([]float32, error) {
	n := s.len()
	rng := rand.New(rand.NewPCG(seed, 0x636c6561726d6174))
	c := make([]float32, 0, k*dim)
	d2 := make([]float64, n) // each row's squared distance to its nearest centre
	for i := range d2 {
		d2[i] = math.Inf(1)
	}
	pick := rng.IntN(n)
	for {
		r, err := row(s, pick, dim)
		if err != nil {
			return nil, err
		}
		c = append(c, r...)
		err = eachChunk(s, dim, func(lo int, x []float32) error {
			for i := range len(x) / dim {
				d2[lo+i] = min(d2[lo+i], sqDist(x[i*dim:(i+1)*dim], r))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(c) == k*dim {
			break
		}
		sum := 0.0
		for _, v := range d2 {
			sum += v
		}
		pick = n - 1
		if sum > 0 {
			t := rng.Float64() * sum
			for i, v := range d2 {
				if t -= v; t < 0 {
					pick = i
					break
				}
			}
		} else {
			pick = rng.IntN(n)
		}
	}
	sums := make([]float64, k*dim)
	counts := make([]int, k)
	for it := 0; it < iters; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		clear(sums)
		clear(counts)
		far, farD := -1, -1.0
		err := eachChunk(s, dim, func(lo int, x []float32) error {
			nn, err := m.Nearest2(x, c, dim)
			if err != nil {
				return err
			}
			for i, nb := range nn {
				w := int(nb.Best)
				counts[w]++
				for j := 0; j < dim; j++ {
					sums[w*dim+j] += float64(x[i*dim+j])
				}
				if d := float64(nb.D1); d > farD {
					far, farD = lo+i, d
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		for w := 0; w < k; w++ {
			if counts[w] == 0 {
				r, err := row(s, far, dim)
				if err != nil {
					return nil, err
				}
				copy(c[w*dim:(w+1)*dim], r)
				continue
			}
			for j := 0; j < dim; j++ {
				c[w*dim+j] = float32(sums[w*dim+j] / float64(counts[w]))
			}
		}
	}
	return c, nil
}

// eachChunk calls f with every chunk of s's rows and the first's index.
func eachChunk(s sample, dim int, f func(lo int, x []float32) error) error {
	for lo := 0; lo < s.len(); lo += ChunkRows {
		x, err := s.chunk(lo, min(lo+ChunkRows, s.len()))
		if err != nil {
			return err
		}
		if err := f(lo, x); err != nil {
			return err
		}
	}
	return nil
}

func sqDist(a, b []float32) float64 {
	s := 0.0
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		s += d * d
	}
	return s
}

// Encode computes one image's VLAD vector (its code) from its
// descriptors, rows of Dim floats.
func (x *Index) Encode(desc []float32, m pairwise.Matcher) ([]float32, error) {
	dim, k := x.Dim, x.Words
	if dim <= 0 || len(desc)%dim != 0 {
		return nil, fmt.Errorf("retrieval: %d floats are not descriptors of %d", len(desc), dim)
	}
	v := make([]float64, k*dim)
	if len(desc) > 0 {
		nn, err := m.Nearest2(desc, x.Centers, dim)
		if err != nil {
			return nil, err
		}
		for i, nb := range nn {
			w := int(nb.Best)
			for j := 0; j < dim; j++ {
				v[w*dim+j] += float64(desc[i*dim+j]) - float64(x.Centers[w*dim+j])
			}
		}
	}
	for w := 0; w < k; w++ { // intra-normalization
		normalize(v[w*dim : (w+1)*dim])
	}
	for j, a := range v { // signed square root
		v[j] = math.Copysign(math.Sqrt(math.Abs(a)), a)
	}
	normalize(v)
	out := make([]float32, len(v))
	for j, a := range v {
		out[j] = float32(a)
	}
	return out, nil
}

func normalize(v []float64) {
	s := 0.0
	for _, a := range v {
		s += a * a
	}
	if s == 0 {
		return
	}
	s = 1 / math.Sqrt(s)
	for j := range v {
		v[j] *= s
	}
}

// Similarity is the dot product of images i and j's codes, in [-1, 1].
func (x *Index) Similarity(i, j int) float64 {
	return Similarity(x.Codes[i], x.Codes[j])
}

// Similarity is the dot product of two codes, summed in float64.
func Similarity(a, b []float32) float64 {
	s := 0.0
	for k, v := range a {
		s += float64(v) * float64(b[k])
	}
	return s
}

// Neighbors returns, for every image, the k other images most similar to
// it, most similar first (the lower index first among equal
// similarities), leaving out those less similar than rel times its most
// similar image's similarity (rel 0 keeps all k). It ranks blocks of
// images against blocks (Ranking), on Workers cores.
func (x *Index) Neighbors(k int, rel float64) [][]int {
	n := len(x.Codes)
	out := make([][]int, n)
	if n == 0 || k <= 0 {
		return out
	}
	blocks := (n + RankBlock - 1) / RankBlock
	pool.ForEach(context.Background(), blocks, runtime.GOMAXPROCS(0), nil, func(b int) error {
		lo := b * RankBlock
		r := NewRanking(lo, x.Codes[lo:min(lo+RankBlock, n)], k)
		for c := 0; c < n; c += RankBlock {
			r.Add(c, x.Codes[c:min(c+RankBlock, n)])
		}
		copy(out[lo:], r.Neighbors(rel))
		return nil
	})
	return out
}

// Pairs returns the pairs (I < J, sorted) in which either image is in
// the other's neighbour list (nb as Neighbors returns it).
func Pairs(nb [][]int) [][2]int {
	var out [][2]int
	for i, ns := range nb {
		for _, j := range ns {
			out = append(out, [2]int{min(i, j), max(i, j)})
		}
	}
	return SortPairs(out)
}

// SortPairs sorts pairs and removes repeats.
func SortPairs(p [][2]int) [][2]int {
	slices.SortFunc(p, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	return slices.Compact(p)
}
