package clear

import (
	"math"
	"math/rand/v2"
	"sort"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	lapackgo "gonum.org/v1/gonum/lapack/gonum"
)

// The iterative eigensolver for large components.
//
// CLEAR needs, per component, only the eigenpairs of L_nrm below the
// threshold (and, when the universe size exceeds their number, a few more).
// They are the largest eigenpairs of P_nrm = I − L_nrm, which a Lanczos
// process finds in a few sparse matrix–vector products. The process keeps a
// fully reorthogonalized basis Q (the three-term recurrence, then classical
// Gram–Schmidt through BLAS-2 kernels, repeated when it cancels much: the
// DGKS criterion), so the
// tridiagonal T = Qᵀ P_nrm Q is exact to rounding and Rayleigh–Ritz is valid
// for any basis, including the random vectors injected when the Krylov space
// becomes invariant (which happens at once on near-cliques).
//
// Finding all eigenvalues above the floor: the largest, θ = 1 with
// eigenvector C^{1/2}·1, is known exactly and locked first. Converged Ritz
// pairs of each run are locked, and the next run starts from a fresh random
// vector in their orthogonal complement. The result is accepted when a run
// spanned the whole complement (at most exactMax dimensions: its Ritz values
// are exact) or when two consecutive runs found nothing more above the
// floor. A single run can miss an eigenvalue: a multiple one, of which one
// Krylov space sees one copy, or one whose eigenvector is nearly orthogonal
// to the start vector (a run stops once its largest remaining Ritz value is
// clearly below the floor, which bounds that value's eigenvalue, not the
// absence of others). Krylov methods cannot rule this out with certainty;
// two independent random starts make it negligible (fuzzing against the
// dense path: none in 57k problems, against 2 with one run).
//
// Accuracy: every returned pair (θ, x = Q y) has residual ‖P_nrm x − θ x‖ ≤
// lanczosTol/4, bounded by |β_k y_k| + ‖T y − θ y‖ + the norm of what
// breakdowns discarded (the Lanczos relation P_nrm Q = Q T + β_k q_{k+1} e_kᵀ
// holds to rounding). So each eigenvalue is within lanczosTol of one of the
// component, well inside ThresholdMargin. This is checked on the operator
// itself with one product: for a pseudo-random combination z = X g of the
// returned vectors, ‖P_nrm z − X Θ g‖ must stay within Σ|g_i|·lanczosTol/4;
// if it does not, the component is decomposed densely instead.

const (
	lanczosTol = 1e-10
	maxRuns    = 64
	// exactMax: a run whose complement has at most this dimension spans
	// all of it, so its Ritz values are the exact eigenvalues there.
	exactMax = 32
	// breakdownTol: a new Lanczos vector whose norm after orthogonalization
	// is at most this is taken as zero (the Krylov space is invariant) and
	// replaced by a random vector; the discarded norms enter the residual
	// bounds. ‖P_nrm‖ ≤ 1, so this is relative.
	breakdownTol = 1e-12
	// reorthRatio: Gram–Schmidt is repeated when it left less than this
	// fraction of the norm of what the three-term recurrence left: the
	// DGKS criterion with 1/√2. (Measured against the norm of P_nrm q_k
	// instead, a laxer 1/64 let 14 of 12000 random problems' Ritz bases
	// lose orthonormality beyond 1e-10.)
	reorthRatio = 0.7071
)

type lapackImpl = lapackgo.Implementation

// vecs is a list of vectors of length n, stored as the rows of a row-major
// matrix, so projections against all of them are two BLAS-2 products.
type vecs struct {
	n    int
	data []float64
}

func (r *vecs) len() int {
	if r.n == 0 {
		return 0
	}
	return len(r.data) / r.n
}

func (r *vecs) row(i int) []float64 { return r.data[i*r.n : (i+1)*r.n : (i+1)*r.n] }

// push appends a copy of v.
func (r *vecs) push(v []float64) { copy(r.extend(), v) }

// extend appends a row (of undefined content) and returns it, doubling the
// storage when it is full (append grows large slices by only 1.25×, which
// copies a growing basis too often).
func (r *vecs) extend() []float64 {
	if len(r.data)+r.n > cap(r.data) {
		grown := make([]float64, len(r.data), max(2*cap(r.data), len(r.data)+r.n))
		copy(grown, r.data)
		r.data = grown
	}
	r.data = r.data[:len(r.data)+r.n]
	return r.row(r.len() - 1)
}

func (r *vecs) general() blas64.General {
	return blas64.General{Rows: r.len(), Cols: r.n, Stride: r.n, Data: r.data}
}

func vector(x []float64) blas64.Vector { return blas64.Vector{N: len(x), Inc: 1, Data: x} }

// coeffs returns h[:len] = R w, the coefficients of w along the rows.
func (r *vecs) coeffs(h, w []float64) []float64 {
	k := r.len()
	h = h[:k]
	if k > 0 {
		blas64.Gemv(blas.NoTrans, 1, r.general(), vector(w), 0, vector(h))
	}
	return h
}

// subtract sets w −= Rᵀ h.
func (r *vecs) subtract(w, h []float64) {
	if len(h) > 0 {
		blas64.Gemv(blas.Trans, -1, r.general(), vector(h), 1, vector(w))
	}
}

// project removes from w its components along the (orthonormal) rows of
// each set, by classical Gram–Schmidt; h is scratch of the largest set's
// length.
func project(w, h []float64, sets ...*vecs) {
	for _, set := range sets {
		set.subtract(w, set.coeffs(h, w))
	}
}

// orthonormalize makes v orthogonal to the rows of the sets (two passes)
// and normalizes it. It returns the fraction of v's norm that remained, 0
// when v was (numerically) in their span.
func orthonormalize(v, h []float64, sets ...*vecs) float64 {
	n0 := norm(v)
	if n0 == 0 {
		return 0
	}
	project(v, h, sets...)
	project(v, h, sets...)
	nv := norm(v)
	if nv <= 1e-8*n0 {
		return 0
	}
	scale(v, 1/nv)
	return nv / n0
}

// basisPool keeps the storage of Lanczos bases between runs, components
// and calls of Solve: a basis of a large component is megabytes, and fresh
// memory costs page faults on every call.
var basisPool = sync.Pool{New: func() any { return new([]float64) }}

// topEigen returns eigenpairs of c's P_nrm, by decreasing eigenvalue θ: all
// with θ > floor, and at least the nmin largest (fewer only when the
// component is smaller). ok is false when a run did not converge or failed
// its check. The team t splits the work on c.
func topEigen(c *component, t *team, floor float64, nmin int, seed uint64) ([]float64, [][]float64, bool) {
	n := c.size()
	nmin = min(nmin, n)
	rng := rand.New(rand.NewPCG(seed, uint64(c.seedID)))
	buf := basisPool.Get().(*[]float64)
	defer basisPool.Put(buf)
	// The largest eigenpair is known exactly: θ = 1 with the eigenvector
	// C^{1/2}·1 (L_nrm C^{1/2} 1 = C^{-1/2} (D − Ã) 1 = 0), simple because
	// the component is connected. Locking it first means no run can miss
	// it, whatever its start vector.
	u0 := make([]float64, n)
	for i, d := range c.diag { // d = 1/c_i
		u0[i] = 1 / math.Sqrt(d)
	}
	scale(u0, 1/norm(u0))
	theta := []float64{1}
	locked := &vecs{n: n, data: u0}
	// The result is verified when a run spanned the whole complement (its
	// Ritz values are then exact), or when two consecutive runs, each from
	// a fresh random vector, found nothing more above the floor. One short
	// run can miss an eigenvalue whose eigenvector is nearly orthogonal to
	// its start vector (fuzzing found such cases); two independent runs
	// both missing it is far less likely.
	verified := false
	empty := 0
	for run := 0; run < maxRuns && locked.len() < n; run++ {
		// Anything in the complement above the smallest locked value (or the
		// floor) belongs to the result as well.
		lockFloor := floor
		for _, t := range theta {
			lockFloor = min(lockFloor, t)
		}
		want := max(0, nmin-locked.len())
		th, vs, exact, good := lanczosRun(c, t, locked, lockFloor, want, rng, buf)
		if !good || c.cancelled() {
			return nil, nil, false
		}
		theta = append(theta, th...)
		locked.data = append(locked.data, vs.data...)
		if len(th) == 0 {
			empty++
		} else {
			empty = 0
		}
		if exact || empty == 2 {
			verified = true // nothing else above the floor
			break
		}
	}
	if !verified && locked.len() < n {
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
		st[i], sv[i] = theta[o], locked.row(o)
	}
	return st, sv, true
}

// lanczosRun runs one Lanczos process with full reorthogonalization in the
// orthogonal complement of locked and returns its converged top Ritz pairs:
// those with θ > floor and at least the want largest. The first Ritz value
// not returned (the witness) must have converged enough to be surely below
// the floor. T is tridiagonal (α on the diagonal, β beside it), so Ritz
// values cost O(k²) (Dsterf) and only the wanted Ritz vectors are computed,
// by inverse iteration on T.
//
// A step is four phases over row ranges, which the team runs in parallel,
// each ending in a reduction: w = P_nrm q_k with the partial α_k = q_kᵀw;
// the three-term recurrence with the partial Gram–Schmidt coefficients
// Qᵀw, Lᵀw and ‖w‖²; w −= Q h + L hl with the partial ‖w‖²; q_{k+1} = w/β
// prepared for the next product (S q_{k+1} in the binary case). A second
// Gram–Schmidt pass repeats the middle two. buf is storage for the basis,
// reused (and grown) across runs.
func lanczosRun(c *component, t *team, locked *vecs, floor float64, want int, rng *rand.Rand, buf *[]float64) (theta []float64, x *vecs, exact, ok bool) {
	n := c.size()
	nl := locked.len()
	avail := n - nl
	if cap(*buf) < n*min(avail, 2*(want+8)) {
		*buf = make([]float64, 0, n*min(avail, max(64, 2*(want+8))))
	}
	q := &vecs{n: n, data: (*buf)[:0]}
	defer func() { *buf = q.data[:0] }() // keep the grown storage
	var alpha, beta []float64
	discarded := 0.0 // Σ of squared norms that breakdowns discarded
	// Per part: the coefficients along q (up to avail), along locked, and
	// the squared norm, summed after each phase.
	np := t.parts()
	width := avail + 1 + nl + 1
	partial := make([]float64, np*width)
	sum := make([]float64, width)
	w := make([]float64, n)
	v := randomUnit(rng, n)
	for orthonormalize(v, sum, locked) == 0 {
		v = randomUnit(rng, n)
	}
	q.push(v)

	var (
		k         int     // index of the newest basis vector q_k
		threeTerm bool    // gather subtracts a3·q_k + b3·q_{k-1} first
		a3, b3    float64 // α_k and β_{k-1} of the three-term recurrence
		inv       float64 // 1/β, the scale of the next basis vector
	)
	sub := func(data []float64, lo, hi int) blas64.General {
		return blas64.General{Rows: len(data) / n, Cols: hi - lo, Stride: n, Data: data[lo:]}
	}
	// start computes a part's rows of w = P_nrm q_k and its share of
	// α_k = q_kᵀ w.
	start := func(p, lo, hi int) {
		c.mulRows(w, q.row(k), lo, hi)
		partial[p*width+width-1] = dot(q.row(k)[lo:hi], w[lo:hi])
	}
	// gather applies the three-term recurrence to a part's rows if asked,
	// then computes their coefficients and squared norm.
	gather := func(p, lo, hi int) {
		out := partial[p*width : (p+1)*width]
		if lo == hi {
			clear(out)
			return
		}
		wp := vector(w[lo:hi])
		if threeTerm {
			axpy(w[lo:hi], -a3, q.row(k)[lo:hi])
			if b3 != 0 {
				axpy(w[lo:hi], -b3, q.row(k - 1)[lo:hi])
			}
		}
		blas64.Gemv(blas.NoTrans, 1, sub(q.data, lo, hi), wp, 0, vector(out[:k+1]))
		if nl > 0 {
			blas64.Gemv(blas.NoTrans, 1, sub(locked.data, lo, hi), wp, 0, vector(out[avail+1:avail+1+nl]))
		}
		out[width-1] = dot(w[lo:hi], w[lo:hi])
	}
	// subtract removes a part's share of Q h + L hl and measures the rest.
	subtract := func(p, lo, hi int) {
		if lo == hi {
			return
		}
		wp := vector(w[lo:hi])
		blas64.Gemv(blas.Trans, -1, sub(q.data, lo, hi), vector(sum[:k+1]), 1, wp)
		if nl > 0 {
			blas64.Gemv(blas.Trans, -1, sub(locked.data, lo, hi), vector(sum[avail+1:avail+1+nl]), 1, wp)
		}
		partial[p*width+width-1] = dot(w[lo:hi], w[lo:hi])
	}
	// next writes q_{k+1} = w·inv and prepares it for the product.
	next := func(p, lo, hi int) {
		row := q.row(k + 1)
		for i := lo; i < hi; i++ {
			row[i] = w[i] * inv
		}
		c.prepare(row, lo, hi)
	}
	prepare := func(p, lo, hi int) { c.prepare(q.row(k), lo, hi) }
	all := func() { // reduce the coefficients in use and the norm, in part order
		for _, r := range [][2]int{{0, k + 1}, {avail + 1, avail + 1 + nl}, {width - 1, width}} {
			copy(sum[r[0]:r[1]], partial[r[0]:r[1]])
			for p := 1; p < np; p++ {
				floats.Add(sum[r[0]:r[1]], partial[p*width+r[0]:p*width+r[1]])
			}
		}
	}

	t.run(prepare)
	sched := checkSchedule{next: min(avail, max(4, 2*(want+1)))}
	if avail <= exactMax {
		sched.next = avail // small: span the whole complement, exactly
	}
	for {
		if c.cancelled() {
			return nil, nil, false, false
		}
		// w = P_nrm q_k and α_k = q_kᵀ w; the three-term recurrence
		// w −= α_k q_k + β_{k−1} q_{k−1}; then Gram–Schmidt against the
		// whole basis and the locked vectors, which also cleans what
		// rounding left of the large terms just removed (their coefficients
		// correct α_k), repeated when it cancels more than 1 − 1/√2 of the
		// norm (DGKS).
		t.run(start)
		a := partial[width-1]
		for p := 1; p < np; p++ {
			a += partial[p*width+width-1]
		}
		threeTerm, a3, b3 = true, a, 0
		if k > 0 {
			b3 = beta[k-1]
		}
		t.run(gather)
		all()
		threeTerm = false
		wn := math.Sqrt(sum[width-1])
		a += sum[k]
		t.run(subtract)
		all()
		b := math.Sqrt(sum[width-1])
		if b < reorthRatio*wn {
			t.run(gather)
			all()
			a += sum[k]
			t.run(subtract)
			all()
			b = math.Sqrt(sum[width-1])
		}
		alpha = append(alpha, a)
		steps := k + 1
		full := steps >= avail
		if full || steps >= sched.next {
			r := ritzCheck(alpha, beta, b, floor, want, full, math.Sqrt(discarded))
			if r.done {
				theta, x, ok = ritzVectors(c, t, q, locked, r)
				return theta, x, full, ok
			}
			if full {
				return nil, nil, false, false
			}
			sched.update(steps, r.res, avail)
		}
		if b > breakdownTol {
			beta = append(beta, b)
			q.extend()
			inv = 1 / b
			t.run(next)
			k++
			continue
		}
		// The Krylov space is invariant: continue with a random vector,
		// which decouples T (β = 0).
		discarded += b * b
		beta = append(beta, 0)
		v = randomUnit(rng, n)
		for orthonormalize(v, sum, locked, q) == 0 {
			v = randomUnit(rng, n)
		}
		q.push(v)
		k++
		t.run(prepare)
	}
}

// checkSchedule decides after how many Lanczos steps the Ritz values are
// checked next. Convergence is about geometric, so after two checks the
// step at which the slowest wanted pair reaches the tolerance is predicted
// from their residuals; the next check is never later than 1/8 more steps.
type checkSchedule struct {
	next  int
	lastK int
	last  float64 // residual at lastK, 0 when unknown
}

func (s *checkSchedule) update(k int, res float64, avail int) {
	step := max(4, k/8)
	if s.last > 0 && res > 0 && res < s.last {
		rate := math.Log(res/s.last) / float64(k-s.lastK) // < 0
		if pred := math.Ceil(math.Log(lanczosTol/4/res) / rate); pred < float64(step) {
			step = max(2, int(pred))
		}
	}
	s.lastK, s.last = k, res
	s.next = min(avail, k+step)
}

// ritzResult is the outcome of a check of the tridiagonal T.
type ritzResult struct {
	done  bool
	res   float64     // residual bound of the slowest wanted pair (when known)
	theta []float64   // the converged top Ritz values, decreasing
	y     [][]float64 // their eigenvectors of T
}

// ritzCheck computes the Ritz values of the tridiagonal T (α, β), and for
// the top ones their eigenvectors y, and reports whether the wanted pairs
// have converged. bLast is the norm of the next Lanczos vector, so the
// residual of the Ritz pair (θ, Qy) is at most |bLast · y_k| + ‖Ty − θy‖ +
// lost, where lost is what breakdowns discarded.
func ritzCheck(alpha, beta []float64, bLast, floor float64, want int, full bool, lost float64) ritzResult {
	k := len(alpha)
	resid := func(y []float64, theta float64) float64 {
		return math.Abs(bLast*y[k-1]) + tridiagResidual(alpha, beta[:k-1], y, theta) + lost
	}
	if !full {
		// Cheap pre-test, before computing all Ritz values: a Sturm count
		// tells how many lie above the floor, and bisection gives the
		// lowest wanted one, whose pair converges last.
		keep := max(k-sturmBelow(alpha, beta[:k-1], floor), min(want, k))
		if keep > 0 {
			theta := tridiagEigenvalue(alpha, beta[:k-1], k-keep)
			y := inverseIteration(alpha, beta[:k-1], theta, 0, nil, newTridiagWork(k))
			if res := resid(y, theta); res > lanczosTol/4 {
				return ritzResult{res: res}
			}
		}
	}
	d := append([]float64(nil), alpha...)
	e := append([]float64(nil), beta[:k-1]...)
	if !(lapackImpl{}).Dsterf(k, d, e) {
		return ritzResult{}
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
	ys := tridiagVectors(alpha, beta[:k-1], d, need)
	r := ritzResult{done: true}
	for i := 0; i < need; i++ {
		theta := d[k-1-i]
		res := resid(ys[i], theta)
		if i < keep {
			if !full && res > lanczosTol/4 {
				return ritzResult{res: res}
			}
			r.theta = append(r.theta, theta)
			r.y = append(r.y, ys[i])
			r.res = max(r.res, res)
		} else if res > lanczosTol && res > (floor-theta)/4 {
			return ritzResult{res: r.res}
		}
	}
	return r
}

// ritzVectors forms the Ritz vectors X = Y Q of a converged check, checks
// that they are orthonormal and orthogonal to locked (repairing them if
// not), and checks the residual bounds on the operator with one random
// combination. The team forms X by row ranges, with the partial Gram
// matrices and the combination.
func ritzVectors(c *component, t *team, q, locked *vecs, r ritzResult) ([]float64, *vecs, bool) {
	n, k, keep, nl := q.n, q.len(), len(r.theta), locked.len()
	x := &vecs{n: n, data: make([]float64, keep*n)}
	if keep == 0 {
		return nil, x, true
	}
	// A fixed pseudo-random combination for the check below. Each pair is
	// accepted with residual at most lanczosTol/4, so the combination's is at
	// most Σ|g_i|·lanczosTol/4. (The computed bounds can be far smaller, down
	// to rounding, while the Lanczos relation itself holds only to about
	// k·ε: a check against them would reject sound results.)
	g := make([]float64, keep)
	allowed := 0.0
	for i := range g {
		g[i] = 1 + 0.5*math.Sin(float64(3*i+1))
		allowed += math.Abs(g[i]) * lanczosTol / 4
	}
	z := make([]float64, n)
	width := keep*keep + keep*nl
	partial := make([]float64, t.parts()*width)
	t.run(func(p, lo, hi int) {
		if lo == hi {
			return
		}
		qp := blas64.General{Rows: k, Cols: hi - lo, Stride: n, Data: q.data[lo:]}
		for i, y := range r.y {
			blas64.Gemv(blas.Trans, 1, qp, vector(y), 0, vector(x.row(i)[lo:hi]))
		}
		gram := partial[p*width : (p+1)*width]
		for i := 0; i < keep; i++ {
			xi := x.row(i)[lo:hi]
			for j := 0; j <= i; j++ {
				gram[i*keep+j] = dot(xi, x.row(j)[lo:hi])
			}
			for j := 0; j < nl; j++ {
				gram[keep*keep+i*nl+j] = dot(xi, locked.row(j)[lo:hi])
			}
			axpy(z[lo:hi], g[i], xi)
		}
	})
	gram := partial[:width]
	for p := 1; p < t.parts(); p++ {
		floats.Add(gram, partial[p*width:(p+1)*width])
	}
	h := make([]float64, max(keep, nl))
	if !nearlyOrthonormal(gram, keep) {
		// Not expected (Q is orthonormal to about 1e-14): repair, and give
		// up when the vectors were far from orthonormal.
		for i := 0; i < keep; i++ {
			prev := &vecs{n: n, data: x.data[:i*n]}
			if f := orthonormalize(x.row(i), h, locked, prev); math.Abs(f-1) > 1e-8 {
				return nil, nil, false
			}
		}
		clear(z)
		for i := range g {
			axpy(z, g[i], x.row(i))
		}
	}
	// Freivalds-style check: ‖P_nrm z − X Θ g‖ within what the pairs
	// promise, in the complement of locked.
	pz := make([]float64, n)
	c.mulPnrm(pz, z)
	project(pz, h, locked)
	for i := range g {
		axpy(pz, -g[i]*r.theta[i], x.row(i))
	}
	if norm(pz) > allowed {
		return nil, nil, false
	}
	return r.theta, x, true
}

// nearlyOrthonormal reports whether the inner products gram (the lower
// triangle of X Xᵀ, keep×keep row-major, then X Lᵀ) are those of
// orthonormal rows orthogonal to L, to 1e-10 each.
func nearlyOrthonormal(gram []float64, keep int) bool {
	const tol = 1e-10
	for i := 0; i < keep; i++ {
		for j := 0; j <= i; j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(gram[i*keep+j]-want) > tol {
				return false
			}
		}
	}
	for _, v := range gram[keep*keep:] {
		if math.Abs(v) > tol {
			return false
		}
	}
	return true
}

// sturmBelow returns how many eigenvalues of the symmetric tridiagonal
// matrix (diagonal a, off-diagonal b) are smaller than x, from the signs of
// the pivots of T − xI (Sturm sequence, with LAPACK's guard against zero
// pivots).
func sturmBelow(a, b []float64, x float64) int {
	const pivmin = 1e-290
	count := 0
	d := 1.0
	for i, ai := range a {
		t := ai - x
		if i > 0 {
			t -= b[i-1] * b[i-1] / d
		}
		if math.Abs(t) < pivmin {
			t = -pivmin
		}
		if t < 0 {
			count++
		}
		d = t
	}
	return count
}

// tridiagEigenvalue returns the eigenvalue of index j (0-based, ascending)
// of the symmetric tridiagonal matrix (a, b), by bisection on Sturm counts
// to full precision.
func tridiagEigenvalue(a, b []float64, j int) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, ai := range a { // Gershgorin bounds
		r := 0.0
		if i > 0 {
			r += math.Abs(b[i-1])
		}
		if i < len(b) {
			r += math.Abs(b[i])
		}
		lo, hi = min(lo, ai-r), max(hi, ai+r)
	}
	for it := 0; it < 128; it++ {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi || hi-lo <= 4e-16*max(math.Abs(lo), math.Abs(hi)) {
			break
		}
		if sturmBelow(a, b, mid) <= j {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2
}

// tridiagResidual returns ‖T y − θ y‖ for the tridiagonal T (a, b).
func tridiagResidual(a, b, y []float64, theta float64) float64 {
	k := len(a)
	s := 0.0
	for i := 0; i < k; i++ {
		t := (a[i] - theta) * y[i]
		if i > 0 {
			t += b[i-1] * y[i-1]
		}
		if i+1 < k {
			t += b[i] * y[i+1]
		}
		s += t * t
	}
	return math.Sqrt(s)
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
		// The residual of y for the shift is 1/nrm: once that is at the
		// rounding level, further iterations change nothing (LAPACK's dstein
		// stops likewise). Two at least, to clean the start vector.
		if it >= 2 && nrm*eps >= 1.0/64 {
			break
		}
	}
	return y
}

func randomUnit(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// dot, axpy and norm use gonum's assembly kernels.
func dot(x, y []float64) float64 { return floats.Dot(x, y) }

func axpy(y []float64, a float64, x []float64) { floats.AddScaled(y, a, x) }

func norm(x []float64) float64 { return math.Sqrt(floats.Dot(x, x)) }

func scale(x []float64, a float64) {
	for i := range x {
		x[i] *= a
	}
}
