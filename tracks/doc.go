// Package tracks holds the stages that run on CLEAR's tracks, in the
// order package pipeline runs them:
//
//	Complete   keypoints that join a track by epipolar transfer
//	Refine     each track's keypoints moved onto its reference's scene point
//	FilterWeak weak pairs refitted (and, with intrinsics, rotations closed
//	           around triangles); observations off their models leave
//	SelfCalibrate  the camera the images share, from the tracks
//	FilterReproj   observations far from their track's reconstructed point
//	           leave; keypoints where the point projects join
//	DropShort  tracks shorter than MinTrackOptions.Min leave (the paper's
//	           post-processing)
//
// Each stage is a value of type Stage: its Options type (CompleteOptions,
// RefineOptions, …), whose zero value is the documented default (Off
// turns a stage off) and whose ApplyDefaults fills in the values it
// stands for. Stage.Run takes a Views (what no stage changes: the
// features, thresholds and intrinsics) and a Tracks (the state: the track
// of every observation, the keypoints they are written with, the verified
// pairs, the self-calibrated camera) and returns a new Tracks with its
// Stats. Options.Stages lists them in order; the functions of the same
// names (Complete, Refine, …) are the stages with their own signatures.
//
// Which can run on one connected component of the association at a time
// (the unit clearmatch-beam shards): Refine and DropShort, which look at
// one track at a time. Complete cannot: a keypoint in no track may join a
// track of any component, and tracks are served in order. FilterWeak
// cannot: a pair's refit uses every track its two images share.
// SelfCalibrate and FilterReproj cannot: they reconstruct every image
// from all the tracks at once.
//
// Invariants: a stage never writes into the slices of the Tracks it is
// given; a slice it does not change is shared with its output, so keep
// the input if you need it. Tracks stay cycle consistent: an observation
// joins at most one track and a track holds at most one observation per
// image. Results depend only on the inputs and options, not on the number
// of cores. Why each default is what it is: docs/decisions.md, "Track
// stages".
package tracks
