package localmap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOdometryCovers: detections a little beyond the odometry's ends are
// placed; ones the odometry does not reach (a cut file, a late start) are
// refused with the detections' line, and so is a log without odometry.
func TestOdometryCovers(t *testing.T) {
	odo := make([]Reading, 101) // 10 s at 10 Hz: one second of slack
	for i := range odo {
		odo[i] = Reading{T: 5 + float64(i)/10, U1: 1}
	}
	for _, tc := range []struct {
		name     string
		from, to float64
		odometry []Reading
		want     string // "" accepts
	}{
		{"inside", 5, 15, odo, ""},
		{"within slack", 4.2, 15.9, odo, ""},
		{"cut odometry", 6, 40, odo, "test:2: detection at 40 s, 25 s after odo.csv's last reading"},
		{"late odometry", 2, 14, odo, "test:1: detection at 2 s, 3 s before odo.csv's first reading"},
		{"sparse odometry, wider slack", 0, 60, []Reading{{T: 10}, {T: 20}, {T: 30}, {T: 40}, {T: 50}}, ""},
		{"no odometry", 5, 6, nil, "odo.csv: no odometry readings"},
	} {
		l := &Log{OdometryFile: "odo.csv", DetectionsFile: "test", Odometry: tc.odometry,
			Detections: []Detection{{T: tc.from, Range: 1, line: 1}, {T: tc.to, Range: 1, line: 2}}}
		_, err := FromLog(l, LogOptions{Motion: Unicycle{}, Window: 10, MergeRadius: 0.5, SkipEmpty: true})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q…", tc.name, err, tc.want)
		}
	}
}

// TestReadLogNoOdometry: an odometry file of a header alone is refused
// when read, naming the file.
func TestReadLogNoOdometry(t *testing.T) {
	dir := t.TempDir()
	odo, det := filepath.Join(dir, "odometry.csv"), filepath.Join(dir, "detections.csv")
	if err := os.WriteFile(odo, []byte("time,u1,u2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(det, []byte("time,range,bearing\n1,2,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadLogFiles(odo, det, "time,range,bearing")
	if err == nil || err.Error() != odo+": no odometry readings" {
		t.Errorf("error %v", err)
	}
}
