package fuse

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/localmap"
)

const synthLandmarksUsage = `synth-landmarks -out DIR [flags]

Simulates a robot's run through landmarks scattered on a plane (the CLEAR
paper's forest flight in miniature: unicycle odometry that drifts, a
range-bearing sensor that misses some landmarks and sees some that are not
there) and writes it as a log folder fuse reads: odometry.csv and
detections.csv, each detection with its true landmark, so fuse reports
precision and recall, and gps.csv, the true path. With -robots N, N robots
share the landmarks, each in a folder robot-1 … robot-N:

  clearmatch synth-landmarks -out sim
  clearmatch fuse sim -out fused
  clearmatch synth-landmarks -robots 3 -radius 10 -out team
  clearmatch fuse team/robot-1 team/robot-2 team/robot-3 -out fused-team

With -arena WxH the robots wander in a room of W by H metres among
-landmarks landmarks, as ground robots in a lab:

  clearmatch synth-landmarks -arena 5x7 -landmarks 15 -robots 5 -duration 1500 \
      -speed 0.2 -range 5 -fov 60 -out lab`

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
	fs.Float64Var(&c.RangeNoise, "range-noise", 0.05, "the detections' range error, m (standard deviation)")
	fs.Float64Var(&c.BearingNoise, "bearing-noise", 0.01, "the detections' bearing error, rad (standard deviation)")
	arena := fs.String("arena", "", "WxH: wander in a room of W by H metres (e.g. 5x7) instead of -radius or onwards; -spacing and -margin are then unused")
	fs.IntVar(&c.Landmarks, "landmarks", localmap.DefaultSimLandmarks, "landmarks in the -arena room")
	fs.Float64Var(&c.LandmarkGap, "landmark-gap", 0, "the least distance between two landmarks of the -arena room, m (0: half their mean spacing)")
	robots := fs.Int("robots", 1, "robots among the same landmarks, each with its own odometry (more than 1: a log folder robot-N per robot)")
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
	if !(c.RangeNoise >= 0 && c.BearingNoise >= 0) || math.IsInf(c.RangeNoise+c.BearingNoise, 0) {
		return cmdline.Usagef("-range-noise %v, -bearing-noise %v: want finite values, 0 or more", c.RangeNoise, c.BearingNoise)
	}
	if *arena != "" {
		w, h, ok := strings.Cut(*arena, "x")
		var err1, err2 error
		c.Arena[0], err1 = strconv.ParseFloat(w, 64)
		c.Arena[1], err2 = strconv.ParseFloat(h, 64)
		if !ok || err1 != nil || err2 != nil || !(c.Arena[0] >= 2 && c.Arena[1] >= 2) || math.IsInf(c.Arena[0]+c.Arena[1], 0) {
			return cmdline.Usagef("-arena %q: want WxH in metres, each at least 2 (e.g. 5x7)", *arena)
		}
		if c.Landmarks < 1 || c.Landmarks > 100000 {
			return cmdline.Usagef("-landmarks %d: want 1 to 100000", c.Landmarks)
		}
		if !(c.LandmarkGap >= 0) || math.IsInf(c.LandmarkGap, 0) {
			return cmdline.Usagef("-landmark-gap %v: want a finite distance, 0 or more", c.LandmarkGap)
		}
	}
	if *robots < 1 {
		return cmdline.Usagef("-robots %d: want 1 or more", *robots)
	}
	logs, err := localmap.SimulateTeam(c, *robots)
	if err != nil {
		return cmdline.UsageError{Err: err}
	}
	stage, err := cmdline.NewStage(*out, *force)
	if err != nil {
		return err
	}
	defer stage.Discard()
	var dirs []string
	detections := 0
	for r, l := range logs {
		dir := stage.Dir
		if len(logs) > 1 {
			dir = filepath.Join(stage.Dir, fmt.Sprintf("robot-%d", r+1))
			dirs = append(dirs, filepath.Join(*out, fmt.Sprintf("robot-%d", r+1)))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		if err := localmap.WriteLog(dir, l); err != nil {
			return err
		}
		if err := cmdline.WriteFiles(dir, map[string][]byte{LogManifest: []byte(simulatedManifest)}); err != nil {
			return err
		}
		detections += len(l.Detections)
	}
	if err := stage.Publish(); err != nil {
		return err
	}
	if len(logs) > 1 {
		fmt.Fprintf(stdout, "%d robots, %d detections over %.0f s; output: %s (a log folder per robot; fuse them together with clearmatch fuse %s -out DIR)\n",
			len(logs), detections, c.Duration, *out, strings.Join(dirs, " "))
		return nil
	}
	l := logs[0]
	fmt.Fprintf(stdout, "%d odometry readings, %d detections over %.0f s; output: %s (%s, %s, %s, %s)\n", len(l.Odometry), len(l.Detections), c.Duration,
		*out, filepath.Join(*out, "odometry.csv"), filepath.Join(*out, "detections.csv"), filepath.Join(*out, localmap.ReferenceFiles[0]), filepath.Join(*out, LogManifest))
	return nil
}

// simulatedManifest says how fuse reads a simulated log: speed and turn
// rate, bearings from straight ahead, the true landmark of each detection.
const simulatedManifest = `# How clearmatch fuse reads this log (docs/fuse.md): a simulated robot's
# speed and turn rate; bearings from straight ahead; each detection's truth.
-motion unicycle -bearing-ahead 0 -columns time,range,bearing,truth
`
