package refine

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
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
// prepared; it is called at most twice per image, on up to workers
// goroutines at once (0 means GOMAXPROCS), ahead of and beside the work on
// the current image, which also runs on workers goroutines, so memory is
// workers+1 images plus the reference patches (at most (2·MaxRadius+1)² float32
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
	next := prefetch(lctx, order, load, loaders(workers))
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

// loaders is how many images prefetch loads at once for workers workers.
func loaders(workers int) int {
	if workers <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return workers
}

// prefetch loads the images of order on up to loaders goroutines at once
// and returns a function that gives them in that order (next(i) must ask
// for order's next image, i): loads overlap the caller's work and each
// other, and at most loaders images are loaded ahead of the one in use, so
// memory holds loaders+1 images. Loading stops after a failed load or when
// ctx is done.
func prefetch(ctx context.Context, order []int, load func(i int) (*Image, error), loaders int) func(i int) (*Image, error) {
	type loaded struct {
		im  *Image
		err error
	}
	slots := make([]chan loaded, len(order))
	for k := range slots {
		slots[k] = make(chan loaded, 1)
	}
	ahead := make(chan struct{}, max(1, loaders))
	failed := make(chan struct{})
	var once sync.Once
	go func() {
		for k, i := range order {
			select {
			case ahead <- struct{}{}:
			case <-ctx.Done():
				return
			case <-failed:
				return
			}
			go func() {
				im, err := load(i)
				if err != nil {
					once.Do(func() { close(failed) })
				}
				slots[k] <- loaded{im, err}
			}()
		}
	}()
	pos := 0
	return func(i int) (*Image, error) {
		switch {
		case pos == len(order):
			return nil, fmt.Errorf("refine: image %d asked for after the last", i)
		case order[pos] != i:
			return nil, fmt.Errorf("refine: image %d asked for, %d loaded", i, order[pos])
		}
		select {
		case l := <-slots[pos]:
			pos++
			<-ahead
			return l.im, l.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
