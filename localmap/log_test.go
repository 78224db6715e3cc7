package localmap

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/internal/testenv"
)

// TestVictoriaParkMaps: 20 s windows of the Victoria Park run give the
// maps its README describes (about 78, of roughly 45–66 trees each).
func TestVictoriaParkMaps(t *testing.T) {
	dir := testenv.Require(t, filepath.Join(testenv.DataDir(), "victoria-park"))
	l, err := ReadLog(dir, "time,range,bearing")
	if err != nil {
		t.Fatal(err)
	}
	s, err := FromLog(l, LogOptions{Motion: VictoriaPark, BearingAhead: math.Pi / 2, Window: 20})
	t.Logf("merge radius %.2f m", s.MergeRadius)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	n := s.Landmarks()
	t.Logf("%d detections, %d odometry readings: %d maps, %d landmarks (%.1f a map)", len(l.Detections), len(l.Odometry), len(s.Maps), n, float64(n)/float64(len(s.Maps)))
	if len(s.Maps) < 70 || len(s.Maps) > 80 || n/len(s.Maps) < 45 || n/len(s.Maps) > 66 {
		t.Errorf("%d maps of %d landmarks", len(s.Maps), n)
	}
}

// TestSimulatedMaps: a simulated run cut into 20 s windows gives six
// maps, in each of which repeated sightings of one landmark merged into
// one (few landmarks hold two truths, few truths two landmarks), and the
// odometry drifts but stays within metres.
func TestSimulatedMaps(t *testing.T) {
	l, err := Simulate(SimConfig{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	s, err := FromLog(l, LogOptions{Motion: Unicycle{}, Window: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Maps) != 7 && len(s.Maps) != 6 {
		t.Fatalf("%d maps", len(s.Maps))
	}
	dup := 0
	for _, m := range s.Maps {
		seen := map[string]bool{}
		for _, lm := range m.Landmarks {
			if seen[lm.Truth] {
				dup++
			}
			seen[lm.Truth] = true
		}
	}
	t.Logf("merge radius %.2f m, %d maps, %d landmarks, %d split", s.MergeRadius, len(s.Maps), s.Landmarks(), dup)
	if dup > s.Landmarks()/20 {
		t.Errorf("%d of %d landmarks are a second landmark of one truth in their map", dup, s.Landmarks())
	}
	if !s.HasTruth() {
		t.Error("simulated maps lack their truth")
	}
}

// TestFromLogSpanTrajectory: a part of the run (Start, Duration) has the
// path of that part, not the odometry's from the log's start, so its
// comparison with the true path is of the part alone.
func TestFromLogSpanTrajectory(t *testing.T) {
	l, err := Simulate(SimConfig{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []LogOptions{{Window: 20}, {Window: 20, Start: 60, Duration: 40}} {
		o.Motion = Unicycle{}
		s, err := FromLog(l, o)
		if err != nil {
			t.Fatal(err)
		}
		times := s.TrajectoryTimes
		if len(times) == 0 || times[0] < s.Times[0] || times[len(times)-1] > s.Times[0]+o.Duration+o.Window && o.Duration > 0 {
			t.Errorf("start %v s: the path spans %v-%v s, the maps %v-%v s", o.Start, times[0], times[len(times)-1], s.Times[0], s.Times[len(s.Times)-1]+o.Window)
		}
	}
}

// TestReadCSVByteOrderMark: a CSV saved by a spreadsheet, with a UTF-8
// byte-order mark before its header, reads.
func TestReadCSVByteOrderMark(t *testing.T) {
	p := filepath.Join(t.TempDir(), "maps.csv")
	os.WriteFile(p, []byte("\ufeffmap,landmark,x,y\n0,a,1,2\n1,a,1,2\n"), 0o644)
	s, err := ReadCSV(p)
	if err != nil || len(s.Maps) != 2 {
		t.Fatalf("%v, %+v", err, s)
	}
}

// TestSimulateFieldOfView: a forward sensor of 60° detects only ahead
// (within its half-angle and the bearing noise), false detections too;
// the landmarks lie within the margin of the path.
func TestSimulateFieldOfView(t *testing.T) {
	c := SimConfig{Seed: 4, Duration: 300, Speed: 0.3, Range: 3, FieldOfView: math.Pi / 3, Spacing: 1.5, Radius: 2, Margin: 1}
	l, err := Simulate(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Detections) < 100 {
		t.Fatalf("%d detections", len(l.Detections))
	}
	for _, d := range l.Detections {
		if math.Abs(d.Bearing) > math.Pi/6+0.05 {
			t.Fatalf("a detection at bearing %.3f rad, outside ±π/6", d.Bearing)
		}
	}
	for _, bad := range []SimConfig{{FieldOfView: 7}, {FieldOfView: -1}, {Margin: -1}} {
		if _, err := Simulate(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// TestSimulateArena: in a room, every robot stays inside it, the
// landmarks are the number asked for, inside it and not on top of each
// other (nor closer than a gap given), the same seed gives the same run,
// and a room too small, without landmarks, with a gap not a distance or
// one its landmarks do not fit is refused.
func TestSimulateArena(t *testing.T) {
	c := SimConfig{Seed: 5, Duration: 600, Speed: 0.2, Range: 5, FieldOfView: math.Pi / 3, Arena: [2]float64{5, 7}, Landmarks: 15}
	logs, err := SimulateTeam(c, 3)
	if err != nil {
		t.Fatal(err)
	}
	truths := map[string]bool{}
	for r, l := range logs {
		for _, f := range l.Reference {
			if f.X < 0 || f.X > 5 || f.Y < 0 || f.Y > 7 {
				t.Fatalf("robot %d at (%.2f, %.2f), outside the 5 × 7 m room", r+1, f.X, f.Y)
			}
		}
		if len(l.Detections) < 100 {
			t.Fatalf("robot %d: %d detections", r+1, len(l.Detections))
		}
		for _, d := range l.Detections {
			if !strings.HasPrefix(d.Truth, "spurious") {
				truths[d.Truth] = true
			}
		}
	}
	if len(truths) > 15 || len(truths) < 10 {
		t.Errorf("%d landmarks seen, want at most the 15 placed and most of them", len(truths))
	}
	for _, gap := range []struct{ given, want float64 }{{0, 0.5 * math.Sqrt(5*7/15.0)}, {1.2, 1.2}} {
		marks, err := scatterArena(rand.New(rand.NewPCG(1, 2)), [2]float64{5, 7}, 15, gap.given)
		if err != nil || len(marks) != 15 {
			t.Fatalf("%d landmarks (%v), want 15", len(marks), err)
		}
		for i, a := range marks {
			if a[0] < 0 || a[0] > 5 || a[1] < 0 || a[1] > 7 {
				t.Errorf("landmark %d at %v, outside the room", i, a)
			}
			for _, b := range marks[:i] {
				if d := math.Hypot(a[0]-b[0], a[1]-b[1]); d < gap.want {
					t.Errorf("gap %v: two landmarks %.2f m apart, want at least %.2f", gap.given, d, gap.want)
				}
			}
		}
	}
	again, err := SimulateTeam(c, 3)
	if err != nil || len(again[2].Detections) != len(logs[2].Detections) || again[2].Odometry[100] != logs[2].Odometry[100] {
		t.Errorf("the same seed gave another run (%v)", err)
	}
	for _, bad := range []SimConfig{{Arena: [2]float64{1, 7}}, {Arena: [2]float64{5, 7}, Landmarks: -1}, {Arena: [2]float64{5, 0}},
		{Arena: [2]float64{5, 7}, LandmarkGap: -1}, {Arena: [2]float64{5, 7}, LandmarkGap: math.Inf(1)},
		{Arena: [2]float64{5, 7}, LandmarkGap: 3}} { // 15 landmarks 3 m apart do not fit
		if _, err := Simulate(bad); err == nil {
			t.Errorf("%+v: no error", bad.Arena)
		}
	}
}

// TestMergeByTruth: by truth, two sightings of one barcode a metre apart
// are one landmark at their mean, two barcodes a centimetre apart stay
// two, and a sighting without a truth stands alone; by radius, the
// opposite.
func TestMergeByTruth(t *testing.T) {
	l := &Log{
		DetectionsFile: "test",
		Odometry:       []Reading{{T: 0}, {T: 10}},
		Detections: []Detection{
			{T: 1, Range: 3, Truth: "a"}, {T: 2, Range: 4, Truth: "a"},
			{T: 3, Range: 2, Bearing: 1, Truth: "b"}, {T: 3, Range: 2.01, Bearing: 1, Truth: "c"},
			{T: 4, Range: 2, Bearing: 1},
		},
	}
	for _, tc := range []struct {
		byTruth bool
		want    []Landmark
	}{
		{true, []Landmark{{Name: "0", X: 3.5, Truth: "a"}, {Name: "1", X: 1.0806, Y: 1.6829, Truth: "b"}, {Name: "2", X: 1.0860, Y: 1.6913, Truth: "c"}, {Name: "3", X: 1.0806, Y: 1.6829}}},
		{false, []Landmark{{Name: "0", X: 3, Truth: "a"}, {Name: "1", X: 4, Truth: "a"}, {Name: "2", X: 1.0824, Y: 1.6857, Truth: "b"}}},
	} {
		s, err := FromLog(l, LogOptions{Motion: Unicycle{}, Window: 10, MergeRadius: 0.5, MergeByTruth: tc.byTruth})
		if err != nil {
			t.Fatal(err)
		}
		got := s.Maps[0].Landmarks
		if len(s.Maps) != 1 || len(got) != len(tc.want) {
			t.Fatalf("by truth %v: %d maps, landmarks %+v", tc.byTruth, len(s.Maps), got)
		}
		for i, w := range tc.want {
			if g := got[i]; g.Name != w.Name || g.Truth != w.Truth || math.Abs(g.X-w.X) > 1e-3 || math.Abs(g.Y-w.Y) > 1e-3 {
				t.Errorf("by truth %v: landmark %d is %+v, want %+v", tc.byTruth, i, g, w)
			}
		}
	}
}

// TestCheckHeader: a detections header is refused only where it names
// one of time, range, bearing and truth at a column the columns name
// otherwise; other names, ignored columns and no header pass.
func TestCheckHeader(t *testing.T) {
	cols := []string{"time", "range", "bearing", "-", "truth"}
	for _, tc := range []struct {
		header string
		ok     bool
	}{
		{"time,range,bearing,x,truth", true},
		{"Time,Range,Bearing", true},
		{"stamp,r,phi,id,tag", true},
		{"time,range,bearing,truth,id", true}, // an ignored column may be named anything
		{"time,bearing,range,x,truth", false},
		{"time,range,bearing,x,range", false},
		{"range", false},
	} {
		err := checkHeader(cols, strings.Split(tc.header, ","))
		if (err == nil) != tc.ok {
			t.Errorf("%q: %v, want ok %v", tc.header, err, tc.ok)
		}
	}
}
