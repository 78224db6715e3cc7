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
// Each stage is a function of a Views (what no stage changes: the
// features, thresholds and intrinsics) and a Tracks (the state: the track
// of every observation, the keypoints they are written with, the verified
// pairs), and returns a new Tracks with its Stats. Each has its own
// Options, whose zero value is the documented default (Off turns a stage
// off) and whose ApplyDefaults fills in the values it stands for.
//
// Invariants: a stage never writes into the slices of the Tracks it is
// given; a slice it does not change is shared with its output, so keep
// the input if you need it. Tracks stay cycle consistent: an observation
// joins at most one track and a track holds at most one observation per
// image. Results depend only on the inputs and options, not on the number
// of cores. Why each default is what it is: docs/decisions.md, "Track
// stages".
package tracks
