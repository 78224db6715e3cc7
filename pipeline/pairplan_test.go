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
	"github.com/clearmatch/clearmatch/retrieval"
)

// TestPlanAndVerifyPairsWarmMatch: the pair stages run as clearmatch-beam
// runs them (the plan, then each pair on its own two sets, round by
// round, the plan passed through gob) fill the pair cache with every pair
// Match then needs, and Match's result is the one without a cache.
func TestPlanAndVerifyPairsWarmMatch(t *testing.T) {
	ims, sets := twoScenes()
	for _, pairs := range []PairOptions{
		{Mode: PairsRetrieval, K: 3, Rounds: 2, Retrieval: testRetrieval, CompletionMinInlierRatio: 0.25, CompletionMinChains: -1},
		{Mode: PairsExhaustive},
	} {
		o := DefaultOptions()
		o.Matching.Matcher, o.Verification.Estimator = pairwise.BruteForce{}, identity{}
		o.Pairs = pairs
		want, err := Match(context.Background(), sceneOf(ims, sets, o), o)
		if err != nil {
			t.Fatal(err)
		}
		o.Cache.Pairs = t.TempDir()
		plan, err := o.PairStage().Plan(context.Background(), o.Env, sceneOf(ims, sets, o))
		if err != nil {
			t.Fatal(err)
		}
		sent := viaGob(t, plan)
		sharded := shardedPlan(t, ims, sets, o)
		if !reflect.DeepEqual(sharded.First, plan.First) || !reflect.DeepEqual(sharded.Best, plan.Best) {
			t.Fatalf("%s: PlanStart, Code, Ranking and Rank choose %v, Plan %v", pairs.Mode, sharded.First, plan.First)
		}
		if plan.Index != nil {
			// Completion ranks by similarity: from codes kept outside the
			// plan too, with one candidate an image.
			var all []pairwise.Verified
			for _, p := range plan.First {
				all = append(all, pairwise.Verified{I: p[0], J: p[1], Model: pairwise.Fundamental, Candidates: 100, Inliers: 100})
			}
			o1 := o
			o1.Pairs.K, o1.Pairs.MinRelative = 1, 0.5
			a, errA := plan.Next(len(sets), all, map[[2]int]bool{}, o1.Pairs)
			b, errB := sharded.Next(len(sets), all, map[[2]int]bool{}, o1.Pairs)
			if errA != nil || errB != nil || !reflect.DeepEqual(a, b) || len(a) == 0 {
				t.Errorf("completion proposes %v from the plan's codes, %v from codes kept outside it (%v, %v)", a, b, errA, errB)
			}
		}
		for _, sent := range []*PairPlan{sent, sharded} {
			warmAndMatch(t, ims, sets, sent, want, o)
		}
	}
}

// viaGob is p sent through gob, as clearmatch-beam keeps it.
func viaGob(t *testing.T, p *PairPlan) *PairPlan {
	var buf bytes.Buffer
	var sent PairPlan
	if err := gob.NewEncoder(&buf).Encode(p); err != nil {
		t.Fatal(err)
	}
	if err := gob.NewDecoder(&buf).Decode(&sent); err != nil {
		t.Fatal(err)
	}
	return &sent
}

// shardedPlan is the plan made as clearmatch-beam makes it: the
// vocabulary first (its sample in a file), then each image's code on its
// own, kept outside the plan, then the images ranked in blocks of 2.
func shardedPlan(t *testing.T, ims []Image, sets []*features.Set, o Options) *PairPlan {
	o.Pairs.Retrieval.SampleFile = t.TempDir() + "/sample"
	p, kept, err := o.PairStage().PlanStart(context.Background(), o.Env, ims, func(i int) (*features.Set, error) { return sets[i], nil }, o.Features.Strict)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != len(ims) {
		t.Fatalf("PlanStart keeps %d of %d images", len(kept), len(ims))
	}
	p = viaGob(t, p)
	if p.Ready() {
		if _, err := p.Code(sets[0], o.Matching); err == nil && p.Index == nil {
			t.Error("Code on a plan without retrieval is not an error")
		}
		return p
	}
	codes := make([][]float32, len(sets))
	for i, s := range sets {
		if codes[i], err = p.Code(s, o.Matching); err != nil {
			t.Fatal(err)
		}
	}
	k, rel := p.Neighbors(o.Pairs)
	nb := make([][]int, len(sets))
	best := make([]float64, len(sets))
	for lo := 0; lo < len(sets); lo += 2 {
		hi := min(lo+2, len(sets))
		r := retrieval.NewRanking(lo, codes[lo:hi], k)
		for c := len(sets) - 1; c >= 0; c-- { // one image at a time, backwards
			r.Add(c, codes[c:c+1])
		}
		for a, ns := range r.Neighbors(rel) {
			nb[lo+a] = ns
			if len(ns) > 0 {
				best[lo+a] = retrieval.Similarity(codes[lo+a], codes[ns[0]])
			}
		}
	}
	if err := p.Rank(nb, best, o.Pairs); err != nil {
		t.Fatal(err)
	}
	if err := p.Rank(nb, best, o.Pairs); err == nil {
		t.Error("Rank twice is not an error")
	}
	if p.Rounds(o.PairStage()) > 0 {
		all := []pairwise.Verified{{I: 0, J: 1, Model: pairwise.Fundamental, Candidates: 9, Inliers: 9}, {I: 1, J: 2, Model: pairwise.Fundamental, Candidates: 9, Inliers: 9}}
		if _, err := p.Next(len(sets), all, map[[2]int]bool{}, o.Pairs); !errors.Is(err, errNoCodes) {
			t.Errorf("completion without codes: %v, want errNoCodes", err)
		}
	}
	p.SetCodes(func(i int) ([]float32, error) { return codes[i], nil })
	return p
}

// warmAndMatch runs the plan's rounds pair by pair into the pair cache,
// then Match on the warmed cache, which must find every pair there and
// give want.
func warmAndMatch(t *testing.T, ims []Image, sets []*features.Set, sent *PairPlan, want *Result, o Options) {
	t.Helper()
	o.Cache.Pairs = t.TempDir()
	tried := map[[2]int]bool{}
	var verified []pairwise.Verified
	batch := sent.First
	for round := 0; len(batch) > 0; round++ {
		for _, p := range batch {
			tried[p] = true
			v, err := o.PairStage().Verify(context.Background(), o.Env, sceneOf([]Image{ims[p[0]], ims[p[1]]}, []*features.Set{sets[p[0]], sets[p[1]]}, o), [][2]int{{0, 1}}, round > 0)
			if err != nil {
				t.Fatal(err)
			}
			v[0].I, v[0].J = p[0], p[1]
			verified = append(verified, v[0])
		}
		if round >= sent.Rounds(o.PairStage()) {
			break
		}
		var err error
		if batch, err = sent.Next(len(sets), verified, tried, o.Pairs); err != nil {
			t.Fatal(err)
		}
	}
	// A pair verified before is read from the cache, without its ratio
	// matches, as it was verified.
	p := sent.First[0]
	again, err := o.PairStage().Verify(context.Background(), o.Env, sceneOf([]Image{ims[p[0]], ims[p[1]]}, []*features.Set{sets[p[0]], sets[p[1]]}, o), [][2]int{{0, 1}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if again[0].I, again[0].J = p[0], p[1]; !reflect.DeepEqual(again[0], verified[0]) {
		t.Errorf("%s: pair %v verified again differs from its first verification", o.Pairs.Mode, p)
	}
	got, err := Match(context.Background(), sceneOf(ims, sets, o), o)
	if err != nil {
		t.Fatal(err)
	}
	if got.PairCacheHits != [2]int{len(want.Matches), len(want.Matches)} || len(tried) != len(want.Matches) {
		t.Errorf("%s: %d pairs tried, cache hits %v, Match matched %d", o.Pairs.Mode, len(tried), got.PairCacheHits, len(want.Matches))
	}
	if !reflect.DeepEqual(got.Verified, want.Verified) || !reflect.DeepEqual(got.Item, want.Item) {
		t.Errorf("%s: Match on the warmed cache differs from Match", o.Pairs.Mode)
	}
}

// TestPlanPairsEach: the plan from sets read one at a time (PlanEach) is Plan's
// on the usable sets, with an unreadable image skipped (or, strict, the
// error), and the set of an image is read at most three times.
func TestPlanPairsEach(t *testing.T) {
	ims, sets := twoScenes()
	broken := errors.New("broken.png: not a readable image")
	withBroken := slices.Insert(slices.Clone(ims), 2, Image{Name: "broken.png"})
	for _, pairs := range []PairOptions{
		{Mode: PairsRetrieval, K: 3, Rounds: 2, Retrieval: testRetrieval, CompletionMinInlierRatio: -1, CompletionMinChains: -1},
		{Mode: PairsExhaustive},
	} {
		o := DefaultOptions()
		o.Matching.Matcher = pairwise.BruteForce{}
		o.Pairs = pairs
		want, err := o.PairStage().Plan(context.Background(), o.Env, sceneOf(ims, sets, o))
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
		got, kept, err := o.PairStage().PlanEach(context.Background(), o.Env, withBroken, set, o.Features.Strict)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(kept, ims) {
			t.Errorf("%s: the plan from sets one at a time differs from Plan's", pairs.Mode)
		}
		if m := slices.Max(reads); m > 3 {
			t.Errorf("%s: a set was read %d times, want at most 3", pairs.Mode, m)
		}
		o.Features.Strict = true
		if _, _, err := o.PairStage().PlanEach(context.Background(), o.Env, withBroken, set, o.Features.Strict); !errors.Is(err, broken) {
			t.Errorf("%s, strict: error %v, want the unreadable image's", pairs.Mode, err)
		}
	}
}
