package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/internal/atomicfile"
)

// CLEAR runs part by part (package clear's SolveParts, step by step): the
// components are hashed into buckets by their first observation, each
// bucket decomposes its parts and writes its pivot candidates in order
// (partFn), one small step merges the buckets' candidates as streams for
// the universe size and the cut (cutFn), each bucket writes its rows'
// costs by view shard (costFn), and each view shard assigns its views'
// observations to items (assignFn). A bucket holds its components, a view
// shard its views' rows; no step holds the graph.

// viewsPerShard is how many views one assignment bundle takes.
const viewsPerShard = 16

// bucketsFor is the number of component buckets for a folder of n
// images: one per 16 images, so a bucket holds about the matches of 16.
func bucketsFor(n int) int { return max(1, (n+15)/16) }

// bucketSummary is what a bucket tells the cut: its edge files, its share
// of the eigenvalue count, its observations and edges, and its counts.
type bucketSummary struct {
	Bucket      int
	Names       []string
	Below, Rows int
	Edges       int64
	Stats       clear.Result // counts only (clear.Result.AddCounts)
}

// bucketFn hashes one pair batch's matches into component buckets by
// their label, once the labels have settled: it writes them grouped by
// bucket (parts/in/NAME) and emits (bucket, NAME) for each bucket it
// filled.
type bucketFn struct {
	job
	Buckets int
}

func (f *bucketFn) ProcessElement(ctx context.Context, g edgeGroup, emit func(int, string)) error {
	if !g.Quiet {
		return nil // the labels did not settle: the assembly solves whole
	}
	if err := f.readPlan(); err != nil {
		return err
	}
	labels, err := labelStore{f.Dir}.images(labelRounds, g.Images, f.plan)
	if err != nil {
		return err
	}
	for _, name := range g.Names {
		if err := f.bucketFile(ctx, name, labels, emit); err != nil {
			return err
		}
	}
	return nil
}

// bucketFile writes one pair batch's matches by bucket.
func (f *bucketFn) bucketFile(ctx context.Context, name string, labels map[int][]int64, emit func(int, string)) error {
	es, err := readEdges(f.Dir, name)
	if err != nil {
		return err
	}
	label := func(o int64) int64 {
		i, x := f.plan.imageOf(int(o))
		return labels[i][x]
	}
	bucket := make([]int, len(es))
	for k, e := range es {
		la, lb := label(e.A), label(e.B)
		if la != lb {
			return fmt.Errorf("pair batch %s: observations %d and %d are matched but labelled %d and %d", name, e.A, e.B, la, lb)
		}
		bucket[k] = int(la % int64(f.Buckets))
	}
	order := make([]int, len(es))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return bucket[a] - bucket[b] })
	start := make([]int64, f.Buckets+1)
	sorted := make([]edge, len(es))
	for k, o := range order {
		sorted[k] = es[o]
		start[bucket[o]+1]++
	}
	for b := range f.Buckets {
		start[b+1] += start[b]
	}
	head := make([]byte, 8*len(start))
	for b, s := range start {
		binary.LittleEndian.PutUint64(head[8*b:], uint64(s))
	}
	if err := atomicfile.Write(filepath.Join(f.Dir, "parts", "in", name), append(head, encodeEdges(sorted)...)); err != nil {
		return fmt.Errorf("a pair batch's matches by component: %w", err)
	}
	recordBundle(ctx, "components", 2*int64(len(es))*edgeBytes+labelBytes(labels))
	for b := range f.Buckets {
		if start[b+1] > start[b] {
			emit(b, name)
		}
	}
	return nil
}

// bucketEdges reads bucket b's edges from the files names.
func bucketEdges(dir string, b, buckets int, names []string) ([]edge, error) {
	var es []edge
	for _, name := range names {
		p := filepath.Join(dir, "parts", "in", name)
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("a pair batch's matches by component: %w", err)
		}
		head := 8 * (buckets + 1)
		if len(raw) < head {
			return nil, fmt.Errorf("%s: %d bytes, shorter than its index", p, len(raw))
		}
		lo, hi := binary.LittleEndian.Uint64(raw[8*b:]), binary.LittleEndian.Uint64(raw[8*(b+1):])
		if lo > hi || head+int(hi)*edgeBytes > len(raw) {
			return nil, fmt.Errorf("%s: bucket %d's edges %d..%d are outside the file", p, b, lo, hi)
		}
		part, err := decodeEdges(raw[head+int(lo)*edgeBytes:head+int(hi)*edgeBytes], p)
		if err != nil {
			return nil, err
		}
		es = append(es, part...)
	}
	return es, nil
}

// partsOf groups a bucket's edges into CLEAR's parts, by first
// observation.
func (j *job) partsOf(es []edge) []clear.Part {
	obs, ends := nodes(es)
	u := newUnionFind(make([]int64, len(obs)))
	for _, e := range ends {
		u.union(e[0], e[1])
	}
	// The root of each set is its least index, so its first observation.
	index := map[int32]int{}
	var parts []clear.Part
	for k, o := range obs {
		r := u.find(int32(k))
		p, ok := index[r]
		if !ok {
			p = len(parts)
			index[r] = p
			parts = append(parts, clear.Part{})
		}
		i, _ := j.plan.imageOf(int(o))
		parts[p].Observations = append(parts[p].Observations, int(o))
		parts[p].Views = append(parts[p].Views, i)
	}
	weighted := j.m.Options.Solve.Weighted
	for k, e := range es {
		w := 0.0
		if weighted {
			w = 1 - float64(e.Ratio)
		}
		p := index[u.find(ends[k][0])]
		parts[p].Associations = append(parts[p].Associations, clear.Association{A: int(e.A), B: int(e.B), W: w})
	}
	return parts
}

// solveOptions are CLEAR's options as match runs it.
func (j *job) solveOptions() *clear.Options {
	o := j.m.Options.Solve.Clear()
	return &o
}

// bucketParts reads bucket b's parts and decomposes each.
func (j *job) bucketParts(ctx context.Context, b, buckets int, names []string) ([]*clear.PartSolve, []clear.Part, int64, error) {
	es, err := bucketEdges(j.Dir, b, buckets, names)
	if err != nil {
		return nil, nil, 0, err
	}
	parts := j.partsOf(es)
	solves := make([]*clear.PartSolve, len(parts))
	for k := range parts {
		if solves[k], err = clear.DecomposePart(ctx, &parts[k], j.solveOptions()); err != nil {
			return nil, nil, 0, err
		}
	}
	return solves, parts, int64(len(es)), nil
}

// partFn decomposes one bucket's parts and writes their pivot candidates,
// merged in order (parts/seq/B), and their observations (parts/obs/B).
type partFn struct {
	job
	Buckets int
}

func (f *partFn) ProcessElement(ctx context.Context, b int, names func(*string) bool, emit func(bucketSummary)) error {
	if err := f.readPlan(); err != nil {
		return err
	}
	s := bucketSummary{Bucket: b}
	var name string
	for names(&name) {
		s.Names = append(s.Names, name)
	}
	slices.Sort(s.Names)
	solves, parts, edges, err := f.bucketParts(ctx, b, f.Buckets, s.Names)
	if err != nil {
		return err
	}
	s.Edges = edges
	var seq []clear.Pivot
	var obs []int64
	for k, ps := range solves {
		s.Below += ps.Below()
		s.Stats.AddCounts(ps.Stats())
		seq = append(seq, ps.Sequence()...)
		for _, o := range parts[k].Observations {
			obs = append(obs, int64(o))
		}
	}
	s.Rows = len(obs)
	slices.SortFunc(seq, clear.Pivot.Compare)
	slices.Sort(obs)
	if err := writeInt64s(f.seqPath(b), pivotWords(seq)); err != nil {
		return err
	}
	if err := writeInt64s(f.obsPath(b), obs); err != nil {
		return err
	}
	recordBundle(ctx, "parts", edges*edgeBytes*3+int64(len(seq))*24+int64(len(obs))*8)
	emit(s)
	return nil
}

func (j *job) seqPath(b int) string { return filepath.Join(j.Dir, "parts", "seq", strconv.Itoa(b)) }
func (j *job) obsPath(b int) string { return filepath.Join(j.Dir, "parts", "obs", strconv.Itoa(b)) }

// pivotWords flattens pivots to (Key, Row, Comp) words.
func pivotWords(ps []clear.Pivot) []int64 {
	w := make([]int64, 0, 3*len(ps))
	for _, p := range ps {
		w = append(w, p.Key, int64(p.Row), int64(p.Comp))
	}
	return w
}

func writeInt64s(path string, ws []int64) error {
	b := make([]byte, 8*len(ws))
	for k, w := range ws {
		binary.LittleEndian.PutUint64(b[8*k:], uint64(w))
	}
	if err := atomicfile.Write(path, b); err != nil {
		return fmt.Errorf("CLEAR's parts: %w", err)
	}
	return nil
}

// streamBuffer is an int64Stream's read buffer: the cut reads two streams
// per bucket at once.
const streamBuffer = 16 << 10

// int64Stream reads a file of little-endian int64 words one at a time.
type int64Stream struct {
	r    *bufio.Reader
	f    *os.File
	path string
}

func openInt64s(path string) (*int64Stream, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("CLEAR's parts: %w", err)
	}
	return &int64Stream{r: bufio.NewReaderSize(f, streamBuffer), f: f, path: path}, nil
}

// next returns the next word; ok is false at the end.
func (s *int64Stream) next() (w int64, ok bool, err error) {
	var b [8]byte
	switch _, err := io.ReadFull(s.r, b[:]); err {
	case nil:
		return int64(binary.LittleEndian.Uint64(b[:])), true, nil
	case io.EOF:
		return 0, false, nil
	default:
		return 0, false, fmt.Errorf("%s: %w", s.path, err)
	}
}

func (s *int64Stream) close() { s.f.Close() }
