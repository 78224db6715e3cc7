package refine

import (
	"context"
	"fmt"

	"github.com/clearmatch/clearmatch/internal/pool"
)

// Plan divides Tracks' work by image, so that it can run image by image
// anywhere (clearmatch-beam's workers): first the templates cut from each
// image (Templates at RefFrames), then the alignments in each image (Align
// at ObsFrames), whose outcomes Apply records.
type Plan struct {
	// Ref is each track's reference (an index into the track), -1 for a
	// track left alone (fewer than 2 observations, or two in one image).
	Ref []int
	// RefsIn lists, per image, the tracks whose reference is there, and
	// ObsIn the (track, observation) pairs aligned there; both ascending.
	RefsIn [][]int
	ObsIn  [][][2]int
	// Tracks and Observations are Stats' counts of the same names.
	Tracks, Observations int
}

// NewPlan plans the refinement of tracks over nImages images, clearing
// every observation's Err.
func NewPlan(nImages int, tracks [][]Observation) (*Plan, error) {
	p := &Plan{Ref: make([]int, len(tracks)), RefsIn: make([][]int, nImages), ObsIn: make([][][2]int, nImages)}
	for ti, t := range tracks {
		for k := range t {
			t[k].Err = nil
		}
		p.Ref[ti] = -1
		if len(t) < 2 {
			continue
		}
		seen := map[int]bool{}
		ok := true
		for _, ob := range t {
			if ob.Image < 0 || ob.Image >= nImages {
				return nil, fmt.Errorf("refine: track %d: image %d of %d", ti, ob.Image, nImages)
			}
			if seen[ob.Image] {
				ok = false
			}
			seen[ob.Image] = true
		}
		if !ok {
			continue
		}
		ref := Reference(t)
		p.Ref[ti] = ref
		p.Tracks++
		p.Observations += len(t) - 1
		p.RefsIn[t[ref].Image] = append(p.RefsIn[t[ref].Image], ti)
		for k, ob := range t {
			if k != ref {
				p.ObsIn[ob.Image] = append(p.ObsIn[ob.Image], [2]int{ti, k})
			}
		}
	}
	return p, nil
}

// RefFrames are the reference frames of the tracks RefsIn[i], in order:
// what Templates cuts in image i.
func (p *Plan) RefFrames(i int, tracks [][]Observation) []Frame {
	f := make([]Frame, len(p.RefsIn[i]))
	for k, ti := range p.RefsIn[i] {
		f[k] = tracks[ti][p.Ref[ti]].Frame
	}
	return f
}

// ObsFrames are the frames of the observations ObsIn[i], in order: what
// Align aligns in image i.
func (p *Plan) ObsFrames(i int, tracks [][]Observation) []Frame {
	f := make([]Frame, len(p.ObsIn[i]))
	for k, o := range p.ObsIn[i] {
		f[k] = tracks[o[0]][o[1]].Frame
	}
	return f
}

// Templates cuts a template around each reference frame in im, or says
// why there is none.
func Templates(im *Image, frames []Frame, o Options) ([]*Template, []error) {
	tmpl, errs := make([]*Template, len(frames)), make([]error, len(frames))
	for k, f := range frames {
		tmpl[k], errs[k] = NewTemplate(im, f, o)
	}
	return tmpl, errs
}

// Aligned is one observation's outcome: its new position, or Err (one of
// the Err variables) why it stays.
type Aligned struct {
	X, Y float64
	Err  error
}

// Align aligns each observation frame in im to its track's template,
// which template(k) gives for frames[k] (or why the track has none), on
// workers goroutines. The outcomes are in frames' order and do not depend
// on workers.
func Align(ctx context.Context, im *Image, frames []Frame, template func(k int) (*Template, error), o Options, workers int) ([]Aligned, error) {
	res := make([]Aligned, len(frames))
	err := pool.ForEach(ctx, len(frames), workers, nil, func(k int) error { // an observation's error is its outcome, kept in res
		t, err := template(k)
		if err != nil {
			res[k].Err = err
			return nil
		}
		x, y, _, err := t.Align(im, frames[k], o)
		res[k] = Aligned{x, y, err}
		return nil
	})
	return res, err
}

// Apply records image i's outcomes (from Align) in tracks, each
// observation's Err and, where it moved, its position, and counts them.
func (p *Plan) Apply(i int, res []Aligned, tracks [][]Observation, st *Stats) error {
	obs := p.ObsIn[i]
	if len(res) != len(obs) {
		return fmt.Errorf("refine: image %d: %d outcomes for %d observations", i, len(res), len(obs))
	}
	for k, r := range res {
		st.count(r.Err)
		ob := &tracks[obs[k][0]][obs[k][1]]
		ob.Err = r.Err
		if r.Err == nil {
			ob.Frame.X, ob.Frame.Y = r.X, r.Y
		}
	}
	return nil
}
