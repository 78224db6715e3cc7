package calib

import (
	"context"
	"math"
	"slices"

	"github.com/clearmatch/clearmatch/geom"
	"gonum.org/v1/gonum/mat"
)

// free says which intrinsics an adjustment fits; the poses of the placed
// views (all but the first, which fixes the frame) and the points are
// always fitted.
type free struct {
	focal, pp, k1 bool
}

// huber is the robust loss's scale, pixels: residuals beyond it count
// linearly.
const huber = 1.0

// costs of a model over a set of observations: the robust (Huber) sum and
// the plain sum of squared reprojection errors, pixels².
type costs struct {
	sq, plain float64
}

func robust(e float64) float64 {
	if e <= huber {
		return e * e
	}
	return 2*huber*e - huber*huber
}

// cost sums the model's costs over the observations mask marks (tracks
// with a point only).
func (m *model) cost(mask [][]bool) costs {
	var c costs
	for t, tr := range m.tracks {
		if !m.tri[t] {
			continue
		}
		for k, ob := range tr {
			if !mask[t][k] {
				continue
			}
			e := m.reproj(ob, m.X[t])
			if math.IsInf(e, 1) {
				e = 1e6
			}
			c.sq += robust(e)
			c.plain += e * e
		}
	}
	return c
}

func (m *model) nobs() int {
	n := 0
	for t := range m.tracks {
		if m.tri[t] {
			for _, a := range m.active[t] {
				if a {
					n++
				}
			}
		}
	}
	return n
}

func (m *model) npoints() int {
	n := 0
	for t := range m.tracks {
		if m.tri[t] {
			n++
		}
	}
	return n
}

// nparams counts the parameters of a full adjustment: the poses of the
// placed views but one, the points and four intrinsics.
func (m *model) nparams() int {
	return 6*(m.registered()-1) + 3*m.npoints() + 4
}

// adjust runs rounds of bundle adjustment: Levenberg–Marquardt on the
// Huber cost of the active observations with the points eliminated
// (Schur complement, dense over the intrinsics and poses), then the
// observations beyond thr are left out and the tracks with fewer than two
// left lose their point.
func (m *model) adjust(ctx context.Context, fr free, thr float64, rounds int) error {
	for range rounds {
		if err := m.levenbergMarquardt(ctx, fr, 20); err != nil {
			return err
		}
		for t, tr := range m.tracks {
			if !m.tri[t] {
				continue
			}
			n := 0
			for k, ob := range tr {
				if m.active[t][k] && m.reproj(ob, m.X[t]) > thr {
					m.active[t][k] = false
				}
				if m.active[t][k] {
					n++
				}
			}
			if n < 2 {
				m.tri[t] = false
				clear(m.active[t])
			}
		}
	}
	return nil
}

// pointBlock is one point's part of the normal equations.
type pointBlock struct {
	t    int
	V    [9]float64
	g    [3]float64
	WI   [4][3]float64 // intrinsics × point
	cams []int         // free camera slots observing the point
	WC   [][6][3]float64
}

func (m *model) levenbergMarquardt(ctx context.Context, fr free, iters int) error {
	// Slots: the free intrinsics, then 6 per placed view but the first.
	var intr []int // which of f, cx, cy, k1 are free
	for k, on := range []bool{fr.focal, fr.pp, fr.pp, fr.k1} {
		if on {
			intr = append(intr, k)
		}
	}
	nI := len(intr)
	slot := make([]int, len(m.R))
	nc := 0
	fixed := -1
	for v := range m.R {
		slot[v] = -1
		if !m.placed[v] {
			continue
		}
		if fixed < 0 {
			fixed = v
			continue
		}
		slot[v] = nc
		nc++
	}
	N := nI + 6*nc
	lambda := 1e-4
	cur := m.cost(m.active).sq
	H := make([]float64, N*N)
	g := make([]float64, N)
	var blocks []pointBlock
	for it := 0; it < iters; it++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		clear(H)
		clear(g)
		blocks = blocks[:0]
		for t, tr := range m.tracks {
			if !m.tri[t] {
				continue
			}
			// The block's slices are reused from the last iteration.
			var pb pointBlock
			if len(blocks) < cap(blocks) {
				pb = blocks[:len(blocks)+1][len(blocks)]
			}
			pb = pointBlock{t: t, cams: pb.cams[:0], WC: pb.WC[:0]}
			for k, ob := range tr {
				if !m.active[t][k] {
					continue
				}
				r, Jp, Jc, Ji, ok := m.jacobian(ob, m.X[t])
				if !ok {
					continue
				}
				e := math.Hypot(r[0], r[1])
				w := 1.0
				if e > huber {
					w = huber / e
				}
				s := slot[ob.View]
				// Intrinsics rows.
				for a, ia := range intr {
					for b, ib := range intr {
						H[a*N+b] += w * (Ji[0][ia]*Ji[0][ib] + Ji[1][ia]*Ji[1][ib])
					}
					g[a] += w * (Ji[0][ia]*r[0] + Ji[1][ia]*r[1])
					for c := range 3 {
						pb.WI[a][c] += w * (Ji[0][ia]*Jp[0][c] + Ji[1][ia]*Jp[1][c])
					}
				}
				if s >= 0 {
					o := nI + 6*s
					for a := range 6 {
						for b := range 6 {
							H[(o+a)*N+o+b] += w * (Jc[0][a]*Jc[0][b] + Jc[1][a]*Jc[1][b])
						}
						g[o+a] += w * (Jc[0][a]*r[0] + Jc[1][a]*r[1])
						for b, ib := range intr {
							x := w * (Jc[0][a]*Ji[0][ib] + Jc[1][a]*Ji[1][ib])
							H[(o+a)*N+b] += x
							H[b*N+o+a] += x
						}
					}
					ci := slices.Index(pb.cams, s)
					if ci < 0 {
						ci = len(pb.cams)
						pb.cams = append(pb.cams, s)
						pb.WC = append(pb.WC, [6][3]float64{})
					}
					for a := range 6 {
						for c := range 3 {
							pb.WC[ci][a][c] += w * (Jc[0][a]*Jp[0][c] + Jc[1][a]*Jp[1][c])
						}
					}
				}
				for a := range 3 {
					for b := range 3 {
						pb.V[3*a+b] += w * (Jp[0][a]*Jp[0][b] + Jp[1][a]*Jp[1][b])
					}
					pb.g[a] += w * (Jp[0][a]*r[0] + Jp[1][a]*r[1])
				}
			}
			blocks = append(blocks, pb)
		}
		improved := false
		for try := 0; try < 10; try++ {
			dc, dp, ok := schurSolve(H, g, blocks, N, nI, lambda)
			if !ok {
				lambda *= 10
				continue
			}
			saved := m.saveParams()
			m.apply(intr, slot, dc, dp, blocks, nI)
			if c := m.cost(m.active).sq; c < cur {
				rel := (cur - c) / cur
				cur = c
				lambda = math.Max(lambda/3, 1e-12)
				improved = true
				if rel < 1e-6 {
					return nil
				}
				break
			}
			m.restoreParams(saved)
			lambda *= 5
		}
		if !improved {
			return nil
		}
	}
	return nil
}

// schurSolve solves the damped normal equations with the points
// eliminated: the step of the intrinsics and poses, then each point's.
func schurSolve(H, g []float64, blocks []pointBlock, N, nI int, lambda float64) ([]float64, [][3]float64, bool) {
	S := make([]float64, N*N)
	copy(S, H)
	rhs := make([]float64, N)
	for i := range N {
		S[i*N+i] += lambda*H[i*N+i] + 1e-9
		rhs[i] = -g[i]
	}
	Vinv := make([][9]float64, len(blocks))
	var idx []int
	var W, Y [][3]float64
	for p, pb := range blocks {
		V := pb.V
		for i := range 3 {
			V[4*i] += lambda*pb.V[4*i] + 1e-9
		}
		inv, ok := geom.Inverse3(V)
		if !ok {
			return nil, nil, false
		}
		Vinv[p] = inv
		// The rows of W (intrinsics, then 6 per camera) and their indices
		// in S; Y = W V⁻¹; S -= Y Wᵀ; rhs += Y g_p.
		idx, W = idx[:0], W[:0]
		for a := range nI {
			idx, W = append(idx, a), append(W, pb.WI[a])
		}
		for ci, s := range pb.cams {
			for a := range 6 {
				idx, W = append(idx, nI+6*s+a), append(W, pb.WC[ci][a])
			}
		}
		Y = Y[:0]
		for a, wa := range W {
			var y [3]float64
			for c := range 3 {
				y[c] = wa[0]*inv[c] + wa[1]*inv[3+c] + wa[2]*inv[6+c]
			}
			Y = append(Y, y)
			rhs[idx[a]] += y[0]*pb.g[0] + y[1]*pb.g[1] + y[2]*pb.g[2]
		}
		// The upper triangle only; mirrored below.
		for a, y := range Y {
			ia := idx[a]
			row := S[ia*N:]
			for b, wb := range W {
				if ib := idx[b]; ib >= ia {
					row[ib] -= y[0]*wb[0] + y[1]*wb[1] + y[2]*wb[2]
				}
			}
		}
	}
	for i := range N {
		for j := i + 1; j < N; j++ {
			S[j*N+i] = S[i*N+j]
		}
	}
	dc := make([]float64, N)
	if N > 0 {
		var ch mat.Cholesky
		if !ch.Factorize(mat.NewSymDense(N, S)) {
			return nil, nil, false
		}
		x := mat.NewVecDense(N, nil)
		if err := ch.SolveVecTo(x, mat.NewVecDense(N, rhs)); err != nil {
			return nil, nil, false
		}
		for i := range N {
			dc[i] = x.AtVec(i)
		}
	}
	dp := make([][3]float64, len(blocks))
	for p, pb := range blocks {
		var b [3]float64
		for c := range 3 {
			b[c] = -pb.g[c]
		}
		for a := range nI {
			for c := range 3 {
				b[c] -= pb.WI[a][c] * dc[a]
			}
		}
		for ci, s := range pb.cams {
			for a := range 6 {
				for c := range 3 {
					b[c] -= pb.WC[ci][a][c] * dc[nI+6*s+a]
				}
			}
		}
		dp[p] = geom.MulVec3(Vinv[p], b)
	}
	return dc, dp, true
}

// apply adds a step to the model.
func (m *model) apply(intr, slot []int, dc []float64, dp [][3]float64, blocks []pointBlock, nI int) {
	for a, k := range intr {
		switch k {
		case 0:
			m.cam.Focal += dc[a]
		case 1:
			m.cam.Cx += dc[a]
		case 2:
			m.cam.Cy += dc[a]
		case 3:
			m.cam.K1 += dc[a]
		}
	}
	for v, s := range slot {
		if s < 0 {
			continue
		}
		o := nI + 6*s
		m.R[v] = geom.Mul3(expRot([3]float64{dc[o], dc[o+1], dc[o+2]}), m.R[v])
		m.C[v] = [3]float64{m.C[v][0] + dc[o+3], m.C[v][1] + dc[o+4], m.C[v][2] + dc[o+5]}
	}
	for p, pb := range blocks {
		X := m.X[pb.t]
		m.X[pb.t] = [3]float64{X[0] + dp[p][0], X[1] + dp[p][1], X[2] + dp[p][2]}
	}
}

// jacobian returns the residual (projection minus observation) of ob and
// its derivatives by the point, the view's pose (rotation increment,
// centre) and the intrinsics (f, cx, cy, k1). ok is false behind the
// camera.
func (m *model) jacobian(ob Obs, X [3]float64) (r [2]float64, Jp [2][3]float64, Jc [2][6]float64, Ji [2][4]float64, ok bool) {
	R := m.R[ob.View]
	xc := geom.MulVec3(R, geom.Sub(X, m.C[ob.View]))
	z := xc[2]
	if !(z > 0) {
		return r, Jp, Jc, Ji, false
	}
	f, k1 := m.cam.Focal, m.cam.K1
	u, w := xc[0]/z, xc[1]/z
	r2 := u*u + w*w
	d := 1 + k1*r2
	r[0] = f*d*u + m.cam.Cx - ob.X
	r[1] = f*d*w + m.cam.Cy - ob.Y
	a11, a12, a22 := f*(d+2*k1*u*u), 2*f*k1*u*w, f*(d+2*k1*w*w)
	A := [2][3]float64{
		{a11 / z, a12 / z, -(a11*u + a12*w) / z},
		{a12 / z, a22 / z, -(a12*u + a22*w) / z},
	}
	// −[xc]×
	nx := [9]float64{0, xc[2], -xc[1], -xc[2], 0, xc[0], xc[1], -xc[0], 0}
	for i := range 2 {
		for c := range 3 {
			ar := A[i][0]*R[c] + A[i][1]*R[3+c] + A[i][2]*R[6+c]
			Jp[i][c] = ar
			Jc[i][3+c] = -ar
			Jc[i][c] = A[i][0]*nx[c] + A[i][1]*nx[3+c] + A[i][2]*nx[6+c]
		}
	}
	Ji[0] = [4]float64{d * u, 1, 0, f * u * r2}
	Ji[1] = [4]float64{d * w, 0, 1, f * w * r2}
	return r, Jp, Jc, Ji, true
}

// params are a model's parameters, for a step to be undone.
type params struct {
	cam SimpleRadial
	R   [][9]float64
	C   [][3]float64
	X   [][3]float64
}

func (m *model) saveParams() params {
	return params{m.cam, slices.Clone(m.R), slices.Clone(m.C), slices.Clone(m.X)}
}

func (m *model) restoreParams(p params) {
	m.cam = p.cam
	copy(m.R, p.R)
	copy(m.C, p.C)
	copy(m.X, p.X)
}
