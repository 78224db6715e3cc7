package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/clearmatch/clearmatch/internal/cli/match"
)

// Batch sizes: an extraction batch is a few images, a pair batch enough
// pairs that a worker's cores stay busy and its set cache is reused.
const (
	imagesPerBatch = 4
	pairsPerBatch  = 32
)

// build makes the pipeline: extract (sharded) → plan (one element, after
// every extraction) → with retrieval: code (sharded) → rank (sharded,
// after every code) → select (one element) → match and verify (sharded)
// → completion's rounds, each after every pair of the rounds before it.
func build(args []string, images, rounds int, dir string) *beam.Pipeline {
	p, s := beam.NewPipelineWithRoot()
	j := job{Args: args, Dir: dir}
	var batches []imageBatch
	for i := 0; i < images; i += imagesPerBatch {
		b := imageBatch{}
		for k := i; k < min(i+imagesPerBatch, images); k++ {
			b.Images = append(b.Images, k)
		}
		batches = append(batches, b)
	}
	extracted := beam.ParDo(s.Scope("extract"), &extractFn{job: j}, beam.Reshuffle(s, beam.CreateList(s, batches)))
	first, toCode := beam.ParDo2(s.Scope("plan"), &planFn{job: j, Batch: pairsPerBatch}, beam.GroupByKey(s, beam.AddFixedKey(s, extracted)))
	coded := beam.ParDo(s.Scope("codes"), &codeFn{job: j}, beam.Reshuffle(s, toCode))
	blocks := beam.ParDo(s.Scope("rank"), &blocksFn{job: j, Block: rankBlock}, beam.GroupByKey(s, beam.AddFixedKey(s, coded)))
	ranked := beam.ParDo(s.Scope("rank"), &rankFn{job: j, Block: rankBlock}, beam.Reshuffle(s, blocks))
	chosen := beam.ParDo(s.Scope("select"), &selectFn{job: j, Batch: pairsPerBatch}, beam.GroupByKey(s, beam.AddFixedKey(s, ranked)))
	all, edges := beam.ParDo2(s.Scope("pairs"), &pairFn{job: j}, beam.Reshuffle(s, beam.Flatten(s, first, chosen)))
	edgeFiles := []beam.PCollection{edges}
	for r := 1; r <= rounds; r++ {
		sr := s.Scope(fmt.Sprintf("completion%d", r))
		proposed := beam.ParDo(sr, &completeFn{job: j, Round: r, Batch: pairsPerBatch}, beam.GroupByKey(sr, beam.AddFixedKey(sr, all)))
		next, untried := beam.ParDo2(sr, &chainFn{job: j}, beam.Reshuffle(sr, proposed))
		results, edges := beam.ParDo2(sr, &pairFn{job: j}, beam.Reshuffle(sr, next))
		all = beam.Flatten(sr, all, untried, results)
		edgeFiles = append(edgeFiles, edges)
	}
	solveInParts(s.Scope("solve"), j, beam.Flatten(s, edgeFiles...), images)
	return p
}

// solveInParts adds CLEAR, part by part, after every pair's verification:
// the components by labelRounds rounds of min-label propagation, then
// the buckets' parts, the cut, the costs and the views' assignment.
func solveInParts(s beam.Scope, j job, files beam.PCollection, images int) {
	gated := labelGate(s, 1, files, nil)
	for r := 1; r <= labelRounds; r++ {
		sr := s.Scope(fmt.Sprintf("labels%d", r))
		ups := beam.ParDo(sr, &labelFn{job: j, Round: r}, gated)
		changed := beam.ParDo(sr, &applyFn{job: j, Round: r}, beam.GroupByKey(sr, ups))
		gated = labelGate(sr, r+1, files, &changed)
	}
	buckets := bucketsFor(images)
	byBucket := beam.ParDo(s, &bucketFn{job: j, Buckets: buckets}, gated)
	sums := beam.ParDo(s, &partFn{job: j, Buckets: buckets}, beam.GroupByKey(s, byBucket))
	toCost, shards := beam.ParDo2(s, &cutFn{job: j}, beam.GroupByKey(s, beam.AddFixedKey(s, sums)))
	costed := beam.ParDo(s, &costFn{job: j, Buckets: buckets}, beam.Reshuffle(s, toCost))
	drain(s, beam.ParDo(s, &assignFn{job: j}, beam.GroupByKey(s, beam.Flatten(s, costed, shards))))
}

// drain ends a branch: every transform has an output, drained here once.
// Prism 2.77 busy-waits through the whole bundle of a transform without
// outputs (its stage loop selects on the bundle's data channel, closed
// from the start when there is no output): with Prism in the process
// that takes a core per running bundle from the workers (c8f8ad9 has the
// measurement).
func drain(s beam.Scope, done beam.PCollection) {
	beam.ParDo0(s, drainFn, beam.GroupByKey(s, beam.AddFixedKey(s, done)))
}

func drainFn(_ int, done func(*int) bool) {
	var n int
	for done(&n) {
	}
}

// labelGate starts label round round after the one before (changed, its
// images' counts; nil before the first) and every pair's verification.
func labelGate(s beam.Scope, round int, files beam.PCollection, changed *beam.PCollection) beam.PCollection {
	msgs := beam.ParDo(s, fileMsg, files)
	if changed != nil {
		msgs = beam.Flatten(s, msgs, beam.ParDo(s, changedMsg, *changed))
	}
	return beam.ParDo(s, &labelGateFn{Round: round}, beam.GroupByKey(s, beam.AddFixedKey(s, msgs)))
}

// runBeam runs the pipeline and reports what its counters say.
func runBeam(ctx context.Context, args []string, m *match.Job, stderr io.Writer) (string, *solved, error) {
	dir := newJobDir(m.Options.Cache.Features, "")
	defer os.RemoveAll(dir)
	rounds := 0
	if !m.Options.Verification.Off && m.Options.Pairs.List == nil {
		rounds = m.Options.Pairs.CompletionRounds() // a plan without retrieval emits none
	}
	start := time.Now()
	fmt.Fprintf(stderr, "beam: %d images, up to %d completion rounds\n", len(m.Images), rounds)
	pr, err := beamx.RunWithMetrics(ctx, build(args, len(m.Images), rounds, dir))
	progress.done()
	if err != nil {
		return "", nil, rootCause(err)
	}
	counters := map[string]int64{}
	state := "no metrics from the runner"
	if pr != nil {
		for _, c := range pr.Metrics().AllMetrics().Counters() {
			counters[c.Key.Name] += c.Committed
		}
		state = stateSummary(pr.Metrics())
	}
	sol, err := readSolvedJob(dir)
	if err != nil {
		return "", nil, err
	}
	return fmt.Sprintf("%d images extracted (%d unreadable), %d pairs matched, %d verified in %.1f s\nbeam: %s\nbeam: %s",
		counters["images_extracted"], counters["images_skipped"], counters["pairs_matched"], counters["pairs_verified"], time.Since(start).Seconds(), state,
		sol.describe(counters["label_rounds"], counters["labels_unsettled"] > 0, labelChanges(counters))), sol, nil
}

// newJobDir names a new job's folder under cache (prefix, then a random
// name); the caller makes it as it writes and removes it at the end.
func newJobDir(cache, prefix string) string {
	id := make([]byte, 8)
	rand.Read(id)
	return filepath.Join(cache, "beam-jobs", prefix+hex.EncodeToString(id))
}

// rootCause is the last line of a failed job's error: Beam wraps a DoFn's
// error (one line, naming the file or value) in the bundle's whole plan.
func rootCause(err error) error {
	lines := strings.Split(strings.ReplaceAll(err.Error(), `\n`, "\n"), "\n")
	for k := len(lines) - 1; k >= 0; k-- {
		if l := strings.TrimSpace(lines[k]); l != "" {
			return fmt.Errorf("the pipeline failed: %s", l)
		}
	}
	return err
}
