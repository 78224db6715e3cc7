package match

import (
	"fmt"
	"io"

	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/pipeline"
)

// scoreStages scores the matches of each stage of the run under the true
// geometry of the ground-truth cameras: ratio, verified (the model's
// inliers), verified+guided (CLEAR's input), clear (the consistent
// matches of CLEAR's tracks), completed (of the tracks after the track
// stages, ms, when clearMs holds CLEAR's own) and, for a verified run,
// exported (database.db's); and the tracks each stage's matches chain
// into under the true cameras, which also sees the errors along epipolar
// lines. A research aid behind -gt.
func scoreStages(res *pipeline.Result, clearMs, ms []export.Match, gt map[string]datasets.Camera) ([]eval.StageScore, []eval.TrackScore, error) {
	points := keypointPoints(res.Sets)
	names, widths := make([]string, len(res.Sets)), make([]int, len(res.Sets))
	for i, s := range res.Sets {
		names[i], widths[i] = s.Image, s.Width
	}
	proj, have, err := eval.TrueProjections(gt, names, widths)
	if err != nil {
		return nil, nil, fmt.Errorf("-gt: %w", err)
	}
	if have < 2 {
		return nil, nil, fmt.Errorf("-gt: fewer than two of the images have a camera there (NAME.camera for image NAME)")
	}
	truth := trueFundamentals(res.Sets, gt)
	stages := stageMatches(res, clearMs, ms)
	// The ratio matches chain into a few giant components: no tracks.
	sc, tr := eval.ScoreStages(stages, points, truth), eval.ScoreTracks(stages[1:], points, proj)
	if res.Refined != nil && res.Verified != nil {
		// The exported matches again, at the refined keypoints (what
		// database.db holds).
		moved := keypointPoints(res.Refined)
		st := stages[len(stages)-1]
		st.Name = "refined"
		sc = append(sc, eval.ScoreStages([]eval.StageMatches{st}, moved, truth)...)
		tr = append(tr, eval.ScoreTracks([]eval.StageMatches{st}, moved, proj)...)
	}
	return sc, tr, nil
}

// trueFundamentals returns the true F of each image pair, computed when
// first asked for; ok is false when an image has no true camera.
func trueFundamentals(sets []*features.Set, gt map[string]datasets.Camera) func(i, j int) ([9]float64, bool) {
	fs := map[[2]int][9]float64{}
	return func(i, j int) ([9]float64, bool) {
		if f, ok := fs[[2]int{i, j}]; ok {
			return f, true
		}
		ci, ok1 := gt[sets[i].Image]
		cj, ok2 := gt[sets[j].Image]
		if !ok1 || !ok2 {
			return [9]float64{}, false
		}
		f, err := eval.TrueFundamental(ci, cj, sets[i].Width, sets[j].Width)
		if err != nil {
			return [9]float64{}, false
		}
		fs[[2]int{i, j}] = f
		return f, true
	}
}

// stageMatches are the matches of each stage of the run, ratio first and
// (for a verified run) exported last.
func stageMatches(res *pipeline.Result, clearMs, ms []export.Match) []eval.StageMatches {
	add := func(st eval.StageMatches, i, j, a, b int) {
		if i > j {
			i, j, a, b = j, i, b, a
		}
		st.Pairs[[2]int{i, j}] = append(st.Pairs[[2]int{i, j}], [2]int{a, b})
	}
	newStage := func(name string) eval.StageMatches {
		return eval.StageMatches{Name: name, Pairs: map[[2]int][][2]int{}}
	}
	ratio := newStage("ratio")
	inRatio := map[[4]int]bool{}
	for _, p := range res.Matches {
		for _, m := range p.Matches {
			add(ratio, p.I, p.J, int(m.A), int(m.B))
			inRatio[[4]int{p.I, p.J, int(m.A), int(m.B)}] = true
		}
	}
	stages := []eval.StageMatches{ratio}
	if res.Verified != nil {
		inliers, verified := newStage("verified"), newStage("verified+guided")
		for _, v := range res.Verified {
			if v.Model == pairwise.NoModel {
				continue
			}
			for _, m := range v.Matches {
				if inRatio[[4]int{v.I, v.J, int(m.A), int(m.B)}] {
					add(inliers, v.I, v.J, int(m.A), int(m.B))
				}
				add(verified, v.I, v.J, int(m.A), int(m.B))
			}
		}
		stages = append(stages, inliers, verified)
	}
	consistent := newStage("clear")
	own := clearMs
	if own == nil {
		own = ms
	}
	for _, m := range own {
		add(consistent, m.A, m.B, m.KpA, m.KpB)
	}
	stages = append(stages, consistent)
	if clearMs != nil {
		completed := newStage("completed")
		for _, m := range ms {
			add(completed, m.A, m.B, m.KpA, m.KpB)
		}
		stages = append(stages, completed)
	}
	if res.Verified != nil {
		exported := newStage("exported")
		pairs, _ := export.ColmapPairs(res, ms)
		for _, p := range pairs {
			for _, m := range p.Matches {
				add(exported, p.I, p.J, int(m[0]), int(m[1]))
			}
		}
		stages = append(stages, exported)
	}
	return stages
}

// keypointPoints returns every image's keypoint positions.
func keypointPoints(sets []*features.Set) [][]geom.Point {
	points := make([][]geom.Point, len(sets))
	for i, s := range sets {
		points[i] = s.Points()
	}
	return points
}

func printStageScores(w io.Writer, sc []eval.StageScore, tr []eval.TrackScore) {
	fmt.Fprintf(w, "matches under the true geometry (Sampson distance):\n%-16s %8s %8s %8s %8s %9s %8s %8s %8s\n", "stage", "matches", "<=1px", "<=2px", "<=4px", "prec@2px", "median", "lost", "added")
	for _, s := range sc {
		fmt.Fprintf(w, "%-16s %8d %8d %8d %8d %9.4f %8.3f %8d %8d\n", s.Stage, s.Matches, s.Within1, s.Within2, s.Within4, s.Precision, s.MedianError, s.Lost, s.Added)
	}
	if len(tr) == 0 {
		return
	}
	fmt.Fprintf(w, "tracks of 3+ views as the matches chain, under the true cameras (every observation within N px of the triangulated point):\n%-16s %8s %8s %8s %8s %9s %9s\n", "stage", "tracks", "<=1px", "<=2px", "<=4px", "prec@2px", "conflict")
	for _, s := range tr {
		fmt.Fprintf(w, "%-16s %8d %8d %8d %8d %9.4f %9d\n", s.Stage, s.Tracks, s.Within1, s.Within2, s.Within4, s.Precision, s.Conflicting)
	}
}
