package retrieval

import (
	"path/filepath"
	"slices"
	"strings"
)

// Sequential returns the pairs of a sequence of n images (video, a drone
// strip, a walk): each image with the next overlap images, and, with
// quadratic overlap as COLMAP's sequential matcher, with the images 2^k
// ahead beyond them (loop closures at growing distances for a log n
// cost). Sorted, I < J.
func Sequential(n, overlap int) [][2]int {
	var out [][2]int
	for i := 0; i < n; i++ {
		for d := 1; d <= overlap && i+d < n; d++ {
			out = append(out, [2]int{i, i + d})
		}
		for d := 1; i+d < n; d *= 2 {
			if d > overlap {
				out = append(out, [2]int{i, i + d})
			}
		}
	}
	return SortPairs(out)
}

// Numbered reports whether the names (in the order given, sorted by name)
// look like one numbered sequence: every base name, without its
// extension, is one shared prefix followed by digits, and the numbers
// increase. Frames of a video and photos of one camera are named so.
func Numbered(names []string) bool {
	if len(names) < 3 {
		return false
	}
	prefix := ""
	last := -1
	for k, n := range names {
		b := strings.TrimSuffix(filepath.Base(n), filepath.Ext(n))
		i := len(b)
		for i > 0 && b[i-1] >= '0' && b[i-1] <= '9' {
			i--
		}
		if i == len(b) || len(b)-i > 12 {
			return false
		}
		num := 0
		for _, c := range b[i:] {
			num = num*10 + int(c-'0')
		}
		if k == 0 {
			prefix = b[:i]
		} else if b[:i] != prefix || num <= last {
			return false
		}
		last = num
	}
	return true
}

// Complete returns the pairs that transitive completion proposes: A–C
// when A–B and B–C are both verified, A–C was not tried and keep(A, C)
// holds. Each image proposes at most k of its candidates, the most similar
// first by sim (ties to the lower index); the result is the union, sorted,
// I < J.
func Complete(n int, verified [][2]int, tried map[[2]int]bool, k int, sim func(i, j int) float64, keep func(i, j int) bool) [][2]int {
	adj := make([][]int, n)
	for _, p := range verified {
		adj[p[0]] = append(adj[p[0]], p[1])
		adj[p[1]] = append(adj[p[1]], p[0])
	}
	var out [][2]int
	for a := 0; a < n; a++ {
		seen := map[int]bool{}
		var cand []int
		for _, b := range adj[a] {
			for _, c := range adj[b] {
				if c == a || seen[c] || tried[[2]int{min(a, c), max(a, c)}] || !keep(a, c) {
					continue
				}
				seen[c] = true
				cand = append(cand, c)
			}
		}
		s := make(map[int]float64, len(cand))
		for _, c := range cand {
			s[c] = sim(a, c)
		}
		slices.SortFunc(cand, func(p, q int) int {
			switch {
			case s[p] > s[q]:
				return -1
			case s[p] < s[q]:
				return 1
			}
			return p - q
		})
		for _, c := range cand[:min(k, len(cand))] {
			out = append(out, [2]int{min(a, c), max(a, c)})
		}
	}
	return SortPairs(out)
}
