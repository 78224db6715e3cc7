package match

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/clearmatch/clearmatch/colmap"
	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/pipeline"
)

// tracksWriter writes a tracks run's files into its stage.
type tracksWriter struct {
	dir, db string
	stderr  io.Writer // where the write's progress line goes (nil: none)
	scene   *colmap.Scene
	res     *pipeline.Result
	o       *tracksOptions
	timing  stepTimes
	tracks  *export.Tracks
	ms      []export.Match
	report  tracksDatabase
}

// tracksDatabase is report.json's "database": what tracks read and wrote.
type tracksDatabase struct {
	Path          string `json:"path"`
	SchemaVersion int    `json:"schema_version"`
	// Matches is the table read: two_view_geometries or matches.
	Matches string `json:"matches"`
	// Camera is where the camera verification used came from: the
	// database (a known focal length), -intrinsics, or none.
	Camera       string `json:"camera"`
	InputPairs   int    `json:"input_pairs"`
	InputMatches int    `json:"input_matches"`
	// OutputPairs and OutputMatches are what colmap/database.db's
	// two_view_geometries hold.
	OutputPairs   int `json:"output_pairs"`
	OutputMatches int `json:"output_matches"`
	// Conflicts count the pairs of keypoints of one image in one
	// union-find track, of the input's matches and of the output's.
	Conflicts struct {
		Input  int `json:"input"`
		Output int `json:"output"`
	} `json:"conflicts"`
	Geometries colmap.GeometryCounts `json:"two_view_geometries"`
	// CameraWritten: the copy's camera starts at the self-calibrated one.
	CameraWritten bool `json:"camera_written"`
}

// write writes tracks.json, matches.csv and colmap/database.db.
func (w *tracksWriter) write(ctx context.Context) error {
	return w.timing.timed("write", func() (err error) {
		if w.tracks, w.ms, err = writeTrackFiles(w.dir, w.res.Output(), w.res.Item); err != nil {
			return err
		}
		return w.writeDatabase(ctx)
	})
}

// writeDatabase writes colmap/database.db: the input with the consistent
// matches of every pair that keeps -min-inliers of them.
func (w *tracksWriter) writeDatabase(ctx context.Context) error {
	pairs, _ := export.ColmapPairs(w.res, w.ms)
	var written []colmap.Pair
	var out []colmap.ScenePair
	for _, p := range pairs {
		if len(p.Matches) < w.o.pipe.Verification.MinInliers {
			continue
		}
		cp, err := p.Colmap()
		if err != nil {
			return err
		}
		written = append(written, cp)
		sp := colmap.ScenePair{I: cp.I, J: cp.J, Matches: make([][2]int, len(cp.Matches))}
		for k, m := range cp.Matches {
			sp.Matches[k] = [2]int{int(m[0]), int(m[1])}
		}
		out = append(out, sp)
		w.report.OutputMatches += len(cp.Matches)
	}
	dir := filepath.Join(w.dir, "colmap")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, "database.db")
	if w.stderr != nil {
		size := int64(0)
		if fi, err := os.Stat(w.db); err == nil {
			size = fi.Size()
		}
		fmt.Fprintf(w.stderr, "write    copying %s (%d MiB) with %s of consistent matches\n", w.db, size>>20, cmdline.Plural(len(written), "image pair"))
	}
	var err error
	if w.report.Geometries, err = colmap.CopyWithGeometries(ctx, w.db, path, w.scene.IDs, written); err != nil {
		return err
	}
	if err := w.writeCamera(ctx, path); err != nil {
		return err
	}
	if w.res.Refined != nil {
		if err := colmap.MoveKeypoints(ctx, path, w.scene.IDs, refinedPositions(w.res.Refined)); err != nil {
			return err
		}
	}
	w.report.Conflicts.Output = eval.Conflicts(keypointCounts(w.res.Sets), out)
	w.report.OutputPairs = len(written)
	return nil
}

// writeCamera starts the copy's camera at the self-calibrated one, when
// it was accepted, every image shares the camera, the database did not
// know its focal length and its model is one the export writes.
func (w *tracksWriter) writeCamera(ctx context.Context, path string) error {
	sc := w.res.SelfCalibration
	c, shared := w.scene.SharedCamera()
	if w.o.keepCamera || sc == nil || !sc.Accepted || !shared {
		return nil
	}
	cam := w.scene.Cameras[c]
	params, ok := export.SelfCalibratedParams(cam.Model, sc)
	if !ok || cam.PriorFocal {
		return nil
	}
	w.report.CameraWritten = true
	return colmap.SetCamera(ctx, path, w.scene.CameraIDs[c], params, true)
}

// refinedPositions are the images' keypoint positions after refinement,
// in COLMAP's convention.
func refinedPositions(refined []*features.Set) [][][2]float32 {
	out := make([][][2]float32, len(refined))
	for i, s := range refined {
		out[i] = make([][2]float32, len(s.Keypoints))
		for k, kp := range s.Keypoints {
			out[i][k] = [2]float32{kp.X + 0.5, kp.Y + 0.5}
		}
	}
	return out
}

// readInput counts what the database held: its pairs, matches and the
// conflicts of their union-find tracks (counts: the images' keypoints).
func (w *tracksWriter) readInput(counts []int) {
	d := &w.report
	d.InputPairs = len(w.scene.Pairs)
	for _, p := range w.scene.Pairs {
		d.InputMatches += len(p.Matches)
	}
	d.Conflicts.Input = eval.Conflicts(counts, w.scene.Pairs)
}

func keypointCounts(sets []*features.Set) []int {
	counts := make([]int, len(sets))
	for i, s := range sets {
		counts[i] = s.Len()
	}
	return counts
}

// writeReport writes report.json: match's report of the run, with the
// database's section.
func (w *tracksWriter) writeReport(total time.Duration) error {
	rep := timedReport(w.res, w.tracks, w.ms, w.timing, total)
	d := &w.report
	d.Path, d.SchemaVersion, d.Matches = w.db, w.scene.Version, string(w.o.matchTable())
	switch {
	case !w.o.camera.Known():
		d.Camera = "none"
	case w.o.intrinsics == "":
		d.Camera = "database"
	default:
		d.Camera = "-intrinsics"
	}
	var b bytes.Buffer
	if err := export.WriteJSON(&b, struct {
		*export.Report
		Database *tracksDatabase `json:"database"`
	}{rep, d}); err != nil {
		return err
	}
	return cmdline.WriteFiles(w.dir, map[string][]byte{"report.json": b.Bytes()})
}

// printSummary prints what the run wrote, on stdout.
func (w *tracksWriter) printSummary(out io.Writer) {
	d := &w.report
	obs := 0
	for _, t := range w.tracks.Tracks {
		obs += len(t.Observations)
	}
	fmt.Fprintf(out, "read     %s, %s with %s matches (%s), %s in their union-find tracks\n",
		cmdline.Plural(len(w.scene.Names), "image"), cmdline.Plural(d.InputPairs, "image pair"), cmdline.Count(d.InputMatches), d.Matches, cmdline.Plural(d.Conflicts.Input, "conflict"))
	fmt.Fprintf(out, "tracks   %s of %s observations, each image at most once in a track\n", cmdline.Plural(len(w.tracks.Tracks), "track"), cmdline.Count(obs))
	fmt.Fprintf(out, "colmap   database.db: %s with %s consistent matches (%d kept as they were, %d changed, %d taken out), %s\n",
		cmdline.Plural(d.OutputPairs, "image pair"), cmdline.Count(d.OutputMatches), d.Geometries.Kept, d.Geometries.Changed, d.Geometries.Dropped, cmdline.Plural(d.Conflicts.Output, "conflict"))
	fmt.Fprintf(out, "wrote    %s\n", w.o.out)
}
