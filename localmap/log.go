package localmap

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Reading is one odometry reading, held until the next: its time
// (seconds) and the motion model's two inputs (speed and turn rate, or
// speed and steering).
type Reading struct{ T, U1, U2 float64 }

// Detection is one range–bearing detection of a landmark: time (seconds),
// range (metres), bearing (radians, counter-clockwise, in the log's
// convention: see LogOptions.BearingAhead) and, when the log has it, the
// landmark's true identity.
type Detection struct {
	T, Range, Bearing float64
	Truth             string
	line              int
}

// Log is a robot's run: odometry and detections, each in time order,
// and, when known, positions measured apart from them (Reference: GPS,
// or the true path of a simulated run).
type Log struct {
	Odometry       []Reading
	Detections     []Detection
	OdometryFile   string
	DetectionsFile string
	Reference      []Fix
}

// The files ReadLog looks for in a folder, in order.
var (
	OdometryFiles   = []string{"odometry.csv", "odometry.txt", "odometry.dat", "inputs.dat"}
	DetectionsFiles = []string{"detections.csv", "detections.txt", "detections.dat", "measurements.dat"}
)

// ReadLog reads a robot's log from a folder holding an odometry file
// (OdometryFiles: time, then the model's two inputs) and a detections
// file (DetectionsFiles) whose columns columns names, comma separated,
// from time, range, bearing, truth and - (ignored); columns after the
// named ones are ignored. Fields are separated by spaces, tabs or commas;
// lines starting with # and a first line that is not numbers (a header)
// are skipped, but a detections header naming a column the columns name
// otherwise is refused (checkHeader). Times must not decrease; errors
// name the file and line.
func ReadLog(dir, columns string) (*Log, error) {
	odo, err := FindFile(dir, OdometryFiles)
	if err != nil {
		return nil, err
	}
	det, err := FindFile(dir, DetectionsFiles)
	if err != nil {
		return nil, err
	}
	return ReadLogFiles(odo, det, columns)
}

// ReadLogFiles reads a robot's log from the two files ReadLog looks for,
// named: an odometry file and a detections file of the given columns.
func ReadLogFiles(odo, det, columns string) (*Log, error) {
	cols, err := detectionColumns(columns)
	if err != nil {
		return nil, err
	}
	l := &Log{OdometryFile: odo, DetectionsFile: det}
	err = readLines(odo, 3, nil, func(line int, f []string) error {
		v, err := numbers(f[:3])
		if err != nil {
			return err
		}
		if n := len(l.Odometry); n > 0 && v[0] < l.Odometry[n-1].T {
			return fmt.Errorf("time %v is before the previous line's %v", v[0], l.Odometry[n-1].T)
		}
		l.Odometry = append(l.Odometry, Reading{T: v[0], U1: v[1], U2: v[2]})
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = readLines(det, len(cols), func(_ int, f []string) error { return checkHeader(cols, f) }, func(line int, f []string) error {
		d, err := parseDetection(cols, f)
		if err != nil {
			return err
		}
		if n := len(l.Detections); n > 0 && d.T < l.Detections[n-1].T {
			return fmt.Errorf("time %v is before the previous line's %v", d.T, l.Detections[n-1].T)
		}
		d.line = line
		l.Detections = append(l.Detections, d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(l.Odometry) == 0 {
		return nil, fmt.Errorf("%s: no odometry readings", odo)
	}
	if len(l.Detections) == 0 {
		return nil, fmt.Errorf("%s: no detections", det)
	}
	return l, nil
}

// detectionColumns parses the column list of the detections file.
func detectionColumns(columns string) ([]string, error) {
	cols := strings.Split(columns, ",")
	seen := map[string]bool{}
	for i, c := range cols {
		c = strings.TrimSpace(c)
		cols[i] = c
		switch c {
		case "time", "range", "bearing", "truth":
			if seen[c] {
				return nil, fmt.Errorf("detection columns %q: %s twice", columns, c)
			}
			seen[c] = true
		case "-":
		default:
			return nil, fmt.Errorf("detection columns %q: %q is not time, range, bearing, truth or -", columns, c)
		}
	}
	for _, c := range []string{"time", "range", "bearing"} {
		if !seen[c] {
			return nil, fmt.Errorf("detection columns %q: no %s", columns, c)
		}
	}
	return cols, nil
}

// checkHeader refuses a detections header that names, where the columns
// name time, range, bearing or truth, another of those four: the columns
// (a manifest's or the flag's) then misread the file, range as bearing
// or the like, and every map would be wrong without a word. Other names
// say nothing and pass.
func checkHeader(cols, f []string) error {
	for i := range min(len(cols), len(f)) {
		h := strings.ToLower(strings.TrimSpace(f[i]))
		switch h {
		case "time", "range", "bearing", "truth":
			if cols[i] != "-" && cols[i] != h {
				return fmt.Errorf("column %d is %q in the header but %q in the detection columns %s (-columns or the log's manifest)", i+1, f[i], cols[i], strings.Join(cols, ","))
			}
		}
	}
	return nil
}

func parseDetection(cols, f []string) (Detection, error) {
	var d Detection
	for i, c := range cols {
		if c == "-" || c == "truth" {
			if c == "truth" {
				d.Truth = f[i]
			}
			continue
		}
		v, err := number(f[i])
		if err != nil {
			return d, fmt.Errorf("%s: %w", c, err)
		}
		switch c {
		case "time":
			d.T = v
		case "range":
			d.Range = v
		case "bearing":
			d.Bearing = v
		}
	}
	if d.Range < 0 {
		return d, fmt.Errorf("range %v is negative", d.Range)
	}
	return d, nil
}

// FindFile returns the first of names that dir holds.
func FindFile(dir string, names []string) (string, error) {
	for _, n := range names {
		p := filepath.Join(dir, n)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: no %s", dir, strings.Join(names, " or "))
}

// readLines calls fn with the fields of every data line of a text file
// (at least minFields each), and header, when not nil, with those of its
// header line; their errors prefixed with "path:line: ".
func readLines(path string, minFields int, header, fn func(line int, f []string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	n, data := 0, 0
	for sc.Scan() {
		n++
		text := strings.TrimSpace(strings.TrimPrefix(sc.Text(), "\ufeff"))
		if text == "" || text[0] == '#' {
			continue
		}
		fields := strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
		if len(fields) == 0 {
			return fmt.Errorf("%s:%d: no fields, only separators", path, n)
		}
		if data == 0 && !numeric(fields[0]) {
			if header != nil {
				if err := header(n, fields); err != nil {
					return fmt.Errorf("%s:%d: %w", path, n, err)
				}
			}
			continue // a header line
		}
		data++
		if len(fields) < minFields {
			return fmt.Errorf("%s:%d: %d fields, want %d", path, n, len(fields), minFields)
		}
		if err := fn(n, fields); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %w", path, n+1, err)
	}
	return nil
}

func numeric(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func numbers(f []string) ([]float64, error) {
	v := make([]float64, len(f))
	for i, s := range f {
		var err error
		if v[i], err = number(s); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// LogOptions configure FromLog.
type LogOptions struct {
	// Window is each local map's span, seconds; 0 means 20.
	Window float64
	// Motion integrates the odometry (Unicycle or Ackermann).
	Motion Motion
	// BearingAhead is the bearing, in the log's convention, of straight
	// ahead: 0 for most sensors, π/2 for Victoria Park's laser.
	BearingAhead float64
	// MergeRadius is the distance (metres) within which sightings in one
	// window are one landmark; 0 chooses it from the log (AutoMergeRadius).
	MergeRadius float64
	// MergeByTruth merges a window's sightings by their truth instead, as
	// a robot that reads each landmark's barcode or tag builds its maps:
	// the maps then hold no merging error, and only the association
	// across maps is left to fuse. A detection without a truth stands
	// alone.
	MergeByTruth bool
	// SkipEmpty skips windows without a detection; by default one is an
	// error.
	SkipEmpty bool
	// Start and Duration (seconds from the first detection) keep a part
	// of the run; Duration 0 keeps the rest of it.
	Start, Duration float64
}

func (o *LogOptions) defaults(l *Log) {
	if o.Window == 0 {
		o.Window = 20
	}
	if o.MergeRadius == 0 && !o.MergeByTruth {
		o.MergeRadius = AutoMergeRadius(l, o.BearingAhead)
	}
}

// AutoMergeRadius chooses the merge radius from the log itself: detections
// made at one instant are distinct landmarks, so their nearest-neighbour
// distances tell how far apart landmarks lie; the radius is 0.4 times the
// 10th percentile of those distances, within [0.2, 2] metres (2 on
// Victoria Park's trees, 0.4 for landmarks a metre apart), or 0.5 when no
// instant has two detections.
func AutoMergeRadius(l *Log, bearingAhead float64) float64 {
	var nn []float64
	ds := l.Detections
	for i := 0; i < len(ds); {
		j := i
		for j < len(ds) && ds[j].T == ds[i].T {
			j++
		}
		for a := i; a < j; a++ {
			best := math.Inf(1)
			for b := i; b < j; b++ {
				if a != b {
					best = min(best, sensorDistance(ds[a], ds[b], bearingAhead))
				}
			}
			if best > 0 && !math.IsInf(best, 1) {
				nn = append(nn, best)
			}
		}
		i = j
	}
	if len(nn) == 0 {
		return 0.5
	}
	sort.Float64s(nn)
	return min(2, max(0.2, 0.4*nn[len(nn)/10]))
}

// sensorDistance is the distance between two detections of one instant.
func sensorDistance(a, b Detection, ahead float64) float64 {
	ax, ay := a.Range*math.Cos(a.Bearing-ahead), a.Range*math.Sin(a.Bearing-ahead)
	bx, by := b.Range*math.Cos(b.Bearing-ahead), b.Range*math.Sin(b.Bearing-ahead)
	return math.Hypot(ax-bx, ay-by)
}

// Check reports options FromLog cannot use.
func (o LogOptions) Check() error {
	if o.Motion == nil {
		return fmt.Errorf("no motion model")
	}
	if err := o.Motion.Check(); err != nil {
		return err
	}
	if o.Start < 0 || o.Duration < 0 || !finite(o.Start, o.Duration) {
		return fmt.Errorf("start %v s, duration %v s: want 0 or more", o.Start, o.Duration)
	}
	if o.Window < 0 || !finite(o.Window) || o.MergeRadius < 0 || !finite(o.MergeRadius, o.BearingAhead) {
		return fmt.Errorf("window %v s, merge radius %v m: want positive numbers", o.Window, o.MergeRadius)
	}
	return nil
}

// FromLog cuts the log into windows of o.Window seconds from its first
// detection and makes each a local map: the odometry dead-reckoned with
// o.Motion (each reading held until the next), each detection placed in
// the odometry frame and then in the frame of the window's first pose,
// and the sightings within o.MergeRadius of a landmark of the window (its
// running mean) merged into it. Map k is named by its window's start
// time; Poses hold each window's first pose, Trajectory the path from the
// first detection kept. Detections the odometry does not reach
// (odometryCovers) are refused.
func FromLog(l *Log, o LogOptions) (*Set, error) {
	o.defaults(l)
	if err := o.Check(); err != nil {
		return nil, err
	}
	dr := &deadReckoning{odo: l.Odometry, motion: o.Motion}
	dets := o.span(l.Detections)
	if len(dets) == 0 {
		return nil, fmt.Errorf("%s: no detection from %v s to %v s after the first", l.DetectionsFile, o.Start, o.Start+o.Duration)
	}
	if o.MergeByTruth && !slices.ContainsFunc(dets, func(d Detection) bool { return d.Truth != "" }) {
		return nil, fmt.Errorf("%s: merging by truth, but no detection has a truth (name the column in the detections' columns)", l.DetectionsFile)
	}
	if err := l.odometryCovers(dets); err != nil {
		return nil, err
	}
	t0 := dets[0].T
	s := &Set{}
	var cur *window
	for _, d := range dets {
		k := int(math.Floor((d.T - t0) / o.Window))
		for cur == nil || k > cur.index {
			next := 0
			if cur != nil {
				if err := s.add(cur, l.DetectionsFile, o); err != nil {
					return nil, err
				}
				next = cur.index + 1
			}
			start := t0 + float64(next)*o.Window
			cur = &window{index: next, start: start, pose: dr.at(start)}
		}
		p := dr.at(d.T)
		b := d.Bearing - o.BearingAhead
		x, y := p.Apply(d.Range*math.Cos(b), d.Range*math.Sin(b))
		wx, wy := cur.pose.Inverse(x, y)
		if o.MergeByTruth {
			cur.sightByTruth(wx, wy, d.Truth)
		} else {
			cur.sight(wx, wy, d.Truth, o.MergeRadius)
		}
	}
	if err := s.add(cur, l.DetectionsFile, o); err != nil {
		return nil, err
	}
	// The path the maps cover: from the span's first detection on (the
	// odometry before it only carried the pose there).
	first := sort.SearchFloat64s(dr.times, t0)
	s.Trajectory, s.TrajectoryTimes, s.MergeRadius = dr.path[first:], dr.times[first:], o.MergeRadius
	return s, nil
}

// span returns the detections from o.Start for o.Duration seconds after
// the first one (all of them by default).
func (o LogOptions) span(ds []Detection) []Detection {
	if o.Start == 0 && o.Duration == 0 {
		return ds
	}
	from, to := ds[0].T+o.Start, math.Inf(1)
	if o.Duration > 0 {
		to = from + o.Duration
	}
	var out []Detection
	for _, d := range ds {
		if d.T >= from && d.T < to {
			out = append(out, d)
		}
	}
	return out
}

// window is one local map being built.
type window struct {
	index     int
	start     float64
	pose      Pose
	landmarks []sighted
}

// sighted is a landmark of a window: the sum of its sightings' positions
// and their count, and how often each truth was seen.
type sighted struct {
	sx, sy float64
	n      int
	truth  map[string]int
}

// sight merges a sighting at (x, y) into the nearest landmark within r,
// or starts a new one.
func (w *window) sight(x, y float64, truth string, r float64) {
	best, bd := -1, r
	for i, l := range w.landmarks {
		if d := math.Hypot(l.sx/float64(l.n)-x, l.sy/float64(l.n)-y); d <= bd {
			best, bd = i, d
		}
	}
	w.into(best, x, y, truth)
}

// sightByTruth merges a sighting at (x, y) into the window's landmark of
// the same truth, or starts a new one.
func (w *window) sightByTruth(x, y float64, truth string) {
	best := -1
	for i, l := range w.landmarks {
		if truth != "" && l.truth[truth] > 0 {
			best = i
			break
		}
	}
	w.into(best, x, y, truth)
}

// into adds a sighting at (x, y) to the window's landmark best, or to a
// new one when best is −1.
func (w *window) into(best int, x, y float64, truth string) {
	if best < 0 {
		w.landmarks = append(w.landmarks, sighted{truth: map[string]int{}})
		best = len(w.landmarks) - 1
	}
	l := &w.landmarks[best]
	l.sx, l.sy, l.n = l.sx+x, l.sy+y, l.n+1
	if truth != "" {
		l.truth[truth]++
	}
}

// add appends a finished window as a map (an empty one is an error unless
// o.SkipEmpty).
func (s *Set) add(w *window, file string, o LogOptions) error {
	if len(w.landmarks) == 0 {
		if o.SkipEmpty {
			return nil
		}
		return fmt.Errorf("%s: no detection from %.3f s to %.3f s (window %d); use a longer window or skip empty ones", file, w.start, w.start+o.Window, w.index)
	}
	m := Map{Name: strconv.FormatFloat(w.start, 'f', -1, 64)}
	for i, l := range w.landmarks {
		m.Landmarks = append(m.Landmarks, Landmark{Name: strconv.Itoa(i), X: l.sx / float64(l.n), Y: l.sy / float64(l.n), Truth: majority(l.truth)})
	}
	s.Maps = append(s.Maps, m)
	s.Poses = append(s.Poses, w.pose)
	s.Times = append(s.Times, w.start)
	return nil
}

// majority is the truth seen most often (ties to the smaller name), or "".
func majority(c map[string]int) string {
	best, bn := "", 0
	for t, n := range c {
		if n > bn || n == bn && t < best {
			best, bn = t, n
		}
	}
	return best
}

// deadReckoning integrates odometry forward in time.
type deadReckoning struct {
	odo    []Reading
	motion Motion
	next   int     // the first reading not yet in effect
	t      float64 // the time of pose
	u      Reading // the reading in effect
	pose   Pose
	path   []Pose
	times  []float64
	begun  bool
}

// at returns the pose at time t (not before the previous call's).
func (d *deadReckoning) at(t float64) Pose {
	if !d.begun {
		d.t, d.begun = t, true
		if len(d.odo) > 0 && d.odo[0].T < t {
			d.t = d.odo[0].T
		}
	}
	for d.next < len(d.odo) && d.odo[d.next].T <= t {
		r := d.odo[d.next]
		d.advance(r.T)
		d.u = r
		d.next++
		if d.next%10 == 0 {
			d.path, d.times = append(d.path, d.pose), append(d.times, d.t)
		}
	}
	d.advance(t)
	return d.pose
}

func (d *deadReckoning) advance(t float64) {
	if dt := t - d.t; dt > 0 {
		d.pose = d.motion.Step(d.pose, d.u.U1, d.u.U2, dt)
		d.t = t
	}
}

// WriteLog writes l into dir in ReadLog's format: odometry.csv (time,
// then the two inputs) and detections.csv (time, range, bearing, and
// truth when any detection has one: read it with columns
// "time,range,bearing,truth"), and gps.csv when l has a Reference.
func WriteLog(dir string, l *Log) error {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	var odo, det strings.Builder
	odo.WriteString("time,u1,u2\n")
	for _, r := range l.Odometry {
		odo.WriteString(f(r.T) + "," + f(r.U1) + "," + f(r.U2) + "\n")
	}
	truth := false
	for _, d := range l.Detections {
		truth = truth || d.Truth != ""
	}
	det.WriteString("time,range,bearing")
	if truth {
		det.WriteString(",truth")
	}
	det.WriteString("\n")
	for _, d := range l.Detections {
		det.WriteString(f(d.T) + "," + f(d.Range) + "," + f(d.Bearing))
		if truth {
			det.WriteString("," + d.Truth)
		}
		det.WriteString("\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "odometry.csv"), []byte(odo.String()), 0o644); err != nil {
		return err
	}
	if l.Reference != nil {
		if err := os.WriteFile(filepath.Join(dir, ReferenceFiles[0]), formatReference(l.Reference), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "detections.csv"), []byte(det.String()), 0o644)
}
