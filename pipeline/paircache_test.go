package pipeline

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/pairwise"
)

func TestPairCache(t *testing.T) {
	ims, sets := views(5, 40, 3)
	o := DefaultOptions()
	o.Matching.Matcher, o.Verification.Estimator = pairwise.BruteForce{}, identity{}
	dir := t.TempDir()
	o.Cache.Pairs = dir
	run := func(n int, o Options) *Result {
		t.Helper()
		r, err := Match(context.Background(), sceneOf(ims[:n], sets[:n], o), o)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	same := func(a, b *Result) bool {
		return reflect.DeepEqual(a.Matches, b.Matches) && reflect.DeepEqual(a.Verified, b.Verified) && reflect.DeepEqual(a.Clear.Item, b.Clear.Item) && reflect.DeepEqual(a.Item, b.Item)
	}
	noCache := o
	noCache.Cache.Pairs = ""
	want4 := run(4, noCache)

	first := run(4, o)
	if first.PairCacheHits != [2]int{0, 0} || !same(first, want4) {
		t.Fatalf("first run: hits %v, same %v", first.PairCacheHits, same(first, want4))
	}
	second := run(4, o)
	if second.PairCacheHits != [2]int{6, 6} || !same(second, want4) {
		t.Fatalf("second run: hits %v, same %v", second.PairCacheHits, same(second, want4))
	}
	// An image added: only its four pairs are new work.
	ext := run(5, o)
	if ext.PairCacheHits != [2]int{6, 6} || !same(ext, run(5, noCache)) {
		t.Fatalf("extended run: hits %v", ext.PairCacheHits)
	}
	// Other options are other keys.
	ratio := o
	ratio.Matching.Ratio = 0.7
	if r := run(4, ratio); r.PairCacheHits != [2]int{0, 0} {
		t.Fatalf("ratio 0.7 hit the cache of 0.8: %v", r.PairCacheHits)
	}
	// Verification options key the verifications, not the matches.
	thr := o
	thr.Verification.Threshold = 1
	if r := run(4, thr); r.PairCacheHits != [2]int{6, 0} {
		t.Fatalf("verify threshold 1 hit the cache of 3: %v", r.PairCacheHits)
	}
	// Completion's inlier-ratio floor is a verification option of its own.
	c, err := newPairCache(t.TempDir(), sceneOf(ims[:2], sets[:2], o), pairwise.BruteForce{}, identity{}, o.PairStage())
	if err != nil {
		t.Fatal(err)
	}
	floored := o.Verification.VerifyOptions
	floored.MinInlierRatio = 0.25
	if c.verifyParams(floored) == c.verifyParams(o.Verification.VerifyOptions) {
		t.Fatal("the inlier-ratio floor is not in the verification key")
	}
	// Damaged files are recomputed, never trusted.
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) < 20 {
		t.Fatalf("%d cache files", len(files))
	}
	for k, f := range files {
		b, _ := os.ReadFile(f)
		switch k % 3 {
		case 0:
			b[len(b)/2] ^= 0xff
		case 1:
			b = b[:len(b)/2]
		default:
			b = nil
		}
		os.WriteFile(f, b, 0o644)
	}
	if r := run(4, o); !same(r, want4) || r.PairCacheHits[0]+r.PairCacheHits[1] >= 12 {
		t.Fatalf("damaged cache: hits %v, same %v", r.PairCacheHits, same(r, want4))
	}
	// A cache that cannot be written: the run goes on and says why.
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o644)
	bad := o
	bad.Cache.Pairs = filepath.Join(blocker, "pairs")
	if r := run(4, bad); r.PairCacheError == nil || !same(r, want4) {
		t.Fatalf("unwritable cache: err %v", r.PairCacheError)
	}
}

// TestCompactSetsMatchTheSame: sets holding their descriptors as bytes
// (what Run makes) give the pipeline exactly the floats' result.
func TestCompactSetsMatchTheSame(t *testing.T) {
	ims, sets := views(5, 40, 11)
	compact := make([]*features.Set, len(sets))
	for i, s := range sets {
		for k, v := range s.Desc {
			s.Desc[k] = float32(math.Round(math.Min(255, float64(v))))
		}
		c := *s
		c.Desc = append([]float32(nil), s.Desc...)
		if !c.Compact() {
			t.Fatal("integer descriptors not compacted")
		}
		compact[i] = &c
	}
	for _, mode := range []string{PairsExhaustive, PairsRetrieval} {
		o := DefaultOptions()
		o.Matching.Matcher, o.Verification.Estimator = pairwise.BruteForce{}, identity{}
		o.Pairs = PairOptions{Mode: mode, K: 2, Rounds: 1, Retrieval: testRetrieval, CompletionMinInlierRatio: -1, CompletionMinChains: -1}
		a, err := Match(context.Background(), sceneOf(ims, sets, o), o)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Match(context.Background(), sceneOf(ims, compact, o), o)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a.Matches, b.Matches) || !reflect.DeepEqual(a.Verified, b.Verified) || !reflect.DeepEqual(a.Clear.Item, b.Clear.Item) || !reflect.DeepEqual(a.Item, b.Item) {
			t.Fatalf("%s: compact sets give another result", mode)
		}
	}
}
