package match

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/pipeline"
)

// dur writes a stage's time for a person: 181ms, 4.2s.
func dur(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}

// printRunWarnings prints what the user should know about a run that
// succeeded: the cache turned off, images skipped.
func printRunWarnings(w io.Writer, res *pipeline.Result) {
	if res.CacheError != nil {
		fmt.Fprintf(w, "warning: %v\n", res.CacheError)
	}
	if res.PairCacheError != nil && res.CacheError == nil { // one warning for one broken -cache
		fmt.Fprintf(w, "warning: %s (the run went on without storing pairs)\n", cmdline.OneLine(res.PairCacheError.Error()))
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(w, "warning: skipping %s\n", cmdline.OneLine(s.Message()))
	}
}

// printStageLines prints one line per track stage that ran, in the
// user's words, on stderr beside the progress lines.
func printStageLines(w io.Writer, res *pipeline.Result, o *matchOptions) {
	c, p, t := res.Clear, &o.pipe.Tracks, res.Timing
	verified := !o.pipe.Verification.Off
	if o.pipe.Solve.UnionFind {
		fmt.Fprintf(w, "solve    union-find (not CLEAR) made each of %s groups of matches one track (largest %s keypoints; not cycle-consistent), %s\n",
			cmdline.Count(c.Components), cmdline.Count(c.LargestComponent), dur(t.Solve))
	} else {
		fmt.Fprintf(w, "solve    CLEAR made the matches of %s keypoints consistent: %s scene points (those seen once included) from %s groups of matches (largest %s keypoints), %s\n",
			cmdline.Count(len(c.Item)), cmdline.Count(c.UniverseSize), cmdline.Count(c.Components), cmdline.Count(c.LargestComponent), dur(t.Solve))
	}
	if res.Foreign > 0 {
		fmt.Fprintf(w, "solve    %s keypoints left the track CLEAR gave them: it belongs to another group of matches (their group had more keypoints in an image than tracks)\n", cmdline.Count(res.Foreign))
	}
	if verified && !p.Complete.Off {
		fmt.Fprintf(w, "complete %s keypoints joined a track where two of its epipolar lines cross, %s\n", cmdline.Count(res.Completed), dur(t.Complete))
	}
	if !p.Refine.Off {
		st := res.Refinement
		fmt.Fprintf(w, "refine   %s of %s keypoints moved to sub-pixel agreement with their track (the rest kept: flat, near a border or not aligned), %s\n",
			cmdline.Count(st.Moved), cmdline.Count(st.Observations), dur(t.Refine))
		if res.Refinement.Unconfirmed > 0 {
			fmt.Fprintf(w, "refine   %s keypoints added by completion whose patch did not align left their track again\n", cmdline.Count(res.Refinement.Unconfirmed))
		}
	}
	if verified && (!p.Weak.Off || !p.Weak.Loops.Off && o.camera.Known()) {
		loops := ""
		if res.Weak.Loops > 0 {
			loops = fmt.Sprintf("; %s pair rotations corrected by their triangles", cmdline.Count(res.Weak.Loops))
		}
		fmt.Fprintf(w, "weak     %s image pairs with fewer than %s matches refitted; %s keypoints off their models left their tracks%s, %s\n",
			cmdline.Count(res.Weak.Pairs), cmdline.Count(p.Weak.Matches), cmdline.Count(res.Weak.Dropped), loops, dur(t.Weak))
	}
	printCalibration(w, res)
	if verified && !p.Reproj.Off {
		st := res.Reproj
		if st.Checked == 0 {
			fmt.Fprintf(w, "reproj   skipped: %s\n", st.Reason)
			return
		}
		ext := ""
		if !p.Reproj.NoExtend {
			ext = fmt.Sprintf("; %s keypoints added where a track's point projects", cmdline.Count(st.Extended))
		}
		fmt.Fprintf(w, "reproj   %s of %s keypoints more than %.2g px from their track's 3D point left their tracks%s (%d of %d images placed), %s\n",
			cmdline.Count(st.Dropped), cmdline.Count(st.Checked), st.Threshold, ext, st.Registered, st.Views, dur(t.Reproj))
	}
}

// printCalibration prints what self-calibration found: the camera, or why
// the principal point stays at the image centre (COLMAP's default, not a
// failure).
func printCalibration(w io.Writer, res *pipeline.Result) {
	sc := res.SelfCalibration
	if sc == nil {
		return
	}
	if !sc.Accepted {
		fmt.Fprintf(w, "calib    camera left to COLMAP's defaults (focal from EXIF or the image size, principal point at the centre): %s, %s\n", sc.Reason, dur(res.Timing.Calibrate))
		return
	}
	c := sc.Camera
	off := math.Hypot(c.Cx-float64(res.Sets[0].Width-1)/2, c.Cy-float64(res.Sets[0].Height-1)/2)
	fmt.Fprintf(w, "calib    camera from the tracks: focal %.1f px, principal point (%.1f, %.1f), %.1f px from the centre, k1 %.4f (%d of %d images placed, %.2f px error), %s\n",
		c.Focal, c.Cx, c.Cy, off, c.K1, sc.Registered, sc.Views, sc.RMS, dur(res.Timing.Calibrate))
}

// printMatchSummary prints what the run produced, on stdout.
func printMatchSummary(w io.Writer, r *pipeline.Result, t *export.Tracks, ms []export.Match, minTrack int) {
	features, ratio := 0, 0
	for _, s := range r.Sets {
		features += s.Len()
	}
	for _, p := range r.Matches {
		ratio += len(p.Matches)
	}
	skipped := ""
	if len(r.Skipped) > 0 {
		skipped = fmt.Sprintf(" (%d skipped)", len(r.Skipped))
	}
	fmt.Fprintf(w, "%s%s, %s features; %s matched (%s selection), %s ratio-test matches\n",
		cmdline.Plural(len(r.Images), "image"), skipped, cmdline.Count(features), cmdline.Plural(len(r.Matches), "image pair"), r.PairMode, cmdline.Count(ratio))
	if r.Verified != nil {
		c := r.CountVerification()
		fmt.Fprintf(w, "%s of %s pairs verified by two-view geometry (F %d, E %d, H %d; %d planar), %s verified matches\n",
			cmdline.Count(c.Verified), cmdline.Count(c.Tried), c.Models["F"], c.Models["E"], c.Models["H"], c.Planar, cmdline.Count(len(r.Problem.Associations)))
	}
	obs := 0
	for _, tr := range t.Tracks {
		obs += len(tr.Observations)
	}
	fmt.Fprintf(w, "%s of %d or more images (%s keypoints), %s consistent matches\n",
		cmdline.Plural(len(t.Tracks), "track"), minTrack, cmdline.Count(obs), cmdline.Count(len(ms)))
}

// pipelineSteps are report.json's timing_s steps of the pipeline, in the
// order they run; the output steps after them print by name.
var pipelineSteps = []string{"extract", "select", "match", "verify", "solve", "complete", "refine", "weak", "calibrate", "reproj"}

// printTiming prints every step's time of report.json's timing_s and the
// total, so that they add up: what no step accounts for (reading the
// options, publishing) is "other".
func printTiming(w io.Writer, timing map[string]float64, cacheHits int) {
	var after []string
	for k := range timing {
		if k != "total" && !slices.Contains(pipelineSteps, k) {
			after = append(after, k)
		}
	}
	sort.Strings(after)
	var parts []string
	sum := 0.0
	for _, name := range append(slices.Clone(pipelineSteps), after...) {
		s := timing[name]
		sum += s
		if s >= 0.005 {
			parts = append(parts, fmt.Sprintf("%s %.2f", name, s))
		}
	}
	total := timing["total"]
	if other := total - sum; other >= 0.005 {
		parts = append(parts, fmt.Sprintf("other %.2f", other))
	}
	cached := ""
	if cacheHits > 0 {
		cached = fmt.Sprintf(" (%s of the images' features from the cache)", cmdline.Count(cacheHits))
	}
	fmt.Fprintf(w, "time: %.1f s in all%s: %s (seconds)\n", total, cached, strings.Join(parts, ", "))
}

// printNextStep says where the output is and, after -export colmap, the
// commands that build a COLMAP model from it.
func printNextStep(w io.Writer, o *matchOptions, images []pipeline.Image) {
	files := "tracks.json, matches.csv, report.json"
	if o.exp.format == "colmap" {
		files += ", colmap/"
	}
	if o.overlays {
		files += ", overlays/"
	}
	fmt.Fprintf(w, "output: %s (%s)\n", o.out, files)
	if o.exp.format != "colmap" || o.pipe.Verification.Off {
		return
	}
	imageDir := filepath.Dir(images[0].Path)
	for _, im := range images {
		if filepath.Dir(im.Path) != imageDir {
			imageDir = "IMAGE_FOLDER" // the images come from several folders
		}
	}
	sparse := filepath.Join(o.out, "sparse")
	fmt.Fprintf(w, "next: build a COLMAP model (it is written to %s):\n", filepath.Join(sparse, "0"))
	fmt.Fprintf(w, "  mkdir -p %s\n", shellQuote(sparse))
	fmt.Fprintf(w, "  colmap mapper --database_path %s --image_path %s --output_path %s\n",
		shellQuote(filepath.Join(o.out, "colmap", "database.db")), shellQuote(imageDir), shellQuote(sparse))
	if imageDir == "IMAGE_FOLDER" {
		fmt.Fprintln(w, "  (IMAGE_FOLDER: one folder holding every image under its name; COLMAP reads the images only for colours)")
	}
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
