package clear

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Benchmarks for Solve on the two real problems and on synthetic problems
// of the paper's kind. Run with: go test -run '^$' -bench . -benchmem ./clear/

var sinkResult *Result

func benchSolve(b *testing.B, p *Problem, opts *Options) {
	b.Helper()
	b.ReportAllocs()
	var r *Result
	var err error
	for i := 0; i < b.N; i++ {
		if r, err = Solve(p, opts); err != nil {
			b.Fatal(err)
		}
	}
	sinkResult = r
	b.ReportMetric(float64(r.UniverseSize), "universe")
	b.ReportMetric(float64(r.LargestComponent), "largest")
}

func BenchmarkRealProblems(b *testing.B) {
	for _, name := range []string{"hotel-sift.txt", "graffiti-sift.txt"} {
		p := loadProblem(b, filepath.Join(sharedDir(b), "testdata", "problems", name))
		for _, es := range []struct {
			name string
			es   Eigensolver
		}{{"auto", EigenAuto}, {"dense", EigenDense}} {
			b.Run(fmt.Sprintf("%s/%s", name, es.name), func(b *testing.B) {
				benchSolve(b, p, &Options{Eigensolver: es.es})
			})
		}
	}
}

func BenchmarkSynthetic(b *testing.B) {
	cases := []struct {
		name string
		cfg  SynthConfig
	}{
		// Hotel-like: 101 views x 30 items, all observed, about 8% wrong
		// matches. With every item observed, a reassigned match swaps with
		// another, so 4.1% reassigned gives 8.0% wrong (the "wrong" metric).
		{"hotel-like", SynthConfig{Items: 30, Views: 101, ObsRatio: 1, Mismatch: 0.041, Seed: 1}},
		// The paper's setting: 100 items, 10 views, ratio 0.5, 20% reassigned.
		{"paper-10views", SynthConfig{Items: 100, Views: 10, ObsRatio: 0.5, Mismatch: 0.2, Seed: 1}},
		// The same with 30 views (about 1500 observations).
		{"paper-30views", SynthConfig{Items: 100, Views: 30, ObsRatio: 0.5, Mismatch: 0.2, Seed: 1}},
		// One component of 3000 observations.
		{"one-component-3000", SynthConfig{Items: 100, Views: 60, ObsRatio: 0.5, Mismatch: 0.2, Seed: 1}},
	}
	for _, c := range cases {
		s := Synthesize(c.cfg)
		wrong := 0
		for _, a := range s.Problem.Associations {
			if s.Truth[a.A] != s.Truth[a.B] {
				wrong++
			}
		}
		b.Run(c.name, func(b *testing.B) {
			benchSolve(b, s.Problem, nil)
			b.ReportMetric(float64(wrong)/float64(len(s.Problem.Associations)), "wrong")
		})
	}
}

func loadProblem(tb testing.TB, path string) *Problem {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		missingData(tb, err)
	}
	defer f.Close()
	p, _, err := ReadText(f)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return p
}
