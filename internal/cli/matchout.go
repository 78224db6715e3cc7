package cli

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
	"github.com/clearmatch/clearmatch/pipeline"
	"github.com/clearmatch/clearmatch/tracks"
)

// matchWriter writes a match run's files into its stage and times each
// step, so that report.json's timing adds up to the run's wall time.
type matchWriter struct {
	dir    string
	res    *pipeline.Result
	o      *matchOptions
	timing map[string]float64 // seconds of the steps after the pipeline
	tracks *export.Tracks
	ms     []export.Match
}

// timed runs f and adds its time to the step's.
func (w *matchWriter) timed(step string, f func() error) error {
	t0 := time.Now()
	err := f()
	w.timing[step] += time.Since(t0).Seconds()
	return err
}

// writeTracks writes tracks.json and matches.csv, streamed: the stage is
// published whole at the end, so they need not be built in memory first.
func (w *matchWriter) writeTracks() error {
	return w.timed("write", func() error {
		w.tracks, w.ms = export.Build(w.res.Output(), w.res.Item)
		if err := writeStream(filepath.Join(w.dir, "tracks.json"), func(out io.Writer) error { return export.WriteTracks(out, w.tracks) }); err != nil {
			return err
		}
		return writeStream(filepath.Join(w.dir, "matches.csv"), func(out io.Writer) error { return export.WriteMatchesCSV(out, w.tracks.Images, w.ms) })
	})
}

// writeGroundTruth scores every stage's matches under the -gt cameras and
// writes ground_truth.json.
func (w *matchWriter) writeGroundTruth(gt map[string]datasets.Camera) (sc []eval.StageScore, tr []eval.TrackScore, err error) {
	err = w.timed("ground_truth", func() error {
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
		return writeFiles(w.dir, map[string][]byte{"ground_truth.json": b.Bytes()})
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
	rep := export.NewReport(w.res, w.tracks, w.ms)
	for k, v := range w.timing {
		rep.TimingSeconds[k] = v
	}
	rep.TimingSeconds["total"] = total.Seconds()
	rep.Matcher = features.MatcherProducts()
	var b bytes.Buffer
	if err := export.WriteJSON(&b, rep); err != nil {
		return nil, err
	}
	return rep.TimingSeconds, writeFiles(w.dir, map[string][]byte{"report.json": b.Bytes()})
}
