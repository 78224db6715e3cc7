package localmap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadCSV: any file reads as local maps or fails with an error naming
// it; never a panic.
func FuzzReadCSV(f *testing.F) {
	f.Add("map,landmark,x,y\n0,a,1,2\n1,a,1,2\n")
	f.Add("landmark,map,y,x,truth,z\na,0,1,2,t,0\n")
	f.Add("map,landmark,x\n0,a,1\n")
	f.Fuzz(func(t *testing.T, data string) {
		p := filepath.Join(t.TempDir(), "maps.csv")
		os.WriteFile(p, []byte(data), 0o644)
		s, err := ReadCSV(p)
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(s.Maps) == 0 {
			t.Fatal("no maps and no error")
		}
	})
}

// FuzzReadLog: any detections file reads as a log and cuts into maps, or
// fails with an error naming a file; never a panic.
func FuzzReadLog(f *testing.F) {
	f.Add("0 5 0\n1 6 1\n2 5 0.5\n")
	f.Add("time,range,bearing\n0,NaN,0\n")
	f.Add("3 5 0\n1 6 1\n")
	f.Fuzz(func(t *testing.T, det string) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "odometry.csv"), []byte("0,1,0.1\n1,1,0.1\n2,1,0\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "detections.csv"), []byte(det), 0o644)
		l, err := ReadLog(dir, "time,range,bearing")
		if err != nil {
			if !strings.Contains(err.Error(), dir) {
				t.Fatalf("error does not name a file: %v", err)
			}
			return
		}
		if _, err := FromLog(l, LogOptions{Motion: Unicycle{}, Window: 1, SkipEmpty: true}); err != nil && !strings.Contains(err.Error(), dir) {
			t.Fatalf("error does not name a file: %v", err)
		}
	})
}

// FuzzReadReference: any file reads as time-ordered positions or fails
// with an error naming it; never a panic.
func FuzzReadReference(f *testing.F) {
	f.Add("0 1 2\n1 2 3\n")
	f.Add("time,x,y\n0,NaN,1\n")
	f.Add("2 0 0\n1 0 0\n")
	f.Fuzz(func(t *testing.T, data string) {
		p := filepath.Join(t.TempDir(), "gps.csv")
		os.WriteFile(p, []byte(data), 0o644)
		fixes, err := ReadReference(p)
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for k := 1; k < len(fixes); k++ {
			if fixes[k].T < fixes[k-1].T {
				t.Fatalf("times decrease: %v", fixes)
			}
		}
	})
}
