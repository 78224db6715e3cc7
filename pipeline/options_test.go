package pipeline

import (
	"reflect"
	"testing"

	"github.com/clearmatch/clearmatch/tracks"
)

// TestOptionsProtocols: the SfM default runs every track stage with its
// documented defaults; the matching benchmarks and the paper's protocol
// score CLEAR's own tracks and run none.
func TestOptionsProtocols(t *testing.T) {
	var def tracks.Options
	def.ApplyDefaults()
	for _, tc := range []struct {
		name   string
		opts   Options
		tracks tracks.Options
		verify bool
	}{
		{"default", DefaultOptions(), def, true},
		{"benchmark", BenchmarkOptions(), tracks.AllOff(), true},
		{"paper", PaperOptions(), tracks.AllOff(), false},
	} {
		if !reflect.DeepEqual(tc.opts.Tracks, tc.tracks) {
			t.Errorf("%s: tracks %+v, want %+v", tc.name, tc.opts.Tracks, tc.tracks)
		}
		if tc.opts.Verification.Off == tc.verify {
			t.Errorf("%s: verification off %v", tc.name, tc.opts.Verification.Off)
		}
		if err := tc.opts.Tracks.Validate(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	d := DefaultOptions()
	if d.Tracks.Weak.Matches != tracks.DefaultWeakMatches || d.Tracks.Weak.Threshold != 1.5 || d.Tracks.Reproj.Threshold != 1 || d.Tracks.Weak.Loops.Degrees != 2 {
		t.Errorf("track defaults %+v", d.Tracks)
	}
	if d.Features.MaxDim != DefaultMaxDim || d.Features.MaxFeatures != DefaultMaxFeatures || !d.Matching.RootSIFT || d.Matching.Ratio != 0.8 {
		t.Errorf("feature or matching defaults %+v %+v", d.Features, d.Matching)
	}
}
