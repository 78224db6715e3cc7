package main

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/clearmatch/clearmatch/clear"
)

// cutInfo is what the cut step decides for every bucket and view shard,
// kept in the job's folder (parts/cut).
type cutInfo struct {
	// Whole is set when the universe exceeds the eigenvalue count: the
	// assembly then solves CLEAR whole (clear.ErrWholeSolve).
	Whole bool
	// M is the universe size, Below the eigenvalue count, L the
	// observations and Edges the associations the parts hold.
	M, Below, L int
	Edges       int64
	Cut         clear.Pivot
	Lowest      []clear.Pivot
	Stats       clear.Result // counts only
}

func cutPath(dir string) string { return filepath.Join(dir, "parts", "cut") }

func writeCut(dir string, c *cutInfo) error { return writeGob(cutPath(dir), "CLEAR's cut", c) }

// readCut reads the cut; a job without one (the labels did not settle, or
// no pair verified) has none, and nil is returned.
func readCut(dir string) (*cutInfo, error) {
	var c cutInfo
	err := readGob(cutPath(dir), "CLEAR's cut", &c)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// readCut reads the plan and the cut, which the steps after the cut need.
func (j *job) readCut() (*cutInfo, error) {
	if err := j.readPlan(); err != nil {
		return nil, err
	}
	c, err := readCut(j.Dir)
	if err == nil && (c == nil || c.Whole) {
		err = fmt.Errorf("CLEAR's cut is missing from %s", j.Dir)
	}
	return c, err
}

// cutFn runs once after every bucket's partFn (it takes their summaries
// under one key): it sets the universe size and merges the buckets'
// candidates with the singletons, as streams, up to the cut; then it
// emits every bucket for its costs and every view shard for its
// assignment.
type cutFn struct {
	job
}

func (f *cutFn) ProcessElement(ctx context.Context, _ int, sums func(*bucketSummary) bool, emitBucket func(bucketSummary), emitShard func(int, int)) error {
	if err := f.readPlan(); err != nil {
		return err
	}
	var all []bucketSummary
	var s bucketSummary
	for sums(&s) {
		all = append(all, s)
	}
	slices.SortFunc(all, func(a, b bucketSummary) int { return a.Bucket - b.Bucket })
	c := &cutInfo{L: f.plan.offsets()[len(f.plan.Counts)]}
	rows := 0
	for _, s := range all {
		c.Below += s.Below
		c.Edges += s.Edges
		c.Stats.AddCounts(s.Stats)
		rows += s.Rows
	}
	singletons := c.L - rows
	c.Below += singletons
	c.Stats.AddCounts(clear.Result{Components: singletons, LargestComponent: min(singletons, 1)})
	maxView := slices.Max(f.plan.Counts)
	m, err := clear.UniverseOf(c.Below, c.L, maxView, f.solveOptions())
	if errors.Is(err, clear.ErrWholeSolve) {
		c.Whole = true
		return writeCut(f.Dir, c)
	}
	if err != nil {
		return err
	}
	c.M = m
	lowest := maxView + c.Stats.LargestComponent + 1
	if err := f.merge(all, c, lowest); err != nil {
		return err
	}
	if err := writeCut(f.Dir, c); err != nil {
		return err
	}
	recordBundle(ctx, "cut", int64(len(all))*2*streamBuffer+int64(len(c.Lowest))*24)
	for _, s := range all {
		emitBucket(s)
	}
	for sh := 0; sh*viewsPerShard < len(f.plan.Counts); sh++ {
		emitShard(sh, -1)
	}
	return nil
}

// merge walks the candidates in Solve's order up to the m-th, keeping the
// first lowest of them and the m-th as the cut.
func (f *cutFn) merge(all []bucketSummary, c *cutInfo, lowest int) error {
	var h, srcs pivotHeap
	var obs []*int64Stream
	defer func() {
		for _, s := range srcs {
			s.close()
		}
		for _, s := range obs {
			s.close()
		}
	}()
	for _, s := range all {
		ps, err := openPivots(f.seqPath(s.Bucket))
		if err != nil {
			return err
		}
		srcs = append(srcs, ps)
		ob, err := openInt64s(f.obsPath(s.Bucket))
		if err != nil {
			return err
		}
		obs = append(obs, ob)
		if err := ps.advance(); err != nil {
			return err
		}
		if ps.ok {
			h = append(h, ps)
		}
	}
	single, err := newSingletons(obs, c.L)
	if err != nil {
		return err
	}
	if err := single.advance(); err != nil {
		return err
	}
	if single.ok {
		h = append(h, single)
	}
	heap.Init(&h)
	for n := 1; n <= c.M; n++ {
		if len(h) == 0 {
			return fmt.Errorf("CLEAR's cut: %d pivot candidates for a universe of %d", n-1, c.M)
		}
		top := h[0]
		p := top.cur
		if n <= lowest {
			c.Lowest = append(c.Lowest, p)
		}
		if n == c.M {
			c.Cut = p
			break
		}
		if err := top.advance(); err != nil {
			return err
		}
		if top.ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return nil
}

// pivotSource is a stream of pivots in Solve's order.
type pivotSource struct {
	cur  clear.Pivot
	ok   bool
	next func() (clear.Pivot, bool, error)
	done func()
}

func (s *pivotSource) advance() (err error) {
	s.cur, s.ok, err = s.next()
	return err
}

func (s *pivotSource) close() {
	if s.done != nil {
		s.done()
	}
}

// openPivots streams a bucket's candidates.
func openPivots(path string) (*pivotSource, error) {
	in, err := openInt64s(path)
	if err != nil {
		return nil, err
	}
	next := func() (clear.Pivot, bool, error) {
		var w [3]int64
		for k := range w {
			v, ok, err := in.next()
			if err != nil || !ok {
				if err == nil && k > 0 {
					err = fmt.Errorf("%s: ends inside a pivot", in.path)
				}
				return clear.Pivot{}, false, err
			}
			w[k] = v
		}
		return clear.Pivot{Key: w[0], Row: int(w[1]), Comp: int(w[2])}, true, nil
	}
	return &pivotSource{next: next, done: in.close}, nil
}

// newSingletons streams the observations of 0..l-1 in no part (the
// buckets' observation files, each increasing, merged), each its own
// item's pivot at score 0.
func newSingletons(obs []*int64Stream, l int) (*pivotSource, error) {
	heads := make([]int64, len(obs))
	live := make([]bool, len(obs))
	for k, s := range obs {
		v, ok, err := s.next()
		if err != nil {
			return nil, err
		}
		heads[k], live[k] = v, ok
	}
	// inPart reports whether o is a part's, advancing past it.
	inPart := func(o int64) (bool, error) {
		found := false
		for k, s := range obs {
			for live[k] && heads[k] <= o {
				found = found || heads[k] == o
				v, ok, err := s.next()
				if err != nil {
					return false, err
				}
				heads[k], live[k] = v, ok
			}
		}
		return found, nil
	}
	o := int64(-1)
	next := func() (clear.Pivot, bool, error) {
		for o+1 < int64(l) {
			o++
			in, err := inPart(o)
			if err != nil {
				return clear.Pivot{}, false, err
			}
			if !in {
				return clear.Pivot{Row: int(o), Comp: int(o)}, true, nil
			}
		}
		return clear.Pivot{}, false, nil
	}
	return &pivotSource{next: next}, nil
}

// pivotHeap orders streams by their current pivot.
type pivotHeap []*pivotSource

func (h pivotHeap) Len() int           { return len(h) }
func (h pivotHeap) Less(i, j int) bool { return h[i].cur.Less(h[j].cur) }
func (h pivotHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *pivotHeap) Push(x any)        { *h = append(*h, x.(*pivotSource)) }
func (h *pivotHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
