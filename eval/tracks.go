package eval

import (
	"fmt"
	"math"
	"sort"

	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/geom"
	"gonum.org/v1/gonum/mat"
)

// Track precision under ground-truth cameras. The Sampson distance of a
// match (ScoreStages) measures only how far it is across the epipolar
// line: a wrong match along the line, which repeated texture and
// transfer along nearly parallel lines produce, scores as right. A track
// of three or more views has no such blind direction: triangulated from
// the true cameras, every observation must project back onto itself.

// TrackScore is a stage's tracks, as an SfM engine chains its matches
// (connected components over keypoints), scored under the true cameras.
type TrackScore struct {
	Stage string `json:"stage"`
	// Tracks counts the tracks of three or more observations, all in
	// distinct images with a true camera; Observations their observations.
	Tracks       int `json:"tracks"`
	Observations int `json:"observations"`
	// Within counts the tracks whose every observation is within 1, 2
	// and 4 pixels of the projection of the point triangulated (linear,
	// from all of them) with the true cameras. Precision is Within2 /
	// Tracks.
	Within1   int     `json:"within_1px"`
	Within2   int     `json:"within_2px"`
	Within4   int     `json:"within_4px"`
	Precision float64 `json:"precision_2px"`
	// Conflicting counts the chains that hold two keypoints of one image:
	// no single point, so an engine splits or drops them.
	Conflicting int `json:"two_in_one_image"`
}

// TrueProjection returns the 3×4 projection matrix (row-major) of a
// ground-truth camera for its image at width w pixels (K scaled as in
// TrueFundamental; pixel centres at integers).
func TrueProjection(c datasets.Camera, w int) ([12]float64, error) {
	if c.Width <= 0 || w <= 0 {
		return [12]float64{}, fmt.Errorf("an image size is missing")
	}
	k := scaleK(c.K, float64(w)/float64(c.Width))
	// [R | −R C]
	var rt [12]float64
	for a := 0; a < 3; a++ {
		t := 0.0
		for b := 0; b < 3; b++ {
			rt[4*a+b] = c.R[a][b]
			t -= c.R[a][b] * c.C[b]
		}
		rt[4*a+3] = t
	}
	var p [12]float64
	for a := 0; a < 3; a++ {
		for b := 0; b < 4; b++ {
			for m := 0; m < 3; m++ {
				p[4*a+b] += k[3*a+m] * rt[4*m+b]
			}
		}
	}
	return p, nil
}

// TrueProjections gives image i (named names[i], widths[i] pixels wide)
// its true projection matrix from gt, by name (ok false when gt has no
// camera of that name), and counts the images that have one.
func TrueProjections(gt map[string]datasets.Camera, names []string, widths []int) (proj func(i int) ([12]float64, bool), have int, err error) {
	projs := make([]*[12]float64, len(names))
	for i, n := range names {
		c, ok := gt[n]
		if !ok {
			continue
		}
		p, err := TrueProjection(c, widths[i])
		if err != nil {
			return nil, 0, fmt.Errorf("image %q: %w", n, err)
		}
		projs[i] = &p
		have++
	}
	return func(i int) ([12]float64, bool) {
		if projs[i] == nil {
			return [12]float64{}, false
		}
		return *projs[i], true
	}, have, nil
}

// ScoreTracks scores the tracks each stage's matches chain into: points[i]
// are image i's keypoints, proj(i) image i's true projection matrix (ok
// false: the image has no ground truth, and tracks through it are left
// out).
func ScoreTracks(stages []StageMatches, points [][]geom.Point, proj func(i int) ([12]float64, bool)) []TrackScore {
	out := make([]TrackScore, 0, len(stages))
	for _, st := range stages {
		out = append(out, scoreTracks(st, points, proj))
	}
	return out
}

type obs struct{ img, kp int }

func scoreTracks(st StageMatches, points [][]geom.Point, proj func(i int) ([12]float64, bool)) TrackScore {
	sc := TrackScore{Stage: st.Name}
	parent := map[obs]obs{}
	var find func(x obs) obs
	find = func(x obs) obs {
		p, ok := parent[x]
		if !ok {
			parent[x] = x
			return x
		}
		if p == x {
			return x
		}
		r := find(p)
		parent[x] = r
		return r
	}
	// Pairs in order, so that the chains, and any tie in them, do not
	// depend on map order.
	keys := make([][2]int, 0, len(st.Pairs))
	for k := range st.Pairs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if keys[a][0] != keys[b][0] {
			return keys[a][0] < keys[b][0]
		}
		return keys[a][1] < keys[b][1]
	})
	for _, k := range keys {
		for _, m := range st.Pairs[k] {
			a, b := find(obs{k[0], m[0]}), find(obs{k[1], m[1]})
			if a != b {
				if b.img < a.img || b.img == a.img && b.kp < a.kp {
					a, b = b, a
				}
				parent[b] = a
			}
		}
	}
	tracks := map[obs][]obs{}
	for x := range parent {
		r := find(x)
		tracks[r] = append(tracks[r], x)
	}
	for _, t := range tracks {
		if len(t) < 3 {
			continue
		}
		// In one order, so that the figures do not depend on map order.
		sort.Slice(t, func(a, b int) bool {
			if t[a].img != t[b].img {
				return t[a].img < t[b].img
			}
			return t[a].kp < t[b].kp
		})
		seen := map[int]bool{}
		conflict, all := false, true
		for _, o := range t {
			if seen[o.img] {
				conflict = true
			}
			seen[o.img] = true
			if _, ok := proj(o.img); !ok {
				all = false
			}
		}
		if conflict {
			sc.Conflicting++
			continue
		}
		if !all {
			continue
		}
		sc.Tracks++
		sc.Observations += len(t)
		worst := worstResidual(t, points, proj)
		if worst <= 1 {
			sc.Within1++
		}
		if worst <= 2 {
			sc.Within2++
		}
		if worst <= 4 {
			sc.Within4++
		}
	}
	if sc.Tracks > 0 {
		sc.Precision = float64(sc.Within2) / float64(sc.Tracks)
	}
	return sc
}

// worstResidual triangulates the track's point from its observations
// (linear, iteratively reweighted: the null vector of the stacked
// x·p₃ − p₁, y·p₃ − p₂ rows, each divided by the observation's depth
// p₃·X from the solution before, so that the algebraic error is the
// reprojection error) and returns the largest distance, in pixels, from
// an observation to the point's projection; +Inf when the point is
// behind a camera or at infinity.
func worstResidual(t []obs, points [][]geom.Point, proj func(i int) ([12]float64, bool)) float64 {
	ps := make([][12]float64, len(t))
	for r, o := range t {
		ps[r], _ = proj(o.img)
	}
	w := make([]float64, len(t))
	for r := range w {
		w[r] = 1
	}
	var x [4]float64
	for pass := 0; pass < 3; pass++ {
		a := mat.NewDense(2*len(t), 4, nil)
		for r, o := range t {
			p, q := ps[r], points[o.img][o.kp]
			for row, c := range [2]float64{q.X, q.Y} {
				for b := 0; b < 4; b++ {
					a.Set(2*r+row, b, (c*p[8+b]-p[4*row+b])/w[r])
				}
			}
		}
		var svd mat.SVD
		if !svd.Factorize(a, mat.SVDThin) {
			return math.Inf(1)
		}
		var v mat.Dense
		svd.VTo(&v)
		x = [4]float64{v.At(0, 3), v.At(1, 3), v.At(2, 3), v.At(3, 3)}
		for r := range t {
			p := ps[r]
			w[r] = math.Abs(p[8]*x[0] + p[9]*x[1] + p[10]*x[2] + p[11]*x[3])
			if w[r] == 0 || math.IsNaN(w[r]) {
				return math.Inf(1)
			}
		}
	}
	worst := 0.0
	for r, o := range t {
		p := ps[r]
		var h [3]float64
		for a := 0; a < 3; a++ {
			for b := 0; b < 4; b++ {
				h[a] += p[4*a+b] * x[b]
			}
		}
		// Depth has the sign of h₃·X₄ for a camera with det(M) > 0, as K R is.
		if h[2]*x[3] <= 0 {
			return math.Inf(1)
		}
		q := points[o.img][o.kp]
		d := math.Hypot(h[0]/h[2]-q.X, h[1]/h[2]-q.Y)
		if math.IsNaN(d) {
			return math.Inf(1)
		}
		worst = max(worst, d)
	}
	return worst
}
