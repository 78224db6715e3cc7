package fusion

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/localmap"
)

// TestMaximumClique: on random graphs of up to 14 vertices the clique
// found is a clique, as large as brute force's largest.
func TestMaximumClique(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(14)
		p := rng.Float64()
		adj := make([][]uint64, n)
		for v := range adj {
			adj[v] = make([]uint64, 1)
		}
		for u := 0; u < n; u++ {
			for v := u + 1; v < n; v++ {
				if rng.Float64() < p {
					adj[u][0] |= 1 << v
					adj[v][0] |= 1 << u
				}
			}
		}
		best := 0
		for set := uint64(1); set < 1<<n; set++ {
			ok := true
			for v := 0; v < n && ok; v++ {
				if set&(1<<v) != 0 && set&^(1<<v)&^adj[v][0] != 0 {
					ok = false
				}
			}
			if ok {
				best = max(best, bits.OnesCount64(set))
			}
		}
		keep := maximumClique(adj)
		var got []int
		for v, k := range keep {
			if k {
				got = append(got, v)
			}
		}
		for _, u := range got {
			for _, v := range got {
				if u != v && adj[u][0]&(1<<v) == 0 {
					t.Fatalf("trial %d: %v is not a clique", trial, got)
				}
			}
		}
		if len(got) != best {
			t.Fatalf("trial %d: clique of %d, the largest has %d", trial, len(got), best)
		}
	}
}

// TestAlignmentMotion: then composes (n first) and inverse undoes.
func TestAlignmentMotion(t *testing.T) {
	m, n := alignment{theta: 0.7, t: [2]float64{1, -2}}, alignment{theta: -2.1, t: [2]float64{0.3, 4}}
	p := geom.Point{X: 1.5, Y: -0.4}
	mn, inv := m.then(n), m.inverse()
	a, q := mn.apply(p), n.apply(p)
	b := m.apply(q)
	back := m.then(inv)
	c := back.apply(p)
	if math.Hypot(a.X-b.X, a.Y-b.Y) > 1e-12 || math.Hypot(c.X-p.X, c.Y-p.Y) > 1e-12 {
		t.Errorf("then %v against %v; m then its inverse moves %v to %v", a, b, p, c)
	}
}

// walk is one robot's maps along a straight line, each of five
// landmarks in its own frame, at exact poses.
func walk(n int) *localmap.Set {
	rng := rand.New(rand.NewPCG(3, 4))
	s := &localmap.Set{}
	for k := 0; k < n; k++ {
		s.Poses = append(s.Poses, localmap.Pose{X: 3 * float64(k), Y: 0.1 * float64(k%3), Theta: 0.05 * float64(k)})
		var m localmap.Map
		for l := 0; l < 5; l++ {
			m.Landmarks = append(m.Landmarks, localmap.Landmark{X: 4 * rng.Float64(), Y: 4*rng.Float64() - 2})
		}
		s.Maps = append(s.Maps, m)
	}
	return s
}

// TestConsistentPairs: map pairs whose motions are the odometry's agree
// and are kept; a pair found by chance (a motion turned by a radian)
// agrees with none and is dropped; a robot pair's single map pair is kept.
func TestConsistentPairs(t *testing.T) {
	s := walk(10)
	idx := make([]*mapIndex, len(s.Maps))
	for k := range s.Maps {
		idx[k] = newMapIndex(&s.Maps[k], 0.1, 6)
	}
	pairs := [][2]int{{0, 5}, {1, 6}, {2, 7}, {3, 8}, {4, 9}}
	found := make([]alignment, len(pairs))
	for k, p := range pairs {
		found[k] = predict(s.Poses[p[0]], s.Poses[p[1]])
		found[k].matches = [][2]int{{0, 0}, {1, 1}, {2, 2}}
	}
	found[2].theta += 1 // chance: the shape search turned map 7
	consistentPairs(s, pathLengths(s), idx, pairs, found, Noise{Drift: 0.01, TurnDrift: 0.001}, 0.1)
	for k := range pairs {
		if kept := len(found[k].matches) > 0; kept != (k != 2) {
			t.Errorf("pair %v kept %v", pairs[k], kept)
		}
	}
	one := []alignment{{theta: 3, matches: [][2]int{{0, 0}}}}
	consistentPairs(s, pathLengths(s), idx, [][2]int{{0, 9}}, one, Noise{Drift: 0.01, TurnDrift: 0.001}, 0.1)
	if len(one[0].matches) == 0 {
		t.Error("a lone map pair was dropped")
	}
}

// TestAgreeing: of pairs whose turn grows with the path as the odometry's
// heading drift does, among more turned at random (a shape search's
// chance fits), agreeing keeps the first and few of the others; the
// Poisson tail compares far below the smallest float.
func TestAgreeing(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var ss []driftSample
	for k := 0; k < 8; k++ {
		d := 20 + 10*float64(k)
		ss = append(ss, driftSample{path: d, off: 1, turn: 0.001 * d * (0.5 + rng.Float64())}) // off marks them
	}
	for k := 0; k < 30; k++ {
		ss = append(ss, driftSample{path: 10 + 290*rng.Float64(), turn: math.Pi * rng.Float64()})
	}
	in := agreeing(ss)
	drifting := 0
	for _, x := range in {
		if x.off == 1 {
			drifting++
		}
	}
	if drifting != 8 || len(in) > 10 {
		t.Errorf("kept %d samples, %d of the 8 that drift", len(in), drifting)
	}
	if a, b := logPoissonTail(900, 1), logPoissonTail(1000, 1); !(b < a && a < -4000) {
		t.Errorf("log tails %v and %v", a, b)
	}
	if got, want := logPoissonTail(3, 0.5), math.Log(1-math.Exp(-0.5)*(1+0.5+0.125)); math.Abs(got-want) > 1e-12 {
		t.Errorf("log P(X ≥ 3), mean 0.5: %v, want %v", got, want)
	}
}

// TestAgreeingByRobot: two robots whose drift samples agree with their
// odometry five times each pass the test pooled but neither alone, so
// neither gives a drift; a robot with eight does, alone.
func TestAgreeingByRobot(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	robot := func(agree, chance int) []driftSample {
		var ss []driftSample
		for k := 0; k < agree; k++ {
			d := 20 + 10*float64(k)
			ss = append(ss, driftSample{path: d, turn: 0.001 * d * (0.5 + rng.Float64())})
		}
		for k := 0; k < chance; k++ {
			ss = append(ss, driftSample{path: 10 + 290*rng.Float64(), turn: math.Pi * rng.Float64()})
		}
		return ss
	}
	a, b := robot(5, 10), robot(5, 10)
	if pooled := agreeing(append(append([]driftSample{}, a...), b...)); len(pooled) < MinDriftPairs {
		t.Fatalf("pooled: %d agree; the case needs the pooled test to pass", len(pooled))
	}
	if got := agreeingByRobot(map[string][]driftSample{"a": a, "b": b}, []string{"a", "b"}); len(got) != 0 {
		t.Errorf("two robots of 5 agreeing samples each: %d kept, want none", len(got))
	}
	c := robot(8, 10)
	if got := agreeingByRobot(map[string][]driftSample{"a": a, "c": c}, []string{"a", "c"}); len(got) < MinDriftPairs || len(got) > 10 {
		t.Errorf("a robot of 8 agreeing samples beside one of 5: %d kept, want its 8", len(got))
	}
}
