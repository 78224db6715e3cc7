package match

import (
	"bytes"
	"cmp"
	"context"
	"io"
	"path/filepath"
	"time"

	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/pipeline"
	"github.com/clearmatch/clearmatch/tracks"
)

// matchWriter writes a match run's files into its stage and times each
// step, so that report.json's timing adds up to the run's wall time.
type matchWriter struct {
	dir    string
	res    *pipeline.Result
	o      *matchOptions
	timing stepTimes
	tracks *export.Tracks
	ms     []export.Match
}

// stepTimes are the seconds of a run's steps after the pipeline, which
// report.json adds to the pipeline's so that they sum to the wall time.
type stepTimes map[string]float64

// timed runs f and adds its time to the step's.
func (t stepTimes) timed(step string, f func() error) error {
	t0 := time.Now()
	err := f()
	t[step] += time.Since(t0).Seconds()
	return err
}

// writeTracks writes tracks.json and matches.csv.
func (w *matchWriter) writeTracks() error {
	return w.timing.timed("write", func() (err error) {
		w.tracks, w.ms, err = writeTrackFiles(w.dir, w.res.Output(), w.res.Item)
		return err
	})
}

// writeTrackFiles writes the tracks of item (over sets) into dir as
// tracks.json and matches.csv, streamed: the stage is published whole at
// the end, so they need not be built in memory first.
func writeTrackFiles(dir string, sets []*features.Set, item []int) (*export.Tracks, []export.Match, error) {
	tr, ms := export.Build(sets, item)
	if err := cmdline.WriteStream(filepath.Join(dir, "tracks.json"), func(out io.Writer) error { return export.WriteTracks(out, tr) }); err != nil {
		return nil, nil, err
	}
	err := cmdline.WriteStream(filepath.Join(dir, "matches.csv"), func(out io.Writer) error { return export.WriteMatchesCSV(out, tr.Images, ms) })
	return tr, ms, err
}

// writeGroundTruth scores every stage's matches under the -gt cameras and
// writes ground_truth.json.
func (w *matchWriter) writeGroundTruth(gt map[string]datasets.Camera) (sc []eval.StageScore, tr []eval.TrackScore, err error) {
	err = w.timing.timed("ground_truth", func() error {
		var clearMs []export.Match
		if w.res.Completed > 0 {
			_, clearMs = export.Build(w.res.Sets, eval.MinTrack(w.res.Clear.Item, cmp.Or(w.o.pipe.Tracks.MinTrack.Min, tracks.DefaultMinTrack)))
		}
		if sc, tr, err = scoreStages(w.res, clearMs, w.ms, gt); err != nil {
			return err
		}
		var b bytes.Buffer
		if err := export.WriteJSON(&b, map[string]any{"ground_truth": w.o.gt, "threshold_px": 2, "stages": sc, "tracks": tr}); err != nil {
			return err
		}
		return cmdline.WriteFiles(w.dir, map[string][]byte{"ground_truth.json": b.Bytes()})
	})
	return sc, tr, err
}

// writeOverlays draws overlays/ (-overlays).
func (w *matchWriter) writeOverlays(ctx context.Context, pairs [][2]int, progress func(done, total int)) error {
	res := w.res
	ov := &export.Overlays{Sets: res.Output(), Item: res.Item, Pairs: pairs, MaxPixels: w.o.pipe.Features.MaxPixels, Progress: progress}
	if w.o.overlayPairs == "none" {
		ov.Pairs = [][2]int{} // the images' pictures alone
	}
	for _, im := range res.Images {
		ov.Paths = append(ov.Paths, im.Path)
	}
	return ov.Write(ctx, filepath.Join(w.dir, "overlays"))
}

// writeReport writes report.json last, with the time of every step, and
// returns those times (seconds by step, and "total").
func (w *matchWriter) writeReport(total time.Duration) (map[string]float64, error) {
	rep := timedReport(w.res, w.tracks, w.ms, w.timing, total)
	rep.Matcher = features.MatcherProducts()
	var b bytes.Buffer
	if err := export.WriteJSON(&b, rep); err != nil {
		return nil, err
	}
	return rep.TimingSeconds, cmdline.WriteFiles(w.dir, map[string][]byte{"report.json": b.Bytes()})
}

// timedReport is report.json of a run whose tracks and consistent
// matches are tr and ms, with the steps after the pipeline and the total
// in its timing.
func timedReport(res *pipeline.Result, tr *export.Tracks, ms []export.Match, steps stepTimes, total time.Duration) *export.Report {
	rep := export.NewReport(res, tr, ms)
	for k, v := range steps {
		rep.TimingSeconds[k] = v
	}
	rep.TimingSeconds["total"] = total.Seconds()
	return rep
}

// beginRun stages the output folder and makes the progress printer, as
// match and tracks start; the caller discards the stage unless it
// publishes it.
func beginRun(out string, force bool, progress string, stderr io.Writer) (*export.Stage, cmdline.ProgressPrinter, error) {
	stage, err := cmdline.NewStage(out, force)
	if err != nil {
		return nil, nil, err
	}
	pr, err := cmdline.NewProgressPrinter(progress, stderr)
	if err != nil {
		stage.Discard()
		return nil, nil, err
	}
	return stage, pr, nil
}
