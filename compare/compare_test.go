package compare

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/multiway"
)

func small() SyntheticConfig {
	return SyntheticConfig{Methods: []string{multiway.CLEAR, multiway.MatchEIG, multiway.QuickMatch}, Runs: 2, Items: 20,
		Grids: []int{1, 2}, Views: []int{3, 5}, Ratio: 0.5, Grid2Views: 4, Ratios: []float64{0.5, 1}, Mismatch: []float64{0, 0.2}, Seed: 1}
}

func TestSynthetic(t *testing.T) {
	rep, err := Synthetic(context.Background(), small(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cells) != 8*3 || len(rep.Universe) != 8 {
		t.Fatalf("%d cells, %d universe cells", len(rep.Cells), len(rep.Universe))
	}
	for _, c := range rep.Cells {
		if c.Runs != 2 {
			t.Errorf("%+v: %d runs", c, c.Runs)
		}
		// Without mismatch every method recovers the truth.
		if c.Mismatch == 0 && (c.Colour() != Recovered || c.Score != 100) {
			t.Errorf("noiseless cell %+v: colour %v", c, c.Colour())
		}
		if c.Method == multiway.CLEAR && c.Colour() != Recovered && c.Colour() != Valid {
			t.Errorf("CLEAR cell %+v broke a guarantee", c)
		}
		if c.Method == multiway.CLEAR && c.F1Completed != c.F1 {
			t.Errorf("a partition's completed F1 differs: %+v", c)
		}
	}
	for _, u := range rep.Universe {
		if u.Mismatch == 0 && (u.CLEAR != u.Observed || u.Observed == 0) {
			t.Errorf("noiseless universe cell %+v", u)
		}
	}
	// The same configuration gives the same numbers (times aside).
	again, _ := Synthetic(context.Background(), small(), nil)
	for i := range rep.Cells {
		a, b := rep.Cells[i], again.Cells[i]
		a.Seconds, b.Seconds = 0, 0
		if a != b {
			t.Fatalf("cell %d differs between runs: %+v vs %+v", i, a, b)
		}
	}
	figs, err := rep.Figures()
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 6 {
		t.Fatalf("%d figures", len(figs))
	}
	for _, f := range figs {
		if !bytes.HasPrefix(f.PNG, []byte("\x89PNG")) || !bytes.Contains(f.SVG, []byte("<svg")) {
			t.Errorf("%s: not a PNG and an SVG", f.Name)
		}
	}
	cells, uni := rep.CSV()
	if n := strings.Count(string(cells), "\n"); n != 1+24 {
		t.Errorf("cells.csv has %d lines", n)
	}
	if n := strings.Count(string(uni), "\n"); n != 1+8 {
		t.Errorf("universe.csv has %d lines", n)
	}
	var b bytes.Buffer
	rep.PrintGrids(&b)
	if !strings.Contains(b.String(), "matcheig") || !strings.Contains(b.String(), "100*") {
		t.Errorf("grid table:\n%s", b.String())
	}
}

func TestSyntheticBadConfig(t *testing.T) {
	for _, mod := range []func(*SyntheticConfig){
		func(c *SyntheticConfig) { c.Runs = 0 },
		func(c *SyntheticConfig) { c.Methods = []string{"bogus"} },
		func(c *SyntheticConfig) { c.Grids = []int{3} },
		func(c *SyntheticConfig) { c.Ratios = []float64{1.5} },
		func(c *SyntheticConfig) { c.Mismatch = []float64{-0.1} },
		func(c *SyntheticConfig) { c.Views = []int{1} },
	} {
		c := small()
		mod(&c)
		if _, err := Synthetic(context.Background(), c, nil); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Synthetic(ctx, small(), nil); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}

func TestReal(t *testing.T) {
	s := multiway.Synthesize(multiway.SynthConfig{Items: 30, Views: 6, ObsRatio: 0.6, Mismatch: 0.15, Seed: 3})
	rep, err := Real(context.Background(), "toy", "paper", s.Problem, s.Truth, []string{multiway.CLEAR, multiway.MatchALS, multiway.MatchLift},
		MethodOptions{MaxMemory: 600 << 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 3 || rep.Rows[0].Skipped != "" || rep.Rows[0].F1 <= rep.Input.F1-0.2 {
		t.Fatalf("rows %+v", rep.Rows)
	}
	// MatchLift's seven (l+1)² matrices (665 KiB at l = 108) exceed the 600 KiB
	// limit: skipped, named.
	if !strings.Contains(rep.Rows[2].Skipped, "matchlift needs") {
		t.Errorf("matchlift not skipped: %+v", rep.Rows[2])
	}
	if !rep.Rows[0].Consistent || !rep.Rows[0].Distinct {
		t.Errorf("CLEAR: %+v", rep.Rows[0])
	}
	figs, err := rep.Figures()
	if err != nil || len(figs) != 2 {
		t.Fatalf("figures: %v", err)
	}
	if n := strings.Count(string(rep.CSV()), "\n"); n != 5 {
		t.Errorf("csv lines %d", n)
	}
	if _, err := Real(context.Background(), "toy", "paper", s.Problem, s.Truth[1:], []string{multiway.CLEAR}, MethodOptions{}, nil); err == nil {
		t.Error("truth of the wrong length accepted")
	}
}
