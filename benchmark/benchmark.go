// Package benchmark loads the CLEAR paper's matching benchmarks, CMU Hotel
// and Graffiti, as feature sets with the true item of every observation,
// and evaluates them through the pipeline (pipeline.Match with the
// protocol's options): CLEAR's tracks scored against the truth, with the
// input and the naive closures beside them (package eval). The eval, demo
// and compare commands run it.
package benchmark

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pipeline"
)

// Benchmark is a dataset with ground truth, as the CLEAR paper evaluates
// it: the images, the selected features of each (SIFT), and the true item
// of every observation (−1: none).
type Benchmark struct {
	Name   string
	Images []pipeline.Image
	Sets   []*features.Set
	Found  []int // features detected per image, before selection
	Truth  []int
	// Pairs are the image pairs worth drawing (nil: each with the next).
	Pairs [][2]int
}

// LoadHotel reads CMU Hotel (dir holds hotel.seq*.png and hotel*.txt) with
// the paper's protocol: one SIFT descriptor per labelled landmark (σ = 10,
// computed orientation); the truth is the landmark.
func LoadHotel(ctx context.Context, dir string, progress pipeline.Progress) (*Benchmark, error) {
	frames, err := datasets.LoadHotel(dir)
	if err != nil {
		return nil, err
	}
	b := &Benchmark{Name: "hotel", Pairs: [][2]int{{0, 50}, {50, 100}, {0, 100}}}
	for k, f := range frames {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		data, err := os.ReadFile(f.Image)
		if err != nil {
			return nil, err
		}
		pts := make([]geom.Point, len(f.Landmarks))
		for i, p := range f.Landmarks {
			pts[i] = geom.Point{X: p.X, Y: p.Y}
		}
		s, err := features.ExtractAt(filepath.Base(f.Image), data, pts, 10, false)
		if err != nil {
			return nil, err
		}
		b.Images = append(b.Images, pipeline.Image{Name: s.Image, Path: f.Image})
		b.Sets = append(b.Sets, s)
		b.Found = append(b.Found, s.Len())
		for r := range f.Landmarks {
			b.Truth = append(b.Truth, r) // line r is landmark r in every frame
		}
		if progress != nil {
			progress.Update(pipeline.StageExtract, k+1, len(frames))
		}
	}
	return b, nil
}

// LoadGraffiti reads the Oxford Graffiti sequence (see LoadHomography).
func LoadGraffiti(ctx context.Context, dir string, workers int, progress pipeline.Progress) (*Benchmark, error) {
	g, err := datasets.LoadGraffiti(dir)
	if err != nil {
		return nil, err
	}
	return LoadHomography(ctx, "graffiti", g.Images, g.H, workers, progress)
}

// LoadHomography extracts SIFT (OpenCV's defaults) from the images of a
// planar scene whose homographies h(i, j) are known, and keeps the
// features of its ground truth: features matched within 2 px, greedily one
// to one, kept only where the truth is a clique with one feature per image
// (eval.HomographyGroundTruth).
func LoadHomography(ctx context.Context, name string, paths []string, h func(i, j int) datasets.Homography, workers int, progress pipeline.Progress) (*Benchmark, error) {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(p)
	}
	ex := &features.Extractor{Workers: workers}
	if progress != nil {
		ex.Progress = func(done, total int, _ string) { progress.Update(pipeline.StageExtract, done, total) }
	}
	sets, errs, _ := ex.ExtractFiles(ctx, paths, names)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	pts := make([][]geom.Point, len(sets))
	for i, s := range sets {
		pts[i] = s.Points()
	}
	gt := eval.HomographyGroundTruth(pts, func(i, j int, x, y float64) (float64, float64, bool) {
		return h(i, j).Apply(x, y)
	}, 2)
	b := &Benchmark{Name: name, Truth: gt.Truth}
	for i, s := range sets {
		b.Images = append(b.Images, pipeline.Image{Name: names[i], Path: paths[i]})
		b.Found = append(b.Found, s.Len())
		b.Sets = append(b.Sets, subset(s, gt.Keep[i]))
	}
	return b, nil
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

// Evaluation is one protocol run on a benchmark, scored.
type Evaluation struct {
	Protocol string
	Result   *pipeline.Result
	// Rows score CLEAR's input (after verification, when on), its closure
	// rows and CLEAR. Matches scores the ratio-test matches; it equals
	// Rows.Input without verification.
	Rows    eval.Rows
	Matches eval.Row
}

// Evaluate runs the stages after extraction on b's features with opts and
// scores every row against b's truth; minTrack is clear_min_track's
// threshold.
func (b *Benchmark) Evaluate(ctx context.Context, protocol string, opts pipeline.Options, minTrack int) (*Evaluation, error) {
	scene, err := pipeline.NewScene(b.Images, b.Sets, opts.Features.Extraction().MaxDim)
	if err != nil {
		return nil, err
	}
	r, err := pipeline.Match(ctx, scene, opts)
	if err != nil {
		return nil, err
	}
	view := make([]int, 0, len(b.Truth))
	for v, s := range b.Sets {
		for k := 0; k < s.Len(); k++ {
			view = append(view, v)
		}
	}
	if len(view) != len(b.Truth) {
		return nil, fmt.Errorf("pipeline: benchmark %s has %d truth entries for %d observations", b.Name, len(b.Truth), len(view))
	}
	input := make([]clear.Pair, len(r.Problem.Associations))
	for k, a := range r.Problem.Associations {
		input[k] = clear.Pair{A: a.A, B: a.B}
	}
	e := &Evaluation{Protocol: protocol, Result: r, Rows: eval.Evaluate(b.Truth, view, input, r.Clear.Item, minTrack)}
	e.Matches = e.Rows.Input
	if r.Verified != nil {
		off := r.Offsets()
		var raw []clear.Pair
		for _, p := range r.Matches {
			for _, m := range p.Matches {
				raw = append(raw, clear.Pair{A: off[p.I] + int(m.A), B: off[p.J] + int(m.B)})
			}
		}
		e.Matches = eval.PairRow(b.Truth, view, raw)
	}
	return e, nil
}
