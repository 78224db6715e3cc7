package fusion

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/clearmatch/clearmatch/localmap"
)

// Eliminating the maps instead of the landmarks. Eliminating the
// landmarks leaves the maps' reduced system dense wherever landmarks are
// seen from many maps, as in a room of 15 landmarks seen by hundreds of
// maps: its cost grows with the maps cubed. The maps' own block, though,
// is banded (odometry ties a map to its neighbours in map order only,
// and an observation to its own map), so with few landmarks the cheaper
// step eliminates the maps by a banded Cholesky and solves the landmarks'
// small dense system (the same normal equations, the other Schur
// complement).

// poseBandwidth is the maps' block's bandwidth (scalars off the
// diagonal) in the reduced coordinates (map 0 the gauge): each map's own
// 3×3 block and each odometry edge's.
func (p *lmProblem) poseBandwidth() int {
	k := 2
	for _, e := range p.odo {
		if e.From != 0 && e.To != 0 {
			k = max(k, 3*abs(e.To-e.From)+2)
		}
	}
	return k
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// bandwidth is the maps' block's bandwidth (poseBandwidth) and whether
// the maps are eliminated (eliminatesMaps).
func (p *lmProblem) bandwidth() (int, bool) {
	k := p.poseBandwidth()
	return k, p.eliminatesMaps(3*(len(p.poses)-1), k)
}

// eliminatesMaps reports whether eliminating the maps (stepByLandmarks)
// costs less than eliminating the landmarks: a banded factorization and
// one solve a landmark coordinate, O(n·k²·(1+2L)), against the dense
// reduced system's O(n³).
func (p *lmProblem) eliminatesMaps(n, k int) bool {
	if n == 0 || len(p.pos) == 0 {
		return false
	}
	banded := float64(n) * float64(k*k) * float64(1+2*len(p.pos))
	dense := float64(n) * float64(n) * float64(n) / 3
	return banded < dense/4
}

// stepByLandmarks is step with the maps eliminated: q (assembled by
// assembleBanded, not yet damped) is damped as eliminate damps it, the
// maps' banded block factorized, and the landmarks' system C − Bᵀ A⁻¹ B
// solved densely.
func (p *lmProblem) stepByLandmarks(q *normal, k int, lambda float64) ([]localmap.Pose, [][2]float64, bool) {
	n, l2 := q.n, 2*len(p.pos)
	a := q.band
	for i := 0; i < n; i++ {
		a.SetSymBand(i, i, damped(a.At(i, i), lambda))
	}
	var ch mat.BandCholesky
	if !ch.Factorize(a) {
		return nil, nil, false
	}
	// B, the maps–landmarks block, n × 2L, and Y = A⁻¹ B, z = A⁻¹ bp.
	b := mat.NewDense(n, max(l2, 1), nil)
	for o, ob := range p.obs {
		if ob.Map == 0 {
			continue
		}
		for r := 0; r < 3; r++ {
			for c := 0; c < 2; c++ {
				b.Set(at(ob.Map)+r, 2*ob.Landmark+c, b.At(at(ob.Map)+r, 2*ob.Landmark+c)+q.hpl[o][r][c])
			}
		}
	}
	var y mat.Dense
	if err := ch.SolveTo(&y, b); err != nil {
		return nil, nil, false
	}
	var z mat.VecDense
	if err := ch.SolveVecTo(&z, mat.NewVecDense(n, q.bp)); err != nil {
		return nil, nil, false
	}
	// S = C − Bᵀ Y and its right side bl − Bᵀ z.
	var bty mat.Dense
	bty.Mul(b.T(), &y)
	s := mat.NewSymDense(l2, nil)
	rhs := make([]float64, l2)
	for i := 0; i < l2; i++ {
		for j := i; j < l2; j++ {
			v := -bty.At(i, j)
			if i/2 == j/2 {
				h := q.hll[i/2][i%2][j%2]
				if i == j {
					h = damped(h, lambda)
				}
				v += h
			}
			s.SetSym(i, j, v)
		}
		rhs[i] = q.bl[i/2][i%2] - mat.Dot(b.ColView(i), &z)
	}
	var cs mat.Cholesky
	if !cs.Factorize(s) {
		return nil, nil, false
	}
	var dl mat.VecDense
	if err := cs.SolveVecTo(&dl, mat.NewVecDense(l2, rhs)); err != nil {
		return nil, nil, false
	}
	var dp mat.VecDense
	dp.MulVec(&y, &dl)
	dp.SubVec(&z, &dp)
	for _, x := range dp.RawVector().Data {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, nil, false
		}
	}
	pos := append([][2]float64(nil), p.pos...)
	for l := range pos {
		pos[l][0] += dl.AtVec(2 * l)
		pos[l][1] += dl.AtVec(2*l + 1)
	}
	return p.movedBy(dp.RawVector().Data), pos, true
}
