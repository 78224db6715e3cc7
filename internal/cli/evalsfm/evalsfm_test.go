package evalsfm

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestEvalSfMCommand: eval-sfm reads a text model and Strecha cameras,
// prints the table (mm for metres) or JSON, and refuses bad calls with
// exit 2 and bad files with a one-line error naming them.
func TestEvalSfMCommand(t *testing.T) {
	gt, model := t.TempDir(), t.TempDir()
	// Three cameras on a line in x, one off it; the model is the ground
	// truth scaled by 1/2 (same rotations, identity R).
	cams := [][3]float64{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {1, 1, 0}}
	var images strings.Builder
	for i, c := range cams {
		name := "000" + string(rune('0'+i)) + ".jpg"
		os.WriteFile(filepath.Join(gt, name+".camera"), []byte("1 0 0\n0 1 0\n0 0 1\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n"+
			ftoa(c[0])+" "+ftoa(c[1])+" "+ftoa(c[2])+"\n100 80\n"), 0o644)
		if i == 3 {
			continue // not registered
		}
		// t = −R·C with the model's centre C/2.
		images.WriteString(itoa(i+1) + " 1 0 0 0 " + ftoa(-c[0]/2) + " " + ftoa(-c[1]/2) + " " + ftoa(-c[2]/2) + " 1 " + name + "\n\n")
	}
	// Only three cameras on one line: the similarity is undetermined.
	os.WriteFile(filepath.Join(model, "images.txt"), []byte(images.String()), 0o644)
	os.WriteFile(filepath.Join(model, "points3D.txt"), []byte("1 0 0 1 0 0 0 0.25 1 0 2 0\n"), 0o644)
	if code, _, stderr := runCmd(t, "", "eval-sfm", model, gt); code != 1 || !strings.Contains(stderr, "one line") {
		t.Errorf("cameras on one line: exit %d, %q", code, stderr)
	}
	images.WriteString("4 1 0 0 0 -0.5 -0.5 0 1 0003.jpg\n\n")
	os.WriteFile(filepath.Join(model, "images.txt"), []byte(images.String()), 0o644)
	code, stdout, stderr := runCmd(t, "", "eval-sfm", model, gt)
	if code != 0 || strings.Contains(stdout, "pp error") {
		t.Errorf("no cameras.txt: exit %d, %s\n%s", code, stderr, stdout)
	}
	// The true K is the identity at 100×80; at 50×40 it is f 0.5 and,
	// in COLMAP's pixels, principal point (0.25, 0.25): this camera's is
	// 3 and 4 px off, the image centre (25, 20) 31.664 px.
	os.WriteFile(filepath.Join(model, "cameras.txt"), []byte("1 SIMPLE_PINHOLE 50 40 0.5 3.25 4.25\n"), 0o644)
	code, stdout, stderr = runCmd(t, "", "eval-sfm", model, gt)
	if code != 0 || !strings.Contains(stdout, "registered 4 of 4 images") || !strings.Contains(stdout, "position error (mm)") ||
		!strings.Contains(stdout, fmt.Sprintf("%-22s %10s %10s %10s\n", "focal error (%)", "0.000", "0.000", "0.000")) ||
		!strings.Contains(stdout, fmt.Sprintf("%-22s %10s %10s %10s\n", "pp error (px)", "5.000", "5.000", "5.000")) ||
		!strings.Contains(stdout, fmt.Sprintf("%-22s %10s %10s %10s\n", "centre as pp (px)", "31.664", "31.664", "31.664")) ||
		!strings.Contains(stdout, "mean track length 2.000, mean reprojection error 0.250 px") ||
		!strings.Contains(stdout, fmt.Sprintf("%-22s %10s %10s %10s   (shared by every camera: 0.0000)\n", "  less the shared", "0.0000", "0.0000", "0.0000")) ||
		!strings.Contains(stdout, fmt.Sprintf("%-22s %10s %10s %10s\n", "pair rotation (deg)", "0.0000", "0.0000", "0.0000")) ||
		!strings.Contains(stdout, fmt.Sprintf("%-22s %10s %10s %10s\n", "pair direction (deg)", "0.0000", "0.0000", "0.0000")) {
		t.Errorf("exit %d, %s\n%s", code, stderr, stdout)
	}
	code, stdout, _ = runCmd(t, "", "eval-sfm", model, gt, "-json")
	var r struct {
		Registered int     `json:"registered"`
		Scale      float64 `json:"scale"`
		Position   struct{ Max float64 }
		Pairs      int                    `json:"pairs"`
		Direction  *struct{ Max float64 } `json:"relative_direction_error_deg"`
	}
	if err := json.Unmarshal([]byte(stdout), &r); code != 0 || err != nil || r.Registered != 4 || r.Scale < 1.999 || r.Scale > 2.001 ||
		r.Pairs != 6 || r.Direction == nil || r.Direction.Max > 1e-9 {
		t.Errorf("-json: exit %d, %v, %+v", code, err, r)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"eval-sfm"}, 2, "got neither"},
		{[]string{"eval-sfm", model}, 2, "want MODEL and GT folders, got only"},
		{[]string{"eval-sfm", model, gt, "extra"}, 2, `got also "extra"`},
		{[]string{"eval-sfm", model, gt, "-bogus"}, 2, "bogus"},
		{[]string{"eval-sfm", t.TempDir(), gt}, 1, "images.txt"},
		{[]string{"eval-sfm", model, t.TempDir()}, 1, "no .camera files"},
		{[]string{"eval-sfm", model, gt, "-db", filepath.Join(t.TempDir(), "none.db")}, 1, "none.db"},
		{[]string{"eval-sfm", model, model, "-db", filepath.Join(t.TempDir(), "none.db")}, 2, "not a model"},
	} {
		code, _, stderr := runCmd(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 && tc.code == 1 {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// TestEvalSfMAgainstModel: with a COLMAP model in place of the ground
// truth, eval-sfm measures one model's cameras against the other's, in
// the reference's units, without the intrinsics rows.
func TestEvalSfMAgainstModel(t *testing.T) {
	ref, model, other := t.TempDir(), t.TempDir(), t.TempDir()
	// Four cameras off one line, identity rotations; MODEL is REFERENCE
	// scaled by 3 and shifted, except that its camera 2 is 0.3 (0.1 in
	// the reference's units) off along the line.
	cams := [][3]float64{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {1, 1, 0}}
	var ri, mi strings.Builder
	for i, c := range cams {
		name := "000" + string(rune('0'+i)) + ".jpg"
		ri.WriteString(itoa(i+1) + " 1 0 0 0 " + ftoa(-c[0]) + " " + ftoa(-c[1]) + " " + ftoa(-c[2]) + " 1 " + name + "\n\n")
		m := [3]float64{3*c[0] + 5, 3 * c[1], 3*c[2] - 1}
		if i == 1 {
			m[0] += 0.3
		}
		mi.WriteString(itoa(i+1) + " 1 0 0 0 " + ftoa(-m[0]) + " " + ftoa(-m[1]) + " " + ftoa(-m[2]) + " 1 " + name + "\n\n")
	}
	for dir, images := range map[string]string{ref: ri.String(), model: mi.String(), other: "1 1 0 0 0 0 0 0 1 other.jpg\n\n"} {
		os.WriteFile(filepath.Join(dir, "images.txt"), []byte(images), 0o644)
		os.WriteFile(filepath.Join(dir, "points3D.txt"), nil, 0o644)
		os.WriteFile(filepath.Join(dir, "cameras.txt"), []byte("1 SIMPLE_PINHOLE 50 40 30 25 20\n"), 0o644)
	}
	code, stdout, stderr := runCmd(t, "", "eval-sfm", ref, ref)
	// Other units than mm print four significant digits, so an error of
	// rounding off zero shows as such: every figure must be below 1e-9.
	const label = "position error (units)"
	i := strings.Index(stdout, label)
	if i < 0 {
		t.Fatalf("a model against itself: exit %d, no %q: %s\n%s", code, label, stderr, stdout)
	}
	var med, mean, max float64
	_, err := fmt.Sscanf(stdout[i+len(label):], "%g %g %g", &med, &mean, &max)
	// The reference's centres lie 0.25, 0.75, 1.031 and 1.031 from their
	// centroid (1, 0.25, 0).
	if code != 0 || !strings.Contains(stdout, "registered 4 of 4 images; the reference's cameras lie a median 0.8904 units from their centroid") || err != nil || max > 1e-9 ||
		strings.Contains(stdout, "pp error") {
		t.Errorf("a model against itself: exit %d, %v, %s\n%s", code, err, stderr, stdout)
	}
	code, stdout, _ = runCmd(t, "", "eval-sfm", model, ref, "-json")
	var r struct {
		Registered int                   `json:"registered"`
		Scale      float64               `json:"scale"`
		Position   struct{ Max float64 } `json:"position_error"`
		Intrinsics *struct{}             `json:"intrinsics"`
	}
	// The least-squares similarity spreads camera 2's 0.1 over the four.
	if err := json.Unmarshal([]byte(stdout), &r); code != 0 || err != nil || r.Registered != 4 || math.Abs(r.Scale-1.0/3) > 1e-3 ||
		r.Position.Max < 0.05 || r.Position.Max > 0.1 || r.Intrinsics != nil {
		t.Errorf("-json: exit %d, %v, %+v", code, err, r)
	}
	code, stdout, _ = runCmd(t, "", "eval-sfm", model, ref, "-unit", "m")
	if code != 0 || !strings.Contains(stdout, "position error (mm)") {
		t.Errorf("-unit m: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := runCmd(t, "", "eval-sfm", model, other); code != 1 || !strings.Contains(stderr, "no image") {
		t.Errorf("no image in common: exit %d, %q", code, stderr)
	}
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
func itoa(v int) string     { return strconv.Itoa(v) }
