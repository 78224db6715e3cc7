package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/pipeline"
	"github.com/clearmatch/clearmatch/retrieval"
)

// The bytes a bundle holds at once, per stage: the feature sets it reads
// and the results it builds (for the plan, retrieval's codes and sample;
// for completion, every pair tried so far). Beam measures the elements
// that travel between transforms itself; these count what a function
// holds beside them.
var bundleBytes = map[string]beam.Distribution{}

// stages are the pipeline's stages, in order.
var stages = []string{"extract", "plan", "codes", "rank", "select", "pairs", "completion", "chains", "components", "parts", "cut", "costs", "assign", "templates", "align"}

func init() {
	for _, s := range stages {
		bundleBytes[s] = beam.NewDistribution("clearmatch", "bundle_bytes_"+s)
	}
}

// setsBytes is the memory the sets hold: keypoints and descriptors (as
// floats or bytes; none for a set whose descriptors wait on disk).
func setsBytes(sets []*features.Set) int64 {
	var n int64
	for _, s := range sets {
		if s == nil {
			continue
		}
		n += int64(len(s.Keypoints))*int64(unsafe.Sizeof(features.Keypoint{})) + int64(len(s.Desc))*4 + int64(len(s.Desc8))
	}
	return n
}

// planBytes is the most memory the plan held at once: the image it read
// last (its features, and its descriptors as floats for retrieval), the
// counts, and the plan; with retrieval, training's chunk of the sample
// (the sample itself is in a file), each sample row's distance and the
// words.
func planBytes(p *pipeline.PairPlan, features []int) int64 {
	n := int64(len(features))*8 + int64(len(p.First))*16
	if x := p.Index; x != nil {
		rows := int64(x.SampleRows)
		n += int64(slices.Max(features))*int64(x.Dim)*4*2 + min(rows, retrieval.ChunkRows)*int64(x.Dim)*4 + rows*8 + int64(len(x.Centers))*4
	}
	return n
}

// verifiedBytes is the memory of the pairs' matches.
func verifiedBytes(vs []pairwise.Verified) int64 {
	var n int64
	for _, v := range vs {
		n += int64(len(v.Matches)) * int64(unsafe.Sizeof(pairwise.Match{}))
	}
	return n
}

// recordBundle adds one bundle's bytes to its stage's distribution.
func recordBundle(ctx context.Context, stage string, n int64) {
	bundleBytes[stage].Update(ctx, n)
}

// stateSummary says, from a finished job's metrics, the largest state a
// bundle held in each stage and in all, the bytes that travelled between
// transforms (every PCollection's elements, Beam's sampled sizes times
// their count: an upper bound on what was shuffled) and the largest such
// element.
func stateSummary(res metrics.Results) string {
	stage, most := "", int64(0)
	per := map[string]int64{}
	for _, d := range res.AllMetrics().Distributions() {
		if name, ok := strings.CutPrefix(d.Key.Name, "bundle_bytes_"); ok {
			per[name] = max(per[name], d.Result().Max)
			if per[name] > most {
				stage, most = name, per[name]
			}
		}
	}
	var moved float64
	var element int64
	for _, c := range res.AllMetrics().PCols() {
		v := c.Result()
		if s := v.SampledByteSize; s.Count > 0 {
			moved += float64(v.ElementCount) * float64(s.Sum) / float64(s.Count)
			element = max(element, s.Max)
		}
	}
	var parts []string
	for _, name := range stages {
		if n, ok := per[name]; ok {
			parts = append(parts, fmt.Sprintf("%s %s", name, byteSize(float64(n))))
		}
	}
	out := fmt.Sprintf("largest bundle state %s (%s; per stage: %s), %s between transforms (largest element %s)",
		byteSize(float64(most)), stage, strings.Join(parts, ", "), byteSize(moved), byteSize(float64(element)))
	if peak, ok := peakRSS(); ok {
		out += fmt.Sprintf(", peak RSS so far %s", byteSize(float64(peak)))
	}
	return out
}

// byteSize writes n bytes with a binary prefix: "512 B", "3.4 MiB".
func byteSize(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	u := 0
	for n >= 1024 && u < len(units)-1 {
		n /= 1024
		u++
	}
	if u == 0 {
		return fmt.Sprintf("%.0f B", n)
	}
	return fmt.Sprintf("%.1f %s", n, units[u])
}

// peakRSS is this process's peak resident memory (Linux's VmHWM), in
// bytes: with Prism in-process, the pipeline's peak before the assembly.
func peakRSS() (int64, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024, err == nil
		}
	}
	return 0, false
}
