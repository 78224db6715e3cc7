package main

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/retrieval"
)

// Retrieval's stages, after the plan trained the vocabulary: code the
// images in batches (codeFn), rank blocks of them against every block
// (rankFn), then choose the pairs from every image's neighbours
// (selectFn). Codes travel through the job's folder; only indices and
// neighbour lists through the pipeline.
type (
	// codeBatch is images Lo to Hi-1 to code, indices into the usable
	// images.
	codeBatch struct{ Lo, Hi int }
	// rowNeighbors is image I's neighbours, most similar first, and its
	// similarity to the first.
	rowNeighbors struct {
		I    int
		Nb   []int
		Best float64
	}
)

// Batch sizes of retrieval's stages: coding reads an image's features at
// a time, ranking holds two blocks of codes (retrieval's, 4 MiB each at
// 64 words; a variable for tests).
const imagesPerCodeBatch = 16

var rankBlock = retrieval.RankBlock

// codeFn writes each image's code into the job's folder and emits its
// index.
type codeFn struct {
	job
}

func (f *codeFn) ProcessElement(ctx context.Context, b codeBatch, emit func(int)) error {
	o, release, err := f.begin(ctx)
	if err != nil {
		return err
	}
	defer release()
	store := codeStore{f.Dir}
	var most int64
	for i := b.Lo; i < b.Hi; i++ {
		set, err := readSet(ctx, f.plan.Images[i], o)
		if err != nil {
			return err
		}
		code, err := f.plan.Plan.Code(set, o.Matching)
		if err != nil {
			return fmt.Errorf("%s: %w", f.plan.Images[i].Name, err)
		}
		if err := store.put(i, code); err != nil {
			return err
		}
		// The set, its descriptors as matched (floats) and the code.
		most = max(most, setsBytes([]*features.Set{set})+int64(set.Len())*features.DescSize*4+int64(len(code))*4)
		progress.code(1)
		emit(i)
	}
	recordBundle(ctx, "codes", most)
	return nil
}

// blocksFn runs after every image is coded (it takes their indices
// grouped under one key) and emits the blocks of images to rank.
type blocksFn struct {
	job
	Block int
}

func (f *blocksFn) ProcessElement(_ context.Context, _ int, coded func(*int) bool, emit func(int)) {
	n := 0
	var i int
	for coded(&i) {
		n++
	}
	for b := 0; b*f.Block < n; b++ {
		emit(b)
	}
}

// rankFn ranks a block of images against every block and emits each
// image's neighbours.
type rankFn struct {
	job
	Block int
}

func (f *rankFn) ProcessElement(ctx context.Context, b int, emit func(rowNeighbors)) error {
	_, release, err := f.begin(ctx)
	if err != nil {
		return err
	}
	defer release()
	store := codeStore{f.Dir}
	n := len(f.plan.Images)
	size := f.Block
	lo, hi := b*size, min((b+1)*size, n)
	rows, err := store.block(lo, hi)
	if err != nil {
		return err
	}
	k, rel := f.plan.Plan.Neighbors(f.m.Options.Pairs)
	r := retrieval.NewRanking(lo, rows, k)
	var held int64
	for c := 0; c < n; c += size {
		if err := ctx.Err(); err != nil {
			return err
		}
		cols, err := store.block(c, min(c+size, n))
		if err != nil {
			return err
		}
		r.Add(c, cols)
		held = max(held, codesBytes(rows)+codesBytes(cols))
	}
	tops := int64(hi-lo) * int64(k+size) * int64(unsafe.Sizeof(struct {
		s float32
		j int
	}{}))
	recordBundle(ctx, "rank", held+tops)
	for a, nb := range r.Neighbors(rel) {
		row := rowNeighbors{I: lo + a, Nb: nb}
		if len(nb) > 0 {
			first, err := store.get(nb[0])
			if err != nil {
				return err
			}
			row.Best = retrieval.Similarity(rows[a], first)
		}
		emit(row)
	}
	return nil
}

func codesBytes(codes [][]float32) int64 {
	var n int64
	for _, c := range codes {
		n += int64(len(c)) * 4
	}
	return n
}

// selectFn runs after every block is ranked (it takes the images'
// neighbours grouped under one key): it chooses the first round's pairs
// as match does, keeps the plan for the pair stages and completion, and
// emits the pairs in batches.
type selectFn struct {
	job
	Batch int
}

func (f *selectFn) ProcessElement(ctx context.Context, _ int, ranked func(*rowNeighbors) bool, emit func(pairBatch)) error {
	if err := f.readPlan(); err != nil {
		return err
	}
	n := len(f.plan.Images)
	nb := make([][]int, n)
	best := make([]float64, n)
	var r rowNeighbors
	var held int64
	for ranked(&r) {
		nb[r.I], best[r.I] = r.Nb, r.Best
		held += int64(len(r.Nb))*8 + 8
	}
	p := f.plan.Plan
	if err := p.Rank(nb, best, f.m.Options.Pairs); err != nil {
		return err
	}
	if err := writePlan(f.Dir, f.plan); err != nil {
		return err
	}
	recordBundle(ctx, "select", held+int64(len(p.First))*16)
	emitBatches(0, p.First, f.Batch, emit)
	return nil
}
