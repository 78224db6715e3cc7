package fusion

import (
	"bufio"
	"encoding/csv"
	"fmt"
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

// G2OInformation are the information matrices WriteG2O gives its edges:
// odometry between consecutive map frames (x, y in m⁻², θ in rad⁻²) and
// landmark observations (m⁻²). Zero odometry information writes no
// odometry edge: for poses that are not measured (placed by the
// association), which an edge would pass off as odometry.
type G2OInformation struct {
	OdometryXY, OdometryTheta, Landmark float64
}

// DefaultG2OInformation: odometry good to 0.1 m and 0.01 rad between
// frames, landmarks to 0.3 m.
var DefaultG2OInformation = G2OInformation{OdometryXY: 100, OdometryTheta: 10000, Landmark: 1 / 0.09}

// WriteG2O writes the fused map as a g2o 2D SLAM file: VERTEX_SE2 id x y
// θ for each map frame (ids 0 to maps−1, at its pose), VERTEX_XY id x y
// for each fused landmark (ids from maps up, at its fused position),
// EDGE_SE2 i j dx dy dθ and the upper triangle of its information
// between consecutive frames (the relative pose; none when info has no
// odometry information), and EDGE_SE2_XY frame
// landmark x y and its information for every observation kept (the
// landmark in its map's frame). It needs the map poses.
func WriteG2O(w io.Writer, s *localmap.Set, r *Result, fused []Landmark, info G2OInformation) error {
	if s.Poses == nil {
		return fmt.Errorf("fusion: a g2o file needs the map poses")
	}
	bw := bufio.NewWriter(w)
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	for k, p := range s.Poses {
		fmt.Fprintf(bw, "VERTEX_SE2 %d %s %s %s\n", k, f(p.X), f(p.Y), f(p.Theta))
	}
	m := len(s.Maps)
	for _, l := range fused {
		fmt.Fprintf(bw, "VERTEX_XY %d %s %s\n", m+l.Cluster, f(l.X), f(l.Y))
	}
	for k := 1; k < m && (info.OdometryXY > 0 || info.OdometryTheta > 0); k++ {
		d := s.Poses[k-1].Between(s.Poses[k])
		fmt.Fprintf(bw, "EDGE_SE2 %d %d %s %s %s %s 0 0 %s 0 %s\n", k-1, k, f(d.X), f(d.Y), f(d.Theta),
			f(info.OdometryXY), f(info.OdometryXY), f(info.OdometryTheta))
	}
	g := 0
	for k, mp := range s.Maps {
		for _, l := range mp.Landmarks {
			if c := r.Cluster[g]; c >= 0 {
				fmt.Fprintf(bw, "EDGE_SE2_XY %d %d %s %s %s 0 %s\n", k, m+c, f(l.X), f(l.Y), f(info.Landmark), f(info.Landmark))
			}
			g++
		}
	}
	return bw.Flush()
}
