// Package eval scores clearmatch's output against ground truth:
//
//   - associations: precision, recall and F1 over unordered cross-view
//     pairs (Evaluate), the transitive closure of an inconsistent
//     association and consistency checks, for Hotel and Graffiti;
//   - matches and tracks under true cameras: Sampson distances to the true
//     epipolar geometry (TrueFundamental, ScoreStages) and tracks
//     triangulated from the true projections (ScoreTracks);
//   - SfM cameras: a reconstruction's poses (colmap.Model) against
//     ground-truth cameras (datasets.Camera) by a similarity on the centres
//     (Umeyama), then position and rotation errors (EvaluateSfM), the
//     protocol of Strecha et al.'s benchmark as openMVG runs it.
//
// It is pure Go and linear in the number of observations and matches:
// pair counts come from group sizes, never from listing pairs.
package eval

import "github.com/clearmatch/clearmatch/clear"

// Scores are precision, recall and F1 over unordered pairs of observations,
// each counted once.
type Scores struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	Correct   int64   `json:"correct"`
	Returned  int64   `json:"returned"`
	GT        int64   `json:"gt"`
}

func newScores(correct, returned, gt int64) Scores {
	s := Scores{Correct: correct, Returned: returned, GT: gt}
	if returned > 0 {
		s.Precision = float64(correct) / float64(returned)
	}
	if gt > 0 {
		s.Recall = float64(correct) / float64(gt)
	}
	if s.Precision+s.Recall > 0 {
		s.F1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
	}
	return s
}

func choose2(n int64) int64 { return n * (n - 1) / 2 }

// truthPairs counts the ground-truth pairs: observations sharing a truth
// item (truth[i] < 0 means observation i belongs to no item).
func truthPairs(truth []int) int64 {
	size := map[int]int64{}
	for _, t := range truth {
		if t >= 0 {
			size[t]++
		}
	}
	var gt int64
	for _, s := range size {
		gt += choose2(s)
	}
	return gt
}

// ScorePairs scores an explicit list of pairs (for example the input
// matches, which need not be consistent). Each unordered pair must appear
// once.
func ScorePairs(truth []int, pairs []clear.Pair) Scores {
	var correct int64
	for _, p := range pairs {
		if truth[p.A] >= 0 && truth[p.A] == truth[p.B] {
			correct++
		}
	}
	return newScores(correct, int64(len(pairs)), truthPairs(truth))
}

// ScoreGroups scores a partition given as a group label per observation
// (label < 0: in no group): every two observations of a group are
// associated. The counts come from the sizes of groups and of their
// intersections with truth items.
func ScoreGroups(truth, label []int) Scores {
	size := map[int]int64{}
	both := map[[2]int]int64{}
	for i, g := range label {
		if g < 0 {
			continue
		}
		size[g]++
		if truth[i] >= 0 {
			both[[2]int{g, truth[i]}]++
		}
	}
	var returned, correct int64
	for _, s := range size {
		returned += choose2(s)
	}
	for _, s := range both {
		correct += choose2(s)
	}
	return newScores(correct, returned, truthPairs(truth))
}

// Closure returns the transitive closure of pairs over l observations as a
// component label per observation: every connected component becomes one
// clique (paper, section "Applications").
func Closure(l int, pairs []clear.Pair) []int {
	parent := make([]int, l)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, p := range pairs {
		a, b := find(p.A), find(p.B)
		if a != b {
			parent[max(a, b)] = min(a, b)
		}
	}
	label := make([]int, l)
	for i := range label {
		label[i] = find(i)
	}
	return label
}

// IsCycleConsistent reports whether pairs over l observations form a
// disjoint union of cliques: every connected component is complete. It
// counts the distinct pairs inside each component against its size.
func IsCycleConsistent(l int, pairs []clear.Pair) bool {
	label := Closure(l, pairs)
	size := map[int]int64{}
	for _, c := range label {
		size[c]++
	}
	edges := map[int]int64{}
	seen := make(map[clear.Pair]bool, len(pairs))
	for _, p := range pairs {
		q := clear.Pair{A: min(p.A, p.B), B: max(p.A, p.B)}
		if q.A == q.B || seen[q] {
			continue
		}
		seen[q] = true
		edges[label[q.A]]++
	}
	for c, s := range size {
		if edges[c] != choose2(s) {
			return false
		}
	}
	return true
}
