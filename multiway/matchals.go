package multiway

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/clearmatch/clearmatch/clear"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/mat"
)

// MatchALS's parameters, as the CLEAR paper ran it.
const (
	alsAlpha   = 50
	alsBeta    = 0.1
	alsMu0     = 64
	alsMaxIter = 200
	alsTol     = 5e-4
)

// matchALS is MatchALS: Zhou, Zhu and Daniilidis, "Multi-image matching via
// fast alternating minimization", ICCV 2015.
//
// It solves min −⟨W, X⟩ + α‖X‖_* + β‖X‖₁ over X with identity diagonal
// blocks and entries in [0, 1] by ADMM, with the nuclear norm carried by a
// low-rank factorization X = ABᵀ of rank 2m̂ (α = 50, β = 0.1, μ₀ = 64, at
// most 200 iterations, tolerance 5e-4). W is P with its diagonal zeroed;
// A starts uniform in [0, 1) from Options.Seed. The output, (X + Xᵀ)/2 >
// 0.5, is neither consistent nor distinct in general.
//
// As the authors' code, it computes in single precision (the k×k normal
// equations in double). Memory: five dense l×l float32 matrices (the
// previous and the new X, the ADMM point, Z and Y).
func matchALS(ctx context.Context, s *sparse, m int, opts *Options) (*Result, error) {
	l := s.l
	k := min(2*m, l)
	if l == 0 || k == 0 {
		return &Result{Converged: true}, nil
	}
	sq := func() blas32.General { return blas32.General{Rows: l, Cols: l, Stride: l, Data: make([]float32, l*l)} }
	lk := func() blas32.General { return blas32.General{Rows: l, Cols: k, Stride: k, Data: make([]float32, l*k)} }
	Xp, Xn, T, Z, Y := sq(), sq(), sq(), sq(), sq()
	for r := 0; r < l; r++ {
		for e := s.start[r]; e < s.start[r+1]; e++ {
			Xp.Data[r*l+s.col[e]] = float32(s.val[e])
		}
	}
	copy(Z.Data, Xp.Data)
	rng := rand.New(rand.NewPCG(opts.seed(), 0xa15))
	A, B, TB := lk(), lk(), lk()
	for i := range A.Data {
		A.Data[i] = float32(rng.Float64())
	}
	ATX := blas32.General{Rows: k, Cols: l, Stride: l, Data: make([]float32, k*l)}
	rhs := mat.NewDense(k, l, nil)
	gram := blas32.General{Rows: k, Cols: k, Stride: k, Data: make([]float32, k*k)}
	mu := float64(alsMu0)
	maxIter := opts.maxIter(alsMaxIter)
	res := &Result{}
	for it := 1; it <= maxIter; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// T ← Z − (Y − W + β)/μ, with the sparse W added after.
		inv := float32(1 / mu)
		for i := 0; i < l; i++ {
			t, z, y := T.Data[i*l:(i+1)*l], Z.Data[i*l:(i+1)*l], Y.Data[i*l:(i+1)*l]
			for j := range t {
				t[j] = z[j] - (y[j]+alsBeta)*inv
			}
			for e := s.start[i]; e < s.start[i+1]; e++ {
				t[s.col[e]] += float32(s.val[e]) * inv
			}
		}
		// B ← ((AᵀA + (α/μ)I)⁻¹ AᵀT)ᵀ
		if err := gemm(ctx, blas.Trans, blas.NoTrans, A, T, ATX); err != nil {
			return nil, err
		}
		if err := ridge(gram, A, ATX.Data, rhs, alsAlpha/mu, B); err != nil {
			return nil, err
		}
		// A ← ((BᵀB + (α/μ)I)⁻¹ BᵀTᵀ)ᵀ, with BᵀTᵀ = (TB)ᵀ
		if err := gemm(ctx, blas.NoTrans, blas.NoTrans, T, B, TB); err != nil {
			return nil, err
		}
		for i := 0; i < l; i++ {
			for j := 0; j < k; j++ {
				ATX.Data[j*l+i] = TB.Data[i*k+j]
			}
		}
		if err := ridge(gram, B, ATX.Data, rhs, alsAlpha/mu, A); err != nil {
			return nil, err
		}
		// X ← ABᵀ
		if err := gemm(ctx, blas.NoTrans, blas.Trans, A, B, Xn); err != nil {
			return nil, err
		}
		// Z ← X + Y/μ projected; Y ← Y + μ(X − Z); residuals.
		var pRes, dRes float64
		muf := float32(mu)
		for i := 0; i < l; i++ {
			v := s.view[i]
			lo, hi := s.offset[v], s.offset[v+1]
			x, xp, z, y := Xn.Data[i*l:(i+1)*l], Xp.Data[i*l:(i+1)*l], Z.Data[i*l:(i+1)*l], Y.Data[i*l:(i+1)*l]
			var pr, dr float32
			for j := range x {
				zj := min(max(x[j]+y[j]*inv, 0), 1)
				if j >= lo && j < hi {
					zj = 0
					if j == i {
						zj = 1
					}
				}
				z[j] = zj
				d := x[j] - zj
				y[j] += muf * d
				pr += d * d
				c := x[j] - xp[j]
				dr += c * c
			}
			pRes += float64(pr)
			dRes += float64(dr)
		}
		Xp, Xn = Xn, Xp
		pRes = math.Sqrt(pRes) / float64(l)
		dRes = mu * math.Sqrt(dRes) / float64(l)
		res.Iterations = it
		opts.progress(it, maxIter)
		if pRes < alsTol && dRes < alsTol {
			res.Converged = true
			break
		}
		if pRes > 10*dRes {
			mu *= 2
		} else if dRes > 10*pRes {
			mu /= 2
		}
	}
	X := Xp.Data // the last ABᵀ
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			if (X[i*l+j]+X[j*l+i])/2 > 0.5 {
				res.Pairs = append(res.Pairs, clear.Pair{A: i, B: j})
			}
		}
	}
	return res, nil
}

// ridge sets out (l×k) to ((FᵀF + λI)⁻¹ R)ᵀ for F of size l×k and R the
// k×l right-hand side (row-major, float32), solving in double precision;
// gram and rhs are scratch.
func ridge(gram, f blas32.General, r []float32, rhs *mat.Dense, lambda float64, out blas32.General) error {
	k := f.Cols
	l := f.Rows
	blas32.Gemm(blas.Trans, blas.NoTrans, 1, f, f, 0, gram)
	g := mat.NewSymDense(k, nil)
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			g.SetSym(i, j, float64(gram.Data[i*k+j]))
		}
		g.SetSym(i, i, g.At(i, i)+lambda)
	}
	raw := rhs.RawMatrix()
	for i := 0; i < k; i++ {
		for j := 0; j < l; j++ {
			raw.Data[i*raw.Stride+j] = float64(r[i*l+j])
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(g) {
		return errNotPD
	}
	if err := ch.SolveTo(rhs, rhs); err != nil {
		return err
	}
	for i := 0; i < k; i++ {
		for j := 0; j < l; j++ {
			out.Data[j*k+i] = float32(raw.Data[i*raw.Stride+j])
		}
	}
	return nil
}

// gemmBlock is the number of output columns (or rows) one uninterrupted
// product computes: a large problem's product stops within a fraction of a
// second of cancellation.
const gemmBlock = 1024

// gemm sets c = op(a)·op(b) in blocks, checking ctx between them: by
// columns of c when c is wide, else by rows.
func gemm(ctx context.Context, ta, tb blas.Transpose, a, b, c blas32.General) error {
	if c.Cols >= c.Rows {
		for j0 := 0; j0 < c.Cols; j0 += gemmBlock {
			if err := ctx.Err(); err != nil {
				return err
			}
			j1 := min(j0+gemmBlock, c.Cols)
			cs := blas32.General{Rows: c.Rows, Cols: j1 - j0, Stride: c.Stride, Data: c.Data[j0:]}
			var bs blas32.General
			if tb == blas.NoTrans { // columns j0:j1 of b
				bs = blas32.General{Rows: b.Rows, Cols: j1 - j0, Stride: b.Stride, Data: b.Data[j0:]}
			} else { // rows j0:j1 of b
				bs = blas32.General{Rows: j1 - j0, Cols: b.Cols, Stride: b.Stride, Data: b.Data[j0*b.Stride:]}
			}
			blas32.Gemm(ta, tb, 1, a, bs, 0, cs)
		}
		return nil
	}
	for i0 := 0; i0 < c.Rows; i0 += gemmBlock {
		if err := ctx.Err(); err != nil {
			return err
		}
		i1 := min(i0+gemmBlock, c.Rows)
		cs := blas32.General{Rows: i1 - i0, Cols: c.Cols, Stride: c.Stride, Data: c.Data[i0*c.Stride:]}
		var as blas32.General
		if ta == blas.NoTrans { // rows i0:i1 of a
			as = blas32.General{Rows: i1 - i0, Cols: a.Cols, Stride: a.Stride, Data: a.Data[i0*a.Stride:]}
		} else { // columns i0:i1 of a
			as = blas32.General{Rows: a.Rows, Cols: i1 - i0, Stride: a.Stride, Data: a.Data[i0:]}
		}
		blas32.Gemm(ta, tb, 1, as, b, 0, cs)
	}
	return nil
}
