package clear

// Pair is an association between observations A < B.
type Pair struct{ A, B int }

// Pairs returns the consistent pairwise associations P_ij = P_i P_jᵀ implied
// by the lifting permutations: every pair of observations that share an
// item, with A < B, sorted by A then B.
func (r *Result) Pairs() []Pair {
	return PairsOf(r.Item)
}

// PairsOf returns the pairs of observations that share an item, A < B,
// sorted; item[i] < 0 means observation i is in no item.
func PairsOf(item []int) []Pair {
	members := map[int][]int{}
	for i, it := range item {
		if it >= 0 {
			members[it] = append(members[it], i)
		}
	}
	var out []Pair
	for a, it := range item {
		if it < 0 {
			continue
		}
		for _, b := range members[it] {
			if b > a {
				out = append(out, Pair{a, b})
			}
		}
	}
	return out
}
