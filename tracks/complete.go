package tracks

import (
	"context"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
)

// Stage names, as Views.Progress receives them.
const (
	// StageComplete counts the tracks completion proposed observations
	// for, StageCompletePairs then the image pairs whose descriptors it
	// compared.
	StageComplete      = "complete"
	StageCompletePairs = "complete-pairs"
	// StageRefine counts the images read (twice each) to refine tracks.
	StageRefine = "refine"
)

// CompleteOptions configure Complete. The zero value is the default.
type CompleteOptions struct {
	// Off skips the stage.
	Off bool
	// Threshold is the largest distance (pixels) of a candidate from each
	// epipolar line; MinAngle the least angle (degrees) between two lines;
	// MinLines the fewest lines; MinPairMatches the fewest verified
	// matches of a pair whose lines count; MaxDistance the largest SIFT
	// descriptor distance (norm 512) from the track. 0 means the default
	// (pairwise.DefaultComplete*, 2 lines).
	Threshold      float64
	MinAngle       float64
	MinLines       int
	MinPairMatches int
	MaxDistance    float64
}

// ApplyDefaults fills the fields left 0 with the values they stand for.
func (o *CompleteOptions) ApplyDefaults() {
	d := o.pairwise().WithDefaults()
	o.Threshold, o.MinAngle, o.MinLines, o.MinPairMatches, o.MaxDistance = d.Threshold, d.MinAngle, d.MinLines, d.MinPairMatches, d.MaxDistance
}

// Validate reports options Complete cannot use.
func (o CompleteOptions) Validate() error { return o.pairwise().Validate() }

func (o CompleteOptions) pairwise() pairwise.CompleteOptions {
	return pairwise.CompleteOptions{Threshold: o.Threshold, MinAngle: o.MinAngle, MinLines: o.MinLines, MinPairMatches: o.MinPairMatches, MaxDistance: o.MaxDistance}
}

// Complete extends the tracks by epipolar transfer through the verified
// pairs (pairwise.CompleteTracks): a keypoint in no track that lies where
// the epipolar lines of two of a track's observations cross, with a
// descriptor close to the track's, joins it. It returns the new tracks and
// the number of observations added. It needs verified pairs: without
// them, or with Off, t is returned as it is.
func Complete(ctx context.Context, v *Views, t Tracks, o CompleteOptions) (Tracks, int, error) {
	if o.Off || t.Pairs == nil {
		return t, 0, nil
	}
	co := o.pairwise()
	co.DescriptorRows = func(i int, rows []int) ([]float32, error) { return v.Sets[i].LoadRows(rows) }
	co.Progress = v.progress(StageComplete)
	co.PairProgress = v.progress(StageCompletePairs)
	item, added, err := pairwise.CompleteTracks(ctx, pairViews(v), features.DescSize, t.Pairs, t.Item, v.offsets(), co)
	if err != nil {
		return t, 0, err
	}
	t.Item = item
	return t, added, nil
}

// pairViews are the images as package pairwise takes them: keypoint
// positions as extracted, intrinsics and pixel scale.
func pairViews(v *Views) []pairwise.View {
	views := make([]pairwise.View, len(v.Sets))
	for i, s := range v.Sets {
		views[i] = pairwise.View{Intrinsics: v.Intrinsics, PixelScale: 1}
		if v.Scale != nil {
			views[i].PixelScale = v.Scale[i]
		}
		views[i].Points = make([]geom.Point, s.Len())
		for k, kp := range s.Keypoints {
			views[i].Points[k] = geom.Point{X: float64(kp.X), Y: float64(kp.Y)}
		}
	}
	return views
}
