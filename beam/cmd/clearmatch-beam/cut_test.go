package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/pipeline"
)

// TestCutMergesStreams: the cut step's streaming merge of the buckets'
// files and the singletons gives clear.Cut and clear.Lowest.
func TestCutMergesStreams(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		p := clear.Synthesize(clear.SynthConfig{Items: 30, Views: 6, ObsRatio: 0.7, Mismatch: 0.2, Seed: seed}).Problem
		kept := p.Associations[:0]
		for k, a := range p.Associations {
			if k%3 != 0 { // fewer associations: more parts, and singletons among them
				kept = append(kept, a)
			}
		}
		p.Associations = kept
		p.AddView(4) // a view of singletons only
		parts, _, err := p.Parts()
		if err != nil {
			t.Fatal(err)
		}
		const buckets = 3
		j := job{Dir: t.TempDir()}
		seqs := make([][]clear.Pivot, len(parts))
		perBucket := make([][]clear.Pivot, buckets)
		obs := make([][]int64, buckets)
		inPart := map[int]bool{}
		below := 0
		for k := range parts {
			ps, err := clear.DecomposePart(context.Background(), &parts[k], nil)
			if err != nil {
				t.Fatal(err)
			}
			below += ps.Below()
			seqs[k] = ps.Sequence()
			b := k % buckets
			perBucket[b] = append(perBucket[b], seqs[k]...)
			for _, o := range parts[k].Observations {
				obs[b] = append(obs[b], int64(o))
				inPart[o] = true
			}
		}
		var sums []bucketSummary
		for b := range buckets {
			slices.SortFunc(perBucket[b], clear.Pivot.Compare)
			slices.Sort(obs[b])
			if err := writeInt64s(j.seqPath(b), pivotWords(perBucket[b])); err != nil {
				t.Fatal(err)
			}
			if err := writeInt64s(j.obsPath(b), obs[b]); err != nil {
				t.Fatal(err)
			}
			sums = append(sums, bucketSummary{Bucket: b})
		}
		l := p.NumObservations()
		var singletons []int
		for o := range l {
			if !inPart[o] {
				singletons = append(singletons, o)
			}
		}
		m := below + len(singletons)
		c := &cutInfo{L: l, M: m}
		if err := (&cutFn{job: j}).merge(sums, c, 12); err != nil {
			t.Fatal(err)
		}
		cut, err := clear.Cut(seqs, singletons, m)
		if err != nil {
			t.Fatal(err)
		}
		if c.Cut != cut {
			t.Errorf("seed %d: cut %+v, clear.Cut %+v", seed, c.Cut, cut)
		}
		if want := clear.Lowest(seqs, singletons, cut, 12); !slices.Equal(c.Lowest, want) {
			t.Errorf("seed %d: lowest %v, clear.Lowest %v", seed, c.Lowest, want)
		}
		if len(singletons) < 5 {
			t.Errorf("seed %d: only %d singletons", seed, len(singletons))
		}
	}
}

// TestSolvedChecksTheProblem: the pipeline's result is given only for the
// problem it solved; another is solved whole, with a warning.
func TestSolvedChecksTheProblem(t *testing.T) {
	sets := []*features.Set{{Width: 9, Height: 9, Keypoints: make([]features.Keypoint, 2)}, {Width: 9, Height: 9, Keypoints: make([]features.Keypoint, 2)}}
	scene, err := pipeline.NewScene([]pipeline.Image{{Name: "a"}, {Name: "b"}}, sets, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := &pipeline.Matched{Matches: []pairwise.Pair{{I: 0, J: 1, Matches: []pairwise.Match{{A: 0, B: 0}, {A: 1, B: 1}}}}}
	given := &clear.Result{Item: []int{0, 1, 0, 1}}
	var warn strings.Builder
	a := &assembly{solved: &solved{result: given, cut: &cutInfo{L: 4, Edges: 2}}, warn: &warn}
	o := pipeline.PaperOptions()
	if sol, err := a.solve(context.Background(), scene, m, o); err != nil || sol.Clear != given || warn.Len() > 0 {
		t.Errorf("same problem: %v, %v, warned %q", sol, err, warn.String())
	}
	m.Matches[0].Matches = m.Matches[0].Matches[:1]
	sol, err := a.solve(context.Background(), scene, m, o)
	if err != nil || sol.Clear == given || len(sol.Item) != 4 || !strings.Contains(warn.String(), "solving it whole") {
		t.Errorf("another problem: %v, %v, warned %q", sol, err, warn.String())
	}
}
