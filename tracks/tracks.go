package tracks

import (
	"slices"

	"github.com/clearmatch/clearmatch/calib"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/imagefile"
	"github.com/clearmatch/clearmatch/pairwise"
)

// Views is what the track stages read and never change.
type Views struct {
	// Sets are the images' features as extracted; descriptors are read
	// through them (Set.LoadRows).
	Sets []*features.Set
	// Paths are the image files, which Refine reads again; when any is
	// "" (feature sets without files), Refine does nothing.
	Paths []string
	// MaxPixels bounds an image Refine decodes (imagefile.Open).
	MaxPixels int64
	// Grays, when set, holds images decoded before (by extraction, under
	// MaxPixels), which Refine then need not decode again.
	Grays *imagefile.GrayCache
	// Threshold is the largest model error of a verified match, pixels
	// at detection resolution; Scale holds, per image, the full-resolution
	// pixels per detection pixel (nil: 1 for every image).
	Threshold float64
	Scale     []float64
	// Intrinsics of every image at full resolution, when known.
	Intrinsics geom.Intrinsics
	// Workers bounds the worker pools (0: GOMAXPROCS).
	Workers int
	// Scratch is a folder where a stage may keep data between its passes
	// instead of memory (Refine: the reference patches); "" keeps it in
	// memory.
	Scratch string
	// Progress, if set, receives a stage's progress (serialized).
	Progress func(stage string, done, total int)
}

// Tracks is the state the stages pass on.
type Tracks struct {
	// Item is the track of every observation, numbered image by image
	// (observation k of image i is Offsets()[i]+k); −1 means none.
	Item []int
	// Solved is CLEAR's own Item: where Item differs, a stage added the
	// observation (completion's additions are tentative until Refine).
	Solved []int
	// Keypoints are the features the tracks are written with: Views.Sets
	// until Refine moves the keypoints (descriptors stay shared).
	Keypoints []*features.Set
	// Pairs are the verified pairs (every pair verification tried, in
	// order), with the models the stages left them: FilterWeak refits
	// some.
	Pairs []pairwise.Verified
	// Camera is the camera self-calibration found (nil when it did not
	// run): the reprojection filter reconstructs with it.
	Camera *calib.Result
}

// offsets returns the global index of each image's first observation,
// with the total last.
func (v *Views) offsets() []int { return features.Offsets(v.Sets) }

// threshold is the largest model error of a verified match between
// images i and j, in full-resolution pixels.
func (v *Views) threshold(i, j int) float64 {
	if v.Scale == nil {
		return v.Threshold
	}
	return v.Threshold * max(v.Scale[i], v.Scale[j])
}

// progress reports a stage's progress as a func(done, total), or nil.
func (v *Views) progress(stage string) func(done, total int) {
	if v.Progress == nil {
		return nil
	}
	return func(done, total int) { v.Progress(stage, done, total) }
}

// obsRef is one observation: keypoint kp of image img.
type obsRef struct{ img, kp int }

// groups returns item's observations by track, tracks in the order of
// their first observation, each in image order, observations outside any
// track (item −1) left out.
func groups(item, off []int) [][]obsRef {
	byItem := map[int]int{}
	var out [][]obsRef
	for i := range len(off) - 1 {
		for k := range off[i+1] - off[i] {
			g := item[off[i]+k]
			if g < 0 {
				continue
			}
			t, ok := byItem[g]
			if !ok {
				t = len(out)
				byItem[g] = t
				out = append(out, nil)
			}
			out[t] = append(out[t], obsRef{i, k})
		}
	}
	return out
}

// withDropped returns a copy of item with the observations drop set to
// −1 (item itself when drop is empty).
func withDropped(item, drop []int) []int {
	if len(drop) == 0 {
		return item
	}
	out := slices.Clone(item)
	for _, g := range drop {
		out[g] = -1
	}
	return out
}

// point is o's keypoint position in sets.
func point(sets []*features.Set, o obsRef) geom.Point { return sets[o.img].Point(o.kp) }

// oriented returns the positions of o and q as v's images I and J.
func oriented(sets []*features.Set, v *pairwise.Verified, o, q obsRef) (geom.Point, geom.Point) {
	if o.img == v.I {
		return point(sets, o), point(sets, q)
	}
	return point(sets, q), point(sets, o)
}

// epipolarPairs maps each (lower, higher) image pair with an epipolar
// model (E or F) to its index in pairs.
func epipolarPairs(pairs []pairwise.Verified) map[[2]int]int {
	pairOf := map[[2]int]int{}
	for k, v := range pairs {
		if v.Model == pairwise.Essential || v.Model == pairwise.Fundamental {
			pairOf[[2]int{min(v.I, v.J), max(v.I, v.J)}] = k
		}
	}
	return pairOf
}

// pairMatches returns, per pair of pairOf, the matches the tracks give it
// that agree with its model, as positions in images I (a) and J (b).
func pairMatches(v *Views, t Tracks, tracks [][]obsRef, pairOf map[[2]int]int) (a, b map[int][]geom.Point) {
	a = map[int][]geom.Point{}
	b = map[int][]geom.Point{}
	for _, tr := range tracks {
		for x := range tr {
			for y := x + 1; y < len(tr); y++ {
				k, ok := pairOf[[2]int{min(tr[x].img, tr[y].img), max(tr[x].img, tr[y].img)}]
				if !ok {
					continue
				}
				p := &t.Pairs[k]
				pa, pb := oriented(t.Keypoints, p, tr[x], tr[y])
				if p.Agrees(pa, pb, v.threshold(p.I, p.J)) {
					a[k], b[k] = append(a[k], pa), append(b[k], pb)
				}
			}
		}
	}
	return a, b
}
