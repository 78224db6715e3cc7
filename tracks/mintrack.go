package tracks

import (
	"context"
	"fmt"

	"github.com/clearmatch/clearmatch/eval"
)

// DefaultMinTrack is MinTrackOptions.Min's default: a track of one
// observation matches nothing.
const DefaultMinTrack = 2

// MinTrackOptions configure DropShort. The zero value is the default.
type MinTrackOptions struct {
	// Min is the fewest observations a track keeps (the paper's
	// post-processing); 0 means DefaultMinTrack.
	Min int
}

// ApplyDefaults fills the fields left 0 with the values they stand for.
func (o *MinTrackOptions) ApplyDefaults() {
	if o.Min == 0 {
		o.Min = DefaultMinTrack
	}
}

// Validate reports options DropShort cannot use.
func (o MinTrackOptions) Validate() error {
	if o.Min != 0 && o.Min < DefaultMinTrack {
		return fmt.Errorf("tracks: min-track %d: want at least %d", o.Min, DefaultMinTrack)
	}
	return nil
}

// MinTrackStats is what DropShort did.
type MinTrackStats struct {
	// Tracks and Observations count what it took out.
	Tracks, Observations int
}

// DropShort takes every observation of a track shorter than o.Min out of
// its track. It runs last: the stages before it may shorten tracks. It
// can run on one connected component at a time.
func DropShort(ctx context.Context, v *Views, t Tracks, o MinTrackOptions) (Tracks, MinTrackStats, error) {
	o.ApplyDefaults()
	if err := ctx.Err(); err != nil {
		return t, MinTrackStats{}, err
	}
	kept := eval.MinTrack(t.Item, o.Min)
	var st MinTrackStats
	gone := map[int]bool{}
	for k, it := range t.Item {
		if it >= 0 && kept[k] < 0 {
			st.Observations++
			gone[it] = true
		}
	}
	st.Tracks = len(gone)
	if st.Observations > 0 {
		t.Item = kept
	}
	return t, st, nil
}
