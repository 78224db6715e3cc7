// Package fusion fuses landmark maps with CLEAR, the CLEAR paper's third
// experiment (Fathian et al., T-RO 2020, "Forest Landmark-based SLAM"):
//
//  1. Associate: for every pair of local maps, the largest set of landmark
//     pairings that one rigid motion explains (every two of its pairings
//     preserve their distance within the tolerance, so the set is a
//     clique of Bailey et al.'s correspondence graph, ICRA 2000), found by
//     consensus over pairings of landmark triangles of matching shape (on
//     simulated maps more right and 50 times faster than the graph's exact
//     maximum clique, which also admits mirror images); a pair with fewer
//     than MinMatches pairings, or covering less than MinShare of the
//     maps' overlap, is not associated. No descriptor is used. With
//     poses, the pairs the first pass associated are kept where they
//     agree pairwise, each two closing a loop with the odometry (PCM,
//     Mangelson et al., ICRA 2018; consistent.go), and a second pass
//     gates each pair's pairings around the motion the poses predict,
//     with a drift read from the pairs the first pass associated; three
//     consistent pairings associate it (posed.go).
//  2. Run: the pairings as one clear.Problem, solved by CLEAR or any method
//     of package multiway (the inconsistent ones completed per connected
//     component, as the paper does); clusters smaller than MinCluster
//     dropped (the paper's post-processing); each cluster fused into one
//     landmark placed in the odometry frame.
//  3. Optimize: the map poses and fused landmarks (every cluster of two
//     observations or more, Constraining) as one least-squares
//     problem (PoseGraph: odometry between consecutive maps, every kept
//     observation of its fused landmark), solved by Levenberg–Marquardt
//     with the landmarks eliminated by the Schur complement and a robust
//     kernel (graduated non-convexity by default), so that the trajectory
//     and the map agree; PoseGraph.WriteG2O hands the same problem to g2o
//     or GTSAM.
//  4. Score: definite negatives and potential positives (an associated pair
//     farther apart than a distance in a frame is a definite negative: the
//     paper's protocol uses the odometry frame, where drift makes right
//     pairs far too; the optimized frame is the one a map user has),
//     precision, recall and F1 when the maps carry a true identity, and the
//     trajectory against reference positions (GPS) when a log has them.
//
// Everything is pure Go
// and deterministic for the same input and options on any number of cores.
package fusion
