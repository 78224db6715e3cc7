package calib

import (
	"math"

	"github.com/clearmatch/clearmatch/geom"
	"gonum.org/v1/gonum/mat"
)

// edge is a relative rotation between local views: x_j = R x_i.
type edge struct {
	i, j int
	R    [9]float64
	w    float64
}

// averageRotations returns the views' world-to-camera rotations, the
// first the identity, from the relative rotations of edges: the spectral
// relaxation of the chordal problem (the top three eigenvectors of the
// matrix of relative rotations, each view's block projected on the
// rotations), then a few sweeps of robustly weighted chordal averaging
// per view. ok is false when some view has no edge or the result is
// degenerate.
func averageRotations(n int, edges []edge) ([][9]float64, bool) {
	deg := make([]int, n)
	for _, e := range edges {
		deg[e.i]++
		deg[e.j]++
	}
	for _, d := range deg {
		if d == 0 {
			return nil, false
		}
	}
	M := mat.NewSymDense(3*n, nil)
	for _, e := range edges {
		// Block (j, i) is w R_ij (R_j R_iᵀ); block (i, j) its transpose.
		for r := range 3 {
			for c := range 3 {
				M.SetSym(3*e.j+r, 3*e.i+c, M.At(3*e.j+r, 3*e.i+c)+e.w*e.R[3*r+c])
			}
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(M, true) {
		return nil, false
	}
	var V mat.Dense
	eig.VectorsTo(&V)
	// Eigenvalues ascend: the top three are the last columns.
	R := make([][9]float64, n)
	flips := 0
	for i := range n {
		var b [9]float64
		for r := range 3 {
			for c := range 3 {
				b[3*r+c] = V.At(3*i+r, 3*n-3+c)
			}
		}
		if geom.Det3(b) < 0 {
			flips++
		}
		R[i] = b
	}
	for i := range n {
		if 2*flips > n {
			for k := range R[i] {
				R[i][k] = -R[i][k]
			}
		}
		var ok bool
		if R[i], ok = geom.NearestRotation(R[i]); !ok {
			return nil, false
		}
	}
	// Gauss–Seidel sweeps: R_j = nearest(Σ w R_ij R_i) over j's edges,
	// weights falling with the edge's residual angle (Cauchy, 2°).
	adj := make([][]int, n)
	for k, e := range edges {
		adj[e.i] = append(adj[e.i], k)
		adj[e.j] = append(adj[e.j], k)
	}
	for range 20 {
		for v := range n {
			var sum [9]float64
			for _, k := range adj[v] {
				e := edges[k]
				var pred [9]float64 // R_v predicted by the edge
				if e.j == v {
					pred = geom.Mul3(e.R, R[e.i])
				} else {
					pred = geom.Mul3(geom.Transpose3(e.R), R[e.j])
				}
				res := geom.RotationAngle(geom.Mul3(pred, geom.Transpose3(R[v])))
				w := e.w / (1 + (res/2)*(res/2))
				for x := range sum {
					sum[x] += w * pred[x]
				}
			}
			if r, ok := geom.NearestRotation(sum); ok {
				R[v] = r
			}
		}
	}
	// Gauge: the first view's frame is the world's.
	g := geom.Transpose3(R[0])
	for i := range R {
		R[i] = geom.Mul3(R[i], g)
	}
	return R, true
}

// expRot is the rotation exp([w]×) (Rodrigues).
func expRot(w [3]float64) [9]float64 {
	th := math.Sqrt(w[0]*w[0] + w[1]*w[1] + w[2]*w[2])
	if th < 1e-12 {
		return [9]float64{1, -w[2], w[1], w[2], 1, -w[0], -w[1], w[0], 1}
	}
	k := [3]float64{w[0] / th, w[1] / th, w[2] / th}
	s, c := math.Sin(th), math.Cos(th)
	v := 1 - c
	return [9]float64{
		c + k[0]*k[0]*v, k[0]*k[1]*v - k[2]*s, k[0]*k[2]*v + k[1]*s,
		k[1]*k[0]*v + k[2]*s, c + k[1]*k[1]*v, k[1]*k[2]*v - k[0]*s,
		k[2]*k[0]*v - k[1]*s, k[2]*k[1]*v + k[0]*s, c + k[2]*k[2]*v,
	}
}
