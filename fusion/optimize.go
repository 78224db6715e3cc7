package fusion

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/clearmatch/clearmatch/localmap"
)

// OptimizeOptions configure Optimize. Zero fields take the defaults.
type OptimizeOptions struct {
	// Kernel is the robust loss on the observations (0: DefaultKernel):
	// GNC, Geman–McClure's graduated from nearly least squares down to
	// itself (Yang et al., RA-L 2020), which stops a wrong association's
	// pull once the rest of the map disagrees with it; or Huber, whose
	// pull stops growing but never stops.
	Kernel Kernel
	// Width is the kernel's width in standard deviations of an
	// observation (0: 3 for GNC, 1.345 for Huber).
	Width float64
	// MaxIterations bounds Levenberg–Marquardt's (0: 100; 10 in each of
	// GNC's relaxed stages).
	MaxIterations int
	// MaxMaps bounds a connected component's maps (0:
	// DefaultMaxOptimizedMaps) where its reduced system is dense, 9·maps²
	// numbers; a component whose maps are eliminated instead (few
	// landmarks, banded odometry: stepByLandmarks) is not bounded.
	MaxMaps int
}

// GNCWidth is GNC's default width, standard deviations.
const GNCWidth = 3

// Kernel names a robust loss.
type Kernel string

// The kernels; DefaultKernel is OptimizeOptions' (docs/decisions.md, "The
// optimizer's kernel").
const (
	GNC           Kernel = "gnc"
	Huber         Kernel = "huber"
	DefaultKernel        = GNC
)

// DefaultMaxOptimizedMaps bounds a component's maps by default: 1000
// maps hold their reduced system in 72 MB.
const DefaultMaxOptimizedMaps = 1000

// Optimized is Optimize's result.
type Optimized struct {
	// Graph is the problem with the optimized poses and landmarks.
	Graph *PoseGraph
	// InitialCost and Cost are the robust sum of squared whitened
	// residuals before and after; Iterations counts the accepted steps
	// (of every component).
	InitialCost, Cost float64
	Iterations        int
	// Components counts the groups of maps joined by odometry or shared
	// landmarks: each keeps its first map where it was (the gauge), and
	// Component is each map's group. Groups share no frame: their
	// relative placement is arbitrary.
	Components int
	Component  []int
}

// Optimize solves g's least-squares problem: every map pose and fused
// landmark moved so that the odometry and the observations agree, by
// Levenberg–Marquardt with the landmarks eliminated by the Schur
// complement (each step solves the maps' reduced system, then every
// landmark from it), as g2o and Ceres do, and a robust kernel on the
// observations. Each connected component is solved apart, its first map
// held fixed. g is not changed.
func Optimize(ctx context.Context, g *PoseGraph, o OptimizeOptions) (*Optimized, error) {
	if o.Kernel == "" {
		o.Kernel = DefaultKernel
	}
	if o.Width == 0 {
		o.Width = map[Kernel]float64{GNC: GNCWidth, Huber: 1.345}[o.Kernel]
	}
	if o.MaxIterations == 0 {
		o.MaxIterations = 100
	}
	if o.MaxMaps == 0 {
		o.MaxMaps = DefaultMaxOptimizedMaps
	}
	if o.Kernel != GNC && o.Kernel != Huber {
		return nil, fmt.Errorf("fusion: optimize: kernel %q: want %s or %s", o.Kernel, GNC, Huber)
	}
	if !(o.Width > 0) || math.IsInf(o.Width, 0) || o.MaxIterations < 0 || o.MaxMaps < 1 || !(g.LandmarkSigma > 0) {
		return nil, fmt.Errorf("fusion: optimize: width %v, %d iterations, %d maps, landmark σ %v: want positive values", o.Width, o.MaxIterations, o.MaxMaps, g.LandmarkSigma)
	}
	out := &PoseGraph{Poses: append([]localmap.Pose(nil), g.Poses...), Landmarks: append([][2]float64(nil), g.Landmarks...),
		Odometry: g.Odometry, Observations: g.Observations, LandmarkSigma: g.LandmarkSigma}
	res := &Optimized{Graph: out, Component: make([]int, len(g.Poses))}
	for c, maps := range g.components() {
		for _, m := range maps {
			res.Component[m] = c
		}
		k := kernel{huber: o.Width}
		if o.Kernel == GNC {
			k = kernel{gm: o.Width, mu: 1}
		}
		p := newLMProblem(out, maps, k)
		if _, banded := p.bandwidth(); len(maps) > o.MaxMaps && !banded {
			return nil, fmt.Errorf("fusion: optimize: %d maps joined in one component, more than %d (its reduced system would take %d MB)", len(maps), o.MaxMaps, 72*len(maps)*len(maps)/1000000)
		}
		c0, c, it, err := p.solve(ctx, o.MaxIterations)
		if err != nil {
			return nil, err
		}
		p.store(out)
		res.InitialCost, res.Cost, res.Iterations, res.Components = res.InitialCost+c0, res.Cost+c, res.Iterations+it, res.Components+1
	}
	return res, nil
}

// components are g's maps grouped by odometry and shared landmarks, each
// group in map order, the groups by their first map.
func (g *PoseGraph) components() [][]int {
	parent := make([]int, len(g.Poses))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int) {
		if a, b = find(a), find(b); a != b {
			parent[max(a, b)] = min(a, b)
		}
	}
	for _, e := range g.Odometry {
		union(e.From, e.To)
	}
	first := make([]int, len(g.Landmarks))
	for i := range first {
		first[i] = -1
	}
	for _, ob := range g.Observations {
		if first[ob.Landmark] < 0 {
			first[ob.Landmark] = ob.Map
		}
		union(first[ob.Landmark], ob.Map)
	}
	root := make([]int, len(g.Poses))
	for k := range root {
		root[k] = find(k)
	}
	return GroupMaps(root)
}

// lmProblem is one component: its maps (local 0 held fixed), its
// landmarks and edges renumbered.
type lmProblem struct {
	maps, marks []int // global indices
	poses       []localmap.Pose
	pos         [][2]float64
	odo         []OdometryEdge
	obs         []Observation
	sigma       float64
	kernel      kernel
	byMark      [][]int // each landmark's observations
}

func newLMProblem(g *PoseGraph, maps []int, k kernel) *lmProblem {
	p := &lmProblem{maps: maps, sigma: g.LandmarkSigma, kernel: k}
	local := map[int]int{}
	for i, m := range maps {
		local[m] = i
		p.poses = append(p.poses, g.Poses[m])
	}
	for _, e := range g.Odometry {
		if i, ok := local[e.From]; ok {
			e.From, e.To = i, local[e.To]
			p.odo = append(p.odo, e)
		}
	}
	markOf := map[int]int{}
	for _, ob := range g.Observations {
		i, ok := local[ob.Map]
		if !ok {
			continue
		}
		l, seen := markOf[ob.Landmark]
		if !seen {
			l = len(p.marks)
			markOf[ob.Landmark] = l
			p.marks, p.pos, p.byMark = append(p.marks, ob.Landmark), append(p.pos, g.Landmarks[ob.Landmark]), append(p.byMark, nil)
		}
		p.byMark[l] = append(p.byMark[l], len(p.obs))
		p.obs = append(p.obs, Observation{Map: i, Landmark: l, X: ob.X, Y: ob.Y})
	}
	return p
}

// store writes the component's values into g.
func (p *lmProblem) store(g *PoseGraph) {
	for i, m := range p.maps {
		g.Poses[m] = p.poses[i]
	}
	for l, c := range p.marks {
		g.Landmarks[c] = p.pos[l]
	}
}

// solve runs Levenberg–Marquardt (Marquardt's diagonal scaling) until the
// cost stops falling by more than a relative 1e-10.
func (p *lmProblem) solve(ctx context.Context, maxIter int) (cost0, cost float64, iters int, err error) {
	if p.kernel.gm == 0 {
		return p.levenberg(ctx, maxIter)
	}
	worst := 0.0
	for _, ob := range p.obs {
		e, _, _ := observationResidual(p.poses[ob.Map], p.pos[ob.Landmark], ob)
		worst = max(worst, math.Hypot(e[0], e[1])/p.sigma)
	}
	p.kernel.mu = max(1, 2*worst*worst/(p.kernel.gm*p.kernel.gm))
	first := true
	for {
		stageIter := maxIter
		if p.kernel.mu > 1 {
			stageIter = min(maxIter, gncStageIterations)
		}
		c0, c, it, err := p.levenberg(ctx, stageIter)
		if err != nil {
			return 0, 0, 0, err
		}
		if first {
			cost0, first = c0, false
		}
		cost, iters = c, iters+it
		if p.kernel.mu == 1 {
			return cost0, cost, iters, nil
		}
		p.kernel.mu = max(1, p.kernel.mu/1.4)
	}
}

// gncStageIterations bounds the iterations of each relaxed GNC stage:
// each only starts the next from a better place.
const gncStageIterations = 10

// levenberg minimizes the cost under the problem's kernel as it stands.
func (p *lmProblem) levenberg(ctx context.Context, maxIter int) (cost0, cost float64, iters int, err error) {
	cost0 = p.cost(p.poses, p.pos)
	cost = cost0
	lambda := 1e-4
	for iters < maxIter && lambda < 1e12 {
		if err := ctx.Err(); err != nil {
			return 0, 0, 0, err
		}
		poses, pos, ok := p.step(lambda)
		if !ok {
			lambda *= 10
			continue
		}
		c := p.cost(poses, pos)
		if !(c < cost) {
			lambda *= 10
			continue
		}
		iters++
		done := cost-c <= 1e-10*cost
		p.poses, p.pos, cost = poses, pos, c
		lambda = max(lambda/10, 1e-12)
		if done {
			break
		}
	}
	return cost0, cost, iters, nil
}

// cost is the robust sum of squared whitened residuals at poses, pos.
func (p *lmProblem) cost(poses []localmap.Pose, pos [][2]float64) float64 {
	c := 0.0
	for _, ob := range p.obs {
		e, _, _ := observationResidual(poses[ob.Map], pos[ob.Landmark], ob)
		s := math.Hypot(e[0], e[1]) / p.sigma
		c += p.kernel.rho(s)
	}
	for _, e := range p.odo {
		r, _, _ := odometryResidual(poses[e.From], poses[e.To], e)
		c += (r[0]*r[0]+r[1]*r[1])/(e.SigmaXY*e.SigmaXY) + r[2]*r[2]/(e.SigmaTheta*e.SigmaTheta)
	}
	return c
}

// observationResidual is landmark l predicted in pose x's frame less the
// observation, and its Jacobians in the pose (x, y, θ) and the landmark.
func observationResidual(x localmap.Pose, l [2]float64, ob Observation) (e [2]float64, jp [2][3]float64, jl [2][2]float64) {
	s, c := math.Sincos(x.Theta)
	dx, dy := l[0]-x.X, l[1]-x.Y
	px, py := c*dx+s*dy, -s*dx+c*dy
	e = [2]float64{px - ob.X, py - ob.Y}
	jp = [2][3]float64{{-c, -s, py}, {s, -c, -px}}
	jl = [2][2]float64{{c, s}, {-s, c}}
	return e, jp, jl
}

// odometryResidual is pose b in pose a's frame less the edge's
// measurement (the angle wrapped), and its Jacobians in a and b.
func odometryResidual(a, b localmap.Pose, e OdometryEdge) (r [3]float64, ja, jb [3][3]float64) {
	s, c := math.Sincos(a.Theta)
	dx, dy := b.X-a.X, b.Y-a.Y
	px, py := c*dx+s*dy, -s*dx+c*dy
	r = [3]float64{px - e.Delta.X, py - e.Delta.Y, math.Remainder(b.Theta-a.Theta-e.Delta.Theta, 2*math.Pi)}
	ja = [3][3]float64{{-c, -s, py}, {s, -c, -px}, {0, 0, -1}}
	jb = [3][3]float64{{c, s, 0}, {-s, c, 0}, {0, 0, 1}}
	return r, ja, jb
}

// step is one damped Gauss–Newton step from the current values (the
// kernel's weights taken at them): the normal equations assembled, the
// landmarks eliminated, the maps' reduced system solved by Cholesky and
// the landmarks recovered, or (few landmarks, banded odometry) the maps
// eliminated instead (stepByLandmarks). ok is false when the system is
// not positive definite at this damping.
func (p *lmProblem) step(lambda float64) ([]localmap.Pose, [][2]float64, bool) {
	if k, banded := p.bandwidth(); banded {
		return p.stepByLandmarks(p.assembleBanded(k), k, lambda)
	}
	return p.stepByMaps(p.assemble(), lambda)
}

// stepByMaps is step with the landmarks eliminated (q assembled).
func (p *lmProblem) stepByMaps(q *normal, lambda float64) ([]localmap.Pose, [][2]float64, bool) {
	inv, ok := q.eliminate(p, lambda)
	if !ok {
		return nil, nil, false
	}
	dp := make([]float64, q.n)
	if q.n > 0 {
		var ch mat.Cholesky
		if !ch.Factorize(mat.NewSymDense(q.n, q.hpp)) {
			return nil, nil, false
		}
		var x mat.VecDense
		if err := ch.SolveVecTo(&x, mat.NewVecDense(q.n, q.bp)); err != nil {
			return nil, nil, false
		}
		copy(dp, x.RawVector().Data)
	}
	for _, v := range dp {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, false
		}
	}
	return p.update(q, inv, dp)
}

// normal are the normal equations H δ = b in blocks: the free maps'
// (map 0 is the gauge; map m > 0 at rows 3(m−1)), each landmark's 2×2,
// and each observation's map–landmark block.
type normal struct {
	n    int
	hpp  []float64         // n × n, row-major (assemble)
	band *mat.SymBandDense // or its upper band (assembleBanded)
	bp   []float64
	hll  [][2][2]float64
	bl   [][2]float64
	hpl  [][3][2]float64
}

func at(m int) int { return 3 * (m - 1) }

// addPP adds ja' diag(w) jb (rows of the Jacobians) to maps a and b's block.
func (q *normal) addPP(a, b int, ja, jb [][3]float64, w []float64) {
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			v := 0.0
			for k := range w {
				v += ja[k][r] * w[k] * jb[k][c]
			}
			i, j := at(a)+r, at(b)+c
			switch {
			case q.band == nil:
				q.hpp[i*q.n+j] += v
			case i <= j: // the band holds the upper triangle
				q.band.SetSymBand(i, j, q.band.At(i, j)+v)
			}
		}
	}
}

// assemble builds the normal equations at the current values.
func (p *lmProblem) assemble() *normal {
	n := 3 * (len(p.poses) - 1)
	return p.assembleInto(&normal{n: n, hpp: make([]float64, n*n)})
}

// assembleBanded is assemble with the maps' block held in a band of k
// scalars off the diagonal (poseBandwidth), not densely.
func (p *lmProblem) assembleBanded(k int) *normal {
	n := 3 * (len(p.poses) - 1)
	return p.assembleInto(&normal{n: n, band: mat.NewSymBandDense(n, k, nil)})
}

// assembleInto fills q, its maps' block allocated, at the current values.
func (p *lmProblem) assembleInto(q *normal) *normal {
	n := q.n
	q.bp, q.hll, q.bl, q.hpl = make([]float64, n), make([][2][2]float64, len(p.pos)), make([][2]float64, len(p.pos)), make([][3][2]float64, len(p.obs))
	for o, ob := range p.obs {
		e, jp, jl := observationResidual(p.poses[ob.Map], p.pos[ob.Landmark], ob)
		w := p.kernel.weight(math.Hypot(e[0], e[1])/p.sigma) / (p.sigma * p.sigma)
		h, b := &q.hll[ob.Landmark], &q.bl[ob.Landmark]
		for r := 0; r < 2; r++ {
			for c := 0; c < 2; c++ {
				h[r][c] += w * (jl[0][r]*jl[0][c] + jl[1][r]*jl[1][c])
			}
			b[r] -= w * (jl[0][r]*e[0] + jl[1][r]*e[1])
		}
		if ob.Map == 0 {
			continue
		}
		rows := [][3]float64{jp[0], jp[1]}
		q.addPP(ob.Map, ob.Map, rows, rows, []float64{w, w})
		for r := 0; r < 3; r++ {
			q.bp[at(ob.Map)+r] -= w * (jp[0][r]*e[0] + jp[1][r]*e[1])
			for c := 0; c < 2; c++ {
				q.hpl[o][r][c] = w * (jp[0][r]*jl[0][c] + jp[1][r]*jl[1][c])
			}
		}
	}
	for _, ed := range p.odo {
		r, ja, jb := odometryResidual(p.poses[ed.From], p.poses[ed.To], ed)
		w := []float64{1 / (ed.SigmaXY * ed.SigmaXY), 1 / (ed.SigmaXY * ed.SigmaXY), 1 / (ed.SigmaTheta * ed.SigmaTheta)}
		ends := []struct {
			m int
			j [][3]float64
		}{{ed.From, ja[:]}, {ed.To, jb[:]}}
		for _, u := range ends {
			if u.m == 0 {
				continue
			}
			for _, v := range ends {
				if v.m != 0 {
					q.addPP(u.m, v.m, u.j, v.j, w)
				}
			}
			for c := 0; c < 3; c++ {
				for k := 0; k < 3; k++ {
					q.bp[at(u.m)+c] -= u.j[k][c] * w[k] * r[k]
				}
			}
		}
	}
	return q
}

// eliminate damps q (Marquardt: λ times the diagonal) and replaces the
// maps' blocks by the Schur complement of the landmarks; it returns each
// damped landmark block's inverse.
func (q *normal) eliminate(p *lmProblem, lambda float64) ([][2][2]float64, bool) {
	for i := 0; i < q.n; i++ {
		q.hpp[i*q.n+i] = damped(q.hpp[i*q.n+i], lambda)
	}
	inv := make([][2][2]float64, len(q.hll))
	for l, h := range q.hll {
		h[0][0], h[1][1] = damped(h[0][0], lambda), damped(h[1][1], lambda)
		det := h[0][0]*h[1][1] - h[0][1]*h[1][0]
		if !(det > 0) {
			return nil, false
		}
		inv[l] = [2][2]float64{{h[1][1] / det, -h[0][1] / det}, {-h[1][0] / det, h[0][0] / det}}
		for _, o1 := range p.byMark[l] {
			m1 := p.obs[o1].Map
			if m1 == 0 {
				continue
			}
			a := mul32x22(q.hpl[o1], inv[l]) // H_pl H_ll⁻¹
			for r := 0; r < 3; r++ {
				q.bp[at(m1)+r] -= a[r][0]*q.bl[l][0] + a[r][1]*q.bl[l][1]
			}
			for _, o2 := range p.byMark[l] {
				if m2 := p.obs[o2].Map; m2 != 0 {
					for r := 0; r < 3; r++ {
						for c := 0; c < 3; c++ {
							q.hpp[(at(m1)+r)*q.n+at(m2)+c] -= a[r][0]*q.hpl[o2][c][0] + a[r][1]*q.hpl[o2][c][1]
						}
					}
				}
			}
		}
	}
	return inv, true
}

// update applies the maps' step dp and recovers each landmark's from it.
func (p *lmProblem) update(q *normal, inv [][2][2]float64, dp []float64) ([]localmap.Pose, [][2]float64, bool) {
	poses := p.movedBy(dp)
	pos := append([][2]float64(nil), p.pos...)
	for l := range pos {
		r := q.bl[l]
		for _, o := range p.byMark[l] {
			if m := p.obs[o].Map; m != 0 {
				d := dp[at(m) : at(m)+3]
				for c := 0; c < 2; c++ {
					r[c] -= q.hpl[o][0][c]*d[0] + q.hpl[o][1][c]*d[1] + q.hpl[o][2][c]*d[2]
				}
			}
		}
		pos[l][0] += inv[l][0][0]*r[0] + inv[l][0][1]*r[1]
		pos[l][1] += inv[l][1][0]*r[0] + inv[l][1][1]*r[1]
	}
	return poses, pos, true
}

// movedBy is the problem's poses moved by the maps' step dp (map 0, the
// gauge, stays).
func (p *lmProblem) movedBy(dp []float64) []localmap.Pose {
	poses := append([]localmap.Pose(nil), p.poses...)
	for m := 1; m < len(poses); m++ {
		d := dp[at(m) : at(m)+3]
		poses[m] = localmap.Pose{X: poses[m].X + d[0], Y: poses[m].Y + d[1], Theta: math.Remainder(poses[m].Theta+d[2], 2*math.Pi)}
	}
	return poses
}

// damped is a normal equations' diagonal entry v under Marquardt's
// damping λ (scaled by the entry itself, floored for an entry near 0).
func damped(v, lambda float64) float64 {
	return v + lambda*max(v, 1e-9)
}

// mul32x22 is a (3×2) times b (2×2).
func mul32x22(a [3][2]float64, b [2][2]float64) (out [3][2]float64) {
	for r := 0; r < 3; r++ {
		for c := 0; c < 2; c++ {
			out[r][c] = a[r][0]*b[0][c] + a[r][1]*b[1][c]
		}
	}
	return out
}

// kernel is the robust loss on an observation's whitened residual s:
// Huber's of width huber, or (gm > 0) Geman–McClure's of width gm
// relaxed by mu ≥ 1 (GNC; mu 1 is the loss itself).
type kernel struct{ huber, gm, mu float64 }

func (k kernel) rho(s float64) float64 {
	if k.gm > 0 {
		m := k.mu * k.gm * k.gm
		return m * s * s / (m + s*s)
	}
	if s <= k.huber {
		return s * s
	}
	return 2*k.huber*s - k.huber*k.huber
}

// weight is the iteratively reweighted least squares weight at s.
func (k kernel) weight(s float64) float64 {
	if k.gm > 0 {
		m := k.mu * k.gm * k.gm
		return m * m / ((m + s*s) * (m + s*s))
	}
	if s <= k.huber {
		return 1
	}
	return k.huber / s
}
