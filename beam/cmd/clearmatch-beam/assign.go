package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"fmt"

	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/internal/atomicfile"
)

// shardCosts are one bucket's rows of one view shard: each row's costs,
// with its component's items (shared by the component's rows) kept once.
type shardCosts struct {
	Items [][]clear.Pivot
	Rows  []costRow
}

type costRow struct {
	Obs, Comp, Items int
	Keys             []int64
}

func costsPath(dir string, shard, bucket int) string {
	return filepath.Join(dir, "parts", "costs", strconv.Itoa(shard), strconv.Itoa(bucket))
}

// costFn decomposes one bucket's parts again (cheaper than keeping their
// eigenvectors between steps) and writes its rows' costs by view shard,
// emitting (shard, bucket) for each it wrote.
type costFn struct {
	job
	Buckets int
}

func (f *costFn) ProcessElement(ctx context.Context, s bucketSummary, emit func(int, int)) error {
	c, err := f.readCut()
	if err != nil {
		return err
	}
	solves, _, edges, err := f.bucketParts(ctx, s.Bucket, f.Buckets, s.Names)
	if err != nil {
		return err
	}
	shards := map[int]*shardCosts{}
	var held int64
	for _, ps := range solves {
		index := map[int]map[int]int{} // shard → component → its items' index
		for _, r := range ps.Costs(c.Cut) {
			i, _ := f.plan.imageOf(r.Obs)
			sh := i / viewsPerShard
			sc := shards[sh]
			if sc == nil {
				sc = &shardCosts{}
				shards[sh] = sc
			}
			if index[sh] == nil {
				index[sh] = map[int]int{}
			}
			at, ok := index[sh][r.Comp]
			if !ok {
				at = len(sc.Items)
				index[sh][r.Comp] = at
				sc.Items = append(sc.Items, r.Items)
				held += int64(len(r.Items)) * 24
			}
			sc.Rows = append(sc.Rows, costRow{Obs: r.Obs, Comp: r.Comp, Items: at, Keys: r.Keys})
			held += 32 + 8*int64(len(r.Keys))
		}
	}
	recordBundle(ctx, "costs", edges*edgeBytes*3+held)
	for sh, sc := range shards {
		var b bytes.Buffer
		if err := gob.NewEncoder(&b).Encode(sc); err != nil {
			return fmt.Errorf("CLEAR's costs: %w", err)
		}
		if err := atomicfile.Write(costsPath(f.Dir, sh, s.Bucket), b.Bytes()); err != nil {
			return fmt.Errorf("CLEAR's costs: %w", err)
		}
	}
	for sh := range shards {
		emit(sh, s.Bucket)
	}
	return nil
}

// assignFn assigns the observations of one view shard's views to items
// (clear.AssignView), from every bucket's costs for the shard, and writes
// each observation's item, by its pivot's row (parts/items/SHARD).
type assignFn struct {
	job
}

func (f *assignFn) ProcessElement(ctx context.Context, shard int, buckets func(*int) bool, emit func(int)) error {
	c, err := f.readCut()
	if err != nil {
		return err
	}
	var ids []int
	var b int
	for buckets(&b) {
		if b >= 0 {
			ids = append(ids, b)
		}
	}
	slices.Sort(ids)
	byView := map[int][]clear.RowCosts{}
	var held int64
	for _, b := range ids {
		raw, err := os.ReadFile(costsPath(f.Dir, shard, b))
		if err != nil {
			return fmt.Errorf("CLEAR's costs: %w", err)
		}
		held += int64(len(raw))
		var sc shardCosts
		if err := gob.NewDecoder(bytes.NewReader(raw)).Decode(&sc); err != nil {
			return fmt.Errorf("CLEAR's costs %s: %w", costsPath(f.Dir, shard, b), err)
		}
		for _, r := range sc.Rows {
			if r.Items < 0 || r.Items >= len(sc.Items) {
				return fmt.Errorf("CLEAR's costs %s: row %d names items %d of %d", costsPath(f.Dir, shard, b), r.Obs, r.Items, len(sc.Items))
			}
			i, _ := f.plan.imageOf(r.Obs)
			byView[i] = append(byView[i], clear.RowCosts{Obs: r.Obs, Comp: r.Comp, Items: sc.Items[r.Items], Keys: r.Keys})
		}
	}
	off := f.plan.offsets()
	var rows []int64
	method := f.solveOptions().Assignment
	for v := shard * viewsPerShard; v < min((shard+1)*viewsPerShard, len(f.plan.Counts)); v++ {
		rs := byView[v]
		slices.SortFunc(rs, func(a, b clear.RowCosts) int { return a.Obs - b.Obs })
		items, err := clear.AssignView(off[v], f.plan.Counts[v], rs, c.Lowest, c.Cut, c.M, method)
		if err != nil {
			return err
		}
		for _, p := range items {
			rows = append(rows, int64(p.Row))
		}
	}
	recordBundle(ctx, "assign", 2*held+8*int64(len(rows)))
	if err := writeInt64s(itemsPath(f.Dir, shard), rows); err != nil {
		return err
	}
	emit(shard)
	return nil
}

func itemsPath(dir string, shard int) string {
	return filepath.Join(dir, "parts", "items", strconv.Itoa(shard))
}

// readSolved reads the pipeline's CLEAR result: nil when the pipeline did
// not solve (the labels did not settle, no pair verified, or the
// universe exceeds the eigenvalue count), and the assembly solves whole.
func readSolved(dir string, p *storedPlan) (*clear.Result, *cutInfo, error) {
	c, err := readCut(dir)
	if err != nil || c == nil || c.Whole {
		return nil, c, err
	}
	items := make([]clear.Pivot, 0, c.L)
	for sh := 0; sh*viewsPerShard < len(p.Counts); sh++ {
		raw, err := os.ReadFile(itemsPath(dir, sh))
		if err != nil {
			return nil, nil, fmt.Errorf("CLEAR's items: %w", err)
		}
		for k := 0; k+8 <= len(raw); k += 8 {
			items = append(items, clear.Pivot{Row: int(binary.LittleEndian.Uint64(raw[k:]))})
		}
	}
	if len(items) != c.L {
		return nil, nil, fmt.Errorf("CLEAR's items: %d of %d observations", len(items), c.L)
	}
	item, n, err := clear.Number(items)
	if err != nil {
		return nil, nil, err
	}
	r := &clear.Result{Item: item, Items: n, UniverseSize: c.M, BelowThreshold: c.Below}
	r.AddCounts(c.Stats)
	return r, c, nil
}

// solved is the pipeline's CLEAR result, if it has one, for the assembly.
type solved struct {
	result *clear.Result
	cut    *cutInfo
}

// readSolvedJob reads the job's CLEAR result from its folder.
func readSolvedJob(dir string) (*solved, error) {
	p, err := readPlan(dir)
	if err != nil {
		return &solved{}, nil // no plan: no image was usable, nothing was solved
	}
	r, c, err := readSolved(dir, p)
	if err != nil {
		return nil, err
	}
	return &solved{result: r, cut: c}, nil
}

// describe says where CLEAR ran.
func (s *solved) describe(rounds int64, unsettled bool, changes string) string {
	switch {
	case s.result != nil:
		return fmt.Sprintf("CLEAR solved in parts: components after %d rounds of label propagation (labels changed: %s), universe %d", rounds, changes, s.cut.M)
	case unsettled:
		return fmt.Sprintf("CLEAR left to the assembly: the components' labels still changed after %d rounds", labelRounds)
	case s.cut != nil && s.cut.Whole:
		return "CLEAR left to the assembly: the universe exceeds the eigenvalue count, which needs the whole solve"
	}
	return "CLEAR left to the assembly: no verified matches"
}
