package evalsfm

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/clearmatch/clearmatch/colmap"
	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/internal/cmdline"
)

const evalSfMUsage = `eval-sfm MODEL GT|REFERENCE [-json] [-unit m] [-db DATABASE]

Compares a COLMAP sparse model (MODEL: a folder with images and points3D,
binary .bin or text .txt, as colmap mapper writes it) with ground-truth
cameras (GT: a folder of Strecha-format NAME.camera files, as in
herz-jesus-p25 and fountain-p11). The camera centres are aligned by the
least-squares similarity (Umeyama); then every registered camera's position
error (in GT units, printed in mm when -unit is m) and rotation error
(degrees), with median, mean and maximum, and the model's points, mean
track length and mean reprojection error. Images are matched by name.

Two errors need no alignment, over every pair of registered images: the
angle between the model's and the truth's relative rotation ("pair
rotation"), and between their directions from one camera to the other in
its frame, the relative translation up to scale ("pair direction"). They
tell a model that is wrong from one the similarity fits badly: centres
nearly on a line or a plane leave its rotation about them loose.

When MODEL has its cameras file, each registered image's camera is
compared with its true K scaled to the camera's image size: the error of
the focal length (percent), of the principal point ("pp error", pixels),
and, for scale, how far the image centre, where COLMAP keeps the
principal point unless told to refine it, is from the true one.

With -db, the tracks of a COLMAP database (its two_view_geometries
chained over keypoints, as the mapper builds them; the database MODEL was
reconstructed from, or any other of the same images) are scored too: of
the tracks of 3+ views, the share whose every observation is within 1, 2
and 4 px of the point triangulated from the true cameras, and the chains
that hold two keypoints of one image. The Sampson distance of single
matches cannot see a match wrong along its epipolar line; a track can.

In place of GT, REFERENCE may be another COLMAP model of the same images
(a folder with images.bin or images.txt): MODEL's cameras are then
measured against REFERENCE's the same way, errors in REFERENCE's length
unit (printed as "units" unless -unit says which, to four significant
digits, with the reference's cameras' median distance from their
centroid for scale). This compares two
reconstructions where there is no ground truth (two pipelines, two runs),
or tells how far apart two models are that lie the same distance from
the truth. REFERENCE has no true K: the intrinsics rows are left out and
-db needs GT.`

// Run is `clearmatch eval-sfm MODEL GT`.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags("eval-sfm", evalSfMUsage, stdout)
	asJSON := fs.Bool("json", false, "write the report as JSON on stdout")
	unit := fs.String("unit", "m", "the ground truth's length unit: m (errors printed in mm) or any other name (printed as is)")
	dbPath := fs.String("db", "", "also score the tracks of this COLMAP database under the true cameras")
	pos, err := cmdline.ParseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return cmdline.UsageError{Err: err}
	}
	switch {
	case len(pos) == 0:
		return cmdline.Usagef("want MODEL and GT folders, got neither")
	case len(pos) == 1:
		return cmdline.Usagef("want MODEL and GT folders, got only %q", pos[0])
	case len(pos) > 2:
		return cmdline.Usagef("want MODEL and GT folders, got also %q", pos[2])
	}
	model, err := colmap.ReadModel(pos[0])
	if err != nil {
		return err
	}
	unitGiven := false
	fs.Visit(func(f *flag.Flag) { unitGiven = unitGiven || f.Name == "unit" })
	isModel := colmap.HasModel(pos[1])
	if isModel && *dbPath != "" {
		return cmdline.Usagef("-db scores tracks under true cameras with K: give GT (NAME.camera files), not a model (%s)", pos[1])
	}
	gt, err := readTruth(pos[1], isModel)
	if err != nil {
		return err
	}
	if isModel && !unitGiven {
		*unit = "units"
	}
	r, err := eval.EvaluateSfM(model, gt)
	if err != nil {
		return fmt.Errorf("%s against %s: %w", pos[0], pos[1], err)
	}
	var tracks *eval.TrackScore
	if *dbPath != "" {
		if tracks, err = scoreDatabaseTracks(*dbPath, gt); err != nil {
			return err
		}
	}
	if *asJSON {
		return export.WriteJSON(stdout, struct {
			*eval.SfMReport
			Tracks *eval.TrackScore `json:"database_tracks,omitempty"`
		}{r, tracks})
	}
	printSfMReport(stdout, r, tracks, *unit, isModel)
	return nil
}

// readTruth reads the cameras to score against: Strecha's NAME.camera
// files, or a reference COLMAP model's poses (no K).
func readTruth(path string, isModel bool) (map[string]datasets.Camera, error) {
	if !isModel {
		return datasets.ReadStrechaCameras(path)
	}
	ref, err := colmap.ReadModel(path)
	if err != nil {
		return nil, err
	}
	gt := map[string]datasets.Camera{}
	for n, p := range ref.Poses {
		gt[n] = datasets.Camera{Pose: p}
	}
	if len(gt) == 0 {
		return nil, fmt.Errorf("%s: the reference model has no registered images", path)
	}
	return gt, nil
}

// printSfMReport prints the report as a table: millimetres for a truth
// in metres, four significant digits in any other unit.
func printSfMReport(stdout io.Writer, r *eval.SfMReport, tracks *eval.TrackScore, unit string, isModel bool) {
	scale, u := 1.0, unit
	if u == "m" {
		scale, u = 1000, "mm"
	}
	fmt.Fprintf(stdout, "registered %d of %d images", r.Registered, r.Images)
	if len(r.Missing) > 0 {
		fmt.Fprintf(stdout, " (missing: %s)", cmdline.QuoteList(r.Missing))
	}
	if isModel {
		// A reconstruction's unit is arbitrary: its cameras' spread
		// gives the errors a scale.
		fmt.Fprintf(stdout, "; the reference's cameras lie a median %.4g %s from their centroid", r.Spread*scale, u)
	}
	fmt.Fprintf(stdout, "\n%-22s %10s %10s %10s\n", "", "median", "mean", "max")
	pf := "%-22s %10.3f %10.3f %10.3f\n"
	if u != "mm" {
		pf = "%-22s %10.4g %10.4g %10.4g\n"
	}
	fmt.Fprintf(stdout, pf, "position error ("+u+")", r.Position.Median*scale, r.Position.Mean*scale, r.Position.Max*scale)
	fmt.Fprintf(stdout, "%-22s %10.4f %10.4f %10.4f\n", "rotation error (deg)", r.Rotation.Median, r.Rotation.Mean, r.Rotation.Max)
	fmt.Fprintf(stdout, "%-22s %10.4f %10.4f %10.4f   (shared by every camera: %.4f)\n", "  less the shared", r.RotationResidual.Median, r.RotationResidual.Mean, r.RotationResidual.Max, r.RotationCommon)
	if r.Pairs > 0 {
		fmt.Fprintf(stdout, "%-22s %10.4f %10.4f %10.4f\n", "pair rotation (deg)", r.RelativeRotation.Median, r.RelativeRotation.Mean, r.RelativeRotation.Max)
		fmt.Fprintf(stdout, "%-22s %10.4f %10.4f %10.4f\n", "pair direction (deg)", r.RelativeDirection.Median, r.RelativeDirection.Mean, r.RelativeDirection.Max)
	}
	if in := r.Intrinsics; in != nil && in.Images > 0 {
		fmt.Fprintf(stdout, "%-22s %10.3f %10.3f %10.3f\n", "focal error (%)", in.Focal.Median, in.Focal.Mean, in.Focal.Max)
		fmt.Fprintf(stdout, "%-22s %10.3f %10.3f %10.3f\n", "pp error (px)", in.PrincipalPoint.Median, in.PrincipalPoint.Mean, in.PrincipalPoint.Max)
		fmt.Fprintf(stdout, "%-22s %10.3f %10.3f %10.3f\n", "centre as pp (px)", in.Centre.Median, in.Centre.Mean, in.Centre.Max)
	}
	fmt.Fprintf(stdout, "points %d, mean track length %.3f, mean reprojection error %.3f px\n", r.Points, r.MeanTrackLength, r.MeanReprojection)
	if t := tracks; t != nil {
		fmt.Fprintf(stdout, "database tracks of 3+ views %d: within 1 / 2 / 4 px of the true point %.4f / %.4f / %.4f; %d chains with two keypoints of one image\n",
			t.Tracks, ratio(t.Within1, t.Tracks), ratio(t.Within2, t.Tracks), ratio(t.Within4, t.Tracks), t.Conflicting)
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// scoreDatabaseTracks scores the tracks of the COLMAP database at path
// under the ground-truth cameras gt (by image name); images without one
// are left out, and fewer than three with one is an error.
func scoreDatabaseTracks(path string, gt map[string]datasets.Camera) (*eval.TrackScore, error) {
	cm, err := colmap.ReadMatches(path)
	if err != nil {
		return nil, err
	}
	proj, have, err := eval.TrueProjections(gt, cm.Names, cm.Widths)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if have < 3 {
		return nil, fmt.Errorf("%s: %d of its images have a ground-truth camera; tracks need 3", path, have)
	}
	sc := eval.ScoreTracks([]eval.StageMatches{{Name: "database", Pairs: cm.Pairs}}, cm.Points, proj)
	return &sc[0], nil
}
