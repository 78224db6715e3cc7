package clear

import (
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/floats"
	lapackgo "gonum.org/v1/gonum/lapack/gonum"
)

// The iterative eigensolver for large components.
//
// CLEAR needs, per component, only the eigenpairs of L_nrm below the
// threshold (and, when the universe size exceeds their number, a few more).
// They are the largest eigenpairs of P_nrm = I − L_nrm, which a block Lanczos
// process finds in a few matrix–vector products with the sparse component.
// The process keeps a fully reorthogonalized basis Q and forms the Rayleigh
// quotient T = Qᵀ P_nrm Q exactly, so Rayleigh–Ritz is valid for any basis,
// including the random vectors injected when the Krylov space becomes
// invariant (which happens at once on near-cliques). Converged Ritz pairs
// are locked, and a further run from a fresh random block in their
// orthogonal complement must find nothing else above the floor before the
// result is accepted: this catches eigenvalues a single run can miss, such
// as a multiplicity larger than the block size.
//
// Accuracy: every returned pair has residual ‖P_nrm x − θ x‖ ≤ lanczosTol,
// so its eigenvalue is within lanczosTol of an eigenvalue of the component,
// well inside ThresholdMargin.

const (
	lanczosTol = 1e-10
	maxRuns    = 64
)

type lapackImpl = lapackgo.Implementation

// topEigen returns eigenpairs of c's P_nrm, by decreasing eigenvalue θ: all
// with θ > floor, and at least the nmin largest (fewer only when the
// component is smaller). ok is false when a run did not converge.
func topEigen(c *component, floor float64, nmin int, seed uint64) ([]float64, [][]float64, bool) {
	n := c.size()
	nmin = min(nmin, n)
	rng := rand.New(rand.NewPCG(seed, uint64(c.verts[0])))
	var theta []float64
	var locked [][]float64
	verified := false // a run found nothing more above the floor
	for run := 0; run < maxRuns && len(locked) < n; run++ {
		// Anything in the complement above the smallest locked value (or the
		// floor) belongs to the result as well.
		lockFloor := floor
		for _, t := range theta {
			lockFloor = min(lockFloor, t)
		}
		want := max(0, nmin-len(locked))
		th, vs, good := lanczosRun(c, locked, lockFloor, want, rng)
		if !good {
			return nil, nil, false
		}
		if len(th) == 0 {
			verified = true // nothing else above the floor
			break
		}
		theta = append(theta, th...)
		locked = append(locked, vs...)
	}
	if !verified && len(locked) < n {
		return nil, nil, false // runs exhausted: let the caller decompose densely
	}
	// Sort by decreasing θ (runs append in decreasing order, but a later run
	// may find a value larger than an earlier one).
	order := make([]int, len(theta))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return theta[order[a]] > theta[order[b]] })
	st := make([]float64, len(theta))
	sv := make([][]float64, len(theta))
	for i, o := range order {
		st[i], sv[i] = theta[o], locked[o]
	}
	return st, sv, true
}

// lanczosRun runs one Lanczos process with full reorthogonalization in the
// orthogonal complement of locked and returns its converged top Ritz pairs:
// those with θ > floor and at least the want largest. The first Ritz value
// not returned (the witness) must have converged enough to be surely below
// the floor. T = Qᵀ P_nrm Q is tridiagonal (α on the diagonal, β beside it),
// so Ritz values cost O(k²) (Dsterf) and only the wanted Ritz vectors are
// computed, by inverse iteration on T. Accepted vectors are checked against
// the operator itself before they are returned.
func lanczosRun(c *component, locked [][]float64, floor float64, want int, rng *rand.Rand) ([]float64, [][]float64, bool) {
	n := c.size()
	avail := n - len(locked)
	var q [][]float64
	var alpha, beta []float64
	v := randomUnit(rng, n)
	for !orthonormalize(v, locked) {
		v = randomUnit(rng, n)
	}
	nextCheck := min(avail, max(8, 2*(want+1)))
	for {
		k := len(q)
		q = append(q, v)
		w := make([]float64, n)
		c.mulPnrm(w, v)
		project(w, locked)
		a := dot(v, w)
		alpha = append(alpha, a)
		axpy(w, -a, v)
		if k > 0 {
			axpy(w, -beta[k-1], q[k-1])
		}
		// Full reorthogonalization; a second pass only when the first removed
		// most of w (the DGKS criterion), as cancellation then leaves w
		// less orthogonal than rounding allows.
		b0 := math.Sqrt(dot(w, w))
		project(w, q)
		project(w, locked)
		b := math.Sqrt(dot(w, w))
		if b < 0.7071*b0 {
			project(w, q)
			project(w, locked)
			b = math.Sqrt(dot(w, w))
		}
		k++
		full := k >= avail
		if full || k >= nextCheck {
			th, vs, done := ritzCheck(c, alpha, beta, b, q, locked, floor, want, full)
			if done {
				return th, vs, true
			}
			if full {
				return nil, nil, false
			}
			nextCheck = min(avail, k+max(4, k/8))
		}
		if b > 1e-10 {
			scale(w, 1/b)
			beta = append(beta, b)
			v = w
			continue
		}
		// The Krylov space is invariant: continue with a random vector,
		// which decouples T (β = 0).
		beta = append(beta, 0)
		v = randomUnit(rng, n)
		for !orthonormalize(v, locked, q) {
			v = randomUnit(rng, n)
		}
	}
}

// ritzCheck computes the Ritz values of the tridiagonal T (α, β), and for
// the top ones their Ritz vectors, and reports whether the wanted pairs have
// converged. bLast is the norm of the next Lanczos vector, so the residual
// of the Ritz pair (θ, Qy) is |bLast · y_k|.
func ritzCheck(c *component, alpha, beta []float64, bLast float64, q, locked [][]float64, floor float64, want int, full bool) ([]float64, [][]float64, bool) {
	k := len(alpha)
	d := append([]float64(nil), alpha...)
	e := append([]float64(nil), beta[:k-1]...)
	if !(lapackImpl{}).Dsterf(k, d, e) {
		return nil, nil, false
	}
	// d is ascending; the top Ritz values are at the end.
	above := 0
	for i := k - 1; i >= 0 && d[i] > floor; i-- {
		above++
	}
	keep := max(above, min(want, k))
	need := keep
	if keep < k && !full {
		need++ // the witness
	}
	if !full && keep > 0 {
		// Cheap pre-test: the lowest wanted Ritz pair converges last.
		y := inverseIteration(alpha, beta[:k-1], d[k-keep], 0, nil, newTridiagWork(k))
		if math.Abs(bLast*y[k-1]) > lanczosTol/4 {
			return nil, nil, false
		}
	}
	ys := tridiagVectors(alpha, beta[:k-1], d, need)
	for i := 0; i < need; i++ {
		theta := d[k-1-i]
		res := math.Abs(bLast * ys[i][k-1])
		if full {
			continue
		}
		if i < keep && res > lanczosTol/4 {
			return nil, nil, false
		}
		if i == keep && res > lanczosTol && res > (floor-theta)/4 {
			return nil, nil, false
		}
	}
	// Ritz vectors x = Q y, orthonormalized, then checked on the operator.
	n := len(q[0])
	th := make([]float64, 0, keep)
	vs := make([][]float64, 0, keep)
	w := make([]float64, n)
	for i := 0; i < keep; i++ {
		x := make([]float64, n)
		for j, yj := range ys[i] {
			if yj != 0 {
				axpy(x, yj, q[j])
			}
		}
		if !orthonormalize(x, locked, vs) {
			return nil, nil, false
		}
		c.mulPnrm(w, x)
		project(w, locked)
		theta := dot(x, w)
		axpy(w, -theta, x)
		if math.Sqrt(dot(w, w)) > lanczosTol && !full {
			return nil, nil, false
		}
		th = append(th, theta)
		vs = append(vs, x)
	}
	return th, vs, true
}

// tridiagVectors returns unit eigenvectors of the symmetric tridiagonal
// matrix (diagonal a, off-diagonal b) for its r largest eigenvalues (vals,
// ascending, as from Dsterf), by inverse iteration. Vectors of close
// eigenvalues are kept orthogonal to each other, as LAPACK's dstein does.
func tridiagVectors(a, b, vals []float64, r int) [][]float64 {
	k := len(a)
	out := make([][]float64, 0, r)
	wk := newTridiagWork(k)
	clusterStart := 0
	for i := 0; i < r; i++ {
		theta := vals[k-1-i]
		if i > 0 && math.Abs(vals[k-i]-theta) > 1e-3*max(wk.norm(a, b), 1) {
			clusterStart = i
		}
		out = append(out, inverseIteration(a, b, theta, i, out[clusterStart:], wk))
	}
	return out
}

type tridiagWork struct{ dl, dd, du []float64 }

func newTridiagWork(k int) *tridiagWork {
	return &tridiagWork{dl: make([]float64, max(k-1, 0)), dd: make([]float64, k), du: make([]float64, max(k-1, 0))}
}

func (wk *tridiagWork) norm(a, b []float64) float64 {
	nrm := 0.0
	for _, v := range a {
		nrm = max(nrm, math.Abs(v))
	}
	for _, v := range b {
		nrm = max(nrm, math.Abs(v))
	}
	return nrm
}

// inverseIteration returns a unit eigenvector of the tridiagonal (a, b) for
// the eigenvalue theta, kept orthogonal to the vectors in others. seed
// varies the (deterministic) start vector.
func inverseIteration(a, b []float64, theta float64, seed int, others [][]float64, wk *tridiagWork) []float64 {
	k := len(a)
	eps := 1e-15 * max(wk.norm(a, b), 1)
	y := make([]float64, k)
	for j := range y {
		y[j] = 1 + 0.1*math.Sin(float64(7*j+3*seed+1))
	}
	shift := theta + eps
	for it, fails := 0, 0; it < 4 && fails < 64; {
		for j := 0; j < k; j++ {
			wk.dd[j] = a[j] - shift
		}
		copy(wk.dl, b)
		copy(wk.du, b)
		if !(lapackImpl{}).Dgtsv(k, 1, wk.dl, wk.dd, wk.du, y, 1) {
			shift += eps * 16 // exactly singular: perturb the shift
			fails++
			continue
		}
		for _, u := range others {
			axpy(y, -dot(u, y), u)
		}
		nrm := math.Sqrt(dot(y, y))
		if nrm == 0 || math.IsNaN(nrm) || math.IsInf(nrm, 0) {
			for j := range y {
				y[j] = 1 + 0.1*math.Cos(float64(5*j+seed))
			}
			fails++
			continue
		}
		scale(y, 1/nrm)
		it++
	}
	return y
}

// orthonormalize makes v orthogonal to every vector of the sets (two passes
// of classical Gram–Schmidt) and normalizes it. It reports false when v was
// (numerically) in their span.
func orthonormalize(v []float64, sets ...[][]float64) bool {
	n0 := math.Sqrt(dot(v, v))
	if n0 == 0 {
		return false
	}
	for pass := 0; pass < 2; pass++ {
		for _, set := range sets {
			for _, u := range set {
				axpy(v, -dot(u, v), u)
			}
		}
	}
	nv := math.Sqrt(dot(v, v))
	if nv <= 1e-8*n0 {
		return false
	}
	scale(v, 1/nv)
	return true
}

// project removes from w its components along the orthonormal vectors set.
func project(w []float64, set [][]float64) {
	for _, u := range set {
		axpy(w, -dot(u, w), u)
	}
}

func randomUnit(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// dot and axpy use gonum's assembly kernels.
func dot(x, y []float64) float64 { return floats.Dot(x, y) }

func axpy(y []float64, a float64, x []float64) { floats.AddScaled(y, a, x) }

func scale(x []float64, a float64) {
	for i := range x {
		x[i] *= a
	}
}
