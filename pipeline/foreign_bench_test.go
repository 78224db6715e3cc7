package pipeline

import (
	"math/rand"
	"testing"

	"github.com/clearmatch/clearmatch/clear"
)

// BenchmarkDropForeign: a problem of the size of 1000 strip views (4.5 M
// keypoints in 1000 views, 3.3 M associations), items as CLEAR's of its
// components with a little overflow.
func BenchmarkDropForeign(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	const views, per = 1000, 4500
	p := &clear.Problem{}
	for range views {
		p.AddView(per)
	}
	l := views * per
	seen := map[[2]int]bool{}
	for len(p.Associations) < 3_300_000 {
		v := rng.Intn(views - 1)
		w := v + 1 + rng.Intn(min(3, views-1-v))
		a, c := v*per+rng.Intn(per), w*per+rng.Intn(per)
		if !seen[[2]int{a, c}] {
			seen[[2]int{a, c}] = true
			p.Associations = append(p.Associations, clear.Association{A: a, B: c})
		}
	}
	item := make([]int, l)
	for o := range item {
		item[o] = o
		if rng.Intn(400) == 0 {
			item[o] = rng.Intn(l)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := dropForeign(p, item); err != nil {
			b.Fatal(err)
		}
	}
}
