package fusion

import (
	"math"

	"github.com/clearmatch/clearmatch/localmap"
)

// ContestedShare is how far an observation may lie from its cluster's
// landmark, as a share of its distance to a rival landmark, and stay in
// its cluster. Beyond it the observation lies over three eighths of the
// way to the rival, where many times more observations belong to the
// rival than nearer their landmark (docs/decisions.md, "Leaving
// contested observations out").
const ContestedShare = 0.6

// contested is which of lms's observations (clusters, the map at pose)
// lie farther from their cluster's landmark than ContestedShare of their
// distance to a rival's: an established cluster of the map's frame group
// (l.key) that is not a piece of their own (l.pieces). Which of the two
// landmarks such an observation saw is not known.
func (l *relocation) contested(lms []localmap.Landmark, pose localmap.Pose, clusters []int) []int {
	var out []int
	for j, c := range clusters {
		if c < 0 || c >= len(l.marks) {
			continue
		}
		x, y := pose.Apply(lms[j].X, lms[j].Y)
		reach := math.Hypot(x-l.marks[c].X, y-l.marks[c].Y) / ContestedShare
		rival := false
		l.grid.Near(x, y, reach, func(k int32) {
			r := int(k)
			if r != c && l.clusterKey[r] == l.key && !l.pieces(r, c) && math.Hypot(x-l.marks[r].X, y-l.marks[r].Y) < reach {
				rival = true
			}
		})
		if rival {
			out = append(out, j)
		}
	}
	return out
}
