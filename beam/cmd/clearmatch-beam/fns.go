package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"unsafe"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/internal/cli/match"
	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/pipeline"
)

// The pipeline's elements: batches of image indices (into the job's
// images), batches of pairs (into the usable images) and each pair's
// verification, small enough to shuffle. Features and pair results travel
// through the caches, never through the pipeline.
type (
	// imageBatch is images to extract, indices into the job's images.
	imageBatch struct{ Images []int }
	// pairBatch is pairs to match and verify, indices into the usable
	// images; Round 0 is the first, later ones completion's.
	pairBatch struct {
		Round int
		Pairs [][2]int
	}
	// pairResult is what completion needs of a verified pair.
	pairResult struct {
		I, J, Model         int
		Candidates, Inliers int
	}
)

var (
	imagesExtracted = beam.NewCounter("clearmatch", "images_extracted")
	imagesSkipped   = beam.NewCounter("clearmatch", "images_skipped")
	pairsMatched    = beam.NewCounter("clearmatch", "pairs_matched")
	pairsVerified   = beam.NewCounter("clearmatch", "pairs_verified")
	labelRoundsRun  = beam.NewCounter("clearmatch", "label_rounds")
	labelsUnsettled = beam.NewCounter("clearmatch", "labels_unsettled")
)

func init() {
	register.DoFn3x1[context.Context, imageBatch, func(int), error](&extractFn{})
	register.DoFn5x1[context.Context, int, func(*int) bool, func(pairBatch), func(codeBatch), error](&planFn{})
	register.DoFn3x1[context.Context, codeBatch, func(int), error](&codeFn{})
	register.DoFn4x0[context.Context, int, func(*int) bool, func(int)](&blocksFn{})
	register.DoFn3x1[context.Context, int, func(rowNeighbors), error](&rankFn{})
	register.DoFn4x1[context.Context, int, func(*rowNeighbors) bool, func(pairBatch), error](&selectFn{})
	register.DoFn4x1[context.Context, pairBatch, func(pairResult), func(edgeFile), error](&pairFn{})
	register.DoFn4x1[context.Context, int, func(*pairResult) bool, func(chainBatch), error](&completeFn{})
	register.DoFn4x1[context.Context, chainBatch, func(pairBatch), func(pairResult), error](&chainFn{})
	// CLEAR's steps see few elements (groups, images, buckets, shards), so
	// they run through Beam's reflection: register's generic invokers
	// for them would cost the compiler far more than they save.
	for _, fn := range []any{&labelFn{}, &applyFn{}, &labelGateFn{}, &bucketFn{}, &partFn{}, &cutFn{}, &costFn{}, &assignFn{}} {
		beam.RegisterType(reflect.TypeOf(fn).Elem())
	}
	for _, t := range []any{labelUpdate{}, labelMsg{}, edgeGroup{}, bucketSummary{}} {
		beam.RegisterType(reflect.TypeOf(t))
	}
	beam.RegisterFunction(fileMsg)
	beam.RegisterFunction(changedMsg)
	beam.RegisterFunction(drainFn)
	register.Emitter1[int]()
	register.Emitter1[pairBatch]()
	register.Emitter1[chainBatch]()
	register.Emitter1[pairResult]()
	register.Emitter1[codeBatch]()
	register.Emitter1[rowNeighbors]()
	register.Emitter1[edgeFile]()
	register.Emitter1[edgeGroup]()
	register.Iter1[int]()
	register.Iter1[pairResult]()
	register.Iter1[rowNeighbors]()
}

// job is what every function reads first: match's command line, parsed
// once per function instance in Setup (the options cannot travel as data:
// they hold interfaces), and the job's folder, where the plan is kept.
type job struct {
	Args []string
	// Dir is the job's folder in the cache (the plan), shared by workers.
	Dir  string
	m    *match.Job
	plan *storedPlan
}

func (j *job) Setup() (err error) {
	if j.m, err = match.ParseJob(j.Args, nil); err != nil {
		return fmt.Errorf("match's flags on a worker: %w", err)
	}
	return nil
}

// readPlan reads the plan once: not in Setup, which a runner may call
// before the plan is written.
func (j *job) readPlan() (err error) {
	if j.plan == nil {
		j.plan, err = readPlan(j.Dir)
	}
	return err
}

// begin reads the plan and waits for a core of this process: it returns
// the options to run on it (oneCore) and the core's release.
func (j *job) begin(ctx context.Context) (pipeline.Options, func(), error) {
	if err := j.readPlan(); err != nil {
		return pipeline.Options{}, nil, err
	}
	return oneCore(ctx, j.m.Options)
}

// extractFn writes a batch of images' features into the feature cache and
// emits the indices of those it could read.
type extractFn struct {
	job
}

func (f *extractFn) ProcessElement(ctx context.Context, b imageBatch, emit func(int)) error {
	ims := make([]pipeline.Image, len(b.Images))
	for k, i := range b.Images {
		ims[k] = f.m.Images[i]
	}
	o, release, err := oneCore(ctx, f.m.Options)
	if err != nil {
		return err
	}
	defer release()
	o.Features.Strict = false // a batch may hold one readable image; the plan decides
	// The sets are in the feature cache now; the plan reads them back.
	sets, errs, err := o.Features.RunEach(ctx, o.Env, ims)
	if err != nil {
		return err
	}
	recordBundle(ctx, "extract", setsBytes(sets))
	for k, i := range b.Images {
		if errs[k] != nil {
			imagesSkipped.Inc(ctx, 1)
			continue
		}
		imagesExtracted.Inc(ctx, 1)
		progress.add(1, 0, 0)
		emit(i)
	}
	return nil
}

// planFn runs after every extraction (it takes them grouped under one
// key): it reads the features back, keeps the usable images as match
// does and keeps the plan in the job's folder. Without retrieval it emits
// the first round's pairs in batches; with retrieval it trains the
// vocabulary (its sample in the job's folder) and emits the images to
// code, and selectFn emits the pairs.
type planFn struct {
	job
	Batch int
}

func (f *planFn) ProcessElement(ctx context.Context, _ int, extracted func(*int) bool, emitPairs func(pairBatch), emitCodes func(codeBatch)) error {
	// The extracted indices only order this after every extraction; the
	// plan reads the whole folder's sets back one at a time as it needs
	// them, unreadable images included (it skips them, or fails with
	// -strict, as match does).
	var i int
	for extracted(&i) {
	}
	o := f.m.Options
	o.Pairs.Retrieval.SampleFile = filepath.Join(f.Dir, "sample")
	if err := os.MkdirAll(f.Dir, 0o755); err != nil {
		return err
	}
	counts := make([]int, len(f.m.Images)) // each image's features, for the state
	set := func(i int) (*features.Set, error) {
		s, err := readSet(ctx, f.m.Images[i], o)
		if err == nil {
			counts[i] = s.Len()
		}
		return s, err
	}
	plan, images, err := o.PairStage().PlanStart(ctx, o.Env, f.m.Images, set, o.Features.Strict)
	if err != nil {
		return err
	}
	byName := make(map[string]int, len(f.m.Images))
	for i, im := range f.m.Images {
		byName[im.Name] = i
	}
	kept := make([]int, len(images))
	for k, im := range images {
		kept[k] = counts[byName[im.Name]]
	}
	if err := writePlan(f.Dir, &storedPlan{Plan: plan, Images: images, Counts: kept}); err != nil {
		return err
	}
	recordBundle(ctx, "plan", planBytes(plan, counts))
	if plan.Ready() {
		emitBatches(0, plan.First, f.Batch, emitPairs)
		return nil
	}
	for lo := 0; lo < len(images); lo += imagesPerCodeBatch {
		emitCodes(codeBatch{Lo: lo, Hi: min(lo+imagesPerCodeBatch, len(images))})
	}
	return nil
}

// emitBatches emits pairs in batches of at most size.
func emitBatches(round int, pairs [][2]int, size int, emit func(pairBatch)) {
	for len(pairs) > 0 {
		n := min(size, len(pairs))
		emit(pairBatch{Round: round, Pairs: pairs[:n:n]})
		pairs = pairs[n:]
	}
}

// pairFn matches and verifies a batch of pairs into the pair cache, with
// the feature sets read through this process's set cache.
type pairFn struct {
	job
}

func (f *pairFn) ProcessElement(ctx context.Context, b pairBatch, emit func(pairResult), emitEdges func(edgeFile)) error {
	o, release, err := f.begin(ctx)
	if err != nil {
		return err
	}
	defer release()
	var most int64
	var es []edge
	for _, g := range pairGroups(b.Pairs, imagesPerGroup) {
		n, err := f.verifyGroup(ctx, g, b.Round > 0, o, emit, &es)
		if err != nil {
			return err
		}
		most = max(most, n)
	}
	recordBundle(ctx, "pairs", most)
	progress.add(0, len(b.Pairs), 0)
	if len(es) == 0 {
		return nil
	}
	ef := edgeFile{Name: fmt.Sprintf("%d-%d-%d", b.Round, b.Pairs[0][0], b.Pairs[0][1]), Images: edgeImages(es, f.plan)}
	if err := writeEdges(f.Dir, ef.Name, es); err != nil {
		return err
	}
	emitEdges(ef)
	return nil
}

// imagesPerGroup bounds the images whose features a pair batch holds at
// once: it matches and verifies its pairs a group at a time.
const imagesPerGroup = 8

// pairGroups splits pairs, in order, into runs that read at most max
// images each (a run of one pair when its two images are more).
func pairGroups(pairs [][2]int, max int) [][][2]int {
	var groups [][][2]int
	for _, g := range imageGroups(len(pairs), func(k int) []int { return pairs[k][:] }, max) {
		run := make([][2]int, len(g))
		for k, i := range g {
			run[k] = pairs[i]
		}
		groups = append(groups, run)
	}
	return groups
}

// imageGroups splits items 0..n-1, in order, into runs that read at most
// max images each (a run of one item when its own are more); images(i)
// lists item i's images.
func imageGroups(n int, images func(i int) []int, max int) [][]int {
	var groups [][]int
	var cur []int
	seen := map[int]bool{}
	for i := range n {
		ims := images(i)
		fresh := map[int]bool{}
		for _, im := range ims {
			if !seen[im] {
				fresh[im] = true
			}
		}
		if len(cur) > 0 && len(seen)+len(fresh) > max {
			groups = append(groups, cur)
			cur, seen = nil, map[int]bool{}
		}
		cur = append(cur, i)
		for _, im := range ims {
			seen[im] = true
		}
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	return groups
}

// verifyGroup matches and verifies one group of pairs, with its images'
// sets read through this process's set cache, emits each pair's result
// and returns the bytes it held: the sets and the verified matches.
func (f *pairFn) verifyGroup(ctx context.Context, pairs [][2]int, completion bool, o pipeline.Options, emit func(pairResult), es *[]edge) (int64, error) {
	var ims []int
	for _, p := range pairs {
		ims = append(ims, p[0], p[1])
	}
	ims, local, sets, err := f.localSets(ctx, ims, o)
	if err != nil {
		return 0, err
	}
	scene, err := f.scene(ims, sets)
	if err != nil {
		return 0, err
	}
	vs, err := o.PairStage().Verify(ctx, o.Env, scene, localPairs(pairs, local), completion)
	if err != nil {
		return 0, err
	}
	pairsMatched.Inc(ctx, int64(len(pairs)))
	for _, v := range vs {
		if v.Model != pairwise.NoModel {
			pairsVerified.Inc(ctx, 1)
			progress.add(0, 0, 1)
		}
		// v's images are the group's: the pair cache's hits come first,
		// so vs need not be in the order of pairs.
		emit(pairResult{I: ims[v.I], J: ims[v.J], Model: int(v.Model), Candidates: v.Candidates, Inliers: v.Inliers})
	}
	*es = append(*es, pairEdges(vs, ims, f.plan.offsets())...)
	return setsBytes(sets) + verifiedBytes(vs), nil
}

// localSets reads the sets of images ims (in any order, repeated or not)
// through this process's set cache: it returns the images, increasing,
// each one's index among them, and their sets in that order.
func (j *job) localSets(ctx context.Context, ims []int, o pipeline.Options) ([]int, map[int]int, []*features.Set, error) {
	ims = slices.Compact(slices.Sorted(slices.Values(ims)))
	local := make(map[int]int, len(ims))
	for k, i := range ims {
		local[i] = k
	}
	sets, err := processSets.get(ctx, j.plan.Images, ims, o)
	return ims, local, sets, err
}

// scene is the scene of the plan's images ims with their sets (a
// worker's subset of the images), as the launcher's has them: their
// detection scale and match's camera.
func (j *job) scene(ims []int, sets []*features.Set) (*pipeline.Scene, error) {
	images := make([]pipeline.Image, len(ims))
	for k, i := range ims {
		images[k] = j.plan.Images[i]
	}
	s, err := pipeline.NewScene(images, sets, j.m.Options.Features.Extraction().MaxDim)
	if err != nil {
		return nil, err
	}
	s.Camera = j.m.Camera
	return s, nil
}

// localPairs renumbers pairs by local (localSets').
func localPairs(pairs [][2]int, local map[int]int) [][2]int {
	lp := make([][2]int, len(pairs))
	for k, p := range pairs {
		lp[k] = [2]int{local[p[0]], local[p[1]]}
	}
	return lp
}

// completionCodes is how many retrieval codes completion keeps: 8 MiB at
// 64 words.
const completionCodes = 256

// completeFn is completion's round Round: it takes every pair tried so far
// (grouped under one key) and emits the next round's pairs in batches, or
// none when the plan has no such round.
type completeFn struct {
	job
	Round, Batch int
}

func (f *completeFn) ProcessElement(ctx context.Context, _ int, results func(*pairResult) bool, emit func(chainBatch)) error {
	if err := f.readPlan(); err != nil {
		return err
	}
	var codes *codeCache
	if p := f.plan.Plan; p.Index != nil && p.Index.Codes == nil {
		codes = newCodeCache(codeStore{f.Dir}, completionCodes)
		p.SetCodes(codes.get)
	}
	var all []pairResult
	var r pairResult
	for results(&r) {
		all = append(all, r)
	}
	held := int64(len(all)) * int64(unsafe.Sizeof(pairResult{}))
	if f.Round > f.plan.Plan.Rounds(f.m.Options.PairStage()) {
		recordBundle(ctx, "completion", held)
		return nil
	}
	tried := make(map[[2]int]bool, len(all))
	vs := make([]pairwise.Verified, len(all))
	for k, r := range all {
		tried[[2]int{r.I, r.J}] = true
		vs[k] = pairwise.Verified{I: r.I, J: r.J, Model: pairwise.ModelKind(r.Model), Candidates: r.Candidates, Inliers: r.Inliers}
	}
	next, err := f.plan.Plan.Next(len(f.plan.Images), vs, tried, f.m.Options.Pairs)
	if err != nil {
		return err
	}
	if codes != nil {
		held += codes.bytes()
	}
	recordBundle(ctx, "completion", held)
	hubs := hubsOf(next, all)
	for lo := 0; lo < len(next); lo += f.Batch {
		hi := min(lo+f.Batch, len(next))
		emit(chainBatch{Round: f.Round, Pairs: next[lo:hi:hi], Hubs: hubs[lo:hi:hi]})
	}
	return nil
}
