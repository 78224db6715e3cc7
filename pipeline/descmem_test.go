//go:build cgo

package pipeline

import (
	"context"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/pairwise"
)

// TestDescriptorMemoryGivesTheSameResult: with the feature cache on, a
// budget that holds one image's descriptors (every other is read back
// from the cache when needed) gives exactly the result of keeping them all
// in memory and of running without a cache, with and without guided
// matching (which reads descriptors in verification too).
func TestDescriptorMemoryGivesTheSameResult(t *testing.T) {
	strip, err := datasets.NewStrip(datasets.StripConfig{Views: 5, Width: 320, Height: 240, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for k := 0; k < strip.Views(); k++ {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("v%d.png", k)))
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(f, strip.Render(k)); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	ims, err := Images([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, guided := range []bool{false, true} {
		run := func(cache string, budget int64) *Result {
			t.Helper()
			o := DefaultOptions()
			o.Verification.NoGuided = !guided
			o.Cache.Features, o.Cache.DescriptorMemory = cache, budget
			r, err := Run(context.Background(), ims, o)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		cache := t.TempDir()
		want := run("", 0)
		all := run(cache, -1)
		one := run(cache, 1)
		if one.DescriptorLoads == 0 || all.DescriptorLoads != 0 {
			t.Errorf("guided %v: %d loads with a one-byte budget, %d with all in memory", guided, one.DescriptorLoads, all.DescriptorLoads)
		}
		for name, r := range map[string]*Result{"all in memory": all, "one-byte budget": one} {
			if !reflect.DeepEqual(r.Matches, want.Matches) || !reflect.DeepEqual(r.Verified, want.Verified) || !reflect.DeepEqual(r.Clear.Item, want.Clear.Item) || !reflect.DeepEqual(r.Item, want.Item) {
				t.Errorf("guided %v, %s: result differs from the run without a cache", guided, name)
			}
		}
		for i, s := range one.Sets {
			b, err := s.DescriptorBytes()
			if !s.Released() || err != nil || !reflect.DeepEqual(b, want.Sets[i].Bytes()) {
				t.Fatalf("set %d: released %v, %v", i, s.Released(), err)
			}
		}
		if len(want.Verified) == 0 || want.Verified[0].Model == pairwise.NoModel {
			t.Fatal("the strip's first pair did not verify: the test shows nothing")
		}
		if guided && want.Verified[0].Guided == 0 {
			t.Fatal("no guided matches: the test shows nothing")
		}
	}
}
