package tracks

import (
	"context"

	"github.com/clearmatch/clearmatch/calib"
)

// Stage is one step on the tracks: a value that owns its options (each
// Options type below is one), run on the Views and the previous stage's
// Tracks. Run returns the new Tracks and Stats saying what it did; a stage
// that is off returns t as it is. Name is the stage's name in progress,
// timing and report.json.
type Stage interface {
	Name() string
	Run(ctx context.Context, v *Views, t Tracks) (Tracks, Stats, error)
}

// Stats is what one stage did: CompleteStats, RefineStats, WeakStats,
// CalibrateStats, ReprojStats or MinTrackStats.
type Stats interface{ stats() }

// The names of the stages (Stage.Name).
const (
	NameComplete  = StageComplete
	NameRefine    = StageRefine
	NameWeak      = "weak"
	NameCalibrate = "calibrate"
	NameReproj    = "reproj"
	NameMinTrack  = "min-track"
)

// Stages returns the stages of o in the order they run.
func (o Options) Stages() []Stage {
	return []Stage{o.Complete, o.Refine, o.Weak, o.Calibrate, o.Reproj, o.MinTrack}
}

// CompleteStats counts the observations Complete added.
type CompleteStats struct{ Added int }

// CalibrateStats is what SelfCalibrate found (Result nil: it did not
// run).
type CalibrateStats struct{ *calib.Result }

func (CompleteStats) stats()  {}
func (RefineStats) stats()    {}
func (WeakStats) stats()      {}
func (CalibrateStats) stats() {}
func (ReprojStats) stats()    {}
func (MinTrackStats) stats()  {}

func (CompleteOptions) Name() string  { return NameComplete }
func (RefineOptions) Name() string    { return NameRefine }
func (WeakOptions) Name() string      { return NameWeak }
func (CalibrateOptions) Name() string { return NameCalibrate }
func (ReprojOptions) Name() string    { return NameReproj }
func (MinTrackOptions) Name() string  { return NameMinTrack }

// Run is Complete.
func (o CompleteOptions) Run(ctx context.Context, v *Views, t Tracks) (Tracks, Stats, error) {
	t, n, err := Complete(ctx, v, t, o)
	return t, CompleteStats{n}, err
}

// Run is Refine.
func (o RefineOptions) Run(ctx context.Context, v *Views, t Tracks) (Tracks, Stats, error) {
	return unify(Refine(ctx, v, t, o))
}

// Run is FilterWeak.
func (o WeakOptions) Run(ctx context.Context, v *Views, t Tracks) (Tracks, Stats, error) {
	return unify(FilterWeak(ctx, v, t, o))
}

// Run is SelfCalibrate; the camera it finds becomes t.Camera, which the
// reprojection filter reads.
func (o CalibrateOptions) Run(ctx context.Context, v *Views, t Tracks) (Tracks, Stats, error) {
	sc, err := SelfCalibrate(ctx, v, t, o)
	if err == nil && sc != nil {
		t.Camera = sc
	}
	return t, CalibrateStats{sc}, err
}

// Run is FilterReproj with t.Camera.
func (o ReprojOptions) Run(ctx context.Context, v *Views, t Tracks) (Tracks, Stats, error) {
	return unify(FilterReproj(ctx, v, t, t.Camera, o))
}

// Run is DropShort.
func (o MinTrackOptions) Run(ctx context.Context, v *Views, t Tracks) (Tracks, Stats, error) {
	return unify(DropShort(ctx, v, t, o))
}

func unify[S Stats](t Tracks, s S, err error) (Tracks, Stats, error) { return t, s, err }
