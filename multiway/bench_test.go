package multiway

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/internal/testenv"
)

// BenchmarkMethods times every method on the paper's 10-view synthetic
// case (100 items, observation ratio 0.5, 10% mismatch: 500 observations),
// with the universe size estimated once outside the timing, as the paper's
// harness does. MatchLift runs only with -bench 'Methods/matchlift'.
func BenchmarkMethods(b *testing.B) {
	s := Synthesize(SynthConfig{Items: 100, Views: 10, ObsRatio: 0.5, Mismatch: 0.1, Seed: 1})
	m, err := EstimateUniverse(context.Background(), s.Problem)
	if err != nil {
		b.Fatal(err)
	}
	for _, method := range Methods {
		b.Run(method, func(b *testing.B) {
			for b.Loop() {
				if _, err := Run(context.Background(), method, s.Problem, &Options{Universe: m}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReal times every method on the two real problems of
// ../shared/testdata/problems (Hotel: 3030 observations in 101 views;
// Graffiti: 7782 in 6), universe estimated once outside the timing. A
// method past its work limit is skipped with its one-line reason; run with
// -benchtime 1x: MatchALS takes about a minute on Hotel.
func BenchmarkReal(b *testing.B) {
	for _, name := range []string{"hotel", "graffiti"} {
		f, err := os.Open(filepath.Join(testenv.SharedDir(), "testdata", "problems", name+"-sift.txt"))
		if err != nil {
			testenv.Missing(b, err)
		}
		p, _, err := clear.ReadText(f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		m, err := EstimateUniverse(context.Background(), p)
		if err != nil {
			b.Fatal(err)
		}
		for _, method := range Methods {
			b.Run(name+"/"+method, func(b *testing.B) {
				for b.Loop() {
					_, err := Run(context.Background(), method, p, &Options{Universe: m})
					var slow *ErrTooSlow
					if errors.As(err, &slow) {
						b.Skip(err)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
