package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/pairwise"
)

const evalUsage = `eval hotel|graffiti [-data DIR] [-out DIR] [flags]

Reproduces the paper's experiments on CMU Hotel or Graffiti: features, all-pairs
ratio matching, CLEAR and the metrics against the ground truth. Prints one
table (input, closure, pruned_closure, clear, clear_min_track) and writes
report.json, problem.txt and overlays/ into DIR.

Hotel: one SIFT descriptor per labelled landmark (σ = 10, computed orientation);
truth = same landmark. Graffiti: SIFT with OpenCV's defaults; truth from the
homographies (features matched within 2 px, greedily one to one; only features
whose truth is a clique with one feature per image are kept).`

// evalData is what one dataset contributes to the evaluation.
type evalData struct {
	images []string        // image paths
	sets   []*features.Set // the observations of each image, after selection
	found  []int           // features detected per image (before selection)
	truth  []int           // truth item per observation
}

type imageInfo struct {
	Name         string `json:"name"`
	Features     int    `json:"features"`
	Observations int    `json:"observations"`
}

type evalReport struct {
	Dataset         string             `json:"dataset"`
	Images          []imageInfo        `json:"images"`
	Observations    int                `json:"observations"`
	InputComponents int                `json:"input_components"`
	InputLargest    int                `json:"input_largest_component"`
	UniverseSize    int                `json:"universe_size"`
	TimingSeconds   map[string]float64 `json:"timing_s"`
	eval.Rows
}

func defaultDataDir() string {
	if d := os.Getenv("CLEARMATCH_DATA"); d != "" {
		return d
	}
	return filepath.Join("..", "shared", "datasets")
}

func runEval(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("eval", evalUsage, stderr)
	data := fs.String("data", defaultDataDir(), "datasets folder ($CLEARMATCH_DATA, default ../shared/datasets)")
	out := fs.String("out", "eval-out", "output directory")
	force := fs.Bool("force", false, "write into a non-empty output directory")
	minTrack := fs.Int("min-track", 2, "clear_min_track drops items with fewer observations")
	workers := fs.Int("workers", 0, "parallel workers (0: GOMAXPROCS)")
	rootSIFT := fs.Bool("rootsift", false, "use RootSIFT descriptors")
	var dataset string
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		dataset, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if dataset != "hotel" && dataset != "graffiti" {
		return usagef("want a dataset: eval hotel|graffiti")
	}
	if *minTrack < 1 {
		return usagef("-min-track %d: want at least 1", *minTrack)
	}
	if err := prepareOutDir(*out, *force); err != nil {
		return err
	}
	timing := map[string]float64{}
	t0 := time.Now()
	var d *evalData
	var err error
	var chosen [][2]int
	if dataset == "hotel" {
		d, err = loadHotelEval(ctx, filepath.Join(*data, "cmu-hotel"), *rootSIFT, stderr)
		chosen = [][2]int{{0, 50}, {50, 100}, {0, 100}} // three frames, as in the paper's figure
	} else {
		var g *datasets.Graffiti
		if g, err = datasets.LoadGraffiti(filepath.Join(*data, "graffiti")); err == nil {
			d, err = homographyEval(ctx, g.Images, g.H, features.Options{RootSIFT: *rootSIFT}, *workers, stderr)
		}
	}
	if err != nil {
		return err
	}
	timing["features"] = time.Since(t0).Seconds()
	return runEvaluation(ctx, dataset, d, *out, *minTrack, *workers, chosen, timing, stdout, stderr)
}

// matchSets matches the descriptor sets pairwise with OpenCV's matcher
// (progress on stderr) and builds the CLEAR problem from the matches. It
// returns the observations per image, the matches and the problem.
func matchSets(ctx context.Context, sets []*features.Set, opts pairwise.Options, weighted bool, stderr io.Writer) ([]int, []pairwise.Pair, *clear.Problem, error) {
	desc := make([][]float32, len(sets))
	counts := make([]int, len(sets))
	for i, s := range sets {
		desc[i], counts[i] = s.Desc, s.Len()
	}
	opts.Progress = newProgress(stderr, "match", "pairs").update
	pairs, err := pairwise.MatchAll(ctx, desc, features.DescSize, features.CVMatcher{}, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	prob, err := pairwise.Problem(counts, pairs, weighted)
	if err != nil {
		return nil, nil, nil, err
	}
	return counts, pairs, prob, nil
}

// runEvaluation matches the observations of d, runs CLEAR, scores every
// row against d's truth and writes report.json, problem.txt and overlays/
// into out (the chosen pairs; nil means each image with the next).
func runEvaluation(ctx context.Context, dataset string, d *evalData, out string, minTrack, workers int, chosen [][2]int, timing map[string]float64, stdout, stderr io.Writer) error {
	t1 := time.Now()
	counts, pairs, prob, err := matchSets(ctx, d.sets, pairwise.Options{Workers: workers}, false, stderr)
	if err != nil {
		return err
	}
	timing["match"] = time.Since(t1).Seconds()

	t2 := time.Now()
	res, err := clear.Solve(prob, nil)
	if err != nil {
		return err
	}
	timing["clear"] = time.Since(t2).Seconds()
	fmt.Fprintf(stderr, "clear    %d observations, universe %d, %v\n", len(res.Item), res.UniverseSize, res.Timing.Total().Round(10_000))

	t3 := time.Now()
	view := make([]int, 0, len(res.Item))
	for v, n := range counts {
		for k := 0; k < n; k++ {
			view = append(view, v)
		}
	}
	input := make([]clear.Pair, len(prob.Associations))
	for k, a := range prob.Associations {
		input[k] = clear.Pair{A: a.A, B: a.B}
	}
	rows := eval.Evaluate(d.truth, view, input, res.Item, minTrack)
	timing["evaluate"] = time.Since(t3).Seconds()

	rep := evalReport{
		Dataset: dataset, Observations: len(res.Item),
		InputComponents: res.Components, InputLargest: res.LargestComponent,
		UniverseSize: res.UniverseSize, TimingSeconds: timing, Rows: rows,
	}
	for i, s := range d.sets {
		rep.Images = append(rep.Images, imageInfo{Name: filepath.Base(d.images[i]), Features: d.found[i], Observations: s.Len()})
	}
	t4 := time.Now()
	if err := writeOverlays(ctx, filepath.Join(out, "overlays"), d, counts, pairs, res.Item, chosen, stderr); err != nil {
		return err
	}
	timing["overlays"] = time.Since(t4).Seconds()

	var pb bytes.Buffer
	fmt.Fprintf(&pb, "# %s: %d images, ratio test 1.5 on squared distances, all pairs\n", dataset, len(counts))
	if err := clear.WriteText(&pb, prob); err != nil {
		return err
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(out, "problem.txt"), pb.Bytes()); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(out, "report.json"), append(js, '\n')); err != nil {
		return err
	}
	printEvalTable(stdout, &rep, len(input))
	return nil
}

func printEvalTable(w io.Writer, rep *evalReport, matches int) {
	fmt.Fprintf(w, "%s: %d images, %d observations; input %d matches, %d components (largest %d); universe size %d\n\n",
		rep.Dataset, len(rep.Images), rep.Observations, matches, rep.InputComponents, rep.InputLargest, rep.UniverseSize)
	fmt.Fprintf(w, "%-16s %9s %7s %7s %9s %9s %10s %8s\n", "", "precision", "recall", "F1", "returned", "correct", "consistent", "distinct")
	for _, r := range []struct {
		name string
		row  eval.Row
	}{{"input", rep.Input}, {"closure", rep.Closure}, {"pruned_closure", rep.PrunedClosure}, {"clear", rep.Clear}, {"clear_min_track", rep.ClearMinTrack}} {
		fmt.Fprintf(w, "%-16s %9.3f %7.3f %7.3f %9d %9d %10v %8v\n", r.name, r.row.Precision, r.row.Recall, r.row.F1, r.row.Returned, r.row.Correct, r.row.CycleConsistent, r.row.Distinct)
	}
	fmt.Fprintf(w, "\ntiming (s): features %.2f, match %.2f, clear %.3f, evaluate %.3f, overlays %.2f\n",
		rep.TimingSeconds["features"], rep.TimingSeconds["match"], rep.TimingSeconds["clear"], rep.TimingSeconds["evaluate"], rep.TimingSeconds["overlays"])
}

func loadHotelEval(ctx context.Context, dir string, rootSIFT bool, stderr io.Writer) (*evalData, error) {
	frames, err := datasets.LoadHotel(dir)
	if err != nil {
		return nil, err
	}
	d := &evalData{}
	pr := newProgress(stderr, "extract", "frames")
	for k, f := range frames {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		data, err := os.ReadFile(f.Image)
		if err != nil {
			return nil, err
		}
		s, err := features.ExtractAt(filepath.Base(f.Image), data, f.Landmarks, 10, rootSIFT)
		if err != nil {
			return nil, err
		}
		d.images = append(d.images, f.Image)
		d.sets = append(d.sets, s)
		d.found = append(d.found, s.Len())
		for r := range f.Landmarks {
			d.truth = append(d.truth, r) // line r is landmark r in every frame
		}
		pr.update(k+1, len(frames))
	}
	return d, nil
}

// homographyEval extracts SIFT (OpenCV defaults) from the images of a
// planar scene and keeps the features of its homography ground truth.
func homographyEval(ctx context.Context, images []string, h func(i, j int) datasets.Homography, fopts features.Options, workers int, stderr io.Writer) (*evalData, error) {
	names := make([]string, len(images))
	for i, p := range images {
		names[i] = filepath.Base(p)
	}
	pr := newProgress(stderr, "extract", "images")
	ex := &features.Extractor{Options: fopts, Workers: workers, Progress: func(done, total int, _ string) { pr.update(done, total) }}
	sets, errs, _ := ex.ExtractFiles(ctx, images, names)
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	pts := make([][]eval.Point, len(sets))
	for i, s := range sets {
		for _, k := range s.Keypoints {
			pts[i] = append(pts[i], eval.Point{X: float64(k.X), Y: float64(k.Y)})
		}
	}
	gt := eval.HomographyGroundTruth(pts, func(i, j int, x, y float64) (float64, float64, bool) {
		return h(i, j).Apply(x, y)
	}, 2)
	d := &evalData{images: images, truth: gt.Truth}
	for i, s := range sets {
		d.found = append(d.found, s.Len())
		d.sets = append(d.sets, subset(s, gt.Keep[i]))
	}
	return d, nil
}

// subset keeps the features keep (increasing) of s.
func subset(s *features.Set, keep []int) *features.Set {
	out := &features.Set{Image: s.Image, Width: s.Width, Height: s.Height}
	for _, k := range keep {
		out.Keypoints = append(out.Keypoints, s.Keypoints[k])
		out.Desc = append(out.Desc, s.Descriptor(k)...)
	}
	return out
}

// writeOverlays draws, for the chosen pairs, the input matches (when pairs
// is not nil) and CLEAR's (green where the truth agrees, red where not; in
// the track's colour when there is no truth), and every image's
// observations coloured by item. A nil chosen means each image with the
// next.
func writeOverlays(ctx context.Context, dir string, d *evalData, counts []int, pairs []pairwise.Pair, item []int, chosen [][2]int, stderr io.Writer) error {
	if chosen == nil {
		for i := 0; i+1 < len(counts); i++ {
			chosen = append(chosen, [2]int{i, i + 1})
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	off := make([]int, len(counts)+1)
	for i, c := range counts {
		off[i+1] = off[i] + c
	}
	pts := func(i int) []eval.Point {
		var p []eval.Point
		for _, k := range d.sets[i].Keypoints {
			p = append(p, eval.Point{X: float64(k.X), Y: float64(k.Y)})
		}
		return p
	}
	imgs := map[int]image.Image{}
	load := func(i int) (err error) {
		if _, ok := imgs[i]; !ok {
			imgs[i], err = eval.LoadImage(d.images[i])
		}
		return err
	}
	pr := newProgress(stderr, "overlays", "images")
	total := len(chosen) + len(counts)
	done := 0
	byPair := map[[2]int][]pairwise.Match{}
	for _, p := range pairs {
		byPair[[2]int{p.I, p.J}] = p.Matches
	}
	for _, c := range chosen {
		if err := ctx.Err(); err != nil {
			return err
		}
		i, j := c[0], c[1]
		if err := load(i); err != nil {
			return err
		}
		if err := load(j); err != nil {
			return err
		}
		pi, pj := pts(i), pts(j)
		line := func(a, b int) eval.Line {
			l := eval.Line{A: pi[a-off[i]], B: pj[b-off[j]]}
			if d.truth != nil {
				l.Good = d.truth[a] >= 0 && d.truth[a] == d.truth[b]
			} else {
				l.Color = eval.ItemColor(item[a])
			}
			return l
		}
		drawn := map[string][]eval.Line{}
		if pairs != nil {
			drawn["input"] = []eval.Line{}
			for _, m := range byPair[c] {
				drawn["input"] = append(drawn["input"], line(off[i]+int(m.A), off[j]+int(m.B)))
			}
		}
		where := map[int]int{} // item → observation in image j
		for b := off[j]; b < off[j+1]; b++ {
			if item[b] >= 0 {
				where[item[b]] = b
			}
		}
		drawn["clear"] = []eval.Line{}
		for a := off[i]; a < off[i+1]; a++ {
			if b, ok := where[item[a]]; ok && item[a] >= 0 {
				drawn["clear"] = append(drawn["clear"], line(a, b))
			}
		}
		for name, lines := range drawn {
			img := eval.PairOverlay(imgs[i], imgs[j], lines)
			if err := writePNG(filepath.Join(dir, fmt.Sprintf("pair_%d_%d_%s.png", i, j, name)), img); err != nil {
				return err
			}
		}
		done++
		pr.update(done, total)
	}
	for i := range counts {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := load(i); err != nil {
			return err
		}
		img := eval.ItemOverlay(imgs[i], pts(i), item[off[i]:off[i+1]])
		base := filepath.Base(d.images[i])
		if err := writePNG(filepath.Join(dir, fmt.Sprintf("items_%s.png", base[:len(base)-len(filepath.Ext(base))])), img); err != nil {
			return err
		}
		delete(imgs, i)
		done++
		pr.update(done, total)
	}
	return nil
}

func writePNG(path string, img image.Image) error {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return err
	}
	return writeFileAtomic(path, b.Bytes())
}
