package pipeline

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/pairwise"
)

// TestPlanAndVerifyPairsWarmMatch: the pair stages run as clearmatch-beam
// runs them (the plan, then each pair on its own two sets, round by
// round, the plan passed through gob) fill the pair cache with every pair
// Match then needs, and Match's result is the one without a cache.
func TestPlanAndVerifyPairsWarmMatch(t *testing.T) {
	ims, sets := twoScenes()
	for _, pairs := range []PairOptions{
		{Mode: PairsRetrieval, K: 3, Rounds: 2, Retrieval: testRetrieval, CompletionMinInlierRatio: 0.25},
		{Mode: PairsExhaustive},
	} {
		o := DefaultOptions()
		o.Matching.Matcher, o.Verification.Estimator = pairwise.BruteForce{}, identity{}
		o.Pairs = pairs
		want, err := Match(context.Background(), ims, sets, o)
		if err != nil {
			t.Fatal(err)
		}
		o.Cache.Pairs = t.TempDir()
		plan, err := PlanPairs(context.Background(), ims, sets, o)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		var sent PairPlan
		if err := gob.NewEncoder(&buf).Encode(plan); err != nil {
			t.Fatal(err)
		}
		if err := gob.NewDecoder(&buf).Decode(&sent); err != nil {
			t.Fatal(err)
		}
		tried := map[[2]int]bool{}
		var verified []pairwise.Verified
		batch := sent.First
		for round := 0; len(batch) > 0; round++ {
			for _, p := range batch {
				tried[p] = true
				v, err := VerifyPairs(context.Background(), []*features.Set{sets[p[0]], sets[p[1]]}, [][2]int{{0, 1}}, round > 0, o)
				if err != nil {
					t.Fatal(err)
				}
				v[0].I, v[0].J = p[0], p[1]
				verified = append(verified, v[0])
			}
			if round >= sent.Rounds(o) {
				break
			}
			batch = sent.Next(len(sets), verified, tried, o)
		}
		got, err := Match(context.Background(), ims, sets, o)
		if err != nil {
			t.Fatal(err)
		}
		if got.PairCacheHits != [2]int{len(want.Matches), len(want.Matches)} || len(tried) != len(want.Matches) {
			t.Errorf("%s: %d pairs tried, cache hits %v, Match matched %d", pairs.Mode, len(tried), got.PairCacheHits, len(want.Matches))
		}
		if !reflect.DeepEqual(got.Verified, want.Verified) || !reflect.DeepEqual(got.Item, want.Item) {
			t.Errorf("%s: Match on the warmed cache differs from Match", pairs.Mode)
		}
	}
}

// TestPlanPairsEach: the plan from sets read one at a time is PlanPairs's
// on the usable sets, with an unreadable image skipped (or, strict, the
// error), and the set of an image is read at most three times.
func TestPlanPairsEach(t *testing.T) {
	ims, sets := twoScenes()
	broken := errors.New("broken.png: not a readable image")
	withBroken := slices.Insert(slices.Clone(ims), 2, Image{Name: "broken.png"})
	for _, pairs := range []PairOptions{
		{Mode: PairsRetrieval, K: 3, Rounds: 2, Retrieval: testRetrieval},
		{Mode: PairsExhaustive},
	} {
		o := DefaultOptions()
		o.Matching.Matcher = pairwise.BruteForce{}
		o.Pairs = pairs
		want, err := PlanPairs(context.Background(), ims, sets, o)
		if err != nil {
			t.Fatal(err)
		}
		reads := make([]int, len(withBroken))
		set := func(i int) (*features.Set, error) {
			reads[i]++
			switch {
			case i == 2:
				return nil, broken
			case i > 2:
				return sets[i-1], nil
			}
			return sets[i], nil
		}
		got, kept, err := PlanPairsEach(context.Background(), withBroken, set, o)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(kept, ims) {
			t.Errorf("%s: the plan from sets one at a time differs from PlanPairs's", pairs.Mode)
		}
		if m := slices.Max(reads); m > 3 {
			t.Errorf("%s: a set was read %d times, want at most 3", pairs.Mode, m)
		}
		o.Features.Strict = true
		if _, _, err := PlanPairsEach(context.Background(), withBroken, set, o); !errors.Is(err, broken) {
			t.Errorf("%s, strict: error %v, want the unreadable image's", pairs.Mode, err)
		}
	}
}
