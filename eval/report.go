package eval

import "github.com/clearmatch/clearmatch/clear"

// Row is one line of the evaluation table.
type Row struct {
	Scores
	CycleConsistent bool `json:"cycle_consistent"`
	Distinct        bool `json:"distinct"`
}

// Rows are the rows of the evaluation, in the paper's terms: the input
// matches, their transitive closure (what a clique-centric user gets
// without CLEAR), the closure without components that hold two
// observations of one image (what SfM track builders do with conflicting
// tracks), CLEAR's output, and CLEAR's output without items of fewer than
// MinTrack observations (the paper's post-processing).
type Rows struct {
	Input         Row `json:"input"`
	Closure       Row `json:"closure"`
	PrunedClosure Row `json:"pruned_closure"`
	Clear         Row `json:"clear"`
	ClearMinTrack Row `json:"clear_min_track"`
}

// Evaluate scores the input pairs and CLEAR's items (item per observation)
// against truth (truth item per observation, −1 for none). view[i] is the
// view of observation i.
//
// Consistency is computed: for the input and CLEAR's output from their
// pairs (CLEAR's pairs are P_ij = P_i P_jᵀ from its items), for the closure
// rows, which are partitions, as cliques by construction. Distinctness is
// computed for every row. Everything is linear in observations and pairs of
// the input and CLEAR; the closure's pairs are counted from component sizes.
func Evaluate(truth, view []int, input []clear.Pair, item []int, minTrack int) Rows {
	l := len(truth)
	var r Rows
	r.Input = PairRow(truth, view, input)
	cl := Closure(l, input)
	r.Closure = Row{ScoreGroups(truth, cl), true, groupsDistinct(view, cl)}
	pr := PruneConflicts(view, cl)
	r.PrunedClosure = Row{ScoreGroups(truth, pr), true, groupsDistinct(view, pr)}
	cp := clear.PairsOf(item)
	r.Clear = Row{ScoreGroups(truth, item), IsCycleConsistent(l, cp), pairsDistinct(view, cp)}
	mt := MinTrack(item, minTrack)
	mp := clear.PairsOf(mt)
	r.ClearMinTrack = Row{ScoreGroups(truth, mt), IsCycleConsistent(l, mp), pairsDistinct(view, mp)}
	return r
}

// conflicts returns the groups that hold two observations of one view.
func conflicts(view, label []int) map[int]bool {
	bad := map[int]bool{}
	seen := map[[2]int]bool{}
	for i, g := range label {
		if g < 0 {
			continue
		}
		k := [2]int{g, view[i]}
		if seen[k] {
			bad[g] = true
		}
		seen[k] = true
	}
	return bad
}

// PruneConflicts drops (label −1) every group that holds two observations
// of one view.
func PruneConflicts(view, label []int) []int {
	bad := conflicts(view, label)
	out := make([]int, len(label))
	for i, g := range label {
		out[i] = g
		if g >= 0 && bad[g] {
			out[i] = -1
		}
	}
	return out
}

// MinTrack drops (label −1) every item with fewer than k observations.
func MinTrack(item []int, k int) []int {
	size := map[int]int{}
	for _, g := range item {
		if g >= 0 {
			size[g]++
		}
	}
	out := make([]int, len(item))
	for i, g := range item {
		out[i] = g
		if g >= 0 && size[g] < k {
			out[i] = -1
		}
	}
	return out
}

func pairsDistinct(view []int, pairs []clear.Pair) bool { return IsDistinct(view, pairs) }

// IsDistinct reports whether pairs (unordered, each listed once) are
// distinct in the paper's sense: no block of the association matrix,
// diagonal blocks included, has two ones in a row or column. That is, no
// pair joins two observations of one view and no observation is paired
// with two observations of one other view. view[i] is the view of
// observation i.
func IsDistinct(view []int, pairs []clear.Pair) bool {
	seen := make(map[[2]int]bool, 2*len(pairs))
	for _, p := range pairs {
		if view[p.A] == view[p.B] {
			return false
		}
		for _, k := range [2][2]int{{p.A, view[p.B]}, {p.B, view[p.A]}} {
			if seen[k] {
				return false
			}
			seen[k] = true
		}
	}
	return true
}

func groupsDistinct(view, label []int) bool { return len(conflicts(view, label)) == 0 }

// PairRow scores a set of pairs (edge-centric, as the input row).
func PairRow(truth, view []int, pairs []clear.Pair) Row {
	return Row{ScorePairs(truth, pairs), IsCycleConsistent(len(truth), pairs), pairsDistinct(view, pairs)}
}
