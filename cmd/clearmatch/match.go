package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/pairwise"
)

const matchUsage = `match [flags] DIR|IMAGE... -out OUTDIR

The main job for image folders: SIFT features (cached), all-pairs ratio
matching, CLEAR, then writes into OUTDIR:
  tracks.json   every track (universe item) with at least -min-track observations
  matches.csv   the consistent pairwise matches: image_a,kp_a,image_b,kp_b
  report.json   images, features, pairs, matches, universe size, components, timing
  overlays/     keypoints coloured by track per image, and match pictures for
                the -overlay-pairs pairs (default: each image with the next)
  colmap/       with -export colmap: features/IMAGE.txt for feature_importer and
                matches.txt for matches_importer --match_type raw
Keypoint coordinates are 0-based pixels with pixel centres at integers (OpenCV);
the COLMAP export adds 0.5 (COLMAP puts the first pixel's centre at 0.5).
Unreadable images are skipped with a warning (-strict: an error); fewer than two
usable images is an error. Exit codes: 0 success, 1 failure, 2 bad usage.`

type matchOptions struct {
	out, cache, overlayPairs, export, assignment, pairsFile  string
	ratio, threshold, contrast, edge                         float64
	workers, maxFeatures, maxDim, minTrack, universe, window int
	mutual, rootSIFT, strict, force, weighted                bool
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

func runMatch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var o matchOptions
	fs := newFlags("match", matchUsage, stderr)
	defCache := ""
	if d, err := os.UserCacheDir(); err == nil {
		defCache = filepath.Join(d, "clearmatch", "features")
	}
	fs.StringVar(&o.out, "out", "", "output directory (required)")
	fs.BoolVar(&o.force, "force", false, "write into a non-empty output directory")
	fs.Float64Var(&o.ratio, "ratio", pairwise.DefaultRatio, "Lowe's ratio on distances (1/sqrt(1.5): the paper's 1.5 on squared distances)")
	fs.BoolVar(&o.mutual, "mutual", false, "keep only mutual nearest neighbours (cross-check)")
	fs.BoolVar(&o.weighted, "weighted", false, "weight associations by 1 - d1/d2 (weighted CLEAR input)")
	fs.IntVar(&o.window, "window", 0, "match only images at most this far apart in order (video); 0: all pairs")
	fs.StringVar(&o.pairsFile, "pairs", "", "file listing the image pairs to match, one \"name_a name_b\" per line")
	fs.IntVar(&o.maxFeatures, "max-features", 0, "keep the best N SIFT features per image (0: all)")
	fs.Float64Var(&o.contrast, "contrast", 0.04, "SIFT contrast threshold")
	fs.Float64Var(&o.edge, "edge", 10, "SIFT edge threshold")
	fs.IntVar(&o.maxDim, "max-dim", 0, "downscale images whose larger side exceeds N pixels before detection (0: never)")
	fs.BoolVar(&o.rootSIFT, "rootsift", false, "use RootSIFT descriptors")
	fs.IntVar(&o.workers, "workers", 0, "parallel workers (0: GOMAXPROCS)")
	fs.StringVar(&o.cache, "cache", defCache, "feature cache directory (\"\" disables it)")
	fs.IntVar(&o.minTrack, "min-track", 2, "drop tracks with fewer observations (the paper's post-processing)")
	fs.StringVar(&o.assignment, "assignment", "greedy", "CLEAR assignment: greedy or hungarian")
	fs.IntVar(&o.universe, "universe", 0, "known universe size (0: estimate)")
	fs.Float64Var(&o.threshold, "threshold", clear.DefaultThreshold, "CLEAR eigenvalue threshold")
	fs.StringVar(&o.overlayPairs, "overlay-pairs", "next", "pairs to draw: next (each image with the next), none, or i-j,k-l (0-based)")
	fs.StringVar(&o.export, "export", "", "also export for: colmap")
	fs.BoolVar(&o.strict, "strict", false, "an unreadable image is an error instead of a warning")
	inputs, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	// Every impossible value is refused before any work starts.
	switch {
	case o.out == "":
		return usagef("-out is required")
	case len(inputs) == 0:
		return usagef("no images: give a folder or image files")
	case !(o.ratio > 0 && o.ratio < 1):
		return usagef("-ratio %v: want a number in (0, 1)", o.ratio)
	case o.maxFeatures < 0 || o.maxDim < 0 || o.workers < 0 || o.window < 0 || o.universe < 0:
		return usagef("negative sizes are not allowed")
	case o.minTrack < 2:
		return usagef("-min-track %d: want at least 2", o.minTrack)
	case !(o.contrast > 0) || !(o.edge > 0):
		return usagef("-contrast and -edge must be positive")
	case o.export != "" && o.export != "colmap":
		return usagef("-export %q: want colmap", o.export)
	}
	copts, err := (&solveOptions{threshold: o.threshold, universe: o.universe, assignment: o.assignment, eigen: "auto"}).clearOptions()
	if err != nil {
		return err
	}
	paths, names, err := collectImages(inputs)
	if err != nil {
		return err
	}
	var overlayPairs [][2]int
	if overlayPairs, err = parseOverlayPairs(o.overlayPairs, len(paths)); err != nil {
		return err
	}
	var explicit [][2]int
	if o.pairsFile != "" {
		if explicit, err = readPairsFile(o.pairsFile, names); err != nil {
			return err
		}
	}
	if err := prepareOutDir(o.out, o.force); err != nil {
		return err
	}
	stage, err := os.MkdirTemp(o.out, ".clearmatch-tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)

	timing := map[string]float64{}
	t0 := time.Now()
	fopts := features.Options{MaxFeatures: o.maxFeatures, ContrastThreshold: o.contrast, EdgeThreshold: o.edge, MaxDim: o.maxDim, RootSIFT: o.rootSIFT}
	pr := newProgress(stderr, "extract", "images")
	ex := &features.Extractor{Options: fopts, CacheDir: o.cache, Workers: o.workers, Progress: func(d, t int, _ string) { pr.update(d, t) }}
	sets, errs, st := ex.ExtractFiles(ctx, paths, names)
	if err := ctx.Err(); err != nil {
		return err
	}
	// Keep the usable images, in order, with their paths.
	var keptPaths []string
	var kept []*features.Set
	var skipped int
	for i, s := range sets {
		if errs[i] != nil {
			if o.strict {
				return errs[i]
			}
			fmt.Fprintf(stderr, "warning: skipping %s: %v\n", names[i], errs[i])
			skipped++
			continue
		}
		kept = append(kept, s)
		keptPaths = append(keptPaths, paths[i])
	}
	if len(kept) < 2 {
		return fmt.Errorf("%w: %d of %d", features.ErrTooFewImages, len(kept), len(sets))
	}
	if skipped > 0 && (explicit != nil || o.overlayPairs != "next") {
		return fmt.Errorf("%d images were skipped, so -pairs and -overlay-pairs indices no longer apply; fix or remove them (or use -strict)", skipped)
	}
	timing["extract"] = time.Since(t0).Seconds()

	t1 := time.Now()
	counts, pairs, prob, err := matchSets(ctx, kept, pairwise.Options{
		Ratio: o.ratio, Mutual: o.mutual, Window: o.window, Pairs: explicit, Workers: o.workers}, o.weighted, stderr)
	if err != nil {
		return err
	}
	timing["match"] = time.Since(t1).Seconds()

	t2 := time.Now()
	res, err := clear.Solve(prob, copts)
	if err != nil {
		return err
	}
	timing["solve"] = time.Since(t2).Seconds()
	fmt.Fprintf(stderr, "solve    %d observations, %d components (largest %d), universe %d, %v\n",
		len(res.Item), res.Components, res.LargestComponent, res.UniverseSize, res.Timing.Total().Round(10_000))
	fmt.Fprintf(stderr, "write    tracks.json, matches.csv, report.json, overlays/\n")

	t3 := time.Now()
	track := eval.MinTrack(res.Item, o.minTrack)
	out := buildMatchOutput(kept, counts, track)
	if err := out.write(stage, kept, o.export == "colmap"); err != nil {
		return err
	}
	if o.overlayPairs != "none" && o.overlayPairs != "" { // nil overlayPairs: each image with the next
		d := &evalData{images: keptPaths, sets: kept}
		if err := writeOverlays(ctx, filepath.Join(stage, "overlays"), d, counts, nil, track, overlayPairs, stderr); err != nil {
			return err
		}
	}
	timing["write"] = time.Since(t3).Seconds()

	rep := matchReport{
		Images: len(kept), Skipped: skipped, Pairs: len(pairs), InputMatches: len(prob.Associations),
		UniverseSize: res.UniverseSize, Components: res.Components, LargestComponent: res.LargestComponent,
		Tracks: len(out.Tracks), ConsistentMatches: out.matches, CacheHits: int(st.CacheHits), TimingSeconds: timing,
	}
	for _, s := range kept {
		rep.Features = append(rep.Features, imageFeatures{Image: s.Image, Features: s.Len()})
	}
	js, _ := json.MarshalIndent(rep, "", "  ")
	if err := os.WriteFile(filepath.Join(stage, "report.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	if err := publish(stage, o.out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "images %d (%d skipped), features %d, pairs %d, input matches %d\n", len(kept), skipped, sum(counts), len(pairs), len(prob.Associations))
	fmt.Fprintf(stdout, "components %d (largest %d), universe %d, tracks %d (min %d observations), consistent matches %d\n",
		res.Components, res.LargestComponent, res.UniverseSize, len(out.Tracks), o.minTrack, out.matches)
	fmt.Fprintf(stdout, "time: extract %.2fs (%d cached), match %.2fs, solve %.3fs, write %.2fs; output in %s\n",
		timing["extract"], st.CacheHits, timing["match"], timing["solve"], timing["write"], o.out)
	return nil
}

func sum(x []int) int {
	s := 0
	for _, v := range x {
		s += v
	}
	return s
}

type imageFeatures struct {
	Image    string `json:"image"`
	Features int    `json:"features"`
}

type matchReport struct {
	Images            int                `json:"images"`
	Skipped           int                `json:"skipped_images"`
	Features          []imageFeatures    `json:"features_per_image"`
	Pairs             int                `json:"pairs_matched"`
	InputMatches      int                `json:"input_matches"`
	UniverseSize      int                `json:"universe_size"`
	Components        int                `json:"components"`
	LargestComponent  int                `json:"largest_component"`
	Tracks            int                `json:"tracks"`
	ConsistentMatches int                `json:"consistent_matches"`
	CacheHits         int                `json:"cache_hits"`
	TimingSeconds     map[string]float64 `json:"timing_s"`
}

// collectImages expands folders (their image files, sorted) and single
// files; names are relative to the input folder (or the file's base name)
// and must be unique.
func collectImages(inputs []string) (paths, names []string, err error) {
	seen := map[string]string{}
	for _, in := range inputs {
		fi, err := os.Stat(in)
		if err != nil {
			return nil, nil, err
		}
		var ps []string
		if fi.IsDir() {
			if ps, err = features.ImageFiles(in); err != nil {
				return nil, nil, err
			}
		} else {
			ps = []string{in}
		}
		for _, p := range ps {
			n := filepath.Base(p)
			if prev, ok := seen[n]; ok {
				return nil, nil, usagef("two images are named %s (%s and %s)", n, prev, p)
			}
			seen[n] = p
			paths = append(paths, p)
			names = append(names, n)
		}
	}
	return paths, names, nil
}

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

// publish moves the staged outputs into out, replacing older ones.
func publish(stage, out string) error {
	entries, err := os.ReadDir(stage)
	if err != nil {
		return err
	}
	for _, e := range entries {
		dst := filepath.Join(out, e.Name())
		if err := os.RemoveAll(dst); err != nil {
			return err
		}
		if err := os.Rename(filepath.Join(stage, e.Name()), dst); err != nil {
			return err
		}
	}
	return nil
}

// Track output.

type trackObs struct {
	Image    string  `json:"image"`
	Keypoint int     `json:"keypoint"`
	X        float64 `json:"x"`
	Y        float64 `json:"y"`
}

type track struct {
	ID           int        `json:"id"`
	Observations []trackObs `json:"observations"`
}

type matchOutput struct {
	Images  []string `json:"images"`
	Tracks  []track  `json:"tracks"`
	matches int
	rows    []matchRow
}

type matchRow struct{ ia, ka, ib, kb int }

// buildMatchOutput turns items (per observation, −1 for dropped) into
// tracks with stable ids (by first observation) and the implied matches.
func buildMatchOutput(sets []*features.Set, counts []int, item []int) *matchOutput {
	out := &matchOutput{}
	off := make([]int, len(counts)+1)
	for i, c := range counts {
		off[i+1] = off[i] + c
	}
	imgOf := func(g int) (int, int) {
		i := sort.Search(len(counts), func(i int) bool { return off[i+1] > g })
		return i, g - off[i]
	}
	id := map[int]int{}
	for _, s := range sets {
		out.Images = append(out.Images, s.Image)
	}
	for g, it := range item {
		if it < 0 {
			continue
		}
		t, ok := id[it]
		if !ok {
			t = len(out.Tracks)
			id[it] = t
			out.Tracks = append(out.Tracks, track{ID: t})
		}
		i, k := imgOf(g)
		kp := sets[i].Keypoints[k]
		out.Tracks[t].Observations = append(out.Tracks[t].Observations, trackObs{Image: sets[i].Image, Keypoint: k, X: round4(kp.X), Y: round4(kp.Y)})
	}
	for _, p := range clear.PairsOf(item) {
		ia, ka := imgOf(p.A)
		ib, kb := imgOf(p.B)
		out.rows = append(out.rows, matchRow{ia, ka, ib, kb})
	}
	out.matches = len(out.rows)
	return out
}

func round4(v float32) float64 { return math.Round(float64(v)*1e4) / 1e4 }

func (m *matchOutput) write(dir string, sets []*features.Set, colmap bool) error {
	js, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "tracks.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString("image_a,kp_a,image_b,kp_b\n")
	for _, r := range m.rows {
		fmt.Fprintf(&b, "%s,%d,%s,%d\n", csvField(m.Images[r.ia]), r.ka, csvField(m.Images[r.ib]), r.kb)
	}
	if err := os.WriteFile(filepath.Join(dir, "matches.csv"), b.Bytes(), 0o644); err != nil {
		return err
	}
	if colmap {
		return m.writeColmap(filepath.Join(dir, "colmap"), sets)
	}
	return nil
}

func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// writeColmap writes COLMAP's custom import formats: features/IMAGE.txt
// ("N 128", then "X Y SCALE ORIENTATION D1..D128" with descriptors in
// 0..255, first pixel centre at 0.5) and matches.txt for --match_type raw
// (an "image_a image_b" line, index pairs, a blank line per pair).
func (m *matchOutput) writeColmap(dir string, sets []*features.Set) error {
	fdir := filepath.Join(dir, "features")
	if err := os.MkdirAll(fdir, 0o755); err != nil {
		return err
	}
	for _, s := range sets {
		var b bytes.Buffer
		fmt.Fprintf(&b, "%d %d\n", s.Len(), features.DescSize)
		// RootSIFT values are in [0, 1]; SIFT's are already in 0..255.
		scale := float32(1)
		if s.Len() > 0 && maxOf(s.Desc) <= 1 {
			scale = 255
		}
		for i, k := range s.Keypoints {
			fmt.Fprintf(&b, "%.4f %.4f %.4f %.6f", k.X+0.5, k.Y+0.5, k.Size/2, float64(k.Angle)*math.Pi/180)
			for _, v := range s.Descriptor(i) {
				b.WriteByte(' ')
				b.WriteString(strconv.Itoa(int(min(255, max(0, math.Round(float64(v*scale)))))))
			}
			b.WriteByte('\n')
		}
		if err := os.WriteFile(filepath.Join(fdir, s.Image+".txt"), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	rows := append([]matchRow(nil), m.rows...)
	sort.Slice(rows, func(x, y int) bool {
		a, c := rows[x], rows[y]
		if a.ia != c.ia || a.ib != c.ib {
			return a.ia < c.ia || a.ia == c.ia && a.ib < c.ib
		}
		return a.ka < c.ka || a.ka == c.ka && a.kb < c.kb
	})
	var b bytes.Buffer
	last := [2]int{-1, -1}
	for _, r := range rows {
		if cur := [2]int{r.ia, r.ib}; cur != last {
			if last[0] >= 0 {
				b.WriteByte('\n')
			}
			fmt.Fprintf(&b, "%s %s\n", m.Images[r.ia], m.Images[r.ib])
			last = cur
		}
		fmt.Fprintf(&b, "%d %d\n", r.ka, r.kb)
	}
	return os.WriteFile(filepath.Join(dir, "matches.txt"), b.Bytes(), 0o644)
}

func maxOf(x []float32) float32 {
	m := float32(0)
	for _, v := range x {
		m = max(m, v)
	}
	return m
}
