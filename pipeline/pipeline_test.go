package pipeline

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
)

// views makes n images that all see the same m points, with descriptors
// perturbed per image, so the true track of point k is keypoint k
// everywhere.
func views(n, m int, seed uint64) ([]Image, []*features.Set) {
	rng := rand.New(rand.NewPCG(seed, 1))
	base := make([]float32, m*features.DescSize)
	for i := range base {
		base[i] = float32(rng.Float64() * 100)
	}
	var ims []Image
	var sets []*features.Set
	for v := 0; v < n; v++ {
		s := &features.Set{Image: string(rune('a' + v)), Width: 640, Height: 480}
		for k := 0; k < m; k++ {
			s.Keypoints = append(s.Keypoints, features.Keypoint{X: float32(10 + 7*k%600), Y: float32(5 + 3*k%470)})
			for d := 0; d < features.DescSize; d++ {
				s.Desc = append(s.Desc, max(0, base[k*features.DescSize+d]+float32(rng.NormFloat64())))
			}
		}
		ims, sets = append(ims, Image{Name: s.Image}), append(sets, s)
	}
	return ims, sets
}

// identity is an Estimator for images related by the identity homography.
type identity struct{}

func (identity) Estimate(kind pairwise.ModelKind, a, b []geom.Point, thr float64) ([9]float64, []bool, bool, error) {
	in := make([]bool, len(a))
	if kind != pairwise.Homography {
		return [9]float64{}, in, false, nil
	}
	h := [9]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}
	for k := range a {
		in[k] = pairwise.TransferError(h, a[k], b[k]) <= thr
	}
	return h, in, true, nil
}

func TestMatchPureGo(t *testing.T) {
	ims, sets := views(4, 40, 1)
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"paper", PaperOptions()},
		{"verified", func() Options { o := DefaultOptions(); o.Verification.Estimator = identity{}; return o }()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Matching.Matcher = pairwise.BruteForce{}
			r, err := Match(context.Background(), sceneOf(ims, sets, tc.opts), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			// Every point is one track across the four images.
			for k := 0; k < 40; k++ {
				for v := 1; v < 4; v++ {
					if r.Clear.Item[40*v+k] != r.Clear.Item[k] {
						t.Fatalf("point %d: image %d in item %d, image 0 in %d", k, v, r.Clear.Item[40*v+k], r.Clear.Item[k])
					}
				}
			}
			if tc.name == "verified" {
				if c := r.CountVerification(); c.Verified != 6 || c.Models["H"] != 6 {
					t.Errorf("verification %+v", c)
				}
			} else if r.Verified != nil {
				t.Error("the paper protocol verified")
			}
			if len(r.Pairs()) != 6 || r.Offsets()[4] != 160 {
				t.Errorf("%d pairs, offsets %v", len(r.Pairs()), r.Offsets())
			}
		})
	}
}

func TestMatchCancelled(t *testing.T) {
	ims, sets := views(3, 10, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := Options{Matching: MatchOptions{Matcher: pairwise.BruteForce{}}}
	if _, err := Match(ctx, sceneOf(ims, sets, o), o); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
}

// TestChainGivesMatch: the stages called one by one, with CLEAR solved
// elsewhere (as clearmatch-beam solves it, part by part) and given through
// NewSolution, give Match's result.
func TestChainGivesMatch(t *testing.T) {
	ims, sets := views(3, 10, 3)
	o := PaperOptions()
	o.Matching.Matcher = pairwise.BruteForce{}
	want, err := Match(context.Background(), sceneOf(ims, sets, o), o)
	if err != nil {
		t.Fatal(err)
	}
	scene := sceneOf(ims, sets, o)
	m, err := o.PairStage().Run(context.Background(), o.Env, scene)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Association(scene, m, o.Solve)
	if err != nil {
		t.Fatal(err)
	}
	co := o.Solve.Clear()
	res, err := clear.SolveParts(context.Background(), p, &co)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := NewSolution(p, res)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Track(context.Background(), o.Env, scene, m, sol, o.Tracks.Stages())
	if err != nil {
		t.Fatal(err)
	}
	if got.Clear != res || !slices.Equal(got.Item, want.Item) || !reflect.DeepEqual(got.Matches, want.Matches) || len(got.Item) != 30 {
		t.Errorf("the chain's items %v, Match's %v", got.Item, want.Item)
	}
}
