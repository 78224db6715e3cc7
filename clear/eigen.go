package clear

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// DefaultThreshold is the eigenvalue threshold of step 2 (paper, eq. 9):
// the universe size is estimated as the number of eigenvalues of the
// normalized Laplacian below 0.5.
const DefaultThreshold = 0.5

// ThresholdMargin decides what "below the threshold" means in floating point.
// An eigenvalue λ counts as below the threshold t only when λ < t − 1e-9.
//
// Eigenvalues that lie exactly on the threshold are common: every 3-vertex
// path component has the eigenvalue 1/2, and Graffiti-like inputs have
// hundreds of them. The authors' reference code compares the computed value
// with 0.5 directly, so whether such an eigenvalue counts depends on rounding
// noise of the eigensolver. With the margin, an eigenvalue on the threshold
// never counts, on every eigensolver path (dense and iterative), which makes
// the estimate reproducible. Eigenvalues are computed to an absolute accuracy
// far better than the margin (about 1e-14 dense, residual 1e-10 iterative).
const ThresholdMargin = 1e-9

// below reports whether λ counts as below the threshold t.
func below(lambda, t float64) bool { return lambda < t-ThresholdMargin }

// tieKey quantizes a value for ordering with ties: values that agree to
// about 1e-9 compare equal and are then ordered by index. This makes the
// order of mathematically equal eigenvalues, pivot scores and assignment
// costs independent of rounding noise.
func tieKey(v float64) int64 { return int64(math.Round(v * 1e9)) }

// component is one connected component of the association graph with its
// normalized association matrix P_nrm = C^{-1/2} (Ã + I) C^{-1/2} in local
// CSR form. The normalized Laplacian of the paper (eq. 7) is
// L_nrm = C^{-1/2} (D − Ã) C^{-1/2} = I − P_nrm, so the smallest eigenvalues of
// L_nrm are the largest of P_nrm, and both share eigenvectors.
type component struct {
	verts []int // global indices, increasing
	// seedID seeds the iterative solver's start: the component's first
	// observation in the whole problem (a part's solve maps it).
	seedID int
	rowPtr []int
	col    []int32   // local column indices
	val    []float64 // off-diagonal entries w_ij / sqrt(c_i c_j)
	diag   []float64 // diagonal entries 1 / c_i
	// When every weight is 1 (binary input), P_nrm = S (A + I) S with
	// S = C^{-1/2} = diag(s), and products skip val.
	unit    bool
	s       []float64
	scratch []float64
	// done, when not nil, is closed when the solve is stopped.
	done <-chan struct{}
	// beat, when not nil, is called at every check of done: a long
	// decomposition reports that it is alive.
	beat func()
}

func (c *component) size() int { return len(c.verts) }

// cancelled reports whether the solve was stopped (see SolveContext).
func (c *component) cancelled() bool {
	if c.beat != nil {
		c.beat()
	}
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// denseWatch is the largest dense decomposition SolveContext runs without
// watching its context (about 0.1 s).
const denseWatch = 400

// offDiag returns the off-diagonal entry k (in row i) of P_nrm.
func (c *component) offDiag(i, k int) float64 {
	if c.unit {
		return c.s[i] * c.s[c.col[k]]
	}
	return c.val[k]
}

// mulPnrm sets dst = P_nrm x.
func (c *component) mulPnrm(dst, x []float64) {
	c.prepare(x, 0, c.size())
	c.mulRows(dst, x, 0, c.size())
}

// prepare readies rows lo to hi of x for mulRows: in the binary case the
// product gathers from S x, kept in scratch.
func (c *component) prepare(x []float64, lo, hi int) {
	if c.unit {
		xs, s := c.scratch[lo:hi], c.s[lo:hi]
		for i, xi := range x[lo:hi] {
			xs[i] = s[i] * xi
		}
	}
}

// mulRows sets rows lo to hi of dst = P_nrm x; every row of x must have
// been prepared. Eight partial sums keep several gathers in flight.
func (c *component) mulRows(dst, x []float64, lo, hi int) {
	if c.unit {
		xs := c.scratch
		for i := lo; i < hi; i++ {
			cols := c.col[c.rowPtr[i]:c.rowPtr[i+1]]
			var s0, s1, s2, s3, s4, s5, s6, s7 float64
			for len(cols) >= 8 {
				s0 += xs[cols[0]]
				s1 += xs[cols[1]]
				s2 += xs[cols[2]]
				s3 += xs[cols[3]]
				s4 += xs[cols[4]]
				s5 += xs[cols[5]]
				s6 += xs[cols[6]]
				s7 += xs[cols[7]]
				cols = cols[8:]
			}
			for _, j := range cols {
				s0 += xs[j]
			}
			dst[i] = c.s[i] * (xs[i] + ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)))
		}
		return
	}
	for i := lo; i < hi; i++ {
		cols := c.col[c.rowPtr[i]:c.rowPtr[i+1]]
		vals := c.val[c.rowPtr[i]:c.rowPtr[i+1]]
		vals = vals[:len(cols)]
		var s0, s1, s2, s3 float64
		for len(cols) >= 4 {
			s0 += vals[0] * x[cols[0]]
			s1 += vals[1] * x[cols[1]]
			s2 += vals[2] * x[cols[2]]
			s3 += vals[3] * x[cols[3]]
			cols, vals = cols[4:], vals[4:]
		}
		for k, j := range cols {
			s0 += vals[k] * x[j]
		}
		dst[i] = c.diag[i]*x[i] + ((s0 + s1) + (s2 + s3))
	}
}

// newComponent extracts the component with vertices verts from g. local is
// scratch of length g.n that maps global to local indices; invSqrtC holds
// 1/sqrt(c_i) for every vertex.
func newComponent(g *graph, verts []int, local []int32, invSqrtC []float64, sl *slabs) *component {
	n := len(verts)
	c := &component{verts: verts, seedID: verts[0], diag: sl.f.take(n)}
	// Binary weights in a large component: P_nrm = S (A + I) S, so the
	// product needs no value array (see mulPnrm).
	c.unit = n > DenseMax
	if g.w != nil {
		for _, v := range verts {
			for k := g.rowPtr[v]; k < g.rowPtr[v+1] && c.unit; k++ {
				c.unit = g.w[k] == 1
			}
		}
	}
	for li, v := range verts {
		c.diag[li] = invSqrtC[v] * invSqrtC[v]
	}
	if c.unit {
		c.s = make([]float64, n)
		for li, v := range verts {
			c.s[li] = invSqrtC[v]
		}
		c.scratch = make([]float64, n)
		if n == g.n {
			// The whole graph is one component: local and global indices
			// agree, and the structure is shared.
			c.rowPtr, c.col = g.rowPtr, g.col
			return c
		}
	}
	for li, v := range verts {
		local[v] = int32(li)
	}
	nnz := 0
	for _, v := range verts {
		nnz += g.rowPtr[v+1] - g.rowPtr[v]
	}
	c.rowPtr = sl.i.take(n + 1)
	c.col = sl.i32.take(nnz)
	if !c.unit {
		c.val = sl.f.take(nnz)
	}
	k0 := 0
	for li, v := range verts {
		si := invSqrtC[v]
		for k := g.rowPtr[v]; k < g.rowPtr[v+1]; k++ {
			u := g.col[k]
			c.col[k0] = local[u]
			if !c.unit {
				c.val[k0] = g.weight(k) * si * invSqrtC[u]
			}
			k0++
		}
		c.rowPtr[li+1] = k0
	}
	return c
}

// spectrum holds eigenpairs of one component's L_nrm, ascending by
// eigenvalue: all of them (complete) or the smallest ones.
type spectrum struct {
	values   []float64
	vectors  []float64 // n × len(values), row-major: vectors[i*k+j] is entry i of eigenvector j
	complete bool
}

// count returns how many eigenvalues lie below the threshold t.
func (s *spectrum) count(t float64) int {
	k := 0
	for _, v := range s.values {
		if below(v, t) {
			k++
		}
	}
	return k
}

// denseLnrm returns L_nrm of c as a dense row-major matrix in a.
func (c *component) denseLnrm(a []float64) []float64 {
	n := c.size()
	a = a[:n*n]
	clear(a)
	for i := 0; i < n; i++ {
		a[i*n+i] = 1 - c.diag[i]
		for k := c.rowPtr[i]; k < c.rowPtr[i+1]; k++ {
			a[i*n+int(c.col[k])] = -c.offDiag(i, k)
		}
	}
	return a
}

// jacobiMax is the largest component solved by the cyclic Jacobi method,
// which is faster than LAPACK-style solvers on tiny matrices (no workspace
// queries or allocations beyond the result) and very accurate.
const jacobiMax = 8

// denseSpectrum computes all eigenpairs of c's L_nrm. The result's slices
// come from sl when it is not nil.
func denseSpectrum(c *component, sl *slabs) spectrum {
	n := c.size()
	if sl == nil {
		sl = &slabs{}
	}
	if n == 1 {
		// An isolated observation: L_nrm = [0].
		v := sl.f.take(2)
		v[1] = 1
		return spectrum{values: v[:1], vectors: v[1:], complete: true}
	}
	var vals, vecs []float64
	if n <= jacobiMax {
		var scratch [2 * jacobiMax * jacobiMax]float64
		a := c.denseLnrm(scratch[:n*n])
		out := sl.f.take(n + n*n)
		vals, vecs = out[:n:n], out[n:]
		jacobiEigen(a, n, scratch[n*n:2*n*n], vals, vecs)
	} else {
		a := c.denseLnrm(make([]float64, n*n))
		var es mat.EigenSym
		if !es.Factorize(mat.NewSymDense(n, a), true) {
			// EigenSym fails only on non-finite input, which validation
			// rules out; fall back to Jacobi, which cannot fail.
			vals, vecs = make([]float64, n), make([]float64, n*n)
			jacobiEigen(c.denseLnrm(a), n, make([]float64, n*n), vals, vecs)
		} else {
			vals = es.Values(nil)
			var v mat.Dense
			es.VectorsTo(&v)
			vecs = v.RawMatrix().Data
			if st := v.RawMatrix().Stride; st != n {
				vecs = compactRows(vecs, n, n, st)
			}
		}
	}
	return spectrum{values: vals, vectors: vecs, complete: true}
}

func compactRows(data []float64, r, c, stride int) []float64 {
	out := make([]float64, r*c)
	for i := 0; i < r; i++ {
		copy(out[i*c:(i+1)*c], data[i*stride:i*stride+c])
	}
	return out
}

// jacobiEigen diagonalizes the symmetric n×n row-major matrix a (destroyed)
// by cyclic Jacobi rotations and writes its eigenvalues ascending to vals
// and the eigenvectors as columns of the n×n row-major vecs; v is n×n
// scratch.
func jacobiEigen(a []float64, n int, v, vals, vecs []float64) {
	clear(v)
	for i := 0; i < n; i++ {
		v[i*n+i] = 1
	}
	for sweep := 0; sweep < 60; sweep++ {
		off, diag := 0.0, 0.0
		for i := 0; i < n; i++ {
			diag += a[i*n+i] * a[i*n+i]
			for j := i + 1; j < n; j++ {
				off += a[i*n+j] * a[i*n+j]
			}
		}
		if off <= 1e-34*(diag+off) || off == 0 {
			break
		}
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				apq := a[p*n+q]
				if apq == 0 {
					continue
				}
				theta := (a[q*n+q] - a[p*n+p]) / (2 * apq)
				t := 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				if theta < 0 {
					t = -t
				}
				cs := 1 / math.Sqrt(t*t+1)
				sn := t * cs
				// A ← Jᵀ A J: columns p and q, then rows p and q.
				for k := 0; k < n; k++ {
					akp, akq := a[k*n+p], a[k*n+q]
					a[k*n+p] = cs*akp - sn*akq
					a[k*n+q] = sn*akp + cs*akq
				}
				for k := 0; k < n; k++ {
					apk, aqk := a[p*n+k], a[q*n+k]
					a[p*n+k] = cs*apk - sn*aqk
					a[q*n+k] = sn*apk + cs*aqk
				}
				a[p*n+q], a[q*n+p] = 0, 0
				for k := 0; k < n; k++ {
					vkp, vkq := v[k*n+p], v[k*n+q]
					v[k*n+p] = cs*vkp - sn*vkq
					v[k*n+q] = sn*vkp + cs*vkq
				}
			}
		}
	}
	// Insertion sort of the diagonal, stable: n is tiny here.
	var orderBuf [jacobiMax]int
	order := orderBuf[:0]
	if n > jacobiMax {
		order = make([]int, 0, n)
	}
	for i := 0; i < n; i++ {
		j := len(order)
		order = append(order, i)
		for ; j > 0 && a[order[j-1]*n+order[j-1]] > a[i*n+i]; j-- {
			order[j] = order[j-1]
		}
		order[j] = i
	}
	for j, o := range order {
		vals[j] = a[o*n+o]
		for i := 0; i < n; i++ {
			vecs[i*n+j] = v[i*n+o]
		}
	}
}
