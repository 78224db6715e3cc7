// Package pipeline runs clearmatch's stages, from images (or feature sets)
// to cycle-consistent tracks, as a chain of values, each made by one stage
// and read-only afterwards:
//
//	FeatureOptions.Run  image files → *Scene: SIFT keypoints and
//	            descriptors per image, the scale they were detected at, the
//	            camera (package features)
//	PairStage.Run  *Scene → *Matched: the pairs selected (PairOptions:
//	            exhaustive, sequential, retrieval, or given), Lowe's ratio
//	            test and two-view geometry (H, F or E) per pair (package
//	            pairwise), in rounds while retrieval's completion proposes
//	            more
//	SolveOptions.Run  *Matched → *Solution: CLEAR on the association
//	            graph (Association; package clear)
//	Track       *Solution → *Result: completion, refinement, the weak-pair
//	            filter, self-calibration, the reprojection filter and
//	            min-track (package tracks: each a tracks.Stage, in the order
//	            of tracks.Options.Stages)
//
// Each stage is a value that owns its options; all run in one Env (the
// worker bound, progress, the caches), which no output depends on.
// Run is the chain from image files, Match the chain from a Scene made by
// NewScene (a benchmark's selected features, say), MatchGiven the chain
// from keypoints and matches made elsewhere (another matcher's, a COLMAP
// database's: verify, solve and tracks only). The Result embeds the Scene,
// Matched and Solution and holds every track stage's output, stats and
// timing. Options hold one group per stage and the Env. A zero field
// means its default, and none is a negative number or an Off/No… field,
// so the zero Options are DefaultOptions, what `clearmatch match` runs
// with no flags; BenchmarkOptions and PaperOptions are the other presets.
//
// The package owns the concurrency (a bounded worker pool per step, never
// changing the output), honours context cancellation inside every step,
// reports progress through the Progress interface, and prints nothing.
// File formats are in package export. Without cgo the package builds and
// Match works on given feature sets with the pure-Go matcher (and an
// Estimator of the caller's, for verification); the image steps return
// features.ErrNoOpenCV.
package pipeline
