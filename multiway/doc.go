// Package multiway holds the multi-view matching methods that the CLEAR
// paper (Fathian et al., "CLEAR: A Consistent Lifting, Embedding, and
// Alignment Rectification Algorithm for Multi-View Data Association", IEEE
// T-RO 2020) compares with CLEAR, on CLEAR's own input type, so that the
// paper's comparison runs from one library:
//
//   - Spectral: Pachauri, Kondor, Singh, "Solving the multi-way matching
//     problem by permutation synchronization", NIPS 2013, in the partial
//     form of Zhou, Zhu, Daniilidis 2015.
//   - MatchEIG: Maset, Arrigoni, Fusiello, "Practical and efficient
//     multi-view matching", ICCV 2017.
//   - MatchALS: Zhou, Zhu, Daniilidis, "Multi-image matching via fast
//     alternating minimization", ICCV 2015.
//   - NMFSync: Bernard, Thunberg, Gonçalves, Theobalt, "Synchronisation of
//     partial multi-matchings via non-negative factorisations", Pattern
//     Recognition 2019.
//   - QuickMatch: Tron, Zhou, Esteves, Daniilidis, "Fast multi-image
//     matching via density-based clustering", ICCV 2017.
//   - MatchLift: Chen, Guibas, Huang, "Near-optimal joint object matching
//     via convex relaxation", ICML 2014.
//
// Each is written from its paper and the description of how the CLEAR
// paper's harness runs it (parameters, universe size shared from CLEAR's
// estimate), not from the authors' code. Run takes a clear.Problem and
// returns a Result that holds an inconsistent answer as pairs; methods that
// yield a partition also give the item of every observation.
//
// Every random choice comes from Options.Seed and the output does not
// depend on GOMAXPROCS. Each method plans its memory and work before it
// starts (Memory, Work) and refuses past Options.MaxMemory or
// Options.MaxFlop with a one-line *ErrTooLarge or *ErrTooSlow; the
// iterative ones report progress and stop on context cancellation.
//
// The package is pure Go (gonum for dense linear algebra): the eigen-based
// methods decompose P per connected component, densely when small and by
// Chebyshev-filtered block subspace iteration when a large component needs
// few eigenpairs, so no step is denser than the method itself requires.
package multiway
