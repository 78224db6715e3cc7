package multiway

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/eval"
)

var writeNMFInputs = flag.Bool("write-nmfsync-inputs", false, "rewrite testdata/nmfsync/pNN.txt from the generator (then rerun the Octave reference: testdata/nmfsync/README.md)")

// nmfReferenceProblems are the golden problems of testdata/nmfsync: the
// paper's synthetic model (100 items) at low observation ratios, where
// NMFSync's starting eigenspace is most often degenerate and the
// implementations differed most.
var nmfReferenceProblems = []SynthConfig{
	{Items: 100, Views: 5, ObsRatio: 0.2, Mismatch: 0.25, Seed: 16},
	{Items: 100, Views: 9, ObsRatio: 0.2, Mismatch: 0.20, Seed: 12},
	{Items: 100, Views: 13, ObsRatio: 0.2, Mismatch: 0.15, Seed: 8},
	{Items: 100, Views: 13, ObsRatio: 0.2, Mismatch: 0.10, Seed: 24},
	{Items: 100, Views: 8, ObsRatio: 0.4, Mismatch: 0.15, Seed: 13},
	{Items: 100, Views: 17, ObsRatio: 0.2, Mismatch: 0.10, Seed: 4},
	{Items: 100, Views: 17, ObsRatio: 0.2, Mismatch: 0.05, Seed: 20},
	{Items: 100, Views: 7, ObsRatio: 0.6, Mismatch: 0.10, Seed: 14},
	{Items: 100, Views: 12, ObsRatio: 0.4, Mismatch: 0.10, Seed: 9},
	{Items: 100, Views: 6, ObsRatio: 0.8, Mismatch: 0.05, Seed: 15},
}

// TestNMFSyncReference compares NMFSync's F1 against the truth with the F1
// of the authors' nmfSync.m (run under Octave as the paper's harness calls
// it; testdata/nmfsync/README.md) on the golden problems: each within 0.03,
// within 0.01 on average, and not lower on average (a reproduction must
// not handicap the method it reproduces).
func TestNMFSyncReference(t *testing.T) {
	dir := filepath.Join("testdata", "nmfsync")
	var sumAbs, sumSigned float64
	for k, cfg := range nmfReferenceProblems {
		syn := Synthesize(cfg)
		m, err := EstimateUniverse(context.Background(), syn.Problem)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, fmt.Sprintf("p%02d", k))
		var in bytes.Buffer
		fmt.Fprintf(&in, "# multiway.Synthesize(SynthConfig{Items: %d, Views: %d, ObsRatio: %g, Mismatch: %g, Seed: %d})\n# universe %d\n",
			cfg.Items, cfg.Views, cfg.ObsRatio, cfg.Mismatch, cfg.Seed, m)
		if err := clear.WriteText(&in, syn.Problem); err != nil {
			t.Fatal(err)
		}
		if *writeNMFInputs {
			if err := os.WriteFile(name+".txt", in.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		golden, err := os.ReadFile(name + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(golden, in.Bytes()) {
			t.Fatalf("%s.txt is not what the generator and universe estimate give now: rerun the reference (testdata/nmfsync/README.md)", name)
		}
		ref := readLabels(t, name+".ref", syn.Problem.NumObservations())
		r, err := Run(context.Background(), NMFSync, syn.Problem, &Options{Universe: m})
		if err != nil {
			t.Fatal(err)
		}
		ours, theirs := eval.ScoreGroups(syn.Truth, r.Item).F1, eval.ScoreGroups(syn.Truth, ref).F1
		d := ours - theirs
		sumAbs += math.Abs(d)
		sumSigned += d
		t.Logf("p%02d (%d views, ratio %.1f, mismatch %.2f): F1 %.4f, the original's %.4f (%+.4f)", k, cfg.Views, cfg.ObsRatio, cfg.Mismatch, ours, theirs, d)
		if math.Abs(d) > 0.03 {
			t.Errorf("p%02d: F1 %.4f, the original's %.4f: more than 0.03 apart", k, ours, theirs)
		}
	}
	if *writeNMFInputs {
		t.Skip("wrote the inputs")
	}
	n := float64(len(nmfReferenceProblems))
	t.Logf("mean |ΔF1| %.4f, mean ΔF1 %+.4f", sumAbs/n, sumSigned/n)
	if sumAbs/n > 0.01 || sumSigned/n < -0.005 {
		t.Errorf("mean |ΔF1| %.4f (want ≤ 0.01), mean ΔF1 %+.4f (want ≥ −0.005)", sumAbs/n, sumSigned/n)
	}
}

// readLabels reads one integer item per line.
func readLabels(t *testing.T, path string, n int) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	if len(f) != n {
		t.Fatalf("%s: %d labels for %d observations", path, len(f), n)
	}
	out := make([]int, n)
	for i, s := range f {
		if out[i], err = strconv.Atoi(s); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
	}
	return out
}
