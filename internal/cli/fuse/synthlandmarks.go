package fuse

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"

	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/localmap"
)

const synthLandmarksUsage = `synth-landmarks -out DIR [flags]

Simulates a robot's run through landmarks scattered on a plane (the CLEAR
paper's forest flight in miniature: unicycle odometry that drifts, a
range-bearing sensor that misses some landmarks and sees some that are not
there) and writes it as a log folder fuse reads: odometry.csv and
detections.csv, each detection with its true landmark, so fuse reports
precision and recall:

  clearmatch synth-landmarks -out sim
  clearmatch fuse sim -columns time,range,bearing,truth -out fused`

// RunSynthLandmarks is `clearmatch synth-landmarks args...`.
func RunSynthLandmarks(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var c localmap.SimConfig
	fs := cmdline.NewFlags("synth-landmarks", synthLandmarksUsage, stdout)
	out := fs.String("out", "", "output directory (required)")
	force := fs.Bool("force", false, "write into a non-empty output directory")
	fs.Uint64Var(&c.Seed, "seed", 1, "seed of every random draw")
	fs.Float64Var(&c.Duration, "duration", 120, "seconds of the run")
	fs.Float64Var(&c.Speed, "speed", 2, "m/s")
	fs.Float64Var(&c.Spacing, "spacing", 5, "mean distance between neighbouring landmarks, m")
	fs.Float64Var(&c.Range, "range", 12, "the sensor's reach, m")
	fs.Float64Var(&c.Miss, "miss", 0.1, "probability that a landmark in range is missed")
	fs.Float64Var(&c.Spurious, "spurious", 0.3, "mean number of false detections a scan")
	fs.Float64Var(&c.Radius, "radius", 0, "circle with this radius (m), coming back to the same landmarks, as a robot in an arena (0: wind onwards, as the paper's flight)")
	fov := fs.Float64("fov", 0, "the sensor's angle of view in degrees, centred ahead, as a forward camera's (0: all around)")
	fs.Float64Var(&c.Margin, "margin", 0, "how far beyond the path landmarks are scattered, m (0: -range)")
	fs.Float64Var(&c.SpeedNoise, "speed-noise", 0.02, "the odometry's relative speed error (standard deviation)")
	fs.Float64Var(&c.TurnNoise, "turn-noise", 0.01, "the odometry's turn-rate error, rad/s (standard deviation)")
	if err := cmdline.ParseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return cmdline.Usagef("-out is required")
	}
	if !(*fov >= 0 && *fov <= 360) {
		return cmdline.Usagef("-fov %v: want degrees in [0, 360] (0: all around)", *fov)
	}
	c.FieldOfView = *fov * math.Pi / 180
	l, err := localmap.Simulate(c)
	if err != nil {
		return cmdline.UsageError{Err: err}
	}
	stage, err := cmdline.NewStage(*out, *force)
	if err != nil {
		return err
	}
	defer stage.Discard()
	if err := localmap.WriteLog(stage.Dir, l); err != nil {
		return err
	}
	if err := cmdline.WriteFiles(stage.Dir, map[string][]byte{LogManifest: []byte(simulatedManifest)}); err != nil {
		return err
	}
	if err := stage.Publish(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d odometry readings, %d detections over %.0f s; output: %s (%s, %s, %s)\n", len(l.Odometry), len(l.Detections), c.Duration,
		*out, filepath.Join(*out, "odometry.csv"), filepath.Join(*out, "detections.csv"), filepath.Join(*out, LogManifest))
	return nil
}

// simulatedManifest says how fuse reads a simulated log: speed and turn
// rate, bearings from straight ahead, the true landmark of each detection.
const simulatedManifest = `# How clearmatch fuse reads this log (docs/fuse.md): a simulated robot's
# speed and turn rate; bearings from straight ahead; each detection's truth.
-motion unicycle -bearing-ahead 0 -columns time,range,bearing,truth
`
