package multiway

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/clearmatch/clearmatch/clear"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
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
// Memory: four dense l×l matrices (X, Z, Y and the previous X).
func matchALS(ctx context.Context, s *sparse, m int, opts *Options) (*Result, error) {
	l := s.l
	k := min(2*m, l)
	if l == 0 || k == 0 {
		return &Result{Converged: true}, nil
	}
	X := mat.NewDense(l, l, nil)
	for r := 0; r < l; r++ {
		for e := s.start[r]; e < s.start[r+1]; e++ {
			X.Set(r, s.col[e], s.val[e])
		}
	}
	Z := mat.DenseCopyOf(X)
	Y := mat.NewDense(l, l, nil)
	X0 := mat.NewDense(l, l, nil)
	rng := rand.New(rand.NewPCG(opts.seed(), 0xa15))
	A := mat.NewDense(l, k, nil)
	for i := 0; i < l; i++ {
		for j := 0; j < k; j++ {
			A.Set(i, j, rng.Float64())
		}
	}
	B := mat.NewDense(l, k, nil)
	ATX := mat.NewDense(k, l, nil)
	G := mat.NewDense(k, k, nil)
	mu := float64(alsMu0)
	maxIter := opts.maxIter(alsMaxIter)
	xr, zr, yr, x0r := X.RawMatrix(), Z.RawMatrix(), Y.RawMatrix(), X0.RawMatrix()
	res := &Result{}
	for it := 1; it <= maxIter; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		X0.Copy(X)
		// X ← Z − (Y − W + β)/μ, with the sparse W added after.
		for i := 0; i < l; i++ {
			xrow, zrow, yrow := xr.Data[i*xr.Stride:i*xr.Stride+l], zr.Data[i*zr.Stride:i*zr.Stride+l], yr.Data[i*yr.Stride:i*yr.Stride+l]
			for j := range xrow {
				xrow[j] = zrow[j] - (yrow[j]+alsBeta)/mu
			}
			for e := s.start[i]; e < s.start[i+1]; e++ {
				xrow[s.col[e]] += s.val[e] / mu
			}
		}
		// B ← ((AᵀA + (α/μ)I)⁻¹ AᵀX)ᵀ
		if err := ridgeSolve(G, A, ATX, X, alsAlpha/mu, false); err != nil {
			return nil, err
		}
		B.Copy(ATX.T())
		// A ← ((BᵀB + (α/μ)I)⁻¹ BᵀXᵀ)ᵀ
		if err := ridgeSolve(G, B, ATX, X, alsAlpha/mu, true); err != nil {
			return nil, err
		}
		A.Copy(ATX.T())
		// X ← ABᵀ
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, A.RawMatrix(), B.RawMatrix(), 0, xr)
		// Z ← X + Y/μ projected; Y ← Y + μ(X − Z); residuals.
		var pRes, dRes float64
		for i := 0; i < l; i++ {
			v := s.view[i]
			lo, hi := s.offset[v], s.offset[v+1]
			xrow, zrow, yrow, x0row := xr.Data[i*xr.Stride:i*xr.Stride+l], zr.Data[i*zr.Stride:i*zr.Stride+l], yr.Data[i*yr.Stride:i*yr.Stride+l], x0r.Data[i*x0r.Stride:i*x0r.Stride+l]
			for j := range xrow {
				var z float64
				switch {
				case j == i:
					z = 1
				case j >= lo && j < hi:
					z = 0
				default:
					z = min(max(xrow[j]+yrow[j]/mu, 0), 1)
				}
				zrow[j] = z
				d := xrow[j] - z
				yrow[j] += mu * d
				pRes += d * d
				c := xrow[j] - x0row[j]
				dRes += c * c
			}
		}
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
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			if (xr.Data[i*xr.Stride+j]+xr.Data[j*xr.Stride+i])/2 > 0.5 {
				res.Pairs = append(res.Pairs, clear.Pair{A: i, B: j})
			}
		}
	}
	return res, nil
}

// ridgeSolve sets out (k×l) to (FᵀF + λI)⁻¹ FᵀX, or (FᵀF + λI)⁻¹ FᵀXᵀ
// when trans, for F of size l×k; g is k×k scratch.
func ridgeSolve(g, f, out, x *mat.Dense, lambda float64, trans bool) error {
	g.Mul(f.T(), f)
	k, _ := g.Dims()
	for i := 0; i < k; i++ {
		g.Set(i, i, g.At(i, i)+lambda)
	}
	tx := blas.NoTrans
	if trans {
		tx = blas.Trans
	}
	// out = Fᵀ·op(X): (k×l)·(l×l).
	blas64.Gemm(blas.Trans, tx, 1, f.RawMatrix(), x.RawMatrix(), 0, out.RawMatrix())
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(k, g.RawMatrix().Data)) {
		return errNotPD
	}
	return ch.SolveTo(out, out)
}
