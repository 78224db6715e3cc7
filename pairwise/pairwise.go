// Package pairwise matches and verifies image pairs:
//
//   - MatchAll / MatchAllFunc: Lowe's ratio test on the pairs chosen, the
//     nearest neighbours found by a Matcher (the BLAS matcher
//     features.BLASMatcher, OpenCV's features.CVMatcher, or the exact
//     pure-Go BruteForce, which give the same answer);
//   - Verify: two-view geometry per pair (homography, fundamental or, with
//     intrinsics, essential matrix, fitted by an Estimator such as OpenCV's
//     MAGSAC++), the inliers kept and optionally guided matches added;
//   - Refit, FitBaseline, RelativePose: a verified pair's model refitted to
//     given matches, or its rotation and baseline;
//   - Problem: every pair's matches as CLEAR's association problem.
//
// It is pure Go; the geometry it builds on (points, intrinsics, 3×3
// matrices) is package geom. Every function is deterministic: the same
// pairs and options give the same output on any number of workers.
package pairwise

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/internal/pool"
)

// DefaultRatio is Lowe's ratio on Euclidean distances used by the paper:
// VLFeat's vl_ubcmatch threshold 1.5 on squared distances, 1/sqrt(1.5).
var DefaultRatio = 1 / math.Sqrt(1.5)

// Neighbors are the two nearest train descriptors of one query descriptor,
// with squared Euclidean distances. Second is -1 (and D2 +Inf) when the
// train set holds one descriptor.
type Neighbors struct {
	Best, Second int32
	D1, D2       float32
}

// Matcher finds the two nearest neighbours of every query descriptor among
// the train descriptors (both row-major, dim floats each). Implementations
// must be safe for concurrent use.
type Matcher interface {
	Nearest2(query, train []float32, dim int) ([]Neighbors, error)
}

// MutualMatcher is a Matcher that also gives, from the same distances,
// each train descriptor's nearest query descriptor (back[t], -1 when there
// is none), so a cross-checked pair costs one search, not two. back must
// equal Nearest2(train, query)'s Best.
type MutualMatcher interface {
	Matcher
	Nearest2Mutual(query, train []float32, dim int) (nn []Neighbors, back []int32, err error)
}

// Match is one accepted match between descriptor A of image I and
// descriptor B of image J, with its distance ratio d1/d2 (0 when the train
// image has a single feature).
type Match struct {
	A, B  int32
	Ratio float32
}

// Pair holds the matches of images I < J.
type Pair struct {
	I, J    int
	Matches []Match
}

// Options configure MatchAll. The zero value is the paper's protocol: all
// pairs, ratio 1/sqrt(1.5), one direction (each descriptor of I against J,
// as vl_ubcmatch), not mutual.
type Options struct {
	// Ratio accepts a match when d1 < Ratio·d2; 0 means DefaultRatio.
	Ratio float64
	// Mutual also requires that the match is the nearest neighbour in the
	// other direction (cross-check).
	Mutual bool
	// Window, when positive, matches only pairs with J − I ≤ Window (video).
	Window int
	// Pairs, when not nil, lists the pairs to match instead of all of them.
	Pairs [][2]int
	// Workers bounds the pairs matched at once; 0 means GOMAXPROCS.
	Workers int
	// Progress, if set, is called after each pair (serialized).
	Progress func(done, total int)
	// OnPair, if set, receives each pair's matches as soon as they are
	// done (from the workers, possibly at once).
	OnPair func(Pair)
}

// PairList returns the image pairs opts selects among n images, I < J,
// sorted.
func (o Options) PairList(n int) ([][2]int, error) {
	var out [][2]int
	if o.Pairs != nil {
		seen := map[[2]int]bool{}
		for _, p := range o.Pairs {
			i, j := min(p[0], p[1]), max(p[0], p[1])
			if i < 0 || j >= n || i == j {
				return nil, fmt.Errorf("pairwise: pair (%d, %d) is not two different images of %d", p[0], p[1], n)
			}
			if !seen[[2]int{i, j}] {
				seen[[2]int{i, j}] = true
				out = append(out, [2]int{i, j})
			}
		}
		slices.SortFunc(out, func(a, b [2]int) int {
			if a[0] != b[0] {
				return a[0] - b[0]
			}
			return a[1] - b[1]
		})
		return out, nil
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if o.Window <= 0 || j-i <= o.Window {
				out = append(out, [2]int{i, j})
			}
		}
	}
	return out, nil
}

// MatchAll matches the descriptor blocks of all selected image pairs
// (desc[i] is image i's descriptors, row-major, dim floats each). The
// result is sorted by pair and does not depend on the number of workers.
func MatchAll(ctx context.Context, desc [][]float32, dim int, m Matcher, opts Options) ([]Pair, error) {
	for i, d := range desc {
		if len(d)%dim != 0 {
			return nil, fmt.Errorf("pairwise: image %d has %d floats, not a multiple of %d", i, len(d), dim)
		}
	}
	return MatchAllFunc(ctx, len(desc), func(i int) ([]float32, error) { return desc[i], nil }, dim, m, opts)
}

// MatchAllFunc is MatchAll with image i's descriptors from get(i), called
// for each pair as it is matched (possibly from several workers at
// once), so that a caller can keep descriptors compact, or on disk, and
// hold only the pairs under way.
func MatchAllFunc(ctx context.Context, n int, get func(i int) ([]float32, error), dim int, m Matcher, opts Options) ([]Pair, error) {
	ratio := opts.Ratio
	if ratio == 0 {
		ratio = DefaultRatio
	}
	if !(ratio > 0 && ratio < 1) {
		return nil, fmt.Errorf("pairwise: ratio %v is not in (0, 1)", opts.Ratio)
	}
	list, err := opts.PairList(n)
	if err != nil {
		return nil, err
	}
	out := make([]Pair, len(list))
	err = pool.ForEach(ctx, len(list), opts.Workers, opts.Progress, func(k int) error {
		i, j := list[k][0], list[k][1]
		out[k] = Pair{I: i, J: j}
		var err error
		if out[k].Matches, err = matchImages(get, i, j, dim, m, ratio, opts.Mutual); err != nil {
			return fmt.Errorf("pairwise: images %d and %d: %w", i, j, err)
		}
		if opts.OnPair != nil {
			opts.OnPair(out[k])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// matchImages reads the descriptors of images i and j and matches them.
func matchImages(get func(int) ([]float32, error), i, j, dim int, m Matcher, ratio float64, mutual bool) ([]Match, error) {
	a, err := get(i)
	if err != nil {
		return nil, err
	}
	b, err := get(j)
	if err != nil {
		return nil, err
	}
	if len(a)%dim != 0 || len(b)%dim != 0 {
		return nil, fmt.Errorf("%d and %d floats are not rows of %d", len(a), len(b), dim)
	}
	return matchPair(a, b, dim, m, ratio, mutual)
}

// matchPair applies the ratio test to every descriptor of a against b: the
// match is accepted when 1/ratio² · d1² < d2² (vl_ubcmatch's rule with
// threshold 1/ratio² on squared distances; a single candidate always
// passes).
func matchPair(a, b []float32, dim int, m Matcher, ratio float64, mutual bool) ([]Match, error) {
	if len(a) == 0 || len(b) == 0 {
		return nil, nil
	}
	var nn []Neighbors
	var back []int32
	var err error
	if mm, ok := m.(MutualMatcher); ok && mutual {
		nn, back, err = mm.Nearest2Mutual(a, b, dim)
	} else {
		nn, err = m.Nearest2(a, b, dim)
		if err == nil && mutual {
			var bn []Neighbors
			bn, err = m.Nearest2(b, a, dim)
			back = make([]int32, len(bn))
			for t, n := range bn {
				back[t] = n.Best
			}
		}
	}
	if err != nil {
		return nil, err
	}
	if len(nn) != len(a)/dim || (mutual && len(back) != len(b)/dim) {
		return nil, errors.New("matcher returned the wrong number of neighbours")
	}
	thr := 1 / (ratio * ratio)
	var out []Match
	for q, n := range nn {
		if n.Best < 0 || !(thr*float64(n.D1) < float64(n.D2)) {
			continue
		}
		if mutual && back[n.Best] != int32(q) {
			continue
		}
		r := float32(0)
		if !math.IsInf(float64(n.D2), 1) && n.D2 > 0 {
			r = float32(math.Sqrt(float64(n.D1) / float64(n.D2)))
		}
		out = append(out, Match{A: int32(q), B: n.Best, Ratio: r})
	}
	return out, nil
}

// Problem builds the CLEAR input from the matches: counts[i] observations
// in image i, observations numbered image by image. With weighted, each
// association carries the weight 1 − d1/d2 in (0, 1] (more distinctive
// matches weigh more); otherwise it is binary. A descriptor matched to the
// same observation twice (possible only with repeated pairs) is listed once.
func Problem(counts []int, pairs []Pair, weighted bool) (*clear.Problem, error) {
	p := &clear.Problem{}
	off := make([]int, len(counts))
	for i, c := range counts {
		off[i] = p.AddView(c)
	}
	for _, pr := range pairs {
		if pr.I < 0 || pr.J >= len(counts) || pr.I >= pr.J {
			return nil, fmt.Errorf("pairwise: bad pair (%d, %d)", pr.I, pr.J)
		}
		for _, m := range pr.Matches {
			if int(m.A) >= counts[pr.I] || int(m.B) >= counts[pr.J] || m.A < 0 || m.B < 0 {
				return nil, fmt.Errorf("pairwise: match (%d, %d) out of range for images %d and %d", m.A, m.B, pr.I, pr.J)
			}
			w := 0.0
			if weighted {
				w = 1 - float64(m.Ratio)
			}
			p.Associations = append(p.Associations, clear.Association{A: off[pr.I] + int(m.A), B: off[pr.J] + int(m.B), W: w})
		}
	}
	return p, nil
}

// BruteForce is the exact pure-Go matcher: squared Euclidean distances in
// float32 with float64 comparison, the lower index on ties.
type BruteForce struct{}

func (BruteForce) Nearest2(query, train []float32, dim int) ([]Neighbors, error) {
	nq, nt := len(query)/dim, len(train)/dim
	out := make([]Neighbors, nq)
	for q := 0; q < nq; q++ {
		qv := query[q*dim : (q+1)*dim]
		n := Neighbors{Best: -1, Second: -1, D1: float32(math.Inf(1)), D2: float32(math.Inf(1))}
		for t := 0; t < nt; t++ {
			d := SquaredDistance(qv, train[t*dim:(t+1)*dim])
			switch {
			case d < n.D1:
				n.Second, n.D2 = n.Best, n.D1
				n.Best, n.D1 = int32(t), d
			case d < n.D2:
				n.Second, n.D2 = int32(t), d
			}
		}
		out[q] = n
	}
	return out, nil
}

// SquaredDistance is the squared Euclidean distance between two
// descriptors, summed in four float32 lanes (the matcher's own, so that
// its distances and a caller's agree to the bit).
func SquaredDistance(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		d0, d1, d2, d3 := a[i]-b[i], a[i+1]-b[i+1], a[i+2]-b[i+2], a[i+3]-b[i+3]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for ; i < len(a); i++ {
		d := a[i] - b[i]
		s0 += d * d
	}
	return (s0 + s1) + (s2 + s3)
}
