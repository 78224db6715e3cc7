package fusion

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/localmap"
	"github.com/clearmatch/clearmatch/multiway"
)

// Baseline is the method name of the association's own connected
// components (every component one cluster): the paper's baseline.
const Baseline = "baseline"

// DefaultMinCluster is Options.MinCluster's default: the paper drops
// clusters smaller than 4.
const DefaultMinCluster = 4

// Options configure Run.
type Options struct {
	// MinCluster drops clusters of fewer observations (the paper's
	// post-processing); 0 means DefaultMinCluster, 1 keeps every one.
	MinCluster int
	// Seed seeds the randomized methods (multiway.Options.Seed).
	Seed uint64
	// MaxMemory and MaxFlop bound the dense methods (multiway.Options).
	MaxMemory int64
	MaxFlop   float64
	// Progress, if set, receives an iterative method's progress.
	Progress func(done, total int)
}

// Problem is the association as CLEAR's input: one view per map, one
// observation per landmark (numbered map by map), one binary
// association per pairing.
func Problem(s *localmap.Set, a *Association) (*clear.Problem, error) {
	p := &clear.Problem{}
	off := make([]int, len(s.Maps))
	for k, m := range s.Maps {
		off[k] = p.AddView(len(m.Landmarks))
	}
	for _, q := range a.Pairings {
		if err := p.Associate(off[q.I]+q.A, off[q.J]+q.B, 1); err != nil {
			return nil, fmt.Errorf("fusion: %w", err)
		}
	}
	return p, nil
}

// Result is one method's fused map.
type Result struct {
	Method string
	// Cluster is each observation's cluster after post-processing (−1:
	// dropped), clusters numbered by first observation; Clusters counts
	// them.
	Cluster  []int
	Clusters int
	// Item is each observation's cluster before post-processing, as the
	// method gave it (−1: none), what the optimizer reads.
	Item []int
	// Seconds is the method's own time (the association not included).
	Seconds float64
	// Skipped says why a method did not run (too large), when it did not.
	Skipped string
}

// MergeSuffix after a method's name (clear+merge) runs the consistent
// merge (clear.MergeConsistent) on its clusters before the small ones are
// dropped: clusters that pairings link join when no map would then hold
// two of the joined cluster's landmarks.
const MergeSuffix = "+merge"

// MergeMinLinks is the fewest pairings that join two clusters in the
// merge: with one, a single wrong pairing joins two landmarks
// (docs/decisions.md, "Map fusion's consistent merge").
const MergeMinLinks = 2

// Run solves p with method (CLEAR, a multiway method, or Baseline; any of
// them with MergeSuffix); an inconsistent method's pairs are completed
// per connected component, as the paper does; clusters smaller than
// o.MinCluster are dropped.
func Run(ctx context.Context, method string, p *clear.Problem, o Options) (*Result, error) {
	if o.MinCluster == 0 {
		o.MinCluster = DefaultMinCluster
	}
	if o.MinCluster < 1 {
		return nil, fmt.Errorf("fusion: min cluster %d: want 1 or more", o.MinCluster)
	}
	if base, ok := strings.CutSuffix(method, MergeSuffix); ok {
		res, err := Run(ctx, base, p, Options{MinCluster: 1, Seed: o.Seed, MaxMemory: o.MaxMemory, MaxFlop: o.MaxFlop, Progress: o.Progress})
		if err != nil || res.Skipped != "" {
			if res != nil {
				res.Method = method
			}
			return res, err
		}
		start := time.Now()
		item, _, err := clear.MergeConsistent(p, res.Cluster, MergeMinLinks)
		if err != nil {
			return nil, err
		}
		res.Method, res.Seconds, res.Item = method, res.Seconds+time.Since(start).Seconds(), item
		res.Cluster, res.Clusters = renumber(eval.MinTrack(item, o.MinCluster))
		return res, nil
	}
	l := p.NumObservations()
	start := time.Now()
	var item []int
	if method == Baseline {
		pairs := make([]clear.Pair, len(p.Associations))
		for k, a := range p.Associations {
			pairs[k] = clear.Pair{A: min(a.A, a.B), B: max(a.A, a.B)}
		}
		item = eval.Closure(l, pairs)
	} else {
		r, err := multiway.Run(ctx, method, p, &multiway.Options{Seed: o.Seed, MaxMemory: o.MaxMemory, MaxFlop: o.MaxFlop, Progress: o.Progress})
		if err != nil {
			if skipped(err) {
				return &Result{Method: method, Skipped: err.Error()}, nil
			}
			return nil, err
		}
		item = r.Item
		if item == nil {
			item = eval.Closure(l, r.Pairs)
		}
	}
	res := &Result{Method: method, Seconds: time.Since(start).Seconds(), Item: item}
	res.Cluster, res.Clusters = renumber(eval.MinTrack(item, o.MinCluster))
	return res, nil
}

// skipped reports a method's refusal of a problem too large for it.
func skipped(err error) bool {
	var big *multiway.ErrTooLarge
	var slow *multiway.ErrTooSlow
	return errors.As(err, &big) || errors.As(err, &slow)
}

// renumber numbers the clusters of item by first observation (−1 stays),
// and counts them.
func renumber(item []int) ([]int, int) {
	out := multiway.Renumber(item)
	n := 0
	for _, c := range out {
		n = max(n, c+1)
	}
	return out, n
}

// Landmark is one fused landmark: the mean of its cluster's observations
// in the odometry frame, and how many maps see it.
type Landmark struct {
	Cluster      int     `json:"cluster"`
	X            float64 `json:"x"`
	Y            float64 `json:"y"`
	Z            float64 `json:"z"`
	Observations int     `json:"observations"`
}

// Fuse places each cluster of r at the mean of its observations in the
// odometry frame (s.Poses; with none, every map frame is taken as the
// odometry frame). Landmarks are in cluster order.
func Fuse(s *localmap.Set, r *Result) []Landmark {
	out := make([]Landmark, r.Clusters)
	g := 0
	for k, m := range s.Maps {
		for _, l := range m.Landmarks {
			c := r.Cluster[g]
			g++
			if c < 0 {
				continue
			}
			x, y := world(s, k, l)
			f := &out[c]
			f.X, f.Y, f.Z, f.Observations = f.X+x, f.Y+y, f.Z+l.Z, f.Observations+1
		}
	}
	for c := range out {
		n := float64(out[c].Observations)
		out[c] = Landmark{Cluster: c, X: out[c].X / n, Y: out[c].Y / n, Z: out[c].Z / n, Observations: out[c].Observations}
	}
	return out
}

// world is landmark l of map k in the odometry frame.
func world(s *localmap.Set, k int, l localmap.Landmark) (float64, float64) {
	if s.Poses == nil {
		return l.X, l.Y
	}
	return s.Poses[k].Apply(l.X, l.Y)
}

// clusterMembers lists each cluster's observations (global indices).
func clusterMembers(cluster []int, n int) [][]int {
	out := make([][]int, n)
	for g, c := range cluster {
		if c >= 0 {
			out[c] = append(out[c], g)
		}
	}
	return out
}
