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
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/imagefile"
	"github.com/clearmatch/clearmatch/pairwise"
)

// TestDescriptorMemoryGivesTheSameResult: with the feature cache on, a
// budget that holds one image's descriptors (every other is read back
// from the cache when needed) gives exactly the result of keeping them all
// in memory and of running without a cache, with and without guided
// matching (which reads descriptors in verification too).
func TestDescriptorMemoryGivesTheSameResult(t *testing.T) {
	ims := stripFolder(t, 5)
	for _, guided := range []bool{false, true} {
		run := func(cache string, budget int64) *Result {
			t.Helper()
			o := DefaultOptions()
			o.Verification.Guided = guided
			o.Cache.Features, o.Cache.DescriptorMemory = cache, budget
			r, err := Run(context.Background(), ims, geom.Intrinsics{}, o)
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

// stripFolder writes n views of a synthetic strip (320×240 PNG) into a
// folder and returns them as images.
func stripFolder(t *testing.T, n int) []Image {
	t.Helper()
	strip, err := datasets.NewStrip(datasets.StripConfig{Views: n, Width: 320, Height: 240, Seed: 7})
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
	return ims
}

// TestImageMemoryGivesTheSameResult: refinement reads the grey images
// extraction kept (all, one, or none of them) and refines exactly as it
// does from the files; the kept images are the files' pixels.
func TestImageMemoryGivesTheSameResult(t *testing.T) {
	ims := stripFolder(t, 4)
	run := func(budget int64) *Result {
		t.Helper()
		o := DefaultOptions()
		o.Cache.ImageMemory = budget
		r, err := Run(context.Background(), ims, geom.Intrinsics{}, o)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	want := run(-1)
	if want.Refinement.Moved == 0 {
		t.Fatal("refinement moved nothing: the test shows nothing")
	}
	for _, budget := range []int64{0, 320 * 240} {
		r := run(budget)
		if !reflect.DeepEqual(r.Refined, want.Refined) || r.Refinement != want.Refinement || !reflect.DeepEqual(r.Item, want.Item) {
			t.Errorf("budget %d: refinement differs from reading the files", budget)
		}
	}
	// Match refines from the kept images alone: the files are gone.
	o := DefaultOptions()
	f, err := o.Features.Run(context.Background(), o.Env, ims)
	if err != nil {
		t.Fatal(err)
	}
	for _, im := range ims {
		g := f.Scene.grays.Get(im.Path, o.Features.MaxPixels)
		file, err := imagefile.Open(im.Path, o.Features.MaxPixels)
		if err != nil || g == nil || !reflect.DeepEqual(g, file.Gray()) {
			t.Fatalf("%s: kept %v, file %v", im.Name, g != nil, err)
		}
		if err := os.Remove(im.Path); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Match(context.Background(), f.Scene, o)
	if err != nil || !reflect.DeepEqual(r.Refined, want.Refined) || r.Refinement != want.Refinement {
		t.Errorf("refined from the kept images alone: %v, or differs", err)
	}
}
