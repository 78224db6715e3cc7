package localmap

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// ReadCSV reads local maps from a CSV file with a header line naming its
// columns: map, landmark, x, y (required), z and truth (optional), in any
// order (other columns are ignored). One row per landmark; map and
// landmark are names (integers or strings), a landmark's name unique
// within its map; x, y, z in metres in the map's frame; truth the
// landmark's true identity (the same name across maps), empty when
// unknown. Maps keep the order of their first row, landmarks the order
// of their rows. Errors name the file and line.
func ReadCSV(path string) (*Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, cols, err := readTable(path, f, []string{"map", "landmark", "x", "y"}, []string{"z", "truth"})
	if err != nil {
		return nil, err
	}
	s := &Set{ThreeD: cols["z"] >= 0}
	index := map[string]int{}
	for _, r := range rows {
		name := r.fields[cols["map"]]
		k, ok := index[name]
		if !ok {
			k = len(s.Maps)
			index[name] = k
			s.Maps = append(s.Maps, Map{Name: name})
		}
		l := Landmark{Name: r.fields[cols["landmark"]]}
		if l.Name == "" || name == "" {
			return nil, fmt.Errorf("%s:%d: empty map or landmark name", path, r.line)
		}
		for _, c := range []struct {
			col string
			v   *float64
		}{{"x", &l.X}, {"y", &l.Y}, {"z", &l.Z}} {
			if cols[c.col] < 0 {
				continue
			}
			if *c.v, err = coordinate(r.fields[cols[c.col]]); err != nil {
				return nil, fmt.Errorf("%s:%d: %s: %w", path, r.line, c.col, err)
			}
		}
		if cols["truth"] >= 0 {
			l.Truth = r.fields[cols["truth"]]
		}
		for _, o := range s.Maps[k].Landmarks {
			if o.Name == l.Name {
				return nil, fmt.Errorf("%s:%d: landmark %q appears twice in map %q", path, r.line, l.Name, name)
			}
		}
		s.Maps[k].Landmarks = append(s.Maps[k].Landmarks, l)
	}
	if len(s.Maps) == 0 {
		return nil, fmt.Errorf("%s: no landmarks (a header line and one row per landmark)", path)
	}
	return s, nil
}

// ReadPoses reads each map frame's pose in the odometry frame into s from
// a CSV file with a header line naming map, x, y and theta (radians), and
// optionally robot: one row per map of s, no other. With a robot column,
// each robot's maps are in its own odometry frame (s.Robots), in the
// order of s.
func ReadPoses(path string, s *Set) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	rows, cols, err := readTable(path, f, []string{"map", "x", "y", "theta"}, []string{"robot"})
	if err != nil {
		return err
	}
	index := map[string]int{}
	for k, m := range s.Maps {
		index[m.Name] = k
	}
	poses := make([]Pose, len(s.Maps))
	have := make([]bool, len(s.Maps))
	var robots []string
	if cols["robot"] >= 0 {
		robots = make([]string, len(s.Maps))
	}
	for _, r := range rows {
		k, ok := index[r.fields[cols["map"]]]
		if !ok {
			return fmt.Errorf("%s:%d: map %q is not among the local maps", path, r.line, r.fields[cols["map"]])
		}
		if have[k] {
			return fmt.Errorf("%s:%d: map %q has a second pose", path, r.line, s.Maps[k].Name)
		}
		var v [3]float64
		for i, c := range []string{"x", "y", "theta"} {
			parse := coordinate
			if c == "theta" {
				parse = number
			}
			if v[i], err = parse(r.fields[cols[c]]); err != nil {
				return fmt.Errorf("%s:%d: %s: %w", path, r.line, c, err)
			}
		}
		poses[k], have[k] = Pose{X: v[0], Y: v[1], Theta: v[2]}, true
		if robots != nil {
			if robots[k] = strings.TrimSpace(r.fields[cols["robot"]]); robots[k] == "" {
				return fmt.Errorf("%s:%d: map %q: an empty robot", path, r.line, s.Maps[k].Name)
			}
		}
	}
	for k, ok := range have {
		if !ok {
			return fmt.Errorf("%s: no pose for map %q", path, s.Maps[k].Name)
		}
	}
	s.Poses, s.Robots = poses, robots
	return nil
}

// row is one data line of a table.
type row struct {
	line   int
	fields []string
}

// readTable reads a CSV table whose header names the required columns
// (and maybe the optional ones); cols maps each name to its column, −1
// for an optional one that is absent.
func readTable(path string, r io.Reader, required, optional []string) ([]row, map[string]int, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("%s: empty file (want a header line: %s)", path, strings.Join(required, ","))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, csvError(err))
	}
	cols := map[string]int{}
	for _, c := range append(append([]string(nil), required...), optional...) {
		cols[c] = -1
	}
	for i, h := range head {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))) // a spreadsheet's byte-order mark
		if _, ok := cols[h]; ok && cols[h] < 0 {
			cols[h] = i
		}
	}
	for _, c := range required {
		if cols[c] < 0 {
			line, _ := cr.FieldPos(0)
			return nil, nil, fmt.Errorf("%s:%d: no %q column in the header (want %s)", path, line, c, strings.Join(required, ","))
		}
	}
	var rows []row
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return rows, cols, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, csvError(err))
		}
		line, _ := cr.FieldPos(0)
		for _, i := range cols {
			if i >= len(rec) {
				return nil, nil, fmt.Errorf("%s:%d: %d fields, the header names %d", path, line, len(rec), len(head))
			}
		}
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
		}
		rows = append(rows, row{line, rec})
	}
}

// csvError drops encoding/csv's record prefix, keeping line and cause.
func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("line %d: %v", pe.Line, pe.Err)
	}
	return err
}

// coordinate parses a finite number within ±MaxCoordinate.
func coordinate(s string) (float64, error) {
	v, err := number(s)
	if _, far := beyond(v); err == nil && far {
		return 0, fmt.Errorf("%s m is beyond ±%g m", s, MaxCoordinate)
	}
	return v, err
}

// number parses a finite number.
func number(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !finite(v) {
		return 0, fmt.Errorf("%q is not a finite number", s)
	}
	return v, nil
}

// WriteCSV writes s in ReadCSV's format (z and truth columns when s has
// them).
func WriteCSV(w io.Writer, s *Set) error {
	cw := csv.NewWriter(w)
	truth := s.HasTruth()
	head := []string{"map", "landmark", "x", "y"}
	if s.ThreeD {
		head = append(head, "z")
	}
	if truth {
		head = append(head, "truth")
	}
	cw.Write(head)
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	for _, m := range s.Maps {
		for _, l := range m.Landmarks {
			row := []string{m.Name, l.Name, f(l.X), f(l.Y)}
			if s.ThreeD {
				row = append(row, f(l.Z))
			}
			if truth {
				row = append(row, l.Truth)
			}
			cw.Write(row)
		}
	}
	cw.Flush()
	return cw.Error()
}

// WritePoses writes s's poses in ReadPoses' format.
func WritePoses(w io.Writer, s *Set) error {
	cw := csv.NewWriter(w)
	head := []string{"map", "x", "y", "theta"}
	if s.Robots != nil {
		head = append(head, "robot")
	}
	cw.Write(head)
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
	for k, p := range s.Poses {
		row := []string{s.Maps[k].Name, f(p.X), f(p.Y), f(p.Theta)}
		if s.Robots != nil {
			row = append(row, s.Robots[k])
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}
