package eval

import (
	"fmt"
	"math"
	"sort"

	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
)

// Match precision per stage under ground-truth geometry: every match's
// Sampson distance under the fundamental matrix the true cameras imply,
// so that each stage of the pipeline (ratio, verified, guided, CLEAR,
// exported) shows how many of its matches are right and how many right
// matches of the stage before it lost.

// TrueFundamental returns F with x_jᵀ F x_i = 0 for pixel coordinates
// (0-based, pixel centres at integers) of images i and j of widths wi and
// wj, from ground-truth cameras whose K is for images of their own Width
// (scaled by wi/Width, the pixel-centre convention kept). K's own
// convention is taken as centres at integers.
func TrueFundamental(ci, cj datasets.Camera, wi, wj int) ([9]float64, error) {
	if ci.Width <= 0 || cj.Width <= 0 || wi <= 0 || wj <= 0 {
		return [9]float64{}, fmt.Errorf("an image size is missing")
	}
	ki, kj := scaleK(ci.K, float64(wi)/float64(ci.Width)), scaleK(cj.K, float64(wj)/float64(cj.Width))
	// x_cam = R (X − C): relative pose R = Rj Riᵀ, t = Rj (Ci − Cj).
	r := geom.Mul3(flat(cj.R), geom.Transpose3(flat(ci.R)))
	var t [3]float64
	for a := 0; a < 3; a++ {
		for b := 0; b < 3; b++ {
			t[a] += cj.R[a][b] * (ci.C[b] - cj.C[b])
		}
	}
	tx := [9]float64{0, -t[2], t[1], t[2], 0, -t[0], -t[1], t[0], 0}
	e := geom.Mul3(tx, r)
	kiInv, ok1 := geom.Inverse3(ki)
	kjInv, ok2 := geom.Inverse3(kj)
	if !ok1 || !ok2 {
		return [9]float64{}, fmt.Errorf("K is singular")
	}
	return geom.Mul3(geom.Transpose3(kjInv), geom.Mul3(e, kiInv)), nil
}

func scaleK(k [3][3]float64, s float64) [9]float64 {
	return [9]float64{
		k[0][0] * s, k[0][1] * s, (k[0][2]+0.5)*s - 0.5,
		0, k[1][1] * s, (k[1][2]+0.5)*s - 0.5,
		0, 0, 1,
	}
}

// StageMatches is one stage's matches: per image pair (i < j), keypoint
// index pairs (index in i, index in j).
type StageMatches struct {
	Name  string
	Pairs map[[2]int][][2]int
}

// StageScore is a stage's matches scored under the true geometry.
type StageScore struct {
	Stage   string `json:"stage"`
	Matches int    `json:"matches"`
	// Within counts the matches within 1, 2 and 4 pixels (Sampson
	// distance, pixels of the images' size) of the true epipolar geometry.
	Within1 int `json:"within_1px"`
	Within2 int `json:"within_2px"`
	Within4 int `json:"within_4px"`
	// Precision is Within2 / Matches.
	Precision float64 `json:"precision_2px"`
	// Lost counts the matches of the stage before within 2 px that this
	// stage does not hold; Added the matches within 2 px it adds.
	Lost  int `json:"lost_correct"`
	Added int `json:"added_correct"`
	// MedianError is the median Sampson distance, pixels.
	MedianError float64 `json:"median_error_px"`
}

// ScoreStages scores each stage's matches: points[i] are image i's
// keypoints, truth(i, j) the true fundamental matrix of the pair (ok false
// leaves the pair out, as a pair without ground truth).
func ScoreStages(stages []StageMatches, points [][]geom.Point, truth func(i, j int) ([9]float64, bool)) []StageScore {
	type key struct{ i, j, a, b int }
	var prev map[key]bool
	out := make([]StageScore, 0, len(stages))
	for _, st := range stages {
		sc := StageScore{Stage: st.Name}
		good := map[key]bool{}
		var errs []float64
		for p, ms := range st.Pairs {
			f, ok := truth(p[0], p[1])
			if !ok {
				continue
			}
			for _, m := range ms {
				e := pairwise.SampsonError(f, geom.Point(points[p[0]][m[0]]), geom.Point(points[p[1]][m[1]]))
				errs = append(errs, e)
				sc.Matches++
				if e <= 1 {
					sc.Within1++
				}
				if e <= 2 {
					sc.Within2++
					good[key{p[0], p[1], m[0], m[1]}] = true
				}
				if e <= 4 {
					sc.Within4++
				}
			}
		}
		if sc.Matches > 0 {
			sc.Precision = float64(sc.Within2) / float64(sc.Matches)
			sort.Float64s(errs)
			sc.MedianError = errs[len(errs)/2]
		}
		if prev != nil {
			for k := range prev {
				if !good[k] {
					sc.Lost++
				}
			}
			for k := range good {
				if !prev[k] {
					sc.Added++
				}
			}
		}
		if math.IsNaN(sc.MedianError) || math.IsInf(sc.MedianError, 0) {
			sc.MedianError = -1
		}
		prev = good
		out = append(out, sc)
	}
	return out
}
