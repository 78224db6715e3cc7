package clear

import (
	"math"
	"sort"

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
	verts  []int // global indices, increasing
	rowPtr []int
	col    []int32   // local column indices
	val    []float64 // off-diagonal entries w_ij / sqrt(c_i c_j)
	diag   []float64 // diagonal entries 1 / c_i
}

func (c *component) size() int { return len(c.verts) }

// mulPnrm sets dst = P_nrm x.
func (c *component) mulPnrm(dst, x []float64) {
	for i := range c.verts {
		s := c.diag[i] * x[i]
		for k := c.rowPtr[i]; k < c.rowPtr[i+1]; k++ {
			s += c.val[k] * x[c.col[k]]
		}
		dst[i] = s
	}
}

// newComponent extracts the component with vertices verts from g. local is
// scratch of length g.n that maps global to local indices.
func newComponent(g *graph, verts []int, local []int32) *component {
	c := &component{verts: verts, rowPtr: make([]int, len(verts)+1), diag: make([]float64, len(verts))}
	for li, v := range verts {
		local[v] = int32(li)
	}
	nnz := 0
	for _, v := range verts {
		nnz += g.rowPtr[v+1] - g.rowPtr[v]
	}
	c.col = make([]int32, 0, nnz)
	c.val = make([]float64, 0, nnz)
	for li, v := range verts {
		ci := g.deg[v] + 1
		c.diag[li] = 1 / ci
		for k := g.rowPtr[v]; k < g.rowPtr[v+1]; k++ {
			u := g.col[k]
			cj := g.deg[u] + 1
			c.col = append(c.col, local[u])
			c.val = append(c.val, g.w[k]/math.Sqrt(ci*cj))
		}
		c.rowPtr[li+1] = len(c.col)
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

// denseLnrm returns L_nrm of c as a dense row-major matrix.
func (c *component) denseLnrm() []float64 {
	n := c.size()
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		a[i*n+i] = 1 - c.diag[i]
		for k := c.rowPtr[i]; k < c.rowPtr[i+1]; k++ {
			a[i*n+int(c.col[k])] = -c.val[k]
		}
	}
	return a
}

// jacobiMax is the largest component solved by the cyclic Jacobi method,
// which is faster than LAPACK-style solvers on tiny matrices (no workspace
// queries or allocations beyond the result) and very accurate.
const jacobiMax = 8

// denseSpectrum computes all eigenpairs of c's L_nrm.
func denseSpectrum(c *component) spectrum {
	n := c.size()
	if n == 1 {
		// An isolated observation: L_nrm = [0].
		return spectrum{values: []float64{0}, vectors: []float64{1}, complete: true}
	}
	a := c.denseLnrm()
	var vals, vecs []float64
	if n <= jacobiMax {
		vals, vecs = jacobiEigen(a, n)
	} else {
		var es mat.EigenSym
		if !es.Factorize(mat.NewSymDense(n, a), true) {
			// EigenSym fails only on non-finite input, which validation
			// rules out; fall back to Jacobi, which cannot fail.
			vals, vecs = jacobiEigen(c.denseLnrm(), n)
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
// by cyclic Jacobi rotations and returns its eigenvalues ascending with the
// eigenvectors as columns of an n×n row-major matrix.
func jacobiEigen(a []float64, n int) (vals, vecs []float64) {
	v := make([]float64, n*n)
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
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return a[order[x]*n+order[x]] < a[order[y]*n+order[y]] })
	vals = make([]float64, n)
	vecs = make([]float64, n*n)
	for j, o := range order {
		vals[j] = a[o*n+o]
		for i := 0; i < n; i++ {
			vecs[i*n+j] = v[i*n+o]
		}
	}
	return vals, vecs
}
