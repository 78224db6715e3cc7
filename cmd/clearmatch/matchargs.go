package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/pipeline"
)

// check refuses every impossible value before any work starts, and fills
// the options that need parsing.
func (o *matchOptions) check(inputs []string) error {
	p := &o.pipe
	p.Verification.NoGuided = !o.guided
	p.DescriptorMemory = min(o.descMiB, 1<<40) << 20
	if o.descMiB == 0 {
		p.DescriptorMemory = -1 // every image's in memory
	}
	switch {
	case o.out == "":
		return usagef("-out is required")
	case len(inputs) == 0:
		return usagef("no images: give a folder or image files")
	}
	for _, f := range []struct {
		name string
		v    int
	}{
		{"max-features", p.Features.MaxFeatures}, {"max-dim", p.Features.MaxDim},
		{"workers", p.Workers}, {"window", p.Match.Window},
		{"universe", o.universe}, {"min-inliers", p.Verification.MinInliers},
		{"weak-pairs", p.WeakPairs},
	} {
		if f.v < 0 {
			return usagef("-%s %d: want 0 or more", f.name, f.v)
		}
	}
	switch {
	case !(p.Match.Ratio > 0 && p.Match.Ratio < 1):
		return usagef("-ratio %v: want a number in (0, 1)", p.Match.Ratio)
	case p.Features.MaxPixels <= 0:
		return usagef("-max-pixels %d: want a positive number of pixels", p.Features.MaxPixels)
	case p.Pairs.K < 1 || p.Pairs.Overlap < 1 || p.Pairs.Rounds < 0:
		return usagef("-retrieval-k %d, -sequential-overlap %d: want at least 1; -completion-rounds %d: want 0 or more", p.Pairs.K, p.Pairs.Overlap, p.Pairs.Rounds)
	case o.descMiB < 0:
		return usagef("-descriptor-memory %d: want 0 (keep every image's) or more MiB", o.descMiB)
	case o.minTrack < 2:
		return usagef("-min-track %d: want at least 2", o.minTrack)
	case !(p.Features.ContrastThreshold > 0) || !(p.Features.EdgeThreshold > 0):
		return usagef("-contrast and -edge must be positive")
	case !(p.Verification.Threshold > 0):
		return usagef("-verify-threshold %v: want a positive number of pixels", p.Verification.Threshold)
	case !(p.WeakThreshold > 0) || math.IsInf(p.WeakThreshold, 0):
		return usagef("-weak-threshold %v: want a positive number of pixels", p.WeakThreshold)
	case !(p.ReprojFilter >= 0) || math.IsInf(p.ReprojFilter, 0):
		return usagef("-reproj-filter %v: want 0 (off) or a positive number of pixels", p.ReprojFilter)
	case !(p.RotationLoops >= 0 && p.RotationLoops < 180):
		return usagef("-rotation-loops %v: want degrees in [0, 180) (0: off)", p.RotationLoops)
	case !(p.Verification.MinInlierRatio >= 0 && p.Verification.MinInlierRatio <= 1):
		return usagef("-min-inlier-ratio %v: want a number in [0, 1]", p.Verification.MinInlierRatio)
	case !(p.Completion.Threshold > 0) || math.IsInf(p.Completion.Threshold, 0):
		return usagef("-complete-threshold %v: want a positive number of pixels", p.Completion.Threshold)
	case !(p.Completion.MinAngle > 0 && p.Completion.MinAngle < 90):
		return usagef("-complete-angle %v: want degrees in (0, 90)", p.Completion.MinAngle)
	case !(p.Completion.MaxDistance > 0):
		return usagef("-complete-distance %v: want a positive descriptor distance", p.Completion.MaxDistance)
	case p.Completion.MinPairMatches < 1:
		return usagef("-complete-pair-matches %d: want at least 1", p.Completion.MinPairMatches)
	case p.Completion.MinLines < 2:
		return usagef("-complete-lines %d: want at least 2", p.Completion.MinLines)
	case o.export != "" && o.export != "colmap":
		return usagef("-export %q: want colmap", o.export)
	}
	if _, ok := export.ColmapModelID(o.cameraModel); !ok {
		return usagef("-camera-model %q: want one of %s", o.cameraModel, export.ColmapModels)
	}
	copts, err := (&solveOptions{threshold: o.threshold, universe: o.universe, assignment: o.assignment, eigen: "auto", maxComponent: p.Clear.MaxComponent}).clearOptions()
	if err != nil {
		return err
	}
	p.Clear = *copts
	if o.intrinsics != "" {
		f := strings.Split(o.intrinsics, ",")
		var v [4]float64
		if len(f) != 4 {
			return usagef("-intrinsics %q: want fx,fy,cx,cy", o.intrinsics)
		}
		for i, s := range f {
			if v[i], err = strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil || !(v[i] >= 0) || (i < 2 && v[i] == 0) {
				return usagef("-intrinsics %q: %q is not a valid value", o.intrinsics, s)
			}
		}
		p.Camera = pairwise.Camera{Fx: v[0], Fy: v[1], Cx: v[2], Cy: v[3]}
	}
	return nil
}

// parseInterleaved parses flags that may follow positional arguments
// (clearmatch match DIR -out OUT) and returns the positional ones.
func parseInterleaved(fs interface {
	Parse([]string) error
	Args() []string
}, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// parseOverlayPairs reads -overlay-pairs; nil means each image with the
// next (or none).
func parseOverlayPairs(s string, n int) ([][2]int, error) {
	if s == "next" || s == "none" || s == "" {
		return nil, nil
	}
	var out [][2]int
	for _, f := range strings.Split(s, ",") {
		ab := strings.Split(strings.TrimSpace(f), "-")
		if len(ab) != 2 {
			return nil, usagef("-overlay-pairs: %q is not i-j", f)
		}
		a, e1 := strconv.Atoi(ab[0])
		b, e2 := strconv.Atoi(ab[1])
		if e1 != nil || e2 != nil || a < 0 || b < 0 || a >= n || b >= n || a == b {
			return nil, usagef("-overlay-pairs: %q is not two different images of %d", f, n)
		}
		out = append(out, [2]int{min(a, b), max(a, b)})
	}
	return out, nil
}

func readPairsFile(path string, names []string) ([][2]int, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !strings.ContainsRune(path, os.PathSeparator) {
		return nil, usagef("-pairs %q: not auto, exhaustive, sequential, retrieval, nor a file", path)
	}
	if err != nil {
		return nil, err
	}
	idx := map[string]int{}
	for i, n := range names {
		idx[n] = i
	}
	var out [][2]int
	for ln, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) != 2 {
			return nil, fmt.Errorf("%s:%d: want two image names", path, ln+1)
		}
		a, ok1 := idx[f[0]]
		c, ok2 := idx[f[1]]
		if !ok1 || !ok2 || a == c {
			return nil, fmt.Errorf("%s:%d: %q and %q are not two of the input images", path, ln+1, f[0], f[1])
		}
		out = append(out, [2]int{a, c})
	}
	return out, nil
}

func printMatchSummary(w io.Writer, r *pipeline.Result, t *export.Tracks, ms []export.Match, minTrack int, out string) {
	features, ratio := 0, 0
	for _, s := range r.Sets {
		features += s.Len()
	}
	for _, p := range r.Matches {
		ratio += len(p.Matches)
	}
	fmt.Fprintf(w, "images %d (%d skipped), features %d, pairs %d (%s), ratio matches %d\n", len(r.Images), len(r.Skipped), features, len(r.Matches), r.PairMode, ratio)
	if r.Verified != nil {
		c := r.CountVerification()
		fmt.Fprintf(w, "verified pairs %d of %d (H %d, F %d, E %d; %d planar), verified matches %d (%d guided)\n",
			c.Verified, c.Tried, c.Models["H"], c.Models["F"], c.Models["E"], c.Planar, len(r.Problem.Associations), c.Guided)
	}
	c := r.Clear
	split := ""
	if c.SplitComponents > 0 {
		split = fmt.Sprintf(", %d split (%d associations cut)", c.SplitComponents, c.CutAssociations)
	}
	completed := ""
	if r.Completed > 0 {
		completed = fmt.Sprintf(" (%d observations added by completion)", r.Completed)
		if r.Unconfirmed > 0 {
			completed = fmt.Sprintf(" (%d observations added by completion, %d of them taken out by refinement)", r.Completed, r.Unconfirmed)
		}
	}
	fmt.Fprintf(w, "components %d (largest %d%s), universe %d, tracks %d (min %d observations)%s, consistent matches %d\n",
		c.Components, c.LargestComponent, split, c.UniverseSize, len(t.Tracks), minTrack, completed, len(ms))
	tm := r.Timing
	calibrate := ""
	if r.SelfCalibration != nil {
		calibrate = fmt.Sprintf(", calibrate %.2fs", tm.Calibrate.Seconds())
	}
	if r.Reproj.Views > 0 || r.Reproj.Reason != "" {
		calibrate += fmt.Sprintf(", reproj %.2fs", tm.Reproj.Seconds())
	}
	fmt.Fprintf(w, "time: extract %.2fs (%d cached), match %.2fs, verify %.2fs, solve %.3fs, complete %.3fs, refine %.2fs%s; output in %s\n",
		tm.Extract.Seconds(), r.CacheHits, tm.Match.Seconds(), tm.Verify.Seconds(), tm.Solve.Seconds(), tm.Complete.Seconds(), tm.Refine.Seconds(), calibrate, out)
}
