package pipeline

import (
	"bytes"
	"context"
	"encoding/gob"
	"reflect"
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
