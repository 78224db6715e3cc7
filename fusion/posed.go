package fusion

import (
	"context"
	"math"
	"math/bits"
	"sort"

	"github.com/clearmatch/clearmatch/internal/pool"
	"github.com/clearmatch/clearmatch/localmap"
)

// Pose-gated association: with odometry poses, a map pair's relative pose
// is predicted, each landmark of one map may pair only with landmarks of
// the other within a gate that grows with the distance travelled between
// the two maps, and the pair is associated on the largest set of gated
// pairings that keep their mutual distances: a maximum clique of the
// consistency graph (Bailey et al., ICRA 2000; CLIPPER, Lusk et al., ICRA
// 2021, scores the same graph); where several cliques are as large, only
// the pairings they all hold count. The prediction does the work that
// five pairings do without it, so three landmarks can associate a pair.

// maxPosedCandidates bounds the gated pairings of a map pair: more means
// the gate is too wide to say much, and the pair is searched without it.
const maxPosedCandidates = 64

// posedGate is the prediction of a map pair: the motion the poses give
// (map J's frame into map I's) and how far from it a landmark may lie.
type posedGate struct {
	pred alignment
	// base is the position error (m) at J's origin; perMetre the heading
	// error (rad) that moves a landmark r metres from it by r·perMetre.
	base, perMetre float64
}

// radius is the gate of a landmark at p in J's frame: the tolerance and
// three standard deviations of the predicted position.
func (g *posedGate) radius(x, y, tol float64) float64 {
	return tol + 3*(g.base+g.perMetre*math.Hypot(x, y))
}

// pathLengths is the odometry's path length to each map's pose, through
// its robot's poses in map order: the drift between two maps of a robot
// grows with it.
func pathLengths(s *localmap.Set) []float64 {
	cum := make([]float64, len(s.Poses))
	for k, p := range s.Previous() {
		if p >= 0 {
			cum[k] = cum[p] + math.Hypot(s.Poses[k].X-s.Poses[p].X, s.Poses[k].Y-s.Poses[p].Y)
		}
	}
	return cum
}

// predict is the motion the poses give from map j's frame into map i's.
func predict(pi, pj localmap.Pose) alignment {
	rel := pi.Between(pj)
	return alignment{theta: rel.Theta, t: [2]float64{rel.X, rel.Y}}
}

// gateOf is the gate of maps i and j: their predicted motion, widened by
// the drift over the path length d between them.
func gateOf(pi, pj localmap.Pose, d, drift, turnDrift float64) posedGate {
	return posedGate{pred: predict(pi, pj), base: drift * d, perMetre: turnDrift * d}
}

// posedCandidate is a gated pairing: a's landmark i with b's landmark j.
type posedCandidate struct{ i, j int }

// alignPosed is the pose-gated alignment of b onto a: the pairings that
// every largest consistent set of gated pairings holds. It has none when
// they agree on fewer than two, and when the gate says little: its median
// radius is more than a's landmark spacing (the drift since the other map
// is too large, so a wrong landmark is as likely inside as the right
// one), or it admits too many candidates.
func alignPosed(a, b *mapIndex, g *posedGate, tol float64) (al alignment) {
	var cs []posedCandidate
	var radii []float64
	for j, p := range b.pts {
		q := g.pred.apply(p)
		r := g.radius(p.X, p.Y, tol)
		radii = append(radii, r)
		a.grid.Near(q.X, q.Y, r, func(k int32) {
			if math.Hypot(a.pts[k].X-q.X, a.pts[k].Y-q.Y) <= r && math.Abs(a.z[k]-b.z[j]) <= tol {
				cs = append(cs, posedCandidate{int(k), j})
			}
		})
	}
	sort.Float64s(radii)
	if len(radii) == 0 || radii[len(radii)/2] > a.spacing || len(cs) < 2 || len(cs) > maxPosedCandidates {
		return alignment{}
	}
	sort.Slice(cs, func(x, y int) bool {
		if cs[x].i != cs[y].i {
			return cs[x].i < cs[y].i
		}
		return cs[x].j < cs[y].j
	})
	adj := make([]uint64, len(cs))
	for x := range cs {
		for y := x + 1; y < len(cs); y++ {
			if consistentPair(a, b, cs[x], cs[y], tol) {
				adj[x] |= 1 << y
				adj[y] |= 1 << x
			}
		}
	}
	agreed := largestCliques(adj)
	if bits.OnesCount64(agreed) < 2 {
		return alignment{}
	}
	for x := range cs {
		if agreed&(1<<x) != 0 {
			al.matches = append(al.matches, [2]int{cs[x].i, cs[x].j})
		}
	}
	al.theta, al.t = fitRigid(a.pts, b.pts, al.matches)
	al.overlap = countFits(a, b, &al, max(tol, 2*a.spacing), 0)
	return al
}

// consistentPair reports whether two candidates can both hold: different
// landmarks on each side, at the same distance (within twice the
// tolerance) in both maps, and in height.
func consistentPair(a, b *mapIndex, c, d posedCandidate, tol float64) bool {
	if c.i == d.i || c.j == d.j {
		return false
	}
	da := math.Hypot(a.pts[c.i].X-a.pts[d.i].X, a.pts[c.i].Y-a.pts[d.i].Y)
	db := math.Hypot(b.pts[c.j].X-b.pts[d.j].X, b.pts[c.j].Y-b.pts[d.j].Y)
	return math.Abs(da-db) <= 2*tol && math.Abs((a.z[c.i]-a.z[d.i])-(b.z[c.j]-b.z[d.j])) <= 2*tol
}

// largestCliques returns what every largest clique of the graph adj (at
// most 64 vertices, as bit sets) holds: the pairings that every best
// explanation of the pair agrees on (Bron–Kerbosch with pivoting visits
// every maximal clique once).
func largestCliques(adj []uint64) uint64 {
	size := 0
	var agreed uint64
	var visit func(r, p, x uint64)
	visit = func(r, p, x uint64) {
		if p == 0 && x == 0 {
			switch n := bits.OnesCount64(r); {
			case n > size:
				agreed, size = r, n
			case n == size:
				agreed &= r
			}
			return
		}
		if bits.OnesCount64(r)+bits.OnesCount64(p) < size {
			return // cannot reach the best size, nor tie it
		}
		u := bits.TrailingZeros64(p | x)
		for rest := p &^ adj[u]; rest != 0; rest &= rest - 1 {
			v := bits.TrailingZeros64(rest)
			visit(r|1<<v, p&adj[v], x&adj[v])
			p &^= 1 << v
			x |= 1 << v
		}
	}
	all := ^uint64(0)
	if len(adj) < 64 {
		all = 1<<len(adj) - 1
	}
	visit(0, all, 0)
	return agreed
}

// gatePairs is the pose-gated pass over the map pairs, after the search
// without poses found found: the drift estimated when o does not give it,
// found's pairs kept where they agree pairwise with that drift
// (consistentPairs), and each pair's gated alignment kept where it pairs
// more than found's.
func gatePairs(ctx context.Context, s *localmap.Set, idx []*mapIndex, pairs [][2]int, found []alignment, o *AssociateOptions, a *Association) error {
	path := pathLengths(s)
	if o.Drift == 0 {
		o.Drift, o.TurnDrift, a.DriftPairs = estimateDrift(s, path, pairs, found, idx, o.Tolerance)
		if a.DriftPairs < MinDriftPairs {
			o.Drift, o.TurnDrift, a.NeighbourPairs = neighbourDrift(s, path, idx, o.Tolerance)
			if a.NeighbourPairs < MinDriftPairs {
				return nil // too few pairs to say: no gate, rather than a guess
			}
		}
	} else if o.TurnDrift == 0 {
		o.TurnDrift = DefaultTurnDrift
	}
	a.Drift, a.TurnDrift = o.Drift, o.TurnDrift
	consistentPairs(s, path, idx, pairs, found, Noise{Drift: o.Drift, TurnDrift: o.TurnDrift}, o.Tolerance)
	posed := make([]alignment, len(pairs))
	err := pool.ForEach(ctx, len(pairs), o.Workers, nil, func(k int) error {
		i, j := pairs[k][0], pairs[k][1]
		if !s.SameRobot(i, j) {
			return nil // two odometry frames: nothing predicts their motion
		}
		g := gateOf(s.Poses[i], s.Poses[j], math.Abs(path[j]-path[i]), o.Drift, o.TurnDrift)
		if f := alignPosed(idx[i], idx[j], &g, o.Tolerance); len(f.matches) >= o.MinPosed && float64(len(f.matches)) >= o.MinShare*float64(f.overlap) {
			posed[k] = f
		}
		return nil
	})
	if err != nil {
		return err
	}
	for k, f := range posed {
		if len(f.matches) > len(found[k].matches) {
			found[k] = f
			a.Gated[pairs[k]] = true
		}
	}
	return nil
}

// MinDriftPairs is the fewest associated map pairs a drift is read from.
const MinDriftPairs = 8

// estimateDrift is the odometry's drift read from the map pairs the
// search without poses associated (found, by pairs, each of one robot;
// path the poses' path lengths, pathLengths): how far each pair's
// motion lays the second map's landmarks (at their centroid) from where
// the poses put them, beyond the tolerance, and how far it turns them,
// each per metre of path between the two maps, over the pairs whose turn
// agrees with their robot's odometry beyond chance (agreeingByRobot). The median of
// each, times 1.5 (a half-normal's median is 0.67 σ), is robust to a
// minority of wrong pairs among those. n is the number of pairs read;
// with fewer than MinDriftPairs the drift is 0: a guess narrower than the
// odometry's would gate the wrong landmarks in.
func estimateDrift(s *localmap.Set, path []float64, pairs [][2]int, found []alignment, idx []*mapIndex, tol float64) (drift, turn float64, n int) {
	byRobot := map[string][]driftSample{}
	var robots []string
	for k, f := range found {
		i, j := pairs[k][0], pairs[k][1]
		d := math.Abs(path[j] - path[i])
		if len(f.matches) == 0 || d <= 0 || len(idx[j].pts) == 0 || !s.SameRobot(i, j) {
			continue
		}
		r := s.Robot(i)
		if byRobot[r] == nil {
			robots = append(robots, r)
		}
		byRobot[r] = append(byRobot[r], sampleOf(f, predict(s.Poses[i], s.Poses[j]), idx[j].pts, d, tol))
	}
	// The robots' agreeing samples pooled are tested once more, as all
	// samples were before the test was per robot.
	return readDrift(agreeing(agreeingByRobot(byRobot, robots)))
}

// agreeingByRobot are the samples of each robot (byRobot, robots in
// order) that agree with its odometry beyond chance (agreeing), for the
// robots with MinDriftPairs of them or more. Each robot's odometry
// drifts on its own, and the test is per robot: five robots' chance
// pairs pooled pass it where no robot's own do.
func agreeingByRobot(byRobot map[string][]driftSample, robots []string) []driftSample {
	var out []driftSample
	for _, r := range robots {
		if in := agreeing(byRobot[r]); len(in) >= MinDriftPairs {
			out = append(out, in...)
		}
	}
	return out
}

// readDrift is the drift of in, the samples that agree with the
// odometry (agreeing): the median offset and turn per metre of path,
// times 1.5, floored; n is len(in), and with fewer than MinDriftPairs
// the drift is 0.
func readDrift(in []driftSample) (drift, turn float64, n int) {
	if len(in) < MinDriftPairs {
		return 0, 0, len(in)
	}
	pos, ang := make([]float64, len(in)), make([]float64, len(in))
	for k, x := range in {
		pos[k], ang[k] = x.off/x.path, x.turn/x.path
	}
	sort.Float64s(pos)
	sort.Float64s(ang)
	return max(1.5*pos[len(pos)/2], minDrift), max(1.5*ang[len(ang)/2], minTurnDrift), len(in)
}

// driftSample is one associated map pair of a robot as estimateDrift
// reads it: the path between the two maps (m), how far its motion lays
// the second map from where the poses put it beyond the tolerance (m),
// and by what angle it turns it against them (rad).
type driftSample struct{ path, off, turn float64 }

// agreeing are the samples whose turn agrees with the odometry's beyond
// chance, sorted by turn per metre. A shape search that pairs a regular
// layout by chance turns the second map by any angle (uniform on
// [0, π]); a true pair turns it by the odometry's heading drift, which
// grows with the path. Of the bounds on turn per metre, agreeing keeps
// the one below which the samples are least likely under chance alone
// (a Poisson tail, whose mean counts every sample as chance: an a
// contrario test, Desolneux, Moisan and Morel, IJCV 2000). On sparse maps
// most pairs the search finds are chance, and a median over all of them
// reads their spread as drift.
func agreeing(ss []driftSample) []driftSample {
	rate := func(x driftSample) float64 { return x.turn / x.path }
	sort.SliceStable(ss, func(a, b int) bool { return rate(ss[a]) < rate(ss[b]) })
	best, kept := 0.0, 0
	for k := range ss {
		if k+1 < len(ss) && rate(ss[k+1]) == rate(ss[k]) {
			continue // a bound keeps every sample at it
		}
		var chance float64
		for _, x := range ss {
			chance += min(1, rate(ss[k])*x.path/math.Pi)
		}
		if float64(k+1) <= chance {
			continue
		}
		if t := logPoissonTail(k+1, chance); t < best {
			best, kept = t, k+1
		}
	}
	return ss[:kept]
}

// logPoissonTail is log P(X ≥ k) for X Poisson of mean lambda < k,
// summed in logs so that tails far below the smallest float compare.
func logPoissonTail(k int, lambda float64) float64 {
	if lambda <= 0 {
		return math.Inf(-1)
	}
	term := func(j int) float64 {
		lg, _ := math.Lgamma(float64(j + 1))
		return -lambda + float64(j)*math.Log(lambda) - lg
	}
	first, sum := term(k), 1.0
	for j := k + 1; ; j++ {
		r := math.Exp(term(j) - first)
		sum += r
		if r < 1e-17*sum {
			break
		}
	}
	return first + math.Log(sum)
}

// minDrift and minTurnDrift floor an estimated drift: odometry this good
// is unlikely, and a gate that narrow would miss landmarks the local maps
// themselves misplace.
const (
	minDrift     = 0.005
	minTurnDrift = 0.0005
)
