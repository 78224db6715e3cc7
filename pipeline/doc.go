// Package pipeline runs clearmatch's stages, from images (or feature sets)
// to cycle-consistent tracks, as a row of named steps:
//
//	extract   SIFT keypoints and descriptors per image (package features)
//	select    the image pairs to match (PairOptions: exhaustive,
//	          sequential, retrieval, or given)
//	match     Lowe's ratio test per pair (package pairwise)
//	verify    two-view geometry (H, F or E) per pair (package pairwise)
//	solve     CLEAR on the verified association graph (package clear)
//	tracks    completion, refinement, the weak-pair filter, self-calibration,
//	          the reprojection filter and -min-track (package tracks: each
//	          a tracks.Stage, run in the order of tracks.Options.Stages)
//
// Run takes image files, Match takes feature sets (a benchmark's selected
// features, say), MatchGiven keypoints and matches made elsewhere (another
// matcher's, a COLMAP database's: verify, solve and tracks only); each
// returns a Result with every step's output, stats and timing. Options hold one group per step; DefaultOptions is what
// `clearmatch match` runs with no flags.
//
// The package owns the concurrency (a bounded worker pool per step, never
// changing the output), honours context cancellation inside every step,
// reports progress through the Progress interface, and prints nothing.
// Retrieval's transitive completion runs select, match and verify again
// for the pairs it proposes. File formats are in package export. Without
// cgo the package builds and Match works on given feature sets with the
// pure-Go matcher (and an Estimator of the caller's, for verification);
// the image steps return features.ErrNoOpenCV.
package pipeline
