package refine

import (
	"context"
	"fmt"
	"slices"
)

// Observation is one keypoint of a track: its image, its index there, and
// its frame, whose position Tracks updates.
type Observation struct {
	Image, Keypoint int
	Frame           Frame
	// Tentative marks an observation that joined its track without a
	// verified match (track completion): it is never the reference, and
	// Err says whether its patch aligned with the reference's, which is
	// the evidence the caller keeps it or not on.
	Tentative bool
	// Err is set by Tracks for every observation it aligned: nil when it
	// moved, else why it stayed (ErrBorder, ErrFlat, ErrDiverged, ErrLow,
	// ErrFar). References and tracks left alone keep nil.
	Err error
}

// Stats counts what Tracks did with the observations it was given.
type Stats struct {
	// Tracks refined (2+ observations in distinct images) and their
	// observations other than the references.
	Tracks, Observations int
	// Moved observations, and why the others stayed: the reference patch
	// or its warp left an image, the reference patch was flat, the
	// alignment diverged, ended below the minimum correlation, or moved
	// beyond the maximum shift.
	Moved, Border, Flat, Diverged, Low, Far int
}

func (s *Stats) count(err error) {
	switch err {
	case nil:
		s.Moved++
	case ErrBorder:
		s.Border++
	case ErrFlat:
		s.Flat++
	case ErrLow:
		s.Low++
	case ErrFar:
		s.Far++
	default:
		s.Diverged++
	}
}

// Reference returns the index in t of its reference observation: of the
// observations that are not Tentative (all of them if every one is), the
// one of median scale (of an even count, the lower middle), ties going to
// the lower image, so that every scale ratio to it is as near 1 as the
// track allows.
func Reference(t []Observation) int {
	idx := make([]int, 0, len(t))
	for k := range t {
		if !t[k].Tentative {
			idx = append(idx, k)
		}
	}
	if len(idx) == 0 {
		for k := range t {
			idx = append(idx, k)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		sa, sb := t[a].Frame.Scale, t[b].Frame.Scale
		switch {
		case sa < sb:
			return -1
		case sa > sb:
			return 1
		}
		return t[a].Image - t[b].Image
	})
	return idx[(len(idx)-1)/2]
}

// Tracks refines every track of 2+ observations in distinct images
// (others are left alone): each non-reference observation is aligned to
// its track's reference (Reference) and, when the alignment holds, moved
// (its Frame.X and Frame.Y updated in place). load returns image i
// prepared; it is called at most twice per image, one image at a time on
// a goroutine of its own, the next image while the alignments in the
// current one run on workers goroutines (0 means GOMAXPROCS), so memory is
// two images plus the reference patches (at most (2·MaxRadius+1)² float32
// per track; TracksSpilled keeps them in a file). Results do not depend on
// workers. progress, if set, gets (done, total) over both passes.
func Tracks(ctx context.Context, nImages int, tracks [][]Observation, load func(i int) (*Image, error), o Options, workers int, progress func(done, total int)) (Stats, error) {
	return TracksSpilled(ctx, "", nImages, tracks, load, o, workers, progress)
}

// TracksSpilled is Tracks with the reference patches kept, between its
// passes, in an unlinked file in folder spill instead of in memory (in
// memory when spill is "" or takes no file, and from a failed write on).
// The results are Tracks'.
func TracksSpilled(ctx context.Context, spill string, nImages int, tracks [][]Observation, load func(i int) (*Image, error), o Options, workers int, progress func(done, total int)) (Stats, error) {
	var st Stats
	if err := o.Validate(); err != nil {
		return st, err
	}
	o = o.withDefaults()
	plan, err := NewPlan(nImages, tracks)
	if err != nil {
		return st, err
	}
	st.Tracks, st.Observations = plan.Tracks, plan.Observations
	total, done := 2*nImages, 0
	step := func() {
		done++
		if progress != nil {
			progress(done, total)
		}
	}
	// The images both passes read, in order; each is loaded while the one
	// before it is in use.
	var order []int
	for i := 0; i < nImages; i++ {
		if len(plan.RefsIn[i]) > 0 {
			order = append(order, i)
		}
	}
	for i := 0; i < nImages; i++ {
		if len(plan.ObsIn[i]) > 0 {
			order = append(order, i)
		}
	}
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	next := prefetch(lctx, order, load)
	var store templateStore = newMemStore(len(tracks))
	if spill != "" {
		if fs, err := newFileStore(spill, len(tracks)); err == nil {
			store = fs
		}
	}
	defer store.close()
	for i := 0; i < nImages; i++ {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		if len(plan.RefsIn[i]) > 0 {
			im, err := next(i)
			if err != nil {
				return st, err
			}
			ts, errs := Templates(im, plan.RefFrames(i, tracks), o)
			for k, ti := range plan.RefsIn[i] {
				if err := store.put(ti, ts[k], errs[k]); err != nil {
					return st, err
				}
			}
		}
		step()
	}
	for i := 0; i < nImages; i++ {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		if len(plan.ObsIn[i]) == 0 {
			step()
			continue
		}
		im, err := next(i)
		if err != nil {
			return st, err
		}
		obs := plan.ObsIn[i]
		tmpl, outcome := make([]*Template, len(obs)), make([]error, len(obs))
		for k, ob := range obs {
			if tmpl[k], outcome[k], err = store.get(ob[0]); err != nil {
				return st, err
			}
		}
		template := func(k int) (*Template, error) { return tmpl[k], outcome[k] }
		res, err := Align(ctx, im, plan.ObsFrames(i, tracks), template, o, workers)
		if err != nil {
			return st, err
		}
		if err := plan.Apply(i, res, tracks, &st); err != nil {
			return st, err
		}
		step()
	}
	return st, nil
}

// prefetch loads the images of order one after another on a goroutine and
// returns a function that gives them in that order (next(i) must ask for
// order's next image, i): each is loaded while the caller works on the one
// before, so two images are in memory at most, and a load overlaps the
// work instead of waiting for it. The goroutine ends after the last image,
// after a failed load, or when ctx is done.
func prefetch(ctx context.Context, order []int, load func(i int) (*Image, error)) func(i int) (*Image, error) {
	type loaded struct {
		i   int
		im  *Image
		err error
	}
	ch := make(chan loaded) // unbuffered: one image ahead at most
	go func() {
		defer close(ch)
		for _, i := range order {
			im, err := load(i)
			select {
			case ch <- loaded{i, im, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return func(i int) (*Image, error) {
		select {
		case l, ok := <-ch:
			switch {
			case !ok:
				return nil, fmt.Errorf("refine: image %d asked for after the last", i)
			case l.i != i:
				return nil, fmt.Errorf("refine: image %d asked for, %d loaded", i, l.i)
			}
			return l.im, l.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
