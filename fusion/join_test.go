package fusion

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/clearmatch/clearmatch/localmap"
)

// joinWorld is robots, each in a frame of its own (frame, in the world),
// optimized apart: every robot's maps see every landmark of its layout
// (layout[k]), and its clusters are its landmarks, placed by its
// optimizer within noise metres.
func joinWorld(layouts [][]localmap.Landmark, frame []localmap.Pose, noise float64, rng *rand.Rand) (*localmap.Set, *Result, *Optimized, []int) {
	s := &localmap.Set{}
	r := &Result{}
	opt := &Optimized{Graph: &PoseGraph{}}
	var frames []int
	for k, layout := range layouts {
		first := r.Clusters
		for _, l := range layout {
			x, y := frame[k].Inverse(l.X, l.Y) // in robot k's frame
			opt.Graph.Landmarks = append(opt.Graph.Landmarks, [2]float64{x + noise*rng.NormFloat64(), y + noise*rng.NormFloat64()})
			r.Clusters++
		}
		for m := range 3 {
			p := localmap.Pose{X: float64(m), Y: 0.5 * float64(m), Theta: 0.3 * float64(m)} // in k's frame
			var lm []localmap.Landmark
			for i, l := range layout {
				x, y := frame[k].Inverse(l.X, l.Y)
				x, y = p.Inverse(x, y)
				lm = append(lm, localmap.Landmark{X: x, Y: y, Truth: l.Truth})
				r.Cluster = append(r.Cluster, first+i)
			}
			s.Maps = append(s.Maps, localmap.Map{Landmarks: lm})
			s.Poses = append(s.Poses, p)
			opt.Graph.Poses = append(opt.Graph.Poses, p)
			opt.Component = append(opt.Component, k)
			frames = append(frames, k)
		}
	}
	opt.Components = len(layouts)
	return s, r, opt, frames
}

// scattered is n landmarks at least gap apart in a w × h room.
func scattered(n int, w, h, gap float64, rng *rand.Rand) []localmap.Landmark {
	var out []localmap.Landmark
	for len(out) < n {
		x, y := w*rng.Float64(), h*rng.Float64()
		ok := true
		for _, l := range out {
			ok = ok && math.Hypot(l.X-x, l.Y-y) >= gap
		}
		if ok {
			out = append(out, localmap.Landmark{X: x, Y: y, Truth: string(rune('a' + len(out)))})
		}
	}
	return out
}

// grid is an n × n grid of landmarks spaced 1.5 m.
func grid(n int) []localmap.Landmark {
	var out []localmap.Landmark
	for i := range n {
		for j := range n {
			out = append(out, localmap.Landmark{X: 1.5 * float64(i), Y: 1.5 * float64(j), Truth: string(rune('a' + n*i + j))})
		}
	}
	return out
}

// Robots in one room (15 landmarks at least 1.2 m apart, as a lab's) are
// joined and their maps laid on each other; a robot in another room, or
// one that saw no landmark, is not; a grid, where a shift by a row explains nearly as much as the
// truth, joins nothing.
func TestJoinFrames(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	room, other := scattered(15, 5, 7, 1.2, rng), scattered(15, 5, 7, 1.2, rng)
	frame := []localmap.Pose{{}, {X: 10, Y: -3, Theta: 2}, {X: -4, Y: 6, Theta: -1}}
	for _, tc := range []struct {
		name    string
		layouts [][]localmap.Landmark
		groups  int // 0: nothing joined
	}{
		{"one room", [][]localmap.Landmark{room, room, room}, 1},
		{"another room", [][]localmap.Landmark{room, room, other}, 2},
		{"a robot that saw nothing", [][]localmap.Landmark{room, room, nil}, 2},
		{"a grid", [][]localmap.Landmark{grid(6), grid(6)}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, r, opt, frames := joinWorld(tc.layouts, frame, 0.1, rng)
			j, err := JoinFrames(context.Background(), s, r, opt, frames, 0.35)
			if err != nil || (j == nil) != (tc.groups == 0) || j != nil && j.Groups != tc.groups {
				t.Fatalf("joined %+v, %v; want %d groups", j, err, tc.groups)
			}
			if j == nil {
				return
			}
			// Every robot that shares robot 0's group lays its landmarks
			// on robot 0's: the same truth within the noise.
			at := map[string][2]float64{}
			g := 0
			for k, layout := range tc.layouts {
				if j.Frames[3*k] != j.Frames[0] {
					continue
				}
				for i, l := range layout {
					p := j.Optimized.Graph.Landmarks[g+i]
					if q, ok := at[l.Truth]; ok && math.Hypot(p[0]-q[0], p[1]-q[1]) > 0.5 {
						t.Errorf("robot %d's %s at %v, robot 0's at %v", k, l.Truth, p, q)
					} else if !ok {
						at[l.Truth] = p
					}
				}
				g += len(layout)
			}
			// The poses moved with their maps: a robot's first pose is
			// where its frame truly lies in robot 0's.
			for k := range tc.layouts {
				if j.Frames[3*k] != j.Frames[0] {
					continue
				}
				want := compose(inverse(frame[0]), frame[k])
				if p := j.Poses[3*k]; math.Hypot(p.X-want.X, p.Y-want.Y) > 0.3 || math.Abs(math.Remainder(p.Theta-want.Theta, 2*math.Pi)) > 0.05 {
					t.Errorf("robot %d's first pose at %+v, truly %+v", k, p, want)
				}
			}
		})
	}
}

// A cancelled context stops the join.
func TestJoinFramesCancelled(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 2))
	room := scattered(15, 5, 7, 1.2, rng)
	s, r, opt, frames := joinWorld([][]localmap.Landmark{room, room}, []localmap.Pose{{}, {X: 3}}, 0.1, rng)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := JoinFrames(ctx, s, r, opt, frames, 0.35); err == nil {
		t.Fatal("no error after cancel")
	}
}
