package match

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/pipeline"
	"github.com/clearmatch/clearmatch/tracks"
)

// check refuses every impossible value before any work starts, and turns
// the flags given in the user's words into options.
func (o *matchOptions) check(inputs []string) error {
	switch {
	case o.out == "":
		return cmdline.Usagef("-out is required")
	case len(inputs) == 0:
		return cmdline.Usagef("no images: give a folder or image files")
	case o.progress != "text" && o.progress != "json":
		return cmdline.Usagef("-progress %q: want text or json", o.progress)
	}
	for _, step := range []func() error{o.checkCounts, o.checkFeatures, o.checkMatching, o.checkTracks, o.checkExport, o.applyWords} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// checkCounts refuses negative counts.
func (o *matchOptions) checkCounts() error {
	p := &o.pipe
	for _, f := range []struct {
		name string
		v    int
	}{
		{"max-features", p.Features.MaxFeatures}, {"max-dim", p.Features.MaxDim},
		{"workers", p.Workers}, {"window", p.Pairs.Window},
		{"universe", o.solve.Universe}, {"min-inliers", p.Verification.MinInliers},
		{"weak-pairs", o.track.weakPairs},
	} {
		if f.v < 0 {
			return cmdline.Usagef("-%s %d: want 0 or more", f.name, f.v)
		}
	}
	return nil
}

func (o *matchOptions) checkFeatures() error {
	f := &o.pipe.Features
	switch {
	case f.MaxPixels <= 0:
		return cmdline.Usagef("-max-pixels %d: want a positive number of pixels", f.MaxPixels)
	case !(f.ContrastThreshold > 0) || !(f.EdgeThreshold > 0):
		return cmdline.Usagef("-contrast and -edge must be positive")
	case o.cache.descMiB < 0:
		return cmdline.Usagef("-descriptor-memory %d: want 0 (keep every image's) or more MiB", o.cache.descMiB)
	}
	return nil
}

func (o *matchOptions) checkMatching() error {
	p := &o.pipe
	switch {
	case !(p.Matching.Ratio > 0 && p.Matching.Ratio < 1):
		return cmdline.Usagef("-ratio %v: want a number in (0, 1)", p.Matching.Ratio)
	case p.Pairs.K < 1 || p.Pairs.Overlap < 1 || p.Pairs.Rounds < 0:
		return cmdline.Usagef("-retrieval-k %d, -sequential-overlap %d: want at least 1; -completion-rounds %d: want 0 or more", p.Pairs.K, p.Pairs.Overlap, p.Pairs.Rounds)
	case !(p.Verification.Threshold > 0):
		return cmdline.Usagef("-verify-threshold %v: want a positive number of pixels", p.Verification.Threshold)
	case !(p.Verification.MinInlierRatio >= 0 && p.Verification.MinInlierRatio <= 1):
		return cmdline.Usagef("-min-inlier-ratio %v: want a number in [0, 1]", p.Verification.MinInlierRatio)
	case !(p.Pairs.CompletionMinInlierRatio >= 0 && p.Pairs.CompletionMinInlierRatio <= 1):
		return cmdline.Usagef("-completion-min-inlier-ratio %v: want a number in [0, 1]", p.Pairs.CompletionMinInlierRatio)
	case p.Pairs.CompletionMinChains < 0:
		return cmdline.Usagef("-completion-min-chains %d: want 0 (match every pair completion proposes) or more", p.Pairs.CompletionMinChains)
	case p.Tracks.MinTrack.Min < tracks.DefaultMinTrack:
		return cmdline.Usagef("-min-track %d: want at least %d", p.Tracks.MinTrack.Min, tracks.DefaultMinTrack)
	}
	return nil
}

func (o *matchOptions) checkTracks() error {
	t, c := &o.track, &o.pipe.Tracks.Complete
	switch {
	case !(o.pipe.Tracks.Weak.Threshold > 0) || !cmdline.Finite(o.pipe.Tracks.Weak.Threshold):
		return cmdline.Usagef("-weak-threshold %v: want a positive number of pixels", o.pipe.Tracks.Weak.Threshold)
	case !(t.reprojFilter >= 0) || !cmdline.Finite(t.reprojFilter):
		return cmdline.Usagef("-reproj-filter %v: want 0 (off) or a positive number of pixels", t.reprojFilter)
	case !(t.rotationLoops >= 0 && t.rotationLoops < 180):
		return cmdline.Usagef("-rotation-loops %v: want degrees in [0, 180) (0: off)", t.rotationLoops)
	case !(c.Threshold > 0) || !cmdline.Finite(c.Threshold):
		return cmdline.Usagef("-complete-threshold %v: want a positive number of pixels", c.Threshold)
	case !(c.MinAngle > 0 && c.MinAngle < 90):
		return cmdline.Usagef("-complete-angle %v: want degrees in (0, 90)", c.MinAngle)
	case !(c.MaxDistance > 0):
		return cmdline.Usagef("-complete-distance %v: want a positive descriptor distance", c.MaxDistance)
	case c.MinPairMatches < 1:
		return cmdline.Usagef("-complete-pair-matches %d: want at least 1", c.MinPairMatches)
	case c.MinLines < 2:
		return cmdline.Usagef("-complete-lines %d: want at least 2", c.MinLines)
	}
	return nil
}

func (o *matchOptions) checkExport() error {
	if o.exp.format != "" && o.exp.format != "colmap" {
		return cmdline.Usagef("-export %q: want colmap", o.exp.format)
	}
	if _, ok := export.ColmapModelID(o.exp.cameraModel); !ok {
		return cmdline.Usagef("-camera-model %q: want one of %s", o.exp.cameraModel, export.ColmapModels)
	}
	return nil
}

// applyWords turns the flags given in the user's words into options: 0
// for off, MiB, a cache folder, CLEAR's names, the intrinsics.
func (o *matchOptions) applyWords() error {
	p, t := &o.pipe, &o.track
	p.Cache = pipeline.CacheOptions{Features: o.cache.dir, DescriptorMemory: min(o.cache.descMiB, 1<<40) << 20}
	if o.cache.descMiB == 0 {
		p.Cache.DescriptorMemory = -1 // every image's in memory
	}
	if o.cache.dir != "" {
		p.Cache.Pairs = filepath.Join(o.cache.dir, "pairs")
	}
	p.Tracks.Weak.Off, p.Tracks.Weak.Matches = t.weakPairs == 0, t.weakPairs
	p.Tracks.Weak.Loops.Off, p.Tracks.Weak.Loops.Degrees = t.rotationLoops == 0, t.rotationLoops
	p.Tracks.Reproj.Off, p.Tracks.Reproj.Threshold = t.reprojFilter == 0, t.reprojFilter
	copts, err := o.solve.Options()
	if err != nil {
		return err
	}
	p.Solve.Threshold, p.Solve.UniverseSize, p.Solve.Assignment, p.Solve.Eigensolver = copts.Threshold, copts.UniverseSize, copts.Assignment, copts.Eigensolver
	p.Solve.MaxComponent = none(copts.MaxComponent)
	p.Features.MaxFeatures, p.Features.MaxDim = none(p.Features.MaxFeatures), none(p.Features.MaxDim)
	p.Pairs.Rounds, p.Pairs.CompletionMinChains = none(p.Pairs.Rounds), none(p.Pairs.CompletionMinChains)
	p.Pairs.CompletionMinInlierRatio = none(p.Pairs.CompletionMinInlierRatio)
	if o.verify.intrinsics != "" {
		if o.camera, err = parseIntrinsics(o.verify.intrinsics); err != nil {
			return err
		}
	}
	return nil
}

// none is a flag's value whose 0 means none (all features, full
// resolution, never split, no completion, no floor) as the option's none,
// a negative number: an option's 0 is its default.
func none[T int | float64](v T) T {
	if v == 0 {
		return -1
	}
	return v
}

// parseIntrinsics reads -intrinsics: "fx,fy,cx,cy", or a file holding
// those four numbers or a 3×3 K (row by row, as datasets ship it: K.txt),
// separated by spaces, commas or line breaks.
func parseIntrinsics(s string) (geom.Intrinsics, error) {
	src, text := "-intrinsics", s
	if strings.Count(s, ",") != 3 {
		b, err := cmdline.ReadSmallFile(s, 1<<16)
		if errors.Is(err, fs.ErrNotExist) {
			return geom.Intrinsics{}, cmdline.Usagef("-intrinsics %q: want fx,fy,cx,cy or a file holding them or a 3×3 K", s)
		}
		if err != nil {
			return geom.Intrinsics{}, cmdline.UsageError{Err: err}
		}
		src, text = s, string(b)
	}
	f := strings.FieldsFunc(text, func(r rune) bool {
		return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '[' || r == ']' || r == ';'
	})
	v := make([]float64, len(f))
	for i, w := range f {
		x, err := strconv.ParseFloat(w, 64)
		if err != nil || math.IsInf(x, 0) {
			return geom.Intrinsics{}, cmdline.Usagef("%s: %q is not a number", src, w)
		}
		v[i] = x
	}
	switch len(v) {
	case 4:
	case 9:
		k := v
		if k[8] == 0 || k[3] != 0 || k[6] != 0 || k[7] != 0 {
			return geom.Intrinsics{}, cmdline.Usagef("%s: not a camera matrix K (want fx 0 cx / 0 fy cy / 0 0 1)", src)
		}
		if k[1] != 0 {
			return geom.Intrinsics{}, cmdline.Usagef("%s: K has skew %v; clearmatch's cameras have none", src, k[1])
		}
		v = []float64{k[0] / k[8], k[4] / k[8], k[2] / k[8], k[5] / k[8]}
	default:
		return geom.Intrinsics{}, cmdline.Usagef("%s: %d numbers; want fx,fy,cx,cy or a 3×3 K", src, len(v))
	}
	for i, x := range v {
		if !(x >= 0) || i < 2 && x == 0 {
			return geom.Intrinsics{}, cmdline.Usagef("%s: %v is not a valid %s", src, x, [4]string{"fx", "fy", "cx", "cy"}[i])
		}
	}
	return geom.Intrinsics{Fx: v[0], Fy: v[1], Cx: v[2], Cy: v[3]}, nil
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
			return nil, cmdline.Usagef("-overlay-pairs: %q is not i-j", f)
		}
		a, e1 := strconv.Atoi(ab[0])
		b, e2 := strconv.Atoi(ab[1])
		if e1 != nil || e2 != nil || a < 0 || b < 0 || a >= n || b >= n || a == b {
			return nil, cmdline.Usagef("-overlay-pairs: %q is not two different images of %d", f, n)
		}
		out = append(out, [2]int{min(a, b), max(a, b)})
	}
	return out, nil
}

func readPairsFile(path string, names []string) ([][2]int, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !strings.ContainsRune(path, os.PathSeparator) {
		return nil, cmdline.Usagef("-pairs %q: not auto, exhaustive, sequential, retrieval, nor a file", path)
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
