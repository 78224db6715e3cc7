package tracks

import (
	"context"
	"fmt"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/pairwise"
)

// MergeOptions configure Merge. The zero value is the default: off, as
// clearmatch match runs (clearmatch tracks turns it on).
type MergeOptions struct {
	// On runs the stage.
	On bool
	// MinLinks is the fewest verified matches between two tracks that
	// merge them; 0 means 1.
	MinLinks int
}

// Validate reports options Merge cannot use.
func (o MergeOptions) Validate() error {
	if o.MinLinks < 0 {
		return fmt.Errorf("tracks: merge links %d is negative", o.MinLinks)
	}
	return nil
}

// MergeStats counts what Merge did (clear.MergeConsistent's).
type MergeStats struct{ clear.MergeStats }

// Merge joins two tracks that at least o.MinLinks verified matches link
// when no image would then hold two of the joined track's keypoints
// (clear.MergeConsistent): union-find, as SfM engines build tracks,
// wherever it stays cycle consistent. CLEAR splits a group of matches by
// its universe estimate, which on sparse matches (each keypoint matched
// in a few of the views that see it) exceeds the true number of points,
// so it also splits tracks that no conflict divides, and the mapper takes
// shorter tracks as weaker constraints. It can run on one connected
// component at a time: links never leave one.
func Merge(ctx context.Context, v *Views, t Tracks, o MergeOptions) (Tracks, MergeStats, error) {
	var st MergeStats
	if !o.On || t.Pairs == nil {
		return t, st, nil
	}
	if err := o.Validate(); err != nil {
		return t, st, err
	}
	p := &clear.Problem{}
	off := make([]int, len(v.Sets))
	for i, s := range v.Sets {
		off[i] = p.AddView(s.Len())
	}
	for _, vp := range t.Pairs {
		if vp.Model == pairwise.NoModel {
			continue
		}
		for _, m := range vp.Matches {
			p.Associations = append(p.Associations, clear.Association{A: off[vp.I] + int(m.A), B: off[vp.J] + int(m.B)})
		}
	}
	if err := ctx.Err(); err != nil {
		return t, st, err
	}
	item, cs, err := clear.MergeConsistent(p, t.Item, o.MinLinks)
	st.MergeStats = cs
	if err != nil || st.Merges == 0 {
		return t, st, err
	}
	t.Item = item
	return t, st, nil
}
