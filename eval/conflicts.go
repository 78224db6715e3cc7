package eval

import "github.com/clearmatch/clearmatch/colmap"

// Conflicts counts, in the tracks union-find makes of the pairs' matches
// (as COLMAP chains two_view_geometries), the pairs of observations of one
// image in one track: each is a track that claims two points of one image.
// counts are the images' keypoints. Cycle-consistent tracks have none.
func Conflicts(counts []int, pairs []colmap.ScenePair) int {
	off := make([]int, len(counts)+1)
	for i, n := range counts {
		off[i+1] = off[i] + n
	}
	parent := make([]int32, off[len(counts)])
	for k := range parent {
		parent[k] = int32(k)
	}
	var find func(x int32) int32
	find = func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	linked := make([]bool, len(parent))
	for _, p := range pairs {
		for _, m := range p.Matches {
			a, b := int32(off[p.I]+m[0]), int32(off[p.J]+m[1])
			linked[a], linked[b] = true, true
			if ra, rb := find(a), find(b); ra != rb {
				parent[max(ra, rb)] = min(ra, rb)
			}
		}
	}
	perImage := map[[2]int32]int{} // (root, image) → observations
	n := 0
	for i := range counts {
		for k := off[i]; k < off[i+1]; k++ {
			if linked[k] {
				key := [2]int32{find(int32(k)), int32(i)}
				n += perImage[key] // each earlier one makes a pair with this one
				perImage[key]++
			}
		}
	}
	return n
}
