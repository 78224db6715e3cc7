package fusion

import (
	"math"

	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/localmap"
)

// DefaultDNDistance is the paper's definite-negative distance, metres.
const DefaultDNDistance = 2.0

// Scores are a fused map's figures, as the paper scores its forest and,
// when the maps carry a true identity, against it. A nil figure is one
// the input cannot give (no poses, no truth).
type Scores struct {
	// DN counts the associated pairs (two observations of one cluster)
	// farther apart than the DN distance in the odometry frame: definite
	// negatives; PP the others, potential positives; PBar is
	// PP/(DN+PP). They need the map poses.
	DN   *int64   `json:"dn"`
	PP   *int64   `json:"pp"`
	PBar *float64 `json:"pbar"`
	// Precision, Recall and F1 over the associated pairs against the true
	// identities; precision and F1 are nil when no pair is associated.
	Precision *float64 `json:"precision"`
	Recall    *float64 `json:"recall"`
	F1        *float64 `json:"f1"`
}

// Score scores r's clusters of s's landmarks.
func Score(s *localmap.Set, r *Result, dnDistance float64) Scores {
	var sc Scores
	if s.Poses != nil && r.Cluster != nil {
		dn, pp := definiteNegatives(s, r, dnDistance)
		sc.DN, sc.PP = &dn, &pp
		if dn+pp > 0 {
			p := float64(pp) / float64(dn+pp)
			sc.PBar = &p
		}
	}
	if s.HasTruth() && r.Cluster != nil {
		g := eval.ScoreGroups(truthLabels(s), r.Cluster)
		sc.Recall = &g.Recall
		if g.Returned > 0 { // no associated pair: precision and F1 are undefined, not 0
			sc.Precision, sc.F1 = &g.Precision, &g.F1
		}
	}
	return sc
}

// definiteNegatives counts the pairs of each cluster's observations
// farther apart than d in the odometry frame (DN), and the others (PP).
func definiteNegatives(s *localmap.Set, r *Result, d float64) (dn, pp int64) {
	at := Positions(s)
	eachPair(r, func(a, b int) {
		if math.Hypot(at[a][0]-at[b][0], at[a][1]-at[b][1]) > d {
			dn++
		} else {
			pp++
		}
	})
	return dn, pp
}

// Negatives returns up to limit definite-negative pairs of r (in cluster
// order) as their two positions in the odometry frame, for drawing.
func Negatives(s *localmap.Set, r *Result, d float64, limit int) [][2][2]float64 {
	at := Positions(s)
	var out [][2][2]float64
	eachPair(r, func(a, b int) {
		if len(out) < limit && math.Hypot(at[a][0]-at[b][0], at[a][1]-at[b][1]) > d {
			out = append(out, [2][2]float64{at[a], at[b]})
		}
	})
	return out
}

// Wrong returns up to limit pairs of observations that r put in one
// cluster although their true identities differ, in the odometry frame:
// the association's real errors, when the maps carry a truth.
func Wrong(s *localmap.Set, r *Result, limit int) [][2][2]float64 {
	at, truth := Positions(s), truthLabels(s)
	var out [][2][2]float64
	eachPair(r, func(a, b int) {
		if len(out) < limit && truth[a] != truth[b] {
			out = append(out, [2][2]float64{at[a], at[b]})
		}
	})
	return out
}

// TruthLabels numbers every observation's true identity (by first
// appearance, observations numbered map by map); nil without a truth.
func TruthLabels(s *localmap.Set) []int {
	if !s.HasTruth() {
		return nil
	}
	return truthLabels(s)
}

// eachPair calls fn with every two observations of one cluster.
func eachPair(r *Result, fn func(a, b int)) {
	for _, members := range clusterMembers(r.Cluster, r.Clusters) {
		for x := range members {
			for y := x + 1; y < len(members); y++ {
				fn(members[x], members[y])
			}
		}
	}
}

// Positions returns every observation (landmarks numbered map by map) in
// the odometry frame (each map's own frame without poses).
func Positions(s *localmap.Set) [][2]float64 {
	var at [][2]float64
	for k, m := range s.Maps {
		for _, l := range m.Landmarks {
			x, y := world(s, k, l)
			at = append(at, [2]float64{x, y})
		}
	}
	return at
}

// truthLabels numbers the landmarks' true identities (by first
// appearance).
func truthLabels(s *localmap.Set) []int {
	id := map[string]int{}
	var out []int
	for _, m := range s.Maps {
		for _, l := range m.Landmarks {
			t, ok := id[l.Truth]
			if !ok {
				t = len(id)
				id[l.Truth] = t
			}
			out = append(out, t)
		}
	}
	return out
}
