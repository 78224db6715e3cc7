// Package clear implements CLEAR, the Consistent Lifting, Embedding, and
// Alignment Rectification algorithm for multi-view data association:
//
//	K. Fathian, K. Khosoussi, Y. Tian, P. Lusk, J. P. How, "CLEAR: A
//	Consistent Lifting, Embedding, and Alignment Rectification Algorithm
//	for Multi-View Data Association", IEEE Transactions on Robotics, 2020.
//	arXiv:1902.02256.
//
// # Input and output
//
// A Problem holds the number of observations in each view and the sparse,
// possibly weighted, pairwise associations between observations of
// different views (the aggregate association matrix P̃). Solve returns a
// Result that puts every observation in one universe item so that the
// association is cycle consistent (P_ij = P_i P_jᵀ, a disjoint union of
// cliques) and distinct (no item holds two observations of one view).
//
//	p := &clear.Problem{ViewSizes: []int{30, 30, 30}}
//	p.Associate(0, 31, 0) // observation 0 of view 0 with 1 of view 1
//	r, err := clear.Solve(p, nil)
//	// r.Item[i] is the universe item of observation i; r.Pairs() the matches.
//
// # The steps, as the paper names them
//
//  1. The association graph: P = (P̃ + P̃ᵀ)/2 with identity diagonal blocks
//     (associations inside a view are dropped and counted), C = D + I, and
//     the normalized Laplacian L_nrm = C^{-1/2} (D − A) C^{-1/2} (eq. 7).
//  2. Connected components by breadth-first search; the spectrum of L_nrm is
//     the union of the components' spectra, eigenvectors zero-padded.
//  3. The universe size m = max(#{λ < 0.5}, largest view) (eq. 8–9), or the
//     size given in Options.UniverseSize. See ThresholdMargin for what
//     "below 0.5" means in floating point.
//  4. U = eigenvectors of the m smallest eigenvalues, rows normalized; the
//     pivots are the first row, then greedily the row with the smallest sum
//     of |inner products| with the pivots so far; the lifting permutations
//     assign each view's observations to pivots by cost 1 − ⟨u_j, u'_k⟩,
//     with the reference code's greedy rounds or the Hungarian method.
//  5. P_ij = P_i P_jᵀ: Result.Item and Result.Pairs.
//
// # Structure and speed
//
// Memory and time follow the number of associations and the component
// sizes; no l×l matrix is formed. The graph is kept in CSR form. Rows of U
// from different components are orthogonal, so pivot scores and assignment
// costs are only computed inside a component, and a row's cost for any
// pivot of another component is exactly 1. Components of up to DenseMax
// observations are decomposed densely (cyclic Jacobi when tiny, gonum's
// EigenSym otherwise); larger ones by a Lanczos solver with full
// reorthogonalization, locking and verification restarts, which finds only
// the eigenpairs CLEAR needs (see lanczos.go). EigenDense forces the dense
// path everywhere; tests check that both give the same universe size and
// partition.
//
// # Part by part
//
// CLEAR's heavy steps work on one connected component at a time, so a
// distributed solve can run them where the component is: Problem.Parts
// splits a problem into its components of two or more observations (the
// others are singletons); per part, DecomposePart, Sequence and later
// Costs; between them, three small steps over all parts: UniverseOf, Cut
// and Lowest; per view, AssignView; and Number. SolveParts runs these
// steps in one process and returns Solve's Result exactly, except where
// the universe exceeds the eigenvalue count (ErrWholeSolve): the extra
// eigenvectors then come from every component in one order.
//
// # Ties
//
// Equal values are common in CLEAR's inputs (eigenvalues exactly at the
// threshold, symmetric graphs). Eigenvalues, pivot scores and assignment
// costs that agree to about 1e-9 are treated as equal and ordered by index
// (component, then observation, then item), so that the output does not
// depend on rounding noise. The reference code compares raw floating-point
// values instead; on generic inputs the two agree.
//
// The package is pure Go (no cgo) and deterministic: equal input and
// options give equal output, on any number of cores. Solve returns only
// when all its work is done; the iterative solver splits the rows of a
// large component between two goroutines (team.go), in parts that depend
// only on the component, so the arithmetic is the same everywhere.
package clear
