package pipeline

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/retrieval"
)

// testRetrieval is a vocabulary small enough for 60 descriptors an image.
var testRetrieval = RetrievalOptions{Words: 8}

// twoScenes is 12 views: 0-5 of one scene, 6-11 of another.
func twoScenes() ([]Image, []*features.Set) {
	imsA, setsA := views(6, 60, 1)
	imsB, setsB := views(6, 60, 2)
	for k := range imsB {
		imsB[k].Name = string(rune('g' + k))
		setsB[k].Image = imsB[k].Name
	}
	return append(imsA, imsB...), append(setsA, setsB...)
}

func TestPairSelection(t *testing.T) {
	ims, sets := twoScenes()
	scene := func(i int) int { return i / 6 }
	base := DefaultOptions()
	base.Matching.Matcher, base.Verification.Estimator = pairwise.BruteForce{}, identity{}
	cases := []struct {
		name      string
		pairs     PairOptions
		given     [][2]int
		mode      string
		matched   int
		verified  int
		crossOK   bool
		wantSrcs  []string
		unmatched string // a source whose pairs are proposed and none matched
		wantError bool
	}{
		{name: "exhaustive", pairs: PairOptions{Mode: PairsExhaustive}, mode: PairsExhaustive, matched: 66, verified: 30, crossOK: true, wantSrcs: []string{PairsExhaustive}},
		{name: "zero value is exhaustive", mode: PairsExhaustive, matched: 66, verified: 30, crossOK: true},
		{name: "sequential", pairs: PairOptions{Mode: PairsSequential, Overlap: 2}, mode: PairsSequential, matched: 33, crossOK: true, wantSrcs: []string{PairsSequential}},
		{name: "retrieval", pairs: PairOptions{Mode: PairsRetrieval, K: 3, Rounds: 2, Retrieval: testRetrieval, CompletionMinInlierRatio: -1, CompletionMinChains: -1}, mode: PairsRetrieval, verified: 30, wantSrcs: []string{PairsRetrieval, SourceCompletion}},
		{name: "auto below AutoExhaustiveMax", pairs: PairOptions{Mode: PairsAuto, K: 5}, mode: PairsExhaustive, matched: 66, crossOK: true},
		{name: "given", given: [][2]int{{3, 0}, {0, 7}}, mode: PairsGiven, matched: 2, crossOK: true, wantSrcs: []string{PairsGiven}},
		{name: "bad mode", pairs: PairOptions{Mode: "all"}, wantError: true},
		{name: "bad floor", pairs: PairOptions{MinRelative: 1}, wantError: true},
		{name: "bad completion floor", pairs: PairOptions{CompletionMinInlierRatio: 1.5}, wantError: true},
		{name: "negative overlap", pairs: PairOptions{Overlap: -1}, wantError: true},
		// Every pair completion proposes has fewer chains than this: it is
		// proposed, and not matched.
		{name: "chain test", pairs: PairOptions{Mode: PairsRetrieval, K: 3, Rounds: 2, Retrieval: testRetrieval, CompletionMinChains: 1 << 20, CompletionMinInlierRatio: -1},
			mode: PairsRetrieval, wantSrcs: []string{PairsRetrieval, SourceCompletion}, unmatched: SourceCompletion},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := base
			o.Pairs, o.Pairs.List = c.pairs, c.given
			r, err := Match(context.Background(), sceneOf(ims, sets, o), o)
			if c.wantError {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.PairMode != c.mode {
				t.Errorf("mode %q, want %q", r.PairMode, c.mode)
			}
			if c.matched > 0 && len(r.Matches) != c.matched {
				t.Errorf("%d pairs matched, want %d", len(r.Matches), c.matched)
			}
			if len(r.PairSources) != len(r.Matches) || len(r.Verified) != len(r.Matches) {
				t.Fatalf("%d sources, %d verified for %d pairs", len(r.PairSources), len(r.Verified), len(r.Matches))
			}
			verified := 0
			for k, m := range r.Matches {
				if k > 0 && (r.Matches[k-1].I > m.I || r.Matches[k-1].I == m.I && r.Matches[k-1].J >= m.J) {
					t.Fatalf("pairs not sorted at %d", k)
				}
				if v := r.Verified[k]; v.I != m.I || v.J != m.J {
					t.Fatalf("verified %d is (%d, %d), matches (%d, %d)", k, v.I, v.J, m.I, m.J)
				}
				if !c.crossOK && scene(m.I) != scene(m.J) {
					t.Errorf("pair (%d, %d) across scenes", m.I, m.J)
				}
				if r.Verified[k].Model != pairwise.NoModel {
					verified++
				}
			}
			if c.verified > 0 && verified != c.verified {
				t.Errorf("%d pairs verified, want %d", verified, c.verified)
			}
			for _, s := range c.wantSrcs {
				if r.PairsConsidered[s] == 0 {
					t.Errorf("source %s proposed nothing: %v", s, r.PairsConsidered)
				}
			}
			if c.unmatched != "" && slices.Contains(r.PairSources, c.unmatched) {
				t.Errorf("pairs from %s were matched", c.unmatched)
			}
		})
	}
}

// TestAutoMode: auto matches every pair up to AutoExhaustiveMax images
// or 2K+1, whichever is more, and retrieval above, with sequential pairs
// for one numbered sequence.
func TestAutoMode(t *testing.T) {
	names := func(n int) []string {
		out := make([]string, n)
		for k := range out {
			out[k] = fmt.Sprintf("v%d.png", (k*7919)%n) // shuffled, not numbered in order
		}
		return out
	}
	numbered := func(n int) []string {
		out := make([]string, n)
		for k := range out {
			out[k] = fmt.Sprintf("IMG_%04d.jpg", k)
		}
		return out
	}
	cases := []struct {
		name  string
		k     int
		names []string
		want  string
	}{
		{"default k, at the limit", 0, names(AutoExhaustiveMax), PairsExhaustive},
		{"default k, above", 0, names(AutoExhaustiveMax + 1), PairsRetrieval},
		{"small k keeps the limit", 3, names(AutoExhaustiveMax), PairsExhaustive},
		{"large k, at 2k+1", 40, names(81), PairsExhaustive},
		{"large k, above 2k+1", 40, names(82), PairsRetrieval},
		{"numbered, above", 0, numbered(AutoExhaustiveMax + 1), PairsRetrieval + "+" + PairsSequential},
		{"numbered, at the limit", 0, numbered(AutoExhaustiveMax), PairsExhaustive},
	}
	for _, c := range cases {
		if got := (PairOptions{Mode: PairsAuto, K: c.k}).AutoMode(c.names); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestTransitiveEvidence: completion builds on verified pairs at or above
// its inlier-ratio floor only.
func TestTransitiveEvidence(t *testing.T) {
	vs := []pairwise.Verified{
		{I: 0, J: 1, Model: pairwise.Fundamental, Candidates: 200, Inliers: 17},  // chance fit: 0.085
		{I: 0, J: 2, Model: pairwise.Homography, Candidates: 200, Inliers: 50},   // at the floor
		{I: 1, J: 2, Model: pairwise.Fundamental, Candidates: 200, Inliers: 180}, // strong
		{I: 1, J: 3, Model: pairwise.NoModel, Candidates: 200, Inliers: 190},     // rejected
	}
	cases := []struct {
		floor float64
		want  [][2]int
	}{
		{0, [][2]int{{0, 1}, {0, 2}, {1, 2}}},
		{0.25, [][2]int{{0, 2}, {1, 2}}},
		{0.26, [][2]int{{1, 2}}},
		{1, nil},
	}
	for _, c := range cases {
		if got := transitiveEvidence(vs, c.floor); !slices.Equal(got, c.want) {
			t.Errorf("floor %v: %v, want %v", c.floor, got, c.want)
		}
	}
}

// TestRetrievalSeesRootSIFT: with RootSIFT on, retrieval indexes the
// RootSIFT descriptors, once converted (not SIFT, not RootSIFT twice).
func TestRetrievalSeesRootSIFT(t *testing.T) {
	ims, sets := views(14, 60, 9)
	o := DefaultOptions()
	o.Matching.Matcher, o.Verification.Estimator = pairwise.BruteForce{}, identity{}
	o.Pairs = PairOptions{Mode: PairsRetrieval, K: 3, Rounds: -1, Retrieval: testRetrieval}
	r, err := Match(context.Background(), sceneOf(ims, sets, o), o)
	if err != nil {
		t.Fatal(err)
	}
	desc := make([][]float32, len(sets))
	for i, s := range sets {
		desc[i] = append([]float32(nil), s.Desc...)
		features.RootSIFT(desc[i])
	}
	x, err := retrieval.Build(context.Background(), desc, features.DescSize, pairwise.BruteForce{}, retrieval.Options{Words: testRetrieval.Words})
	if err != nil {
		t.Fatal(err)
	}
	want := retrieval.Pairs(x.Neighbors(3, 0.15))
	var got [][2]int
	for _, m := range r.Matches {
		got = append(got, [2]int{m.I, m.J})
	}
	if !slices.Equal(got, want) {
		t.Fatalf("pairs %v, want %v", got, want)
	}
}

// TestCompletionAfterRejectedRound: a round whose every proposal fails
// the chain test does not end completion; its pairs count as tried and
// the next round proposes others, as clearmatch-beam's rounds do.
func TestCompletionAfterRejectedRound(t *testing.T) {
	ims, sets := twoScenes()
	o := DefaultOptions()
	o.Matching.Matcher, o.Verification.Estimator = pairwise.BruteForce{}, identity{}
	o.Pairs = PairOptions{Mode: PairsRetrieval, K: 2, Retrieval: testRetrieval, CompletionMinChains: 1 << 20, CompletionMinInlierRatio: -1}
	considered := make([]int, 4)
	for rounds := 1; rounds < len(considered); rounds++ {
		o.Pairs.Rounds = rounds
		r, err := Match(context.Background(), sceneOf(ims, sets, o), o)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(r.PairSources, SourceCompletion) {
			t.Fatalf("%d rounds: a pair that failed the chain test was matched", rounds)
		}
		considered[rounds] = r.PairsConsidered[SourceCompletion]
	}
	if !(considered[1] > 0 && considered[2] > considered[1]) {
		t.Errorf("completion proposed %d pairs in one round and %d in two: the second round did not follow a rejected first", considered[1], considered[2])
	}
}
