package compare

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/clearmatch/clearmatch/multiway"
)

// SyntheticConfig sets the paper's two Monte Carlo grids. The zero value
// of a field takes the paper's setting (DefaultSynthetic).
type SyntheticConfig struct {
	Methods []string `json:"methods"`
	Runs    int      `json:"runs"`
	Items   int      `json:"items"`
	// Grids lists the grids to run: 1 (views × mismatch at Ratio) and 2
	// (observation ratio × mismatch at Grid2Views views).
	Grids      []int     `json:"grids"`
	Views      []int     `json:"views"`
	Ratio      float64   `json:"ratio"`
	Grid2Views int       `json:"grid2_views"`
	Ratios     []float64 `json:"ratios"`
	Mismatch   []float64 `json:"mismatch"`
	Seed       uint64    `json:"seed"`
	MaxMemory  int64     `json:"max_memory"`
	MaxFlop    float64   `json:"max_flop"`
}

// DefaultSynthetic is the paper's setting: 100 items, 10 runs per cell;
// grid 1: 5–25 views at ratio 0.5; grid 2: 10 views at ratios 0.2–1.0;
// mismatch 5–25% in both.
func DefaultSynthetic() SyntheticConfig {
	return SyntheticConfig{
		Methods: DefaultMethods, Runs: 10, Items: 100, Grids: []int{1, 2},
		Views: []int{5, 10, 15, 20, 25}, Ratio: 0.5,
		Grid2Views: 10, Ratios: []float64{0.2, 0.4, 0.6, 0.8, 1.0},
		Mismatch: []float64{0.05, 0.10, 0.15, 0.20, 0.25}, Seed: 1,
	}
}

// Cell is one method's mean over the runs of one grid cell.
type Cell struct {
	Grid     int     `json:"grid"`
	Views    int     `json:"views"`
	Ratio    float64 `json:"ratio"`
	Mismatch float64 `json:"mismatch"`
	Method   string  `json:"method"`
	Runs     int     `json:"runs"`
	// F1 and F1Completed are means over the runs; Score is the paper's
	// printed number, floor(100·F1).
	F1          float64 `json:"f1"`
	F1Completed float64 `json:"f1_completed"`
	Precision   float64 `json:"precision"`
	Recall      float64 `json:"recall"`
	Score       int     `json:"score"`
	// Runs whose output was the truth exactly, cycle consistent, distinct.
	Recovered  int     `json:"recovered"`
	Consistent int     `json:"consistent"`
	Distinct   int     `json:"distinct"`
	Seconds    float64 `json:"seconds_mean"`
	Skipped    string  `json:"skipped,omitempty"`
}

// Colour is the paper's colour code of a cell.
type Colour int

// The paper's colour code (Fig. "AgentCompare").
const (
	Recovered    Colour = iota // dark green: the truth in every run
	Valid                      // light green: consistent and distinct, some errors
	Inconsistent               // red: not cycle consistent in some run
	NotDistinct                // orange: not distinct in some run
	Both                       // purple: both broken in some run(s)
	Skipped                    // grey: not run
)

// Colour returns the cell's colour in the paper's code.
func (c Cell) Colour() Colour {
	switch {
	case c.Skipped != "" || c.Runs == 0:
		return Skipped
	case c.Consistent < c.Runs && c.Distinct < c.Runs:
		return Both
	case c.Consistent < c.Runs:
		return Inconsistent
	case c.Distinct < c.Runs:
		return NotDistinct
	case c.Recovered == c.Runs:
		return Recovered
	}
	return Valid
}

// UniverseCell compares the universe size estimates of one grid cell: the
// means over the runs of the items actually observed, CLEAR's estimate and
// the eigengap heuristic's.
type UniverseCell struct {
	Grid     int     `json:"grid"`
	Views    int     `json:"views"`
	Ratio    float64 `json:"ratio"`
	Mismatch float64 `json:"mismatch"`
	Observed float64 `json:"observed_items"`
	CLEAR    float64 `json:"clear"`
	Eigengap float64 `json:"eigengap"`
}

// SyntheticReport holds both grids.
type SyntheticReport struct {
	Config   SyntheticConfig `json:"config"`
	Cells    []Cell          `json:"cells"`
	Universe []UniverseCell  `json:"universe"`
	Seconds  float64         `json:"seconds"`
}

// cellSpec is one cell to run.
type cellSpec struct {
	grid, views int
	ratio, mis  float64
}

func (c *SyntheticConfig) cells() []cellSpec {
	var out []cellSpec
	for _, g := range c.Grids {
		for _, mis := range c.Mismatch {
			if g == 1 {
				for _, v := range c.Views {
					out = append(out, cellSpec{1, v, c.Ratio, mis})
				}
			} else {
				for _, r := range c.Ratios {
					out = append(out, cellSpec{2, c.Grid2Views, r, mis})
				}
			}
		}
	}
	return out
}

// Check reports the first invalid setting.
func (c *SyntheticConfig) Check() error {
	switch {
	case c.Runs < 1:
		return fmt.Errorf("runs %d: want at least 1", c.Runs)
	case c.Items < 1:
		return fmt.Errorf("items %d: want at least 1", c.Items)
	case len(c.Methods) == 0:
		return errors.New("no methods")
	case len(c.Grids) == 0:
		return errors.New("no grids")
	}
	for _, g := range c.Grids {
		if g != 1 && g != 2 {
			return fmt.Errorf("grid %d: want 1 or 2", g)
		}
	}
	for _, v := range append(append([]int{}, c.Views...), c.Grid2Views) {
		if v < 2 || v > 1000 {
			return fmt.Errorf("views %d: want 2 to 1000", v)
		}
	}
	for _, r := range append(append([]float64{}, c.Ratios...), c.Ratio) {
		if !(r > 0 && r <= 1) {
			return fmt.Errorf("observation ratio %v: want (0, 1]", r)
		}
	}
	for _, m := range c.Mismatch {
		if !(m >= 0 && m <= 1) {
			return fmt.Errorf("mismatch %v: want [0, 1]", m)
		}
	}
	known := map[string]bool{}
	for _, m := range multiway.Methods {
		known[m] = true
	}
	for _, m := range c.Methods {
		if !known[m] {
			return fmt.Errorf("method %q: want one of %v", m, multiway.Methods)
		}
	}
	return nil
}

// Synthetic runs the grids. progress, when set, gets the runs done and
// planned (one run is one problem through every method) and what is under
// way. Every run's problem is seeded from (Seed, cell, run), so a cell's
// numbers do not depend on the other cells or on the methods chosen.
func Synthetic(ctx context.Context, cfg SyntheticConfig, progress func(done, total int, what string)) (*SyntheticReport, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	start := time.Now()
	rep := &SyntheticReport{Config: cfg}
	specs := cfg.cells()
	total := len(specs) * cfg.Runs
	done := 0
	o := MethodOptions{Seed: cfg.Seed, MaxMemory: cfg.MaxMemory, MaxFlop: cfg.MaxFlop}
	for _, sp := range specs {
		cells := make([]Cell, len(cfg.Methods))
		for k, m := range cfg.Methods {
			cells[k] = Cell{Grid: sp.grid, Views: sp.views, Ratio: sp.ratio, Mismatch: sp.mis, Method: m}
		}
		uc := UniverseCell{Grid: sp.grid, Views: sp.views, Ratio: sp.ratio, Mismatch: sp.mis}
		for run := 0; run < cfg.Runs; run++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			syn := multiway.Synthesize(multiway.SynthConfig{Items: cfg.Items, Views: sp.views, ObsRatio: sp.ratio, Mismatch: sp.mis,
				Seed: seedOf(cfg.Seed, sp.grid, sp.views, sp.ratio, sp.mis, run)})
			view := views(syn.Problem)
			m, err := multiway.EstimateUniverse(ctx, syn.Problem)
			if err != nil {
				return nil, err
			}
			gap, err := multiway.EigengapUniverse(ctx, syn.Problem)
			if err != nil {
				return nil, err
			}
			observed := map[int]bool{}
			for _, t := range syn.Truth {
				observed[t] = true
			}
			uc.Observed += float64(len(observed))
			uc.CLEAR += float64(m)
			uc.Eigengap += float64(gap)
			for k, method := range cfg.Methods {
				c := &cells[k]
				if c.Skipped != "" {
					continue
				}
				if progress != nil {
					progress(done, total, fmt.Sprintf("grid %d, %d views, ratio %.1f, mismatch %.0f%%, run %d, %s", sp.grid, sp.views, sp.ratio, 100*sp.mis, run+1, method))
				}
				s, skipped, err := runMethod(ctx, method, syn.Problem, m, syn.Truth, view, o, nil)
				if err != nil {
					return nil, err
				}
				if skipped != "" {
					c.Skipped = skipped
					continue
				}
				c.Runs++
				c.F1 += s.F1
				c.F1Completed += s.Completed.F1
				c.Precision += s.Precision
				c.Recall += s.Recall
				c.Seconds += s.Seconds
				if s.F1 == 1 {
					c.Recovered++
				}
				if s.Consistent {
					c.Consistent++
				}
				if s.Distinct {
					c.Distinct++
				}
			}
			done++
			if progress != nil {
				progress(done, total, "")
			}
		}
		for k := range cells {
			c := &cells[k]
			if c.Runs > 0 {
				n := float64(c.Runs)
				c.F1 /= n
				c.F1Completed /= n
				c.Precision /= n
				c.Recall /= n
				c.Seconds /= n
				c.Score = percent(c.F1)
			}
		}
		rep.Cells = append(rep.Cells, cells...)
		n := float64(cfg.Runs)
		uc.Observed, uc.CLEAR, uc.Eigengap = uc.Observed/n, uc.CLEAR/n, uc.Eigengap/n
		rep.Universe = append(rep.Universe, uc)
	}
	rep.Seconds = elapsed(time.Since(start))
	return rep, nil
}

// Lookup returns the cell of (grid, method, column value, mismatch): the
// column value is the views for grid 1, the ratio for grid 2.
func (r *SyntheticReport) Lookup(grid int, method string, col, mis float64) (Cell, bool) {
	for _, c := range r.Cells {
		x := float64(c.Views)
		if grid == 2 {
			x = c.Ratio
		}
		if c.Grid == grid && c.Method == method && math.Abs(x-col) < 1e-9 && math.Abs(c.Mismatch-mis) < 1e-9 {
			return c, true
		}
	}
	return Cell{}, false
}
