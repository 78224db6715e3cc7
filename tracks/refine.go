package tracks

import (
	"context"
	"fmt"
	"slices"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/imagefile"
	"github.com/clearmatch/clearmatch/refine"
)

// RefineOptions configure Refine. The zero value is the default.
type RefineOptions struct {
	// Off skips the stage.
	Off bool
	// Patch configures the patch alignment (package refine; 0s are its
	// defaults).
	Patch refine.Options
}

// Aligner does refine.Tracks' work on a job: Refine's runs it in this
// process; clearmatch-beam's, image by image on its workers. It must
// leave the job's tracks and return the Stats that refine.Tracks would.
type Aligner func(ctx context.Context, job RefineJob) (refine.Stats, error)

// RefineJob is refine.Tracks' input with what loading an image needs.
type RefineJob struct {
	// Tracks are refined in place.
	Tracks    [][]refine.Observation
	Images    []ImageFile
	MaxPixels int64
	Patch     refine.Options
	// Progress, if set, gets (done, total) over both passes.
	Progress func(done, total int)
}

// ImageFile is an image's file and the size its features were found in.
type ImageFile struct {
	Path          string
	Width, Height int
}

// Validate reports options Refine cannot use.
func (o RefineOptions) Validate() error { return o.Patch.Validate() }

// RefineStats is what Refine did.
type RefineStats struct {
	refine.Stats
	// Ran is false when the stage did not run (Off, or images without
	// files).
	Ran bool
	// Unconfirmed counts the observations completion added whose patch
	// did not align with the track's reference (refine.ErrDiverged,
	// ErrLow or ErrFar): the keypoint is not the track's scene point, so
	// they leave the track again.
	Unconfirmed int
}

// Refine moves the observations of every track of 2+ views onto its
// reference observation's scene point (package refine: each keypoint's
// patch aligned to the reference's by ECC). The new Tracks' Keypoints hold
// the moved positions (descriptors shared with the input); completion's
// additions that do not align go back to their Solved item. It reads
// every image again, so it runs only when every image has a path.
func Refine(ctx context.Context, v *Views, t Tracks, o RefineOptions) (Tracks, RefineStats, error) {
	return RefineWith(ctx, v, t, o, func(ctx context.Context, job RefineJob) (refine.Stats, error) {
		load := func(i int) (*refine.Image, error) { return LoadGray(job.Images[i], job.MaxPixels, v.Grays) }
		return refine.TracksSpilled(ctx, v.Scratch, len(job.Images), job.Tracks, load, job.Patch, v.Workers, job.Progress)
	})
}

// RefineWith is Refine with the alignment done by align.
func RefineWith(ctx context.Context, v *Views, t Tracks, o RefineOptions, align Aligner) (Tracks, RefineStats, error) {
	if o.Off || len(v.Paths) != len(v.Sets) || slices.Contains(v.Paths, "") {
		return t, RefineStats{}, nil
	}
	off := v.offsets()
	tracks := refineInput(t, groups(t.Item, off), off)
	images := make([]ImageFile, len(v.Sets))
	for i, s := range v.Sets {
		images[i] = ImageFile{Path: v.Paths[i], Width: s.Width, Height: s.Height}
	}
	st, err := align(ctx, RefineJob{Tracks: tracks, Images: images, MaxPixels: v.MaxPixels, Patch: o.Patch, Progress: v.progress(StageRefine)})
	if err != nil {
		return t, RefineStats{}, err
	}
	out, unconfirmed := applyRefinement(t, tracks, off)
	return out, RefineStats{Stats: st, Ran: true, Unconfirmed: unconfirmed}, nil
}

// refineInput turns the tracks into package refine's observations, each
// keypoint's frame from its SIFT position, scale and angle; completion's
// additions are tentative.
func refineInput(t Tracks, groups [][]obsRef, off []int) [][]refine.Observation {
	tracks := make([][]refine.Observation, len(groups))
	for n, gr := range groups {
		tracks[n] = make([]refine.Observation, len(gr))
		for x, o := range gr {
			kp := t.Keypoints[o.img].Keypoints[o.kp]
			g := off[o.img] + o.kp
			tracks[n][x] = refine.Observation{Image: o.img, Keypoint: o.kp,
				Frame:     refine.Frame{X: float64(kp.X), Y: float64(kp.Y), Scale: float64(kp.Size) / 2, Angle: float64(kp.Angle)},
				Tentative: t.Item[g] != t.Solved[g]}
		}
	}
	return tracks
}

// LoadGray reads f in grey for refinement (from grays when it holds the
// image; grays may be nil), checking that it is the size its features were
// found in.
func LoadGray(f ImageFile, maxPixels int64, grays *imagefile.GrayCache) (*refine.Image, error) {
	g, err := grays.OpenGray(f.Path, maxPixels)
	if err != nil {
		return nil, fmt.Errorf("refine: %w", err)
	}
	if g.Rect.Dx() != f.Width || g.Rect.Dy() != f.Height {
		return nil, fmt.Errorf("refine: %s is %d×%d, its features were found in %d×%d (did the file change?)",
			f.Path, g.Rect.Dx(), g.Rect.Dy(), f.Width, f.Height)
	}
	return refine.NewImage(g), nil
}

// applyRefinement returns t with each observation at its refined frame's
// position, except the tentative ones (added by completion) whose patch
// did not align with the reference (diverged, low correlation or too far:
// another point that looks alike); those go back to their Solved item and
// are counted.
func applyRefinement(t Tracks, tracks [][]refine.Observation, off []int) (Tracks, int) {
	kps := make([]*features.Set, len(t.Keypoints))
	for i, s := range t.Keypoints {
		c := *s
		c.Keypoints = slices.Clone(s.Keypoints)
		kps[i] = &c
	}
	item := slices.Clone(t.Item)
	unconfirmed := 0
	for _, tr := range tracks {
		for _, ob := range tr {
			if ob.Tentative && (ob.Err == refine.ErrDiverged || ob.Err == refine.ErrLow || ob.Err == refine.ErrFar) {
				g := off[ob.Image] + ob.Keypoint
				item[g] = t.Solved[g]
				unconfirmed++
				continue
			}
			kp := &kps[ob.Image].Keypoints[ob.Keypoint]
			kp.X, kp.Y = float32(ob.Frame.X), float32(ob.Frame.Y)
		}
	}
	t.Item, t.Keypoints = item, kps
	return t, unconfirmed
}
