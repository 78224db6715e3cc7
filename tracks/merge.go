package tracks

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/clearmatch/clearmatch/pairwise"
)

// MergeOptions configure Merge. The zero value is the default: off, as
// clearmatch match runs (clearmatch tracks turns it on).
type MergeOptions struct {
	// On runs the stage.
	On bool
	// MinLinks is the fewest verified matches between two tracks that
	// merge them; 0 means 1.
	MinLinks int
}

// Validate reports options Merge cannot use.
func (o MergeOptions) Validate() error {
	if o.MinLinks < 0 {
		return fmt.Errorf("tracks: merge links %d is negative", o.MinLinks)
	}
	return nil
}

// MergeStats counts what Merge did.
type MergeStats struct {
	// Merges counts the tracks joined to another, Refused the pairs of
	// linked tracks left apart because they share an image.
	Merges  int `json:"merges"`
	Refused int `json:"refused"`
}

// Merge joins two tracks that verified matches link when no image would
// then hold two of the joined track's keypoints: union-find, as SfM
// engines build tracks, where it stays cycle consistent. CLEAR splits a
// group of matches by its universe estimate, which on sparse matches
// (each keypoint matched in a few of the views that see it) exceeds the
// true number of points, so it also splits tracks that no conflict
// divides; the mapper takes shorter tracks as weaker constraints. Pairs of
// tracks are served by the number of matches linking them, most first
// (ties by track), so the best-supported merge wins where two conflict.
// It can run on one connected component at a time: links never leave one.
func Merge(ctx context.Context, v *Views, t Tracks, o MergeOptions) (Tracks, MergeStats, error) {
	var st MergeStats
	if !o.On || t.Pairs == nil {
		return t, st, nil
	}
	if err := o.Validate(); err != nil {
		return t, st, err
	}
	off := v.offsets()
	links := trackLinks(t.Item, off, t.Pairs)
	type link struct{ a, b, n int }
	var cands []link
	for k, n := range links {
		if n >= max(o.MinLinks, 1) {
			cands = append(cands, link{k[0], k[1], n})
		}
	}
	slices.SortFunc(cands, func(x, y link) int {
		return cmp.Or(y.n-x.n, x.a-y.a, x.b-y.b)
	})
	if err := ctx.Err(); err != nil {
		return t, st, err
	}
	images := trackImages(t.Item, off)
	parent := map[int]int{}
	find := func(x int) int {
		for {
			p, ok := parent[x]
			if !ok {
				return x
			}
			if gp, ok := parent[p]; ok {
				parent[x] = gp
			}
			x = p
		}
	}
	for _, c := range cands {
		ra, rb := find(c.a), find(c.b)
		if ra == rb {
			continue
		}
		merged, ok := mergeDisjoint(images[ra], images[rb])
		if !ok {
			st.Refused++
			continue
		}
		root, other := min(ra, rb), max(ra, rb)
		parent[other] = root
		images[root] = merged
		delete(images, other)
		st.Merges++
	}
	if st.Merges == 0 {
		return t, st, nil
	}
	item := make([]int, len(t.Item))
	for k, it := range t.Item {
		item[k] = it
		if it >= 0 {
			item[k] = find(it)
		}
	}
	t.Item = item
	return t, st, nil
}

// trackLinks counts the verified matches between every two tracks (lower
// item first).
func trackLinks(item, off []int, pairs []pairwise.Verified) map[[2]int]int {
	links := map[[2]int]int{}
	for _, p := range pairs {
		if p.Model == pairwise.NoModel {
			continue
		}
		for _, m := range p.Matches {
			a, b := item[off[p.I]+int(m.A)], item[off[p.J]+int(m.B)]
			if a >= 0 && b >= 0 && a != b {
				links[[2]int{min(a, b), max(a, b)}]++
			}
		}
	}
	return links
}

// trackImages lists each track's images, in increasing order.
func trackImages(item, off []int) map[int][]int32 {
	images := map[int][]int32{}
	for i := range len(off) - 1 {
		for k := off[i]; k < off[i+1]; k++ {
			if it := item[k]; it >= 0 {
				images[it] = append(images[it], int32(i))
			}
		}
	}
	return images
}

// mergeDisjoint merges two increasing image lists, false when they share
// an image.
func mergeDisjoint(a, b []int32) ([]int32, bool) {
	out := make([]int32, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0] == b[0]:
			return nil, false
		case a[0] < b[0]:
			out, a = append(out, a[0]), a[1:]
		default:
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...), true
}
