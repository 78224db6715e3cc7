package multiway

import (
	"context"
	"testing"
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
