package pipeline

import (
	"context"
	"reflect"
	"testing"

	"github.com/clearmatch/clearmatch/pairwise"
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
	if d.Features.MaxDim != DefaultMaxDim || d.Features.MaxFeatures != DefaultMaxFeatures || d.Matching.NoRootSIFT || d.Matching.Ratio != 0.8 {
		t.Errorf("feature or matching defaults %+v %+v", d.Features, d.Matching)
	}
}

// TestZeroOptionsAreDefault: the zero Options are DefaultOptions (the
// rule for zero): each group hands the packages below the same values, and
// Match gives the same result.
func TestZeroOptionsAreDefault(t *testing.T) {
	var z Options
	d := DefaultOptions()
	if z.Features.Extraction() != d.Features.Extraction() {
		t.Errorf("extraction %+v, default %+v", z.Features.Extraction(), d.Features.Extraction())
	}
	if !reflect.DeepEqual(z.Solve.Clear(), d.Solve.Clear()) {
		t.Errorf("CLEAR %+v, default %+v", z.Solve.Clear(), d.Solve.Clear())
	}
	zp, dp := z.Pairs, d.Pairs
	if zp.mode() != dp.Mode || zp.k() != dp.K || zp.minRelative() != dp.MinRelative || zp.overlap() != dp.Overlap ||
		zp.CompletionRounds() != dp.Rounds || zp.CompletionChains() != dp.CompletionMinChains || zp.minInlierRatio() != dp.CompletionMinInlierRatio {
		t.Errorf("pairs resolve differently from the defaults %+v", dp)
	}
	if z.Matching.ratio() != d.Matching.Ratio || z.Matching.NoRootSIFT != d.Matching.NoRootSIFT {
		t.Errorf("matching %+v, default %+v", z.Matching, d.Matching)
	}
	z.Tracks.ApplyDefaults()
	if !reflect.DeepEqual(z.Tracks, d.Tracks) {
		t.Errorf("tracks %+v, default %+v", z.Tracks, d.Tracks)
	}

	ims, sets := twoScenes()
	var got [2]*Result
	for k, o := range []Options{{}, DefaultOptions()} {
		o.Matching.Matcher, o.Verification.Estimator = pairwise.BruteForce{}, identity{}
		r, err := Match(context.Background(), sceneOf(ims, sets, o), o)
		if err != nil {
			t.Fatal(err)
		}
		got[k] = r
	}
	a, b := got[0], got[1]
	if a.PairMode != b.PairMode || !reflect.DeepEqual(a.Matches, b.Matches) || !reflect.DeepEqual(a.Verified, b.Verified) || !reflect.DeepEqual(a.Item, b.Item) {
		t.Errorf("Match with the zero Options differs from DefaultOptions' (mode %s and %s, %d and %d pairs)", a.PairMode, b.PairMode, len(a.Matches), len(b.Matches))
	}
}

// TestNegativeIsNone: a negative number is the option's "none", handed
// to the packages below as their own none (0).
func TestNegativeIsNone(t *testing.T) {
	f := FeatureOptions{MaxFeatures: -1, MaxDim: -1}.Extraction()
	p := PairOptions{Rounds: -1, CompletionMinChains: -1, CompletionMinInlierRatio: -1}
	c := SolveOptions{MaxComponent: -1}.Clear()
	if f.MaxFeatures != 0 || f.MaxDim != 0 || p.CompletionRounds() != 0 || p.CompletionChains() != 0 || p.minInlierRatio() != 0 || c.MaxComponent != 0 {
		t.Errorf("features %+v, pairs %d rounds %d chains %v floor, CLEAR's largest component %d",
			f, p.CompletionRounds(), p.CompletionChains(), p.minInlierRatio(), c.MaxComponent)
	}
	for _, tc := range []struct{ v, def, want int }{{0, 7, 7}, {-1, 7, 0}, {-9, 7, 0}, {3, 7, 3}} {
		if got := orNone(tc.v, tc.def); got != tc.want {
			t.Errorf("orNone(%d, %d) = %d, want %d", tc.v, tc.def, got, tc.want)
		}
	}
}
