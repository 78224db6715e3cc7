package fusion

import (
	"encoding/csv"
	"io"
	"strconv"

	"github.com/clearmatch/clearmatch/localmap"
)

// WriteAssignment writes map,landmark,cluster: one row per input landmark
// in input order, cluster empty where post-processing dropped it.
func WriteAssignment(w io.Writer, s *localmap.Set, r *Result) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"map", "landmark", "cluster"})
	g := 0
	for _, m := range s.Maps {
		for _, l := range m.Landmarks {
			c := ""
			if r.Cluster[g] >= 0 {
				c = strconv.Itoa(r.Cluster[g])
			}
			g++
			cw.Write([]string{m.Name, l.Name, c})
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteLandmarks writes cluster,x,y[,z],observations: one row per fused
// landmark, in the odometry frame.
func WriteLandmarks(w io.Writer, s *localmap.Set, fused []Landmark) error {
	cw := csv.NewWriter(w)
	head := []string{"cluster", "x", "y", "observations"}
	if s.ThreeD {
		head = []string{"cluster", "x", "y", "z", "observations"}
	}
	cw.Write(head)
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	for _, l := range fused {
		row := []string{strconv.Itoa(l.Cluster), f(l.X), f(l.Y)}
		if s.ThreeD {
			row = append(row, f(l.Z))
		}
		cw.Write(append(row, strconv.Itoa(l.Observations)))
	}
	cw.Flush()
	return cw.Error()
}
