package fusion

import (
	"slices"

	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/localmap"
)

// Placing a robot's maps again along its path. Where tracking went wrong
// for several maps in a row, the optimizer bends the path to the wrong
// landmarks: each map of the bend lies turned a little more than the one
// before, each agrees with its neighbours' odometry, and no rigid move of
// one map or of a run explains more. Tracked again against the settled
// map, each map predicted from the one placed before it, the bend's maps
// find their landmarks (docs/decisions.md, "Placing a robot's maps again
// along its path"). Whether the new placement is the better is the
// optimizer's to say: fuse keeps it where, optimized, it costs less
// (CostCountingLone).

// OutlierCost is the most the default loss (Geman–McClure of width
// GNCWidth on whitened residuals) charges one observation: what an
// observation far from its landmark costs.
const OutlierCost = GNCWidth * GNCWidth

// CostCountingLone is o's cost with each of the map's observations the
// optimizer did not read (in no cluster) charged as an outlier: maps that
// explain their landmarks in fewer clusters do not cost less for it.
func (o *Optimized) CostCountingLone(s *localmap.Set) float64 {
	return o.Cost + OutlierCost*float64(s.Landmarks()-len(o.Graph.Observations))
}

// Retracked is every robot's maps placed again along its path against
// opt's landmarks (retrack), forwards and backwards, where that changes
// some map's clusters. A robot whose maps span components or frame
// groups is not placed again; nor is any without poses. Clusters smaller
// than minCluster are dropped.
func Retracked(s *localmap.Set, r *Result, opt *Optimized, frames []int, tol, radius float64, minCluster int) []*Relocated {
	if s.Poses == nil {
		return nil
	}
	l, key := newRelocation(s, r, opt, frames, tol, radius)
	first := observationStarts(s)
	var out []*Relocated
	for _, chain := range robotChains(s) {
		if len(chain) < 2 || !sameKey(chain, key) {
			continue
		}
		l.key = key[chain[0]]
		back := slices.Clone(chain)
		slices.Reverse(back)
		for _, c := range [][]int{chain, back} {
			if rel := l.retrack(s, r, opt, first, c, minCluster); rel.Maps > 0 {
				out = append(out, rel)
			}
		}
	}
	return out
}

// retrack places one robot's maps (chain, in the order given; first as
// observationStarts) one after another against l's landmarks, as a SLAM
// front end tracks a robot in a known map: the first stays where opt put
// it; each next one is predicted from the last placed by their odometry
// (s.Poses) and moved to the placement near the prediction
// (placementPoses) that explains the most of its landmarks, each by a
// cluster of its own within radius, the one nearest the prediction on a
// tie. The chain's observations take the clusters their placements give
// (or none); the rest of r stands, and Maps counts the maps whose
// clusters changed.
func (l *relocation) retrack(s *localmap.Set, r *Result, opt *Optimized, first, chain []int, minCluster int) *Relocated {
	out := &Relocated{Poses: slices.Clone(opt.Graph.Poses)}
	cluster := slices.Clone(r.Cluster)
	for i, k := range chain {
		lms := s.Maps[k].Landmarks
		var p mapPlacement
		if i == 0 {
			p = l.place(lms, opt.Graph.Poses[k])
		} else {
			prev := chain[i-1]
			pred := compose(out.Poses[prev], s.Poses[prev].Between(s.Poses[k]))
			p = mostExplaining(append([]mapPlacement{l.place(lms, pred)}, l.placements(lms, pred)...), pred)
		}
		out.Poses[k] = p.pose
		if !slices.Equal(cluster[first[k]:first[k+1]], p.cluster) {
			out.Maps++
		}
		copy(cluster[first[k]:], p.cluster)
	}
	out.Result = &Result{Method: r.Method, Seconds: r.Seconds}
	out.Result.Cluster, out.Result.Clusters = renumber(eval.MinTrack(cluster, minCluster))
	return out
}
